"""The game page a lidraughts player expects (issue 29), in real Chromium against the
real server: reviewing past positions, premoves, the compulsory-capture line, the
turn in the tab title, everything in view at common window sizes, German throughout."""

from __future__ import annotations

import json
import urllib.request

import pytest
from e2e_support import Player

# International: after 31-27 17-21 32-28 Black must take two: 21x32x23.
OPENING = [["31", "27"], ["17", "21"], ["32", "28"], ["21", "32", "23"]]
# White to move must take five with 15 (found with the engine; Position.capture_rule).
MAJORITY_FEN = "W:W15,34,37,38,39,41,45,46,47,50:B1,3,5,6,7,8,9,10,12,17,19,36"
# English, White to move: 14 and 20 can capture, nothing else may move.
CAPTURE_FEN = "W:W14,20,21,22,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,12,13,15,16"


def post(server: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{server}{path}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def seated(open_page, server: str, answer: dict, locale: str = "en-GB", **size) -> Player:
    """A page sitting in the seat the API handed out (as the home page would remember it)."""
    page = open_page("/", locale=locale, **size)
    seat = {"token": answer["seat"]["token"], "side": answer["seat"]["color"]}
    page.evaluate(
        "([game, seat]) => localStorage.setItem('kondavo.seats', JSON.stringify({[game]: seat}))",
        [answer["id"], seat],
    )
    page.goto(f"/g/{answer['id']}")
    page.wait_for_function("() => window.kondavo && window.kondavo.state !== null")
    return Player(page)


def friends(open_page, server: str, **options) -> tuple[Player, Player]:
    """(white, black) of a friend game made through the API, both pages open."""
    locale = options.pop("locale", "en-GB")
    created = post(server, "/api/games", {"color": "white", "clock": None, **options})
    invite = created["invite_url"].split("#invite=")[1]
    joined = post(server, f"/api/games/{created['id']}/join", {"invite": invite})
    return seated(open_page, server, created, locale), seated(open_page, server, joined, locale)


def piece(player: Player, square: str) -> object:
    return player.page.locator(f'svg.board .piece[data-square="{square}"]')


def shown(player: Player) -> str:
    return player.page.locator(".game").get_attribute("data-reviewing")


# --- 1. review any position -------------------------------------------------------------


def test_stepping_back_and_forward_through_a_finished_game(open_page, server):
    white, black = friends(open_page, server, variant="international")
    for ply, path in enumerate(OPENING, start=1):
        (white if ply % 2 else black).play(path, ply)
    white.page.locator("button.resign").click()
    white.page.locator("button.resign.armed").click()
    white.banner().wait_for()

    page = white.page
    page.locator('.movelist [data-ply="2"]').click()
    assert shown(white) == "2"
    assert piece(white, "21").count() == 1 and piece(white, "17").count() == 0
    assert piece(white, "32").count() == 1  # 32-28 is still to come
    assert page.locator("svg.board.past").count() == 1
    # Numbered as the move list is, in the words players use (no "ply").
    bar = page.locator(".review-bar").inner_text()
    assert bar.startswith("You are looking at the position after 1… 17-21.") and "ply" not in bar
    assert "gone on 2 half-moves" in bar

    page.keyboard.press("ArrowRight")
    assert shown(white) == "3" and piece(white, "28").count() == 1
    page.keyboard.press("Home")
    assert shown(white) == "0"
    assert piece(white, "17").count() == 1 and piece(white, "31").count() == 1
    page.keyboard.press("ArrowLeft")  # nothing before the start
    assert shown(white) == "0"
    page.keyboard.press("End")
    assert shown(white) == "" and page.locator("svg.board.past").count() == 0
    assert piece(white, "23").count() == 1 and piece(white, "28").count() == 0
    page.keyboard.press("ArrowUp")
    assert shown(white) == "0"
    page.keyboard.press("ArrowDown")
    assert shown(white) == ""


def test_a_move_arriving_while_looking_back_does_not_move_the_board(open_page, server):
    white, black = friends(open_page, server, variant="international")
    white.play(OPENING[0], 1)
    white.page.keyboard.press("Home")
    assert shown(white) == "0"
    black.play(OPENING[1], 2)
    white.wait_ply(2)
    # Still the start position, and the bar says the game went on.
    assert shown(white) == "0"
    assert piece(white, "31").count() == 1 and piece(white, "21").count() == 0
    assert "2" in white.page.locator(".review-bar").inner_text()
    white.page.locator("button.back-to-game").click()
    assert shown(white) == ""
    assert piece(white, "21").count() == 1 and piece(white, "27").count() == 1
    white.play(OPENING[2], 3)  # and the live board takes moves again


# --- 2. premove ---------------------------------------------------------------------------


def test_a_premove_is_played_when_the_turn_comes_and_an_illegal_one_is_dropped(open_page, server):
    white, black = friends(open_page, server, variant="international")
    white.wait_turn(1)
    black.click("17")
    black.click("21")
    assert black.page.locator("svg.board").get_attribute("data-premove") == "17-21"
    white.play(OPENING[0], 1)
    black.wait_ply(2)  # sent by itself when White had moved
    assert black.moves() == ["31-27", "17-21"]

    # A quiet premove that a compulsory capture makes illegal is dropped without a word.
    black.click("19")
    black.click("24")
    assert black.page.locator("svg.board").get_attribute("data-premove") == "19-24"
    white.play(OPENING[2], 3)
    black.page.wait_for_function("() => window.kondavo.state.legal.length > 0")
    assert black.page.locator("svg.board").get_attribute("data-premove") == ""
    assert len(black.moves()) == 3
    assert black.page.locator(".toast").inner_text() == ""
    black.play(OPENING[3], 4)


def test_a_premove_is_cancelled_by_escape_and_by_a_right_click(open_page, server):
    white, black = friends(open_page, server, variant="international")
    white.wait_turn(1)
    board = black.page.locator("svg.board")
    black.click("17")
    black.click("21")
    black.page.keyboard.press("Escape")
    assert board.get_attribute("data-premove") == ""
    black.click("17")
    black.square("21").click(button="right")
    assert board.get_attribute("data-premove") == ""
    white.play(OPENING[0], 1)
    black.wait_turn(2)
    assert len(black.moves()) == 1


# --- 3. compulsory captures said ----------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "variant", "fen", "click", "sentence", "marked"),
    [
        (
            "en-GB",
            "english",
            CAPTURE_FEN,
            "31",
            "A capture is compulsory: 14 and 20 can capture.",
            ["14", "20"],
        ),
        (
            "de-DE",
            "english",
            CAPTURE_FEN,
            "31",
            "Schlagen ist Pflicht: 14 und 20 können schlagen.",
            ["14", "20"],
        ),
        (
            "en-GB",
            "international",
            MAJORITY_FEN,
            "34",
            "The capture that takes the most pieces (5) is compulsory: 15.",
            ["15"],
        ),
        (
            "de-DE",
            "international",
            MAJORITY_FEN,
            "34",
            "Der Schlag mit den meisten Steinen (5) ist Pflicht: 15.",
            ["15"],
        ),
    ],
)
def test_a_click_on_a_piece_that_may_not_move_says_which_must_capture_and_why(
    open_page, server, locale, variant, fen, click, sentence, marked
):
    white, _ = friends(open_page, server, variant=variant, fen=fen, locale=locale)
    white.page.wait_for_function("() => window.kondavo.state.legal.length > 0")
    # The pieces that may move are marked before anything is clicked.
    movable = white.page.locator("svg.board .piece.movable").evaluate_all(
        "els => els.map(e => e.dataset.square)"
    )
    assert sorted(movable) == marked
    white.click(click)
    hint = white.page.locator(".notice.hint")
    hint.wait_for()
    assert hint.inner_text() == sentence
    assert (
        sorted(
            white.page.locator("svg.board [data-must]").evaluate_all(
                "els => els.map(e => e.dataset.must)"
            )
        )
        == marked
    )
    white.click(marked[0])  # selecting a piece that may move clears the marks
    assert white.page.locator("svg.board [data-must]").count() == 0


