"""The computer opponent and the rating lists in real Chromium, against the real server
(``python -m server``: the engine in its process pool)."""

from __future__ import annotations

from e2e_support import Player, artifacts_dir


def start_computer_game(open_page, variant: str, level: int, rated: bool) -> Player:
    page = open_page("/")
    page.locator(f'[data-choice="variant:{variant}"]').click()
    page.locator('[data-choice="clock:none"]').click()
    page.locator('[data-choice="colour:white"]').click()
    page.locator('[data-choice="opponent:computer"]').click()
    page.locator(f'[data-choice="level:{level}"]').click()
    box = page.locator('[data-choice="rated"] input')
    if box.is_checked() != rated:
        box.click()
    page.locator("button.play").click()
    page.wait_for_url("**/g/*")
    return Player(page)


def test_a_game_against_the_computer_started_by_clicks_gets_its_replies(open_page):
    me = start_computer_game(open_page, "brazilian", level=1, rated=True)
    top = me.page.locator('.player-bar[data-side="black"]')
    top.locator(".name").filter(has_text="Computer, level 1").wait_for()
    assert top.locator(".rating").inner_text() == "700"
    assert me.page.locator(".notice.rated").count() == 1
    for ply in (1, 3, 5):
        me.wait_turn(ply)
        me.play(me.legal()[0]["path"], ply)
        me.wait_ply(ply + 1)  # the computer's reply, pushed by the server
    assert len(me.moves()) == 6
    me.page.locator("svg.board").screenshot(path=str(artifacts_dir() / "vs-computer.png"))
    me.page.locator("button.resign").click()
    me.page.locator("button.resign.armed").click()
    me.banner().wait_for()
    assert me.banner().get_attribute("data-result") == "black"
    # The rated result reached both ratings: mine moved, the computer's stayed fixed.
    bottom = me.page.locator('.player-bar[data-side="white"] .rating')
    bottom.filter(has_text="−").wait_for()
    assert "?" in bottom.inner_text()  # one game: still provisional
    assert top.locator(".rating").inner_text() == "700 +0"


def test_the_leaderboard_page_lists_the_rated_players_of_a_rule_set(open_page):
    me = start_computer_game(open_page, "russian", level=8, rated=True)
    me.wait_turn(1)
    me.play(me.legal()[0]["path"], 1)
    me.wait_ply(2)
    me.page.locator("button.resign").click()
    me.page.locator("button.resign.armed").click()
    me.banner().wait_for()
    page = me.page
    page.goto("/")
    page.locator('nav a[href="/ratings"]').click()
    page.wait_for_url("**/ratings")
    page.locator('ul.variants a[href="/ratings/russian"]').click()
    page.wait_for_url("**/ratings/russian")
    mine = page.locator("table.leaderboard tr.me")
    mine.wait_for()
    cells = mine.locator("td").all_text_contents()
    assert cells[2].endswith("?") and int(cells[2][:-1]) < 1500  # lost to level 8: provisional
    assert cells[4] == "1"
    assert page.locator("h1").inner_text() == "Russian: rating list"
    page.locator('button[data-lang="de"]').click()
    page.locator("h1").filter(has_text="Wertungsliste").wait_for()
    page.locator('ul.variants a[href="/ratings/turkish"]').click()
    page.wait_for_url("**/ratings/turkish")
    page.locator("p.empty").wait_for()
    page.screenshot(path=str(artifacts_dir() / "ratings-page.png"))
