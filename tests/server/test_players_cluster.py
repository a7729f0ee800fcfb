"""Issue 30 on two real nodes sharing this module's own Redis: the first-move abort fires
once whichever node's timekeeper sees it, with or without sockets; a takeback asked on
one node and accepted on the other reaches everyone once; a player's history survives
both nodes being restarted."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import msgpack
import pytest
import redis
from redis_server import RedisServer, redis_server_or_skip
from test_cluster import Node, assert_in_order_once, two_nodes

from protocol import messages as m
from protocol.client import GameConnection, Kondavo
from server.core.ratings import public_id
from server.store.redis import keys_of

ADA = "ada-secret-player-id-0001"
BOB = "bob-secret-player-id-0002"
FIRST_MOVE_S = 2.5  # long enough for a loaded machine to make the first move in time


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    server = redis_server_or_skip(persistent=True)
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="module")
def nodes(redis_server: RedisServer) -> Iterator[list[Node]]:
    with two_nodes(redis_server.url, {"KONDAVO_FIRST_MOVE_S": str(FIRST_MOVE_S)}) as started:
        yield started


def logged_overs(redis_server: RedisServer, game: str) -> list[dict]:
    """The ``over`` events in the game's log in Redis: what every node would replay."""
    client = redis.Redis.from_url(redis_server.url)
    try:
        entries = client.lrange(keys_of(game).log, 0, -1)
    finally:
        client.close()
    events = [msgpack.unpackb(e, raw=False)["message"] for e in entries]
    return [e for e in events if e["t"] == "over"]


async def wait_for(test, timeout: float = 10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = await test()
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


async def test_the_first_move_abort_fires_once_with_nobody_connected(nodes, redis_server):
    one, two = Kondavo(nodes[0].url), Kondavo(nodes[1].url)
    games = []
    for _ in range(6):
        white = await one.create(variant="english", color="white")
        await two.join(white.game, invite=white.invite)
        games.append(white.game)

    async def all_aborted():
        states = [await one.game(g) for g in games]
        return all(s["status"] == "aborted" for s in states) and states

    states = await wait_for(all_aborted)
    assert {(s["result"], s["reason"]) for s in states} == {(None, "no_first_move")}
    await asyncio.sleep(0.5)  # long enough for a second firing, were there one
    for game in games:
        assert [(o["result"], o["reason"]) for o in logged_overs(redis_server, game)] == [
            (None, "no_first_move")
        ]


async def test_spectators_on_both_nodes_are_told_of_the_abort_once(nodes, redis_server):
    one, two = Kondavo(nodes[0].url), Kondavo(nodes[1].url)
    white = await one.create(variant="international", color="white")
    black = await two.join(white.game, invite=white.invite)
    async with (
        one.connect(white) as a,
        two.connect(black) as b,
        one.connect(white.game) as s1,
        two.connect(white.game) as s2,
    ):
        await a.until(lambda c: c.my_turn)
        await a.move(a.legal[0]["path"])  # White's first move; Black never makes one
        conns: list[GameConnection] = [a, b, s1, s2]
        for conn in conns:
            await conn.until(lambda c: c.status == "aborted", timeout=10)
        await asyncio.sleep(0.3)
        for conn in conns:
            overs = [msg for msg in conn.received if isinstance(msg, m.Over)]
            assert [(o.result, o.reason) for o in overs] == [(None, "no_first_move")]
            assert_in_order_once(conn)
    assert len(logged_overs(redis_server, white.game)) == 1


async def test_a_takeback_asked_on_one_node_and_accepted_on_the_other(nodes):
    one, two = Kondavo(nodes[0].url), Kondavo(nodes[1].url)
    white = await one.create(variant="english", color="white", clock=None)
    black = await two.join(white.game, invite=white.invite)
    async with (
        one.connect(white) as a,
        two.connect(black) as b,
        one.connect(white.game) as s1,
        two.connect(white.game) as s2,
    ):
        for done in range(3):  # counted here: a socket behind the other would name fewer
            await a.until(lambda c, n=done: len(c.moves) == n)
            await b.until(lambda c, n=done: len(c.moves) == n)
            mover = a if a.my_turn else b
            await mover.move(mover.legal[0]["path"])
        for conn in (a, b):
            await conn.until(lambda c: len(c.moves) == 3)
        moves = list(a.moves)  # Black, White, Black: White to move
        await b.ask_takeback()  # Black takes back its own last move only
        await a.until(lambda c: c.takeback_offer == "black")
        await a.accept_takeback()
        for conn in (a, b, s1, s2):
            await conn.until(lambda c: len(c.moves) == 2)
            assert conn.moves == moves[:2]
            backs = [msg for msg in conn.received if isinstance(msg, m.TakenBack)]
            assert [(t.by, t.plies) for t in backs] == [("black", 1)]
            assert_in_order_once(conn)
        assert b.my_turn


async def test_a_players_history_survives_both_nodes_restarting(nodes):
    one, two = Kondavo(nodes[0].url), Kondavo(nodes[1].url)
    white = await one.create(variant="english", color="white", clock=None, name="Ada", player=ADA)
    black = await two.join(white.game, invite=white.invite, name="Bo", player=BOB)
    async with one.connect(white) as a, two.connect(black) as b:
        await b.until(lambda c: c.my_turn)
        await b.move(b.legal[0]["path"])
        await a.until(lambda c: c.my_turn)
        await a.resign()
        await b.until(lambda c: c.status == "finished")
    path = f"/api/players/{public_id(ADA)}/games"

    async def listed():
        found = await two.request("GET", path)
        return [g for g in found["games"] if g["id"] == white.game and g["status"] == "finished"]

    await wait_for(listed)
    for node in nodes:
        node.stop()
        node.start()
    (entry,) = await listed()
    assert entry["result"] == "black" and entry["opponent"]["name"] == "Bo"