# --- 4. your turn ---------------------------------------------------------------------------


def test_the_tab_title_and_the_icon_say_when_it_is_your_turn(open_page, server):
    white, black = friends(open_page, server, variant="international")
    white.wait_turn(1)
    assert white.page.title().startswith("● Your turn — International")
    assert not black.page.title().startswith("●")
    icon = white.page.locator('link[rel="icon"]')
    assert icon.get_attribute("href").startswith("data:image/svg+xml")
    assert white.page.locator(".notice.turn.mine").is_visible()
    white.play(OPENING[0], 1)
    black.wait_turn(2)
    assert black.page.title().startswith("● Your turn")
    white.page.wait_for_function("() => !document.title.startsWith('●')")
    assert white.page.locator('link[rel="icon"]').get_attribute("href") == "/static/favicon.svg"


# --- 5. everything in view --------------------------------------------------------------------


SIZES = [(1280, 720), (1366, 657), (1440, 900), (1920, 969), (375, 667)]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_both_clocks_and_the_whole_board_are_in_view(open_page, server, width, height):
    created = post(
        server,
        "/api/games",
        {"variant": "international", "opponent": "computer", "level": 1, "color": "white"},
    )
    me = seated(open_page, server, created, width=width, height=height)
    me.wait_turn(1)
    boxes = {}
    for name, selector in (
        ("mine", '[data-clock="white"]'),
        ("theirs", '[data-clock="black"]'),
        ("board", "svg.board"),
    ):
        me.page.locator(selector).wait_for()
        # Measured in one step in the page: a player bar is drawn afresh on every event
        # (a spectator arriving, say), so an element found a moment before may be gone.
        box = me.page.evaluate(
            """(selector) => {
                const r = document.querySelector(selector).getBoundingClientRect();
                return r.width && r.height
                    ? {x: r.x, y: r.y, width: r.width, height: r.height} : null;
            }""",
            selector,
        )
        assert box is not None, name
        assert box["x"] >= 0 and box["y"] >= 0, (name, box)
        assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, (name, box)
        boxes[name] = box
    # Opponent above the board, you below it.
    assert boxes["theirs"]["y"] + boxes["theirs"]["height"] <= boxes["board"]["y"] + 1
    assert boxes["mine"]["y"] >= boxes["board"]["y"] + boxes["board"]["height"] - 1
    if width < 500:
        assert boxes["board"]["width"] >= width - 24  # full width on a phone


