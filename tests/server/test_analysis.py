"""The analyst: POST /api/analysis on a real server, its worker pool and its limits."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from typing import Any

import pytest

from engine import Game, accel, get_rules
from engine.analysis import WIN, evaluate_positions, judge_moves, summary
from protocol.client import Kondavo

# The analyst's search in both engines, as tests/engine/conftest.py runs the search
# tests: C is left out only where it is not built and KONDAVO_ENGINE=python says so.
ENGINES = ["python", "c"]
if not accel.built() and os.environ.get("KONDAVO_ENGINE", "").strip() == "python":
    ENGINES = ["python"]


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch) -> str:
    """KONDAVO_ENGINE for the test (the server's analyst workers inherit it)."""
    monkeypatch.setenv("KONDAVO_ENGINE", request.param)
    assert accel.available() == (request.param == "c")
    return request.param


OPENING = ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17"]


def _post(url: str, body: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    request = urllib.request.Request(
        f"{url}/api/analysis",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert answer.headers["content-type"].startswith("application/x-ndjson")
            return answer.status, [json.loads(line) for line in answer if line.strip()]
    except urllib.error.HTTPError as refused:
        return refused.code, [json.loads(refused.read())]


async def analyse(url: str, body: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    return await asyncio.to_thread(_post, url, body)


async def finished_game(k: Kondavo, moves: list[str]) -> str:
    creator = await k.create(variant="english", color="black")
    other = await k.join(creator.game, invite=creator.invite)
    seats = {creator.side: creator, other.side: other}
    async with k.connect(seats["black"]) as black, k.connect(seats["white"]) as white:
        for n, move in enumerate(moves):
            await (black if n % 2 == 0 else white).move(move)
        await white.until(lambda c: len(c.moves) == len(moves))
        await white.resign()
        await black.until(lambda c: c.result is not None)
    return creator.game


async def test_a_finished_game_is_analysed_position_by_position_in_order(serve, engine):
    running = await serve(analysis_nodes=2_000)
    game = await finished_game(running.kondavo, OPENING)
    status, lines = await analyse(running.url, {"game": game})
    assert status == 200
    start, positions, done = lines[0], lines[1:-1], lines[-1]
    assert start["t"] == "start" and start["moves"] == OPENING
    assert len(start["fens"]) == len(OPENING) + 1
    assert start["white_moves"] == [False, True] * 3 + [False]  # Black starts in English
    assert [p["ply"] for p in positions] == list(range(len(OPENING) + 1))
    assert all(p["t"] == "position" and p["depth"] > 0 and p["pv"] for p in positions)
    assert positions[0]["best"] == positions[0]["pv"][0]
    assert done["t"] == "done" and [m["ply"] for m in done["moves"]] == [1, 2, 3, 4, 5, 6, 7]
    assert set(done["summary"]) == {"white", "black"}


async def test_a_game_in_play_is_not_analysed(serve):
    running = await serve()
    creator = await running.kondavo.create(variant="english")
    await running.kondavo.join(creator.game, invite=creator.invite)
    status, (error,) = await analyse(running.url, {"game": creator.game})
    assert status == 409 and error["error"]["code"] == "analysis/game_in_play"


async def test_a_record_that_cannot_be_replayed_is_refused_with_the_engines_reason(serve):
    running = await serve()
    status, (error,) = await analyse(
        running.url, {"variant": "english", "moves": ["11-15", "11-16"]}
    )
    assert status == 400 and error["error"]["code"] == "api/bad_field"
    assert "11-16" in error["error"]["message"]
    status, (error,) = await analyse(running.url, {"variant": "english", "moves": "11-15"})
    assert status == 400 and error["error"]["code"] == "api/bad_field"
    status, (error,) = await analyse(running.url, {"variant": "chess", "moves": []})
    assert status == 400 and error["error"]["code"] == "api/bad_variant"
    status, (error,) = await analyse(running.url, {"game": "no-such-game"})
    assert status == 404 and error["error"]["code"] == "room/not_found"


async def test_any_position_of_any_rule_set_can_be_analysed(serve, engine):
    running = await serve(analysis_nodes=1_000)
    status, lines = await analyse(
        running.url, {"variant": "turkish", "fen": "W:Wa2,Kd4:Bh7,g7", "moves": []}
    )
    assert status == 200
    start, (position,), done = lines[0], lines[1:-1], lines[-1]
    assert start["variant"] == "turkish" and len(start["fens"]) == 1
    assert position["ply"] == 0 and position["white_to_move"] and position["best"]
    assert done == {"t": "done", "moves": [], "summary": done["summary"]}


async def test_an_address_asking_too_often_is_told_to_wait(serve):
    running = await serve(analysis_nodes=1_000, analyses_per_ip=2)
    body = {"variant": "russian", "moves": []}
    assert (await analyse(running.url, body))[0] == 200
    assert (await analyse(running.url, body))[0] == 200
    status, (error,) = await analyse(running.url, body)
    assert status == 429 and error["error"]["code"] == "analysis/limited"


async def test_a_server_without_analyst_workers_says_so(serve):
    running = await serve(analysis_workers=0)
    status, (error,) = await analyse(running.url, {"variant": "english", "moves": []})
    assert status == 503 and error["error"]["code"] == "computer/unavailable"


def test_a_move_that_throws_material_away_is_a_blunder_and_counted_for_its_mover():
    # Black's move hands White three men's worth; White's moves lose nothing much.
    judged = judge_moves([0, 5, 300, 290], [True, False, True])
    assert [j["judgement"] for j in judged] == [None, "blunder", None]
    assert summary(judged, [True, False, True]) == {
        "white": {"blunder": 0, "mistake": 0, "inaccuracy": 0, "average_loss": 5},
        "black": {"blunder": 1, "mistake": 0, "inaccuracy": 0, "average_loss": 295},
    }


def test_losses_beyond_a_won_position_are_not_blunders():
    # +9 men to +20 men: still won, nothing lost that matters.
    assert judge_moves([900, 2000], [False])[0]["judgement"] is None


def test_a_forced_capture_is_looked_past_and_a_lost_position_says_so(engine):
    rules = get_rules("english")
    # White to move must capture 18x11... leaving Black no piece: won at once.
    game = Game(rules, "W:W18:B15")
    (found,) = evaluate_positions("english", game.start_fen, [], [0], nodes=1_000)
    assert found["best"] == "18x11"
    assert found["eval"] == WIN - 1 and found["win_in"] == 1
