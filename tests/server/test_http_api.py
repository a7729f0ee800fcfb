"""The public HTTP API against a real server: defaults, refusals, and no leaked tokens."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from protocol.client import HttpError, Kondavo


async def refused(call) -> HttpError:
    with pytest.raises(HttpError) as info:
        await call
    return info.value


async def test_an_empty_body_creates_an_english_five_plus_three_friend_game(k: Kondavo):
    answer = await k.request("POST", "/api/games")
    assert set(answer) == {"id", "url", "seat", "invite_url"}
    assert answer["seat"]["color"] in ("white", "black") and len(answer["seat"]["token"]) >= 22
    assert answer["url"].endswith(f"/g/{answer['id']}")
    assert "#invite=" in answer["invite_url"]
    public = await k.game(answer["id"])
    assert public["variant"] == "english" and public["status"] == "waiting"
    assert public["clock"] == {"initial_ms": 300_000, "increment_ms": 3_000}
    assert answer["seat"]["token"] not in json.dumps(public)


async def test_the_creator_may_choose_a_colour_and_an_untimed_game(k: Kondavo):
    ticket = await k.create(variant="turkish", color="black", clock=None, name="Ada")
    public = await k.game(ticket.game)
    assert ticket.side == "black" and public["clock"] is None
    assert public["players"]["black"]["name"] == "Ada" and public["players"]["white"] is None


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"variant": "chess"}, "api/bad_variant"),
        ({"variant": 8}, "api/bad_variant"),
        ({"clock": {"initial_s": -1, "increment_s": 0}}, "api/bad_clock"),
        ({"clock": {"initial_s": 0, "increment_s": 0}}, "api/bad_clock"),
        ({"clock": {"initial_s": True, "increment_s": 0}}, "api/bad_clock"),
        ({"clock": "5+3"}, "api/bad_clock"),
        ({"color": "green"}, "api/bad_field"),
        ({"opponent": "alien"}, "api/bad_field"),
        ({"level": 9}, "api/bad_field"),
        ({"rated": "yes"}, "api/bad_field"),
        ({"name": 7}, "api/bad_field"),
        ({"variant": "english", "fen": "not a fen"}, "api/bad_fen"),
        ({"opponent": "computer", "level": 0}, "api/bad_field"),
        ([1, 2], "api/bad_json"),
    ],
)
async def test_bad_creation_requests_get_a_400_with_a_code_and_a_sentence(
    k: Kondavo, body, code: str
):
    error = await refused(k.request("POST", "/api/games", body))
    assert (error.status, error.code) == (400, code)
    assert error.message and "Traceback" not in error.message


async def test_a_body_that_is_not_json_gets_a_400(live):
    def post() -> tuple[int, dict]:
        request = urllib.request.Request(f"{live.url}/api/games", data=b"{nope", method="POST")
        try:
            urllib.request.urlopen(request)
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())
        return 200, {}

    status, body = await asyncio.to_thread(post)
    assert status == 400 and body["error"]["code"] == "api/bad_json"


async def test_joining_takes_the_free_seat_once(k: Kondavo):
    creator = await k.create(color="white")
    assert (await refused(k.join(creator.game, invite="guess"))).status == 403
    joined = await k.join(creator.game, invite=creator.invite, name="Bo")
    assert joined.side == "black" and joined.token != creator.token
    assert (await refused(k.join(creator.game, invite=creator.invite))).status == 409
    assert (await k.game(creator.game))["status"] == "playing"


async def test_an_open_game_is_joined_without_an_invite_and_leaves_the_lobby(k: Kondavo):
    creator = await k.create(opponent="open")
    assert creator.invite_url is None
    assert any(g["id"] == creator.game for g in (await k.lobby())["open"])
    await k.join(creator.game)
    lobby = await k.lobby()
    assert all(g["id"] != creator.game for g in lobby["open"])
    assert any(g["id"] == creator.game for g in lobby["live"])


async def test_unknown_games_are_404(k: Kondavo):
    assert (await refused(k.game("nope"))).status == 404
    assert (await refused(k.join("nope"))).status == 404
    assert (await refused(k.pdn("nope"))).status == 404


async def test_health_and_the_pages_answer(live, k: Kondavo):
    assert (await k.request("GET", "/healthz"))["status"] == "ok"

    def fetch(path: str) -> tuple[int, str]:
        with urllib.request.urlopen(f"{live.url}{path}") as response:
            return response.status, response.headers["content-type"]

    for path in ("/", "/g/abc"):
        status, kind = await asyncio.to_thread(fetch, path)
        assert status == 200 and kind.startswith("text/html")


async def test_a_fresh_game_has_a_pdn_with_its_game_type(k: Kondavo):
    creator = await k.create(variant="international")
    pdn = await k.pdn(creator.game)
    assert '[GameType "20,W,10,10,N2,0"]' in pdn


async def test_positions_list_every_ply_with_its_board_and_why_pieces_must_capture(
    k: Kondavo,
):
    fen = "W:W15,34,37,38,39,41,45,46,47,50:B1,3,5,6,7,8,9,10,12,17,19,36"
    creator = await k.create(variant="international", fen=fen, color="white", clock=None)
    await k.join(creator.game, invite=creator.invite)
    start = (await k.request("GET", f"/api/games/{creator.game}/positions"))["plies"]
    assert [p["ply"] for p in start] == [0]
    assert start[0]["fen"] == fen and start[0]["last"] is None
    assert start[0]["forced"] == {"code": "most_pieces", "pieces": 5}
    assert ["15", "white", False] in start[0]["pieces"] and len(start[0]["pieces"]) == 22
    async with k.connect(creator) as white:
        await white.move("15x22")
    plies = (await k.request("GET", f"/api/games/{creator.game}/positions?from=1"))["plies"]
    assert [p["ply"] for p in plies] == [1]
    assert plies[0]["last"]["path"][0] == "15" and plies[0]["last"]["path"][-1] == "22"
    assert len(plies[0]["last"]["captured"]) == 5 and len(plies[0]["pieces"]) == 17
    error = await refused(k.request("GET", f"/api/games/{creator.game}/positions?from=7"))
    assert error.status == 400 and error.code == "api/bad_field"
    assert (await refused(k.request("GET", "/api/games/nope/positions"))).status == 404