# --- 7. small things --------------------------------------------------------------------------


def test_the_invite_goes_once_the_friend_has_joined_and_a_watch_link_is_offered(open_page, server):
    white, black = friends(open_page, server, variant="english")
    for person in (white, black):
        assert person.page.locator("button.copy-invite").count() == 0
        watch = person.page.locator("button.copy-watch")
        assert watch.get_attribute("data-url").endswith(f"/g/{person.page.url.rsplit('/', 1)[1]}")


def test_the_player_offered_a_rematch_sees_accept_and_decline_only(open_page, server):
    white, black = friends(open_page, server, variant="international")
    white.play(OPENING[0], 1)
    black.play(OPENING[1], 2)
    white.page.locator("button.resign").click()
    white.page.locator("button.resign.armed").click()
    black.banner().wait_for()
    white.page.locator("button.rematch").click()
    black.page.locator("button.accept-rematch").wait_for()
    assert black.page.locator("button.decline-rematch").is_visible()
    assert black.page.locator("button.rematch").count() == 0


# --- 8. German throughout ----------------------------------------------------------------------

ENGLISH_ONLY = """async () => {
  const en = (await import('/static/i18n/en.js')).default;
  const de = (await import('/static/i18n/de.js')).default;
  const flat = (node, prefix, out) => {
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string') out[prefix + k] = v; else flat(v, prefix + k + '.', out);
    }
    return out;
  };
  const english = flat(en, '', {}), german = flat(de, '', {});
  const text = document.body.innerText;
  const found = [];
  // A fragment that German uses too (a name such as "International") proves nothing.
  const germanText = Object.values(german).join(' | ');
  // The same words in both tables: a copy nobody translated (names excepted).
  const sameOnPurpose = new Set(['site.name', 'site.import']);
  for (const [key, value] of Object.entries(english)) {
    if (!(key in german)) found.push(`no German for ${key}`);
    const words = value.replace(/[{][^}]+[}]/g, '').trim();
    if (german[key] === value && words.length >= 6 && !sameOnPurpose.has(key)) {
      found.push(`untranslated ${key}: ${value}`);
    }
  }
  for (const [key, value] of Object.entries(english)) {
    if (german[key] === value) continue;
    for (const part of value.split(/\\{[^}]+\\}/)) {
      const bit = part.trim();
      if (bit.length >= 6 && !germanText.includes(bit) && text.includes(bit)) {
        found.push(`${key}: ${bit}`);
      }
    }
  }
  return found;
}"""


def test_every_page_in_german_has_no_english_only_string(open_page, server):
    created = post(
        server,
        "/api/games",
        {"variant": "international", "opponent": "computer", "level": 2, "color": "white"},
    )
    game = seated(open_page, server, created, locale="de-DE")
    game.wait_turn(1)
    game.page.wait_for_selector('[data-clock="black"]')
    assert game.page.evaluate(ENGLISH_ONLY) == []
    assert "Computer, Stufe 2" in game.page.locator(".player-bar.black").inner_text()
    assert "Polnisch / International" in game.page.title()
    for path in ("/", "/rules", "/rules/international", "/rules/brazilian", "/ratings", "/import"):
        page = open_page(path, locale="de-DE")
        page.wait_for_selector("main#app > *")
        page.wait_for_timeout(300)
        assert page.evaluate(ENGLISH_ONLY) == [], path
    home = open_page("/", locale="de-DE")
    home.wait_for_selector('[data-choice="variant:english"]')
    cards = home.locator("[data-choice^='variant:']").all_inner_texts()
    assert any("Klassisch / Englisch" in c for c in cards)
    assert any("Polnisch / International" in c for c in cards)
    assert not any("Internationale Regeln" in c for c in cards)


