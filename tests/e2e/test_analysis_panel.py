"""The analyst's panel on a finished game's page, in real Chromium against the real
server: it analyses the game on request, its graph's cursor follows the ply reviewed
on the board, and a click in the panel (its graph, a marked move) reviews that ply."""

from __future__ import annotations

from test_game_page import OPENING, friends, piece, shown


def test_the_analyst_panel_follows_the_board_and_steers_it(open_page, server):
    white, black = friends(open_page, server, variant="international")
    for ply, path in enumerate(OPENING, start=1):
        (white if ply % 2 else black).play(path, ply)
    page = white.page
    assert page.locator(".analysis").count() == 0  # not while the game is played
    page.locator("button.resign").click()
    page.locator("button.resign.armed").click()
    white.banner().wait_for()

    page.locator(".analysis button.analyse").click()
    page.locator(".analysis .analysis-summary").wait_for(timeout=60_000)
    assert page.locator(".analysis .eval-graph .eval-line").count() == 1
    # The panel shows the engine's line where the board is: the last ply, then ply 2.
    cursor = page.locator(".analysis .eval-graph .cursor")
    last_x = float(cursor.get_attribute("x1"))
    page.locator('.movelist [data-ply="2"]').click()
    assert shown(white) == "2"
    assert float(cursor.get_attribute("x1")) < last_x
    assert page.locator(".analysis .engine-line").count() == 1

    # A click at the graph's left edge reviews the start position.
    box = page.locator(".analysis .eval-graph").bounding_box()
    page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)
    assert shown(white) == "0"
    assert piece(white, "31").count() == 1 and piece(white, "17").count() == 1
    assert float(cursor.get_attribute("x1")) == 0

    # 32-28 gives Black two men: the analyst marks it, and its line steps the board there.
    marked = page.locator(".analysis .analysis-moves li.blunder")
    assert "32-28" in marked.first.inner_text()
    marked.first.locator("button").click()
    assert shown(white) == marked.first.get_attribute("data-ply") == "3"
    assert piece(white, "28").count() == 1 and piece(white, "32").count() == 0
