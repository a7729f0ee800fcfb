"""The import page in real Chromium against the real server: paste PDN or a FEN, step
through a game, see the reader's sentence at the line it names, and play on from any
position against the computer."""

from __future__ import annotations

from pathlib import Path

from e2e_support import artifacts_dir

from engine import Game, get_rules

REPO_DATA = Path(__file__).resolve().parents[1] / "engine" / "data"

TWO_GAMES = """[Event "Club evening"]
[White "Anna"]
[Black "Bram"]
[GameType "20"]
1. 32-28 19-23 2. 28x19 14x23 3. 37-32 10-14 1-1

[Event "Short one"]
[GameType "21"]
1. 9-14 22-17 2. 11-15 *
"""

BROKEN_BESIDE_GOOD = """[Event "good"]
[GameType "20"]
1. 32-28 19-23 *

[Event "bad"]
[GameType "20"]
1. 32-28 19-23 2. 28-22 *

[Event "also good"]
[GameType "20"]
1. 33-28 18-23 *
"""


def board_pieces(page) -> set[tuple[str, str, bool]]:
    """(square, colour, king) of every piece the page's board draws."""
    return {
        (p["square"], p["colour"], p["king"])
        for p in page.evaluate(
            """() => [...document.querySelectorAll("svg.board .piece")].map(g => ({
                 square: g.dataset.square,
                 colour: g.classList.contains("white") ? "white" : "black",
                 king: g.classList.contains("king")}))"""
        )
    }


def engine_pieces(variant: str, fen: str) -> set[tuple[str, str, bool]]:
    game = Game(get_rules(variant), fen)
    return {(label, colour.name.lower(), king) for label, colour, king in game.position.pieces()}


def read(page, text: str) -> None:
    page.locator("textarea.pdn-text").fill(text)
    page.locator("button.read").click()
    page.locator(".game-list li").first.wait_for()


def test_a_pasted_two_game_file_is_listed_and_stepped_through_move_by_move(open_page):
    page = open_page("/")
    page.locator('nav a[href="/import"]').click()
    page.wait_for_url("**/import")
    read(page, TWO_GAMES)
    entries = page.locator(".game-list li")
    assert entries.count() == 2
    assert "Anna – Bram" in entries.nth(0).inner_text()
    assert (
        "English" in entries.nth(1).inner_text() and "3 half-moves" in entries.nth(1).inner_text()
    )
    moves = page.locator(".movelist .mv:not(:empty)")
    assert moves.all_text_contents() == ["32-28", "19-23", "28x19", "14x23", "37-32", "10-14"]
    expected = Game(get_rules("international"))
    assert board_pieces(page) == engine_pieces("international", expected.fen())
    # The arrow keys walk the game; each board is the engine's position after that ply.
    for ply, move in enumerate(["32-28", "19-23", "28x19"], start=1):
        page.keyboard.press("ArrowRight")
        page.locator(f'.movelist[data-shown="{ply}"]').wait_for()
        expected.play(move)
        assert board_pieces(page) == engine_pieces("international", expected.fen())
    assert "Black to move" in page.locator(".replay-position").inner_text()
    page.keyboard.press("End")
    page.locator('.movelist[data-shown="6"]').wait_for()
    page.keyboard.press("Home")
    page.locator('.movelist[data-shown="0"]').wait_for()
    page.keyboard.press("ArrowLeft")  # nothing before the start
    page.locator('.movelist[data-shown="0"]').wait_for()
    # A click on a move shows the board after it.
    page.locator('.movelist .mv[data-ply="4"]').click()
    page.locator('.movelist[data-shown="4"]').wait_for()
    assert page.locator(".movelist .mv.current").inner_text() == "14x23"
    # The second game, an English one, opens on its own board.
    entries.nth(1).locator("button.open-game").click()
    page.locator('.movelist[data-shown="0"]').wait_for()
    assert page.locator("svg.board").get_attribute("data-cols") == "8"
    assert page.locator(".movelist .mv:not(:empty)").all_text_contents() == [
        "9-14",
        "22-17",
        "11-15",
    ]
    page.screenshot(path=str(artifacts_dir() / "import-two-games.png"))


def test_a_broken_game_shows_the_readers_sentence_beside_its_line(open_page):
    page = open_page("/import")
    read(page, BROKEN_BESIDE_GOOD)
    assert page.locator(".game-list li.good").count() == 2
    broken = page.locator(".game-list li.broken")
    assert broken.count() == 1
    failing = broken.locator(".src-line.failing")
    assert failing.get_attribute("data-line") == "7"
    assert failing.locator("code").inner_text() == "1. 32-28 19-23 2. 28-22 *"
    sentence = failing.locator(".reason").inner_text()
    assert "28-22" in sentence and "capture" in sentence
    assert "Games (3)" in page.locator(".import-games h2").inner_text()
    # The good games still open.
    page.locator(".game-list li.good button").nth(1).click()
    assert page.locator(".movelist .mv:not(:empty)").all_text_contents() == ["33-28", "18-23"]
    # In German the page's words change; the reader's sentence is the reader's.
    page.locator('button[data-lang="de"]').click()
    assert "Partien (3)" in page.locator(".import-games h2").inner_text()
    assert "nicht lesbar" in broken.inner_text()
    page.screenshot(path=str(artifacts_dir() / "import-broken.png"))


