"""Players who come back, in real Chromium (issue 30): a name the opponent sees, a
finished game found again under "My games" and stepped through, a takeback against
the computer."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest
from conftest import kondavo_server
from e2e_support import Player, artifacts_dir
from test_vs_computer import start_computer_game


def set_name(page, name: str) -> None:
    form = page.locator("form.name-form")
    form.locator("input.my-name").fill(name)
    form.locator("button.save-name").click()
    form.locator("button.save-name").filter(has_text="Saved").wait_for()


def test_a_name_set_in_the_browser_is_shown_on_the_opponents_page(open_page):
    creator = open_page("/")
    set_name(creator, "Ada")
    creator.locator('[data-choice="variant:russian"]').click()
    creator.locator('[data-choice="clock:none"]').click()
    creator.locator('[data-choice="colour:white"]').click()
    creator.locator('[data-choice="opponent:friend"]').click()
    creator.locator("button.play").click()
    creator.wait_for_url("**/g/*")
    invite = creator.locator("input.invite-url").input_value()
    friend = open_page("/")
    set_name(friend, "Bo")
    friend.goto(invite)
    friend.locator('.player-bar[data-side="white"] .name').filter(has_text="Ada").wait_for()
    creator.locator('.player-bar[data-side="black"] .name').filter(has_text="Bo").wait_for()
    # Renamed on the game page, with a right-to-left override and a zero-width space
    # the server removes: the opponent sees the clean name, the override never.
    set_name(friend, "Bo\u202eb\u200bby")
    creator.locator('.player-bar[data-side="black"] .name').filter(has_text="Bobby").wait_for()
    assert creator.locator('.player-bar[data-side="black"] .name').inner_text() == "Bobby"
    # The lobby's rows and the PDN tags come from the same seats.
    pdn = creator.evaluate("async () => (await fetch(`/api/games/${kondavo.id}/pdn`)).text()")
    assert '[White "Ada"]' in pdn and '[Black "Bobby"]' in pdn
    creator.screenshot(path=str(artifacts_dir() / "names.png"))


def test_a_finished_game_is_found_under_my_games_and_stepped_through(open_page):
    me = start_computer_game(open_page, "brazilian", level=1, rated=False)
    game = me.page.url.rsplit("/", 1)[1]
    for ply in (1, 3):
        me.wait_turn(ply)
        me.play(me.legal()[0]["path"], ply)
        me.wait_ply(ply + 1)
    moves = me.moves()
    me.page.locator("button.resign").click()
    me.page.locator("button.resign.armed").click()
    me.banner().wait_for()
    page = me.page
    page.goto("/")
    page.locator('nav a[href="/my"]').click()
    page.wait_for_url("**/my")
    row = page.locator(f'tr.game-row[data-game="{game}"]')
    row.wait_for()
    assert row.get_attribute("data-outcome") == "loss"
    assert "Computer, level 1" in row.locator(".opponent").inner_text()
    assert "resigned" in row.locator(".result").inner_text()
    page.locator(".variant-filter").select_option("russian")
    page.locator("p.empty").wait_for()
    page.locator(".variant-filter").select_option("brazilian")
    row.locator("a.open-game").click()
    page.wait_for_url(f"**/g/{game}")
    replay = Player(page)
    replay.banner().wait_for()
    assert replay.moves() == moves
    # Step back through the game with the keyboard, as the game page's review allows.
    game_box = page.locator(".game")
    for shown in (3, 2, 1, 0):
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(
            "n => document.querySelector('.game').dataset.reviewing === String(n)", arg=shown
        )
    page.keyboard.press("End")
    page.wait_for_function("() => document.querySelector('.game').dataset.reviewing === ''")
    assert game_box.get_attribute("data-status") == "finished"
    page.locator("button.pdn").wait_for()
    # The public page lists the same game, with a rating chart once there are rated games.
    page.goto("/my")
    page.locator("a.public-page").click()
    page.wait_for_url("**/players/*")
    page.locator(f'tr.game-row[data-game="{game}"]').wait_for()
    page.locator("h1").filter(has_text="Games of").wait_for()


def test_a_takeback_against_the_computer_is_granted_at_once(open_page):
    me = start_computer_game(open_page, "brazilian", level=1, rated=False)
    me.wait_turn(1)
    me.play(me.legal()[0]["path"], 1)
    me.wait_ply(2)  # the computer's reply
    me.page.locator("button.takeback").click()
    me.page.wait_for_function(
        "() => kondavo.state.moves.length === 0 && kondavo.state.legal.length > 0"
    )
    assert me.moves() == []
    # Play goes on: a move, a reply, and the takeback button is there again.
    me.wait_turn(1)
    me.play(me.legal()[-1]["path"], 1)
    me.wait_ply(2)
    assert me.page.locator("button.takeback").is_enabled()


@pytest.fixture
def forgetful_server() -> Iterator[str]:
    """A second server that forgets a finished game's record 2 s after its end, as a
    long-running site forgets it after days; the players' histories stay."""
    with kondavo_server(subprocess.DEVNULL, KONDAVO_FINISHED_KEPT_S="2") as base:
        yield base


def test_a_game_whose_record_expired_is_replayed_from_the_history(open_page, forgetful_server):
    page = open_page("/")
    page.goto(f"{forgetful_server}/")
    page.locator('[data-choice="variant:russian"]').click()
    page.locator('[data-choice="clock:none"]').click()
    page.locator('[data-choice="colour:white"]').click()
    page.locator('[data-choice="opponent:computer"]').click()
    page.locator('[data-choice="level:1"]').click()
    page.locator("button.play").click()
    page.wait_for_url("**/g/*")
    me = Player(page)
    game = page.url.rsplit("/", 1)[1]
    me.wait_turn(1)
    me.play(me.legal()[0]["path"], 1)
    me.wait_ply(2)
    moves = me.moves()
    page.locator("button.resign").click()
    page.locator("button.resign.armed").click()
    me.banner().wait_for()
    page.goto(f"{forgetful_server}/my")
    row = page.locator(f'tr.game-row[data-game="{game}"]')
    row.wait_for()
    for _ in range(60):  # the record is forgotten 2 s after the end (checked as time ticks)
        status = page.evaluate("async id => (await fetch(`/api/games/${id}`)).status", game)
        if status == 404:
            break
        page.wait_for_timeout(250)
    assert status == 404
    row.locator("a.open-game").click()
    replay = page.locator(".history-replay .game.replay")
    replay.wait_for()
    assert page.url.endswith("/my")  # replayed here: the game page has nothing left to show
    shown = [t for t in replay.locator(".movelist .mv").all_text_contents() if t]
    assert shown == moves
