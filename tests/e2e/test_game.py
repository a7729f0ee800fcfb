"""Whole games through the real server in real Chromium: people click, the server
decides, every page (players and spectators) shows the same thing."""

from __future__ import annotations

import re

from e2e_support import Player, artifacts_dir

# A short English game (Black moves first) that Black loses with no pieces left.
# Found by replaying legal moves with the engine; it has single and multiple
# captures and a man crowned mid-way (26x17x10x1).
ENGLISH_GAME = [
    ["9", "13"],
    ["24", "19"],
    ["12", "16"],
    ["19", "12"],
    ["5", "9"],
    ["23", "19"],
    ["1", "5"],
    ["22", "18"],
    ["10", "14"],
    ["21", "17"],
    ["13", "22"],
    ["26", "17", "10", "1"],
    ["2", "6"],
    ["1", "10"],
    ["7", "14", "23"],
    ["27", "18"],
    ["3", "7"],
    ["12", "3"],
    ["9", "14"],
    ["18", "9"],
    ["5", "14"],
    ["3", "10", "17"],
    ["11", "16"],
    ["19", "12"],
    ["4", "8"],
    ["12", "3"],
]
# International: after 31-27 17-21 32-28 Black must take two: 21x32x23.
INTERNATIONAL_OPENING = [["31", "27"], ["17", "21"], ["32", "28"], ["21", "32", "23"]]
# Turkish: after a3-a4 a6-a5 White takes two, a4xa6xa8, and is crowned on a8.
TURKISH_OPENING = [["a3", "a4"], ["a6", "a5"], ["a4", "a6", "a8"]]


def seats(creator: Player, friend: Player, first: str) -> tuple[Player, Player]:
    """(the player who moves first, the other), from what the pages say about themselves."""
    creator_side = creator.page.evaluate("window.kondavo.state.you")
    return (creator, friend) if creator_side == first else (friend, creator)


def screenshot(player: Player, name: str) -> None:
    player.page.locator("svg.board").screenshot(path=str(artifacts_dir() / f"{name}.png"))


def test_two_players_play_an_english_game_to_the_end_and_a_spectator_sees_it(new_game, open_page):
    creator, friend, invite = new_game("english", colour="white")
    game_path = "/g/" + invite.split("/g/", 1)[1].split("#", 1)[0]
    spectator = Player(open_page(game_path))
    black, white = seats(creator, friend, "black")
    assert black is friend  # the creator chose white
    screenshot(white, "board-english-8x8")

    for ply, path in enumerate(ENGLISH_GAME, start=1):
        mover = black if ply % 2 else white
        mover.play(path, ply)

    for person in (white, black, spectator):
        person.banner().wait_for()
        assert person.banner().get_attribute("data-result") == "white"
        assert person.banner().get_attribute("data-reason") == "no_pieces"
    assert "Black has no pieces left." in spectator.banner().inner_text()
    assert "You win" in white.banner().inner_text()
    assert "You lose" in black.banner().inner_text()
    expected = spectator.moves()
    assert len(expected) == len(ENGLISH_GAME)
    assert expected[11] == "26x17x10x1"
    assert white.moves() == expected == black.moves()
    assert spectator.page.locator(".piece.black").count() == 0
    # Black's board is drawn from Black's side, the spectator's from White's.
    assert black.page.locator("svg.board").get_attribute("data-bottom") == "black"
    assert spectator.page.locator("svg.board").get_attribute("data-bottom") == "white"
    screenshot(spectator, "english-final")


def test_an_international_opening_with_a_multi_capture_entered_square_by_square(new_game):
    creator, friend, _ = new_game("international", colour="black")
    white, black = seats(creator, friend, "white")
    screenshot(white, "board-international-10x10")
    for ply, path in enumerate(INTERNATIONAL_OPENING, start=1):
        mover = white if ply % 2 else black
        mover.play(path, ply, every_square=True)
    assert white.moves() == ["31-27", "17-21", "32-28", "21x32x23"]
    # The two captured white men left the board; the black man stands on 23.
    for label in ("27", "28", "32", "21"):
        assert white.page.locator(f'.piece[data-square="{label}"]').count() == 0
    assert white.page.locator('.piece.black[data-square="23"]').count() == 1
    screenshot(black, "international-after-capture-black-side")


def test_a_turkish_opening_with_a_multi_capture_entered_by_its_last_square(new_game):
    creator, friend, _ = new_game("turkish", colour="white")
    white, black = seats(creator, friend, "white")
    screenshot(white, "board-turkish-8x8-all-squares")
    for ply, path in enumerate(TURKISH_OPENING, start=1):
        mover = white if ply % 2 else black
        mover.play(path, ply)
    assert black.moves() == ["a3-a4", "a6-a5", "a4xa6xa8"]
    assert black.page.locator('.piece.white.king[data-square="a8"]').count() == 1
    for label in ("a5", "a7"):
        assert black.page.locator(f'.piece[data-square="{label}"]').count() == 0


