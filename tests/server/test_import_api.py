"""``POST /api/import`` against a real server: PDN files of several games, a broken game
beside good ones, a FEN, bodies too large (declared and undeclared), and bad JSON."""

from __future__ import annotations

import asyncio
import http.client
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from engine import Game, get_rules
from protocol.client import HttpError, Kondavo
from server.web.import_api import IMPORTS_PER_ADDRESS, MAX_IMPORT_BYTES

DATA = Path(__file__).resolve().parents[1] / "engine" / "data"

TWO_GAMES = """[Event "first"]
[White "Anna"]
[Black "Bram"]
[GameType "20"]
1. 32-28 19-23 2. 28x19 14x23 1-1

[Event "second"]
[GameType "21"]
1. 9-14 22-17 2. 11-15 *
"""


async def refused(call) -> HttpError:
    with pytest.raises(HttpError) as info:
        await call
    return info.value


def raw_post(url: str, body: bytes, headers: dict[str, str], chunked: bool = False):
    """One POST over a plain connection: (status, decoded JSON answer)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    target = f"{parts.path}?{parts.query}" if parts.query else parts.path
    try:
        if chunked:
            connection.putrequest("POST", target)
            for name, value in headers.items():
                connection.putheader(name, value)
            connection.putheader("transfer-encoding", "chunked")
            connection.endheaders()
            for start in range(0, len(body), 16 * 1024):
                piece = body[start : start + 16 * 1024]
                try:
                    connection.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    break  # the server answered and closed before the end: fine
            else:
                connection.send(b"0\r\n\r\n")
        else:
            connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


async def test_a_file_of_two_games_answers_each_with_its_rule_set_moves_and_positions(
    k: Kondavo,
):
    answer = await k.request("POST", "/api/import", {"pdn": TWO_GAMES})
    first, second = answer["games"]
    assert first["variant"] == "international" and second["variant"] == "english"
    assert first["tags"]["White"] == "Anna" and second["tags"]["Event"] == "second"
    assert [m["notation"] for m in first["moves"]] == ["32-28", "19-23", "28x19", "14x23"]
    assert first["moves"][2]["captured"] == ["23"]
    assert (first["result"], first["error"]) == ("draw", None)
    # The FEN after every ply is the engine's own, from the start position on.
    game = Game(get_rules("international"))
    expected = [game.fen()]
    for move in ("32-28", "19-23", "28x19", "14x23"):
        game.play(move)
        expected.append(game.fen())
    assert first["fens"] == expected
    assert len(second["fens"]) == 4 and second["result"] is None
    assert set(answer["layouts"]) == {"international", "english"}
    assert answer["layouts"]["english"]["cols"] == 8


async def test_a_broken_game_comes_with_its_line_and_sentence_and_the_others_are_read(
    k: Kondavo,
):
    text = (DATA / "broken.pdn").read_text()
    games = (await k.request("POST", "/api/import", {"pdn": text}))["games"]
    assert [g["tags"].get("Event") for g in games][:1] == ["one"]
    broken = [g for g in games if g["error"] is not None]
    good = [g for g in games if g["error"] is None]
    assert len(broken) == 3 and len(good) == 3
    for game in broken:
        error = game["error"]
        assert error["code"].startswith("pdn/") and error["message"]
        assert not error["message"].startswith("line ")  # the line is a field of its own
        assert error["line_text"] == text.split("\n")[error["line"] - 1]
    unclosed = next(g for g in broken if g["index"] == 1)
    assert unclosed["error"]["code"] == "pdn/syntax"
    assert "moves" not in unclosed and unclosed["variant"] == "international"


async def test_draws_our_rules_would_have_made_are_listed_and_the_game_goes_on(k: Kondavo):
    text = (DATA / "repetition.pdn").read_text()
    (game,) = (await k.request("POST", "/api/import", {"pdn": text}))["games"]
    assert game["draws_passed"] == [{"ply": 8, "reason": "threefold"}]
    assert len(game["moves"]) == 10 and game["result"] is None


async def test_a_fen_with_its_rule_set_is_one_game_without_moves(k: Kondavo):
    answer = await k.request(
        "POST", "/api/import", {"fen": "B:W18,K30:B11,14", "variant": "russian"}
    )
    (game,) = answer["games"]
    assert game["variant"] == "russian" and game["moves"] == []
    assert game["fens"] == [Game(get_rules("russian"), "B:W18,K30:B11,14").fen()]
    assert game["over_at"] is None and list(answer["layouts"]) == ["russian"]


async def test_a_position_with_no_move_left_says_it_is_over_at_once(k: Kondavo):
    (game,) = (await k.request("POST", "/api/import", {"fen": "W:W:B1,2", "variant": "english"}))[
        "games"
    ]
    assert game["over_at"] == 0 and game["result"] == "black"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"fen": "not a fen", "variant": "english"}, "api/bad_fen"),
        ({"fen": "W:W21:B1", "variant": "chess"}, "api/bad_variant"),
        ({"pdn": "1. 32-28 *", "fen": "W:W21:B1"}, "api/bad_field"),
        ({}, "api/bad_field"),
        ({"pdn": 7}, "api/bad_field"),
        ([1, 2], "api/bad_json"),
    ],
)
async def test_bad_import_requests_get_a_400_with_a_code_and_a_sentence(k: Kondavo, body, code):
    error = await refused(k.request("POST", "/api/import", body))
    assert (error.status, error.code) == (400, code)
    assert error.message and "Traceback" not in error.message


async def test_a_body_that_is_not_json_gets_a_400_and_the_server_carries_on(live, k: Kondavo):
    status, answer = await asyncio.to_thread(
        raw_post,
        f"{live.url}/api/import",
        b'{"pdn": "1. 32-28',
        {"content-type": "application/json"},
    )
    assert status == 400 and answer["error"]["code"] == "api/bad_json"
    assert (await k.request("POST", "/api/import", {"pdn": TWO_GAMES}))["games"]


async def test_a_declared_length_over_the_limit_is_refused_with_413(live):
    body = json.dumps({"pdn": "1. 32-28 19-23 " * (MAX_IMPORT_BYTES // 10)}).encode()
    status, answer = await asyncio.to_thread(
        raw_post, f"{live.url}/api/import", body, {"content-type": "application/json"}
    )
    assert status == 413 and answer["error"]["code"] == "api/too_large"
    assert f"{MAX_IMPORT_BYTES // 1024} KiB" in answer["error"]["message"]


async def test_a_body_without_a_length_is_counted_while_read_and_refused_past_the_limit(
    live,
    k: Kondavo,
):
    body = json.dumps({"pdn": "1. 32-28 19-23 " * (MAX_IMPORT_BYTES // 10)}).encode()
    status, answer = await asyncio.to_thread(
        raw_post, f"{live.url}/api/import", body, {"content-type": "application/json"}, True
    )
    assert status == 413 and answer["error"]["code"] == "api/too_large"
    # Just under the limit, the same way, is read.
    small = json.dumps({"pdn": TWO_GAMES}).encode()
    status, answer = await asyncio.to_thread(
        raw_post, f"{live.url}/api/import", small, {"content-type": "application/json"}, True
    )
    assert status == 200 and len(answer["games"]) == 2


async def test_a_script_may_post_the_pdn_file_itself_as_text(live):
    status, answer = await asyncio.to_thread(
        raw_post,
        f"{live.url}/api/import?variant=english",
        b"1. 9-14 22-17 *\n",
        {"content-type": "text/plain"},
    )
    assert status == 200 and answer["games"][0]["variant"] == "english"
    assert [m["notation"] for m in answer["games"][0]["moves"]] == ["9-14", "22-17"]


async def test_one_address_may_import_only_so_often_and_is_told_so(k: Kondavo):
    body = {"fen": "W:W31:B19", "variant": "international"}
    for _ in range(IMPORTS_PER_ADDRESS):
        await k.request("POST", "/api/import", body)
    error = await refused(k.request("POST", "/api/import", body))
    assert (error.status, error.code) == (429, "rate/limited")
    assert "imports" in error.message
