"""The SVG board on its own, in real Chromium: clicks, drags, multi-capture entry,
captured-piece marks and orientation. The board knows no rules, so a toy layout
and a hand-written move list are enough; the full-game tests use the server's."""

from __future__ import annotations

import pytest

# A 6x6 dark-square toy board numbered 1-18 row by row from the top left.
SQUARES = [
    [str(n + 1), col, row]
    for n, (col, row) in enumerate(
        (col, row) for row in range(6) for col in range(6) if (col + row) % 2 == 1
    )
]
LAYOUT = {"cols": 6, "rows": 6, "notation": "numeric", "squares": SQUARES}
PIECES = [
    ["16", "white", False],
    ["17", "white", False],
    ["12", "black", False],
    ["5", "black", False],
    ["13", "black", True],
    ["7", "black", False],
    ["8", "black", False],
]
MOVES = [
    # Two routes from 16 to 2 (different pieces taken), and a branch through 9.
    {"notation": "16x9x2", "path": ["16", "9", "2"], "captured": ["12", "5"]},
    {"notation": "16x11x2", "path": ["16", "11", "2"], "captured": ["13", "7"]},
    {"notation": "16x9x4", "path": ["16", "9", "4"], "captured": ["12", "8"]},
    {"notation": "17-14", "path": ["17", "14"], "captured": []},
]

SETUP = """async ([layout, pieces, moves]) => {
  const { Board } = await import("/static/board.js");
  const stage = document.getElementById("stage");
  stage.replaceChildren();
  window.sent = [];
  const board = new Board(stage, { onMove: (path) => window.sent.push(path) });
  board.setLayout(layout);
  board.setPieces(pieces);
  board.setMoves(moves);
  window.board = board;
}"""


@pytest.fixture
def board_page(browser, static_site):
    context = browser.new_context(viewport={"width": 600, "height": 600})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{static_site}/")
    page.evaluate(SETUP, [LAYOUT, PIECES, MOVES])
    yield page
    context.close()
    assert not errors


def click(page, label):
    page.locator(f'rect[data-square="{label}"]').click()


def sent(page):
    return page.evaluate("window.sent")


def test_board_draws_every_cell_and_marks_the_listed_squares_as_playing_squares(board_page):
    assert board_page.locator("rect.sq").count() == 36
    assert board_page.locator("rect.sq.dark").count() == 18
    assert board_page.locator("rect.sq.dark[data-square]").count() == 18
    assert board_page.locator("rect.sq.light[data-square]").count() == 0
    assert board_page.locator(".piece.king").count() == 1


def test_click_a_piece_then_its_destination_sends_the_path(board_page):
    click(board_page, "17")
    assert board_page.locator('[data-dest="14"]').count() == 1
    click(board_page, "14")
    assert sent(board_page) == [["17", "14"]]


def test_clicking_only_the_last_square_is_enough_when_unambiguous(board_page):
    click(board_page, "16")
    click(board_page, "4")
    assert sent(board_page) == [["16", "9", "4"]]


def test_two_routes_to_one_square_ask_for_the_landing_square_between(board_page):
    click(board_page, "16")
    click(board_page, "2")
    assert sent(board_page) == []
    steps = sorted(
        board_page.locator("[data-step]").evaluate_all("els => els.map(e => e.dataset.step)")
    )
    assert steps == ["11", "9"]
    click(board_page, "11")
    assert sent(board_page) == [["16", "11", "2"]]


def test_landing_squares_clicked_in_order_mark_the_pieces_already_taken(board_page):
    click(board_page, "16")
    click(board_page, "9")
    assert sent(board_page) == []
    captured = board_page.locator(".piece.captured").evaluate_all(
        "els => els.map(e => e.dataset.square)"
    )
    assert captured == ["12"]
    click(board_page, "2")
    assert sent(board_page) == [["16", "9", "2"]]


def test_a_piece_can_be_dragged_to_its_destination(board_page):
    start = board_page.locator('rect[data-square="17"]').bounding_box()
    end = board_page.locator('rect[data-square="14"]').bounding_box()
    mouse = board_page.mouse
    mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    mouse.down()
    mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    mouse.up()
    assert sent(board_page) == [["17", "14"]]


def test_clicking_elsewhere_cancels_the_selection(board_page):
    click(board_page, "17")
    click(board_page, "1")
    assert board_page.locator("[data-dest]").count() == 0
    click(board_page, "14")
    assert sent(board_page) == []


def test_flipping_puts_the_top_row_at_the_bottom(board_page):
    top = board_page.locator('rect[data-square="1"]').bounding_box()["y"]
    board_page.evaluate("window.board.flip()")
    flipped = board_page.locator('rect[data-square="1"]').bounding_box()["y"]
    assert flipped > top
    assert board_page.locator("svg.board").get_attribute("data-bottom") == "black"


def test_clock_text_in_the_browser(board_page):
    # The captured counts no longer parse FENs in the client: the start position is
    # the server's ply 0 (GET /api/games/{id}/positions); client-js/tests covers the rest.
    clocks = board_page.evaluate("""async () => {
        const { formatClock } = await import("/static/game.js");
        return [formatClock(300000), formatClock(61000), formatClock(9950),
                formatClock(3723000), formatClock(-5)];
    }""")
    assert clocks == ["5:00", "1:01", "9.9", "1:02:03", "0.0"]