def test_a_bad_fen_and_an_empty_text_are_answered_in_words(open_page):
    page = open_page("/import")
    page.locator("textarea.pdn-text").fill("W:W99:B1")
    page.locator("button.read").click()
    error = page.locator(".import-error")
    error.wait_for()
    assert "99" in error.inner_text()
    page.locator("textarea.pdn-text").fill("% only a comment\n")
    page.locator("button.read").click()
    page.locator(".import-games .notice").wait_for()
    assert page.locator(".game-list li").count() == 0


def test_play_from_here_against_the_computer_starts_a_game_from_that_position(open_page):
    page = open_page("/import")
    read(page, TWO_GAMES)
    page.locator('.movelist .mv[data-ply="3"]').click()
    page.locator('.movelist[data-shown="3"]').wait_for()
    shown = board_pieces(page)
    page.locator('.play-here [data-choice="opponent:computer"]').click()
    page.locator('.play-here [data-choice="level:1"]').click()
    page.locator('.play-here [data-choice="colour:black"]').click()
    page.locator("button.play-from-here").click()
    page.wait_for_url("**/g/*")
    page.wait_for_function("() => window.kondavo && window.kondavo.state")
    state = page.evaluate("window.kondavo.state")
    expected = Game(get_rules("international"))
    for move in ("32-28", "19-23", "28x19"):
        expected.play(move)
    assert state["variant"] == "international" and state["start_fen"] == expected.fen()
    assert state["you"] == "black" and state["side_to_move"] == "black"
    assert state["players"]["white"]["name"] == "Computer level 1"
    page.locator("svg.board .piece").first.wait_for()
    assert board_pieces(page) == shown


def test_a_fen_in_another_rule_set_opens_and_a_friend_game_starts_from_it(open_page):
    fen = "W:Wa2,b3,Kd4:Bc6,f7"
    page = open_page("/import")
    page.locator("select.variant").select_option("turkish")
    read(page, fen)
    assert page.locator("svg.board").get_attribute("data-cols") == "8"
    assert board_pieces(page) == engine_pieces("turkish", fen)
    page.locator('.play-here [data-choice="opponent:friend"]').click()
    page.locator("button.play-from-here").click()
    page.wait_for_url("**/g/*")
    page.locator("input.invite-url").wait_for()
    state = page.evaluate("window.kondavo.state")
    assert state["variant"] == "turkish"
    assert state["start_fen"] == Game(get_rules("turkish"), fen).fen()


def test_the_import_page_fits_a_phone_and_a_laptop(open_page):
    for width, height in ((1280, 720), (375, 667)):
        page = open_page("/import", width=width, height=height)
        read(page, BROKEN_BESIDE_GOOD + "\n" + TWO_GAMES)
        page.locator(".game-list li.good button").last.click()
        page.keyboard.press("ArrowRight")
        # Nothing runs off the side of the window.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(artifacts_dir() / f"import-{width}x{height}.png"), full_page=True)


def test_where_our_draw_rules_would_have_ended_the_game_is_said_at_that_ply(open_page):
    text = (REPO_DATA / "repetition.pdn").read_text()
    page = open_page("/import")
    read(page, text)
    page.locator('.movelist .mv[data-ply="8"]').click()
    note = page.locator(".replay-position .draw-passed")
    note.wait_for()
    assert "threefold repetition" in note.inner_text()
    page.locator('.movelist .mv[data-ply="9"]').click()
    page.locator('.movelist[data-shown="9"]').wait_for()
    assert note.count() == 0  # the game went on, and so does the replay


def test_an_opened_pdn_file_is_read_at_once(open_page):
    page = open_page("/import")
    page.locator("input.pdn-file").set_input_files(
        files=[{"name": "club.pdn", "mimeType": "text/plain", "buffer": TWO_GAMES.encode()}]
    )
    page.locator(".game-list li").first.wait_for()
    assert page.locator(".game-list li.good").count() == 2
    assert page.locator("textarea.pdn-text").input_value() == TWO_GAMES


SECOND_STARTS = """[Event "Set up"]
[GameType "20"]
[SetUp "1"]
[FEN "B:W31,32,33,34,35,36,37,38,39,40:B11,12,13,14,15,16,17,18,19,20"]
1... 17-21 2. 31-27 12-17 *

[Event "bad"]
[GameType "20"]
1. 32-28 19-23 2. 28-22 *
"""


def test_in_german_the_game_read_is_in_view_numbered_as_pdn_and_its_refusal_german(open_page):
    page = open_page("/import", locale="de-DE", width=1280, height=720)
    read(page, SECOND_STARTS)
    board = page.locator(".import-replay svg.board")
    board.wait_for()
    box = board.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 720  # no scrolling to see it
    # Black began: the list starts "1. … 17-21" and the replay names moves the same way.
    first = page.locator(".movelist ol li").first
    assert first.inner_text().split() == ["1.", "…", "17-21"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator(".replay-position .where").inner_text().startswith("Nach 2. 31-27")
    reason = page.locator(".game-list .broken .reason").inner_text()
    assert reason.startswith("dieser Zug lässt sich nicht nachspielen")
    assert "3 Halbzüge" in page.locator(".game-list .good .meta").inner_text()