def test_mirrored_boards_draw_a1_light(new_game):
    creator, _, _ = new_game("italian", colour="white")
    # a1 is the bottom-left cell; on the Italian board it is not a playing square.
    # Measured in the page and polled: right after the first render the board may
    # still be settling its size, and one early reading found no cell at the corner.
    bottom_left = creator.page.wait_for_function(
        """() => { const board = document.querySelector("svg.board");
            if (!board) return null;
            const box = board.getBoundingClientRect();
            const hits = [...document.querySelectorAll("rect.sq")].filter(e => {
                const r = e.getBoundingClientRect();
                return Math.abs(r.left - box.left) < 2 && Math.abs(r.bottom - box.bottom) < 2; });
            return hits.length === 1 ? [hits[0].getAttribute("class")] : null; }"""
    ).json_value()
    assert bottom_left == ["sq light"]
    screenshot(creator, "board-italian-8x8-mirrored")


def test_a_draw_offer_is_shown_to_everyone_and_accepted(new_game, open_page):
    creator, friend, invite = new_game("russian", colour="white", clock="5+3")
    spectator = Player(open_page("/g/" + invite.split("/g/", 1)[1].split("#", 1)[0]))
    white, black = seats(creator, friend, "white")
    white.play(["c3", "d4"], 1)
    black.play(["f6", "g5"], 2)

    white.page.locator("button.offer-draw").click()
    white.page.locator(".draw-offer").wait_for()
    assert "You offered a draw." in white.page.locator(".draw-offer").inner_text()
    spectator.page.locator(".draw-offer").wait_for()
    assert "White offers a draw." in spectator.page.locator(".draw-offer").inner_text()
    assert spectator.page.locator(".draw-offer button").count() == 0

    black.page.locator("button.accept-draw").click()
    for person in (white, black, spectator):
        person.banner().wait_for()
        assert person.banner().get_attribute("data-result") == "draw"
        assert "Draw agreed." in person.banner().inner_text()


def test_the_page_reconnects_by_itself_and_resumes_after_its_socket_is_killed(
    new_game, open_page, proxy
):
    creator, friend, invite = new_game("english", colour="white")
    game = invite.split("/g/", 1)[1].split("#", 1)[0]
    black, white = seats(creator, friend, "black")
    # White watches its game again through a network that is about to break.
    seat = white.page.evaluate(f"JSON.parse(localStorage['kondavo.seats'])['{game}']")
    flaky = open_page(f"http://127.0.0.1:{proxy.port}/")
    flaky.evaluate(
        "([game, seat]) => localStorage.setItem('kondavo.seats', JSON.stringify({[game]: seat}))",
        [game, seat],
    )
    flaky.goto(f"http://127.0.0.1:{proxy.port}/g/{game}")
    white.page.close()
    white = Player(flaky)
    white.page.locator('.conn[data-conn="online"]').wait_for()
    white.page.evaluate("window.beforeTheCut = true")

    black.play(ENGLISH_GAME[0], 1)
    white.play(ENGLISH_GAME[1], 2)
    proxy.cut(refuse=True)
    white.page.locator('.conn[data-conn="offline"]').wait_for()
    black.play(ENGLISH_GAME[2], 3)  # made while White is away
    proxy.heal()

    white.page.locator('.conn[data-conn="online"]').wait_for(timeout=15_000)
    white.wait_ply(3)
    assert white.moves() == ["9-13", "24-19", "12-16"]
    assert white.page.evaluate("window.beforeTheCut") is True  # never reloaded
    white.play(ENGLISH_GAME[3], 4)
    black.wait_ply(4)


def test_chat_shows_markup_as_text_and_runs_nothing(new_game):
    creator, friend, _ = new_game("brazilian", colour="white")
    payload = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold</b>'
    creator.page.locator("input.chat-input").fill(payload)
    creator.page.locator(".chat form button").click()
    line = friend.page.locator(".chat .line .text").first
    line.wait_for()
    assert line.inner_text() == payload
    for person in (creator, friend):
        assert person.page.locator(".chat img, .chat script, .chat b").count() == 0
        assert person.page.evaluate("window.pwned") is None


def test_a_phone_screen_shows_the_whole_board(new_game):
    creator, friend, _ = new_game("international", colour="white", width=375, height=740)
    for person in (creator, friend):
        page = person.page
        box = page.locator("svg.board").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375
        assert box["width"] > 330
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
    creator.page.screenshot(
        path=str(artifacts_dir() / "phone-375-international.png"), full_page=True
    )


def test_the_flip_button_and_the_f_key_turn_the_board(new_game):
    creator, _, _ = new_game("spanish", colour="white")
    board = creator.page.locator("svg.board")
    assert board.get_attribute("data-bottom") == "white"
    creator.page.locator("button.flip").click()
    assert board.get_attribute("data-bottom") == "black"
    creator.page.keyboard.press("f")
    assert board.get_attribute("data-bottom") == "white"
    screenshot(creator, "board-spanish-8x8-mirrored")


def test_resigning_needs_a_second_click_and_ends_the_game(new_game):
    creator, friend, _ = new_game("english", colour="white")
    black, white = seats(creator, friend, "black")
    black.play(ENGLISH_GAME[0], 1)
    white.play(ENGLISH_GAME[1], 2)
    white.page.locator("button.resign").click()
    assert white.banner().count() == 0
    white.page.locator("button.resign.armed").click()
    black.banner().wait_for()
    assert black.banner().get_attribute("data-reason") == "resign"
    assert re.search("White resigned", black.banner().inner_text())