def test_a_spectators_line_after_the_game_is_labelled_once(open_page, server):
    white, black = friends(open_page, server, variant="english")
    white.page.locator("button.abort").click()
    white.banner().wait_for()
    spectator = open_page(white.page.url)
    spectator.locator(".chat-input").fill("well played")
    spectator.locator(".chat button[type=submit]").click()
    line = white.page.locator('.chat .line[data-channel="spectators"]')
    line.wait_for()
    assert line.inner_text() == "[Spectators] well played"


def test_the_lobby_says_who_plays_which_colour_and_coordinates_can_be_hidden(open_page, server):
    post(server, "/api/games", {"variant": "brazilian", "opponent": "open", "color": "black"})
    home = open_page("/", locale="de-DE")
    row = home.locator("table.open-games tr", has_text="Brasilianisch").first
    row.wait_for()
    assert "Anonym spielt Schwarz" in row.inner_text() and "(" not in row.inner_text()
    created = post(
        server,
        "/api/games",
        {"variant": "international", "opponent": "computer", "level": 1, "color": "white"},
    )
    me = seated(open_page, server, created, width=375, height=667)
    me.wait_turn(1)
    numbers = me.page.locator("svg.board .coords text")
    assert numbers.count() == 50
    assert numbers.first.bounding_box()["height"] >= 8  # legible on a phone
    me.page.locator("button.coords-toggle").click()
    assert numbers.count() == 0
    me.page.reload()
    me.wait_turn(1)
    assert numbers.count() == 0  # the choice is kept


def test_a_premove_against_the_computer_is_played_if_legal_when_its_turn_comes(open_page, server):
    from engine import Game, get_rules

    # Level 8 thinks about 3 s a move: time enough to premove during its turn. Its reply
    # to 32-28 is 17-22 (no noise at level 8), which 28x17 then takes; were it another
    # move, the premove would have to be dropped instead, and that is checked too.
    created = post(
        server,
        "/api/games",
        {"variant": "international", "opponent": "computer", "level": 8, "color": "white"},
    )
    me = seated(open_page, server, created)
    me.play(["32", "28"], 1)
    me.click("28")
    me.click("17")
    assert me.page.locator("svg.board").get_attribute("data-premove") == "28-17"
    me.wait_ply(2)
    me.page.wait_for_function(
        "() => !window.kondavo.pending && (window.kondavo.state.moves.length === 3"
        " || window.kondavo.state.legal.length > 0)"
    )
    moves = me.page.evaluate("window.kondavo.state.moves")
    game = Game(get_rules("international"))
    for notation in moves[:2]:
        game.play(notation)
    fits = [m for m in game.legal_moves() if m.to_dict()["path"] == ["28", "17"]]
    if fits:
        me.wait_ply(3)
        assert me.page.evaluate("window.kondavo.state.moves")[2] == fits[0].to_dict()["notation"]
    else:
        assert len(moves) == 2
    assert me.page.locator("svg.board").get_attribute("data-premove") == ""


def test_new_game_lines_up_with_the_buttons_after_the_game(open_page, server):
    white, _ = friends(open_page, server, variant="english")
    white.page.locator("button.abort").click()
    link = white.page.locator("a.new-game")
    link.wait_for()
    pdn = white.page.locator("button.pdn").bounding_box()
    box = link.bounding_box()
    assert abs(box["height"] - pdn["height"]) <= 2
    assert link.evaluate("el => getComputedStyle(el).textDecorationLine") == "none"


def test_a_game_whose_creator_never_came_shows_only_the_first_move_countdown(open_page, server):
    # Made over the API and never opened: its creator counts as gone since then. A
    # game nobody has moved in is aborted by the first-move deadline, never claimed.
    created = post(
        server,
        "/api/games",
        {
            "variant": "international",
            "color": "white",
            "clock": {"initial_s": 300, "increment_s": 3},
        },
    )
    invite = created["invite_url"].split("#invite=")[1]
    friend = Player(open_page(f"/g/{created['id']}#invite={invite}", locale="de-DE"))
    countdown = friend.page.locator(".notice.first-move")
    countdown.wait_for()
    assert "Weiß muss binnen" in countdown.inner_text()
    # Wait past the claim delay (3 s in these tests, counted from the game's creation,
    # before the join that started the 30 s first-move countdown) and before the abort.
    friend.page.wait_for_function("() => window.kondavo.model.abortLeft(Date.now()) < 26_000")
    # A chat line there and back: everything the server sent before it has arrived.
    friend.page.locator(".chat-input").fill("hallo?")
    friend.page.locator(".chat button[type=submit]").click()
    friend.page.locator(".chat .line", has_text="hallo?").wait_for()
    assert friend.page.locator(".claim-countdown").count() == 0
    assert friend.page.locator("button.claim-victory").count() == 0
    assert countdown.count() == 1
    friend.page.locator("button.abort").click()
    friend.banner().wait_for()
