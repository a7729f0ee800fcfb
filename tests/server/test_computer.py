"""The computer opponent in a real server: the engine in a process pool, never the loop.

These run a real uvicorn server in the test's loop (conftest.py) with the default
bot: ``engine.levels.choose_move_game`` in a ``ProcessPoolExecutor`` made by the
app's lifespan.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import random
import sys
from pathlib import Path

import pytest

from engine import Game, get_rules
from engine.levels import get_level
from protocol import messages as m
from protocol.client import Kondavo
from server.core import room
from server.core.commands import Sent
from server.core.ratings import computer_id, public_id
from server.net.serve import uvicorn_config
from server.services.computer import BotTable, PoolBot, think_budget
from server.services.games import Games
from server.store import MemoryStore
from server.web.api import _seat_the_computer
from server.web.app import create_app

# This directory's conftest by its path: "conftest" alone may name tests/e2e's.
_spec = importlib.util.spec_from_file_location(
    "server_tests_conftest", Path(__file__).with_name("conftest.py")
)
assert _spec is not None and _spec.loader is not None
_conftest = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _conftest  # its dataclasses look their module up
_spec.loader.exec_module(_conftest)
TEST_SETTINGS, Running, free_port = _conftest.TEST_SETTINGS, _conftest.Running, _conftest.free_port

ALICE = "alice-0123456789abcdef"
BOB = "bob-0123456789abcdef00"


class FirstMoveBot:
    """Instant: the first legal move."""

    def __init__(self) -> None:
        self.calls = 0

    async def choose(self, variant, start_fen, moves, level, time_left_ms):
        self.calls += 1
        return str(Game.replay(get_rules(variant), start_fen, moves).legal_moves()[0])


async def _start(store=None, bot=None, **changes) -> Running:
    import uvicorn

    settings = dataclasses.replace(TEST_SETTINGS, port=free_port(), **changes)
    app = create_app(settings, store=store, bot=bot)
    server = uvicorn.Server(uvicorn_config(settings, app, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    url = f"http://127.0.0.1:{settings.port}"
    running = Running(url, Kondavo(url, timeout=20.0), settings, server)
    running._task = task  # type: ignore[attr-defined]
    return running


async def _stop(running: Running) -> None:
    running.server.should_exit = True
    await asyncio.wait_for(running._task, 20)  # type: ignore[attr-defined]


@pytest.fixture
async def server():
    started: list[Running] = []

    async def start(**kwargs) -> Running:
        running = await _start(**kwargs)
        started.append(running)
        return running

    try:
        yield start
    finally:
        for running in started:
            await _stop(running)


def test_the_think_budget_is_the_levels_and_shrinks_on_a_low_clock():
    assert think_budget(1, None) == get_level(1).think_time == 0.2
    assert think_budget(8, 10 * 60_000) == 3.0
    assert think_budget(8, 6_000) == pytest.approx(0.2)
    assert think_budget(8, 0) == 0.05


async def test_another_game_is_relayed_move_after_move_while_the_computer_thinks(server):
    running = await server()
    k = running.kondavo
    state = running.server.config.app.state
    assert isinstance(state.bot, PoolBot) and state.bot_pool is not None
    # Level 8 thinks 3 s a move: long enough to play another game meanwhile.
    me = await k.create(variant="international", opponent="computer", level=8, color="white")
    white = await k.create(variant="english", color="white")
    black = await k.join(white.game, invite=white.invite)
    async with (
        k.connect(me) as vs_computer,
        k.connect(white) as w,
        k.connect(black) as b,
    ):
        await vs_computer.until(lambda c: c.my_turn)
        await vs_computer.move(vs_computer.legal[0])
        await asyncio.sleep(0.2)
        assert me.game in state.bot_table.thinking
        rng = random.Random(3)
        for _ in range(12):
            mover, other = (b, w) if b.my_turn else (w, b)
            if not mover.my_turn:
                await mover.until(lambda c: c.my_turn)
            seen = len(other.moves)
            await mover.move(rng.choice(mover.legal))
            await other.until(lambda c, seen=seen: len(c.moves) > seen)
            if w.status != "playing":
                break
        # All of it was relayed during one search: the search holds up no other game.
        assert me.game in state.bot_table.thinking
        await vs_computer.until(lambda c: len(c.moves) == 2, timeout=15)
        assert vs_computer.my_turn


async def test_a_game_against_the_computer_is_played_to_its_end(server):
    k = (await server()).kondavo
    me = await k.create(
        variant="russian",
        opponent="computer",
        level=2,
        color="black",
        clock=None,
        rated=True,
        player=ALICE,
        name="Ada",
    )
    rng = random.Random(5)
    async with k.connect(me) as conn:
        while conn.status == "playing":
            await conn.until(lambda c: c.my_turn or c.status != "playing", timeout=10)
            if conn.status == "playing":
                played = len(conn.moves)
                await conn.move(rng.choice(conn.legal))
                await conn.until(lambda c, n=played: len(c.moves) > n, timeout=10)
        assert conn.status == "finished" and conn.result in ("white", "black", "draw")
        await conn.until(lambda c: any(m.t == "rated" for m in c.received))
    public = await k.game(me.game)
    assert public["players"]["white"]["computer"] and public["players"]["white"]["level"] == 2
    assert public["players"]["white"]["rating"] == 900
    mine = await k.request("GET", f"/api/players/{public_id(ALICE)}")
    assert mine["ratings"]["russian"]["games"] == 1
    theirs = await k.request("GET", f"/api/players/{computer_id(2)}")
    assert theirs["ratings"]["russian"] == {
        "rating": 900,
        "rd": 50,
        "games": 0,
        "provisional": False,
    }


async def test_the_computer_defaults_to_level_3_and_answers_a_rematch_at_once(server):
    bot = FirstMoveBot()
    k = (await server(bot=bot)).kondavo
    me = await k.create(variant="english", opponent="computer", color="white")
    async with k.connect(me) as conn:
        await conn.until(lambda c: c.my_turn)
        await conn.resign()
        await conn.offer_rematch()
        await conn.until(lambda c: c.rematch_seat is not None)
    seat = conn.rematch_seat
    assert seat.side == "black"  # colours swap: the computer is White now
    rematch = await k.game(seat.game)
    assert rematch["level"] == 3 and rematch["players"]["white"]["computer"]
    assert rematch["status"] == "playing"


async def test_after_a_restart_the_timekeeper_finds_the_computers_overdue_turn():
    store = MemoryStore()
    now = await store.now()
    # As a node that died left it: the computer to move, nobody thinking, long overdue.
    record = room.new_game(
        game_id="restart",
        variant="english",
        now=now - 60_000,
        creator="white",
        creator_token="t" * 22,
        opponent="computer",
        level=1,
        initial_ms=None,
    )
    _seat_the_computer(record, 1)
    assert room.bot_to_move(record)
    await store.create(record, room.deadline(record))
    bot = FirstMoveBot()
    running = await _start(store=store, bot=bot)
    try:
        for _ in range(200):
            if len((await store.load("restart")).moves) == 1:
                break
            await asyncio.sleep(0.02)
        assert (await store.load("restart")).moves and bot.calls == 1
    finally:
        await _stop(running)


async def test_a_reconnecting_player_wakes_a_computer_nobody_thinks_for():
    store = MemoryStore()
    now = await store.now()
    record = room.new_game(
        game_id="wake",
        variant="english",
        now=now,
        creator="white",
        creator_token="t" * 22,
        opponent="computer",
        level=1,
        initial_ms=None,
    )
    _seat_the_computer(record, 1)
    # Its overdue deadline lies beyond the test: only the player's arrival can wake it.
    await store.create(record, now + 600_000)
    running = await _start(store=store, bot=FirstMoveBot())
    try:
        from protocol.client import SeatTicket

        ticket = SeatTicket(game="wake", side="white", token="t" * 22, url="", invite_url=None)
        async with running.kondavo.connect(ticket) as conn:
            await conn.until(lambda c: c.my_turn, timeout=10)
    finally:
        await _stop(running)


async def test_a_move_chosen_for_an_older_position_is_dropped():
    """Two nodes think for the same turn: the first move counts, the other is dropped."""

    class SlowBot(FirstMoveBot):
        def __init__(self, delay: float):
            super().__init__()
            self.delay = delay

        async def choose(self, *args):
            await asyncio.sleep(self.delay)
            return await super().choose(*args)

    store = MemoryStore()
    record = room.new_game(
        game_id="twice",
        variant="english",
        now=await store.now(),
        creator="white",
        creator_token="t" * 22,
        opponent="computer",
        level=1,
        initial_ms=None,
    )
    _seat_the_computer(record, 1)
    await store.create(record, room.deadline(record))
    node_a, node_b = Games(store), Games(store)
    table_a, table_b = BotTable(node_a, SlowBot(0.05)), BotTable(node_b, SlowBot(0.2))
    table_a.consider("twice")
    table_b.consider("twice")
    await asyncio.sleep(0.4)
    played = await store.load("twice")
    assert len(played.moves) == 1 and not table_a.thinking and not table_b.thinking
    # The stale check itself: a move made against an older version is refused.
    out = room.handle(
        played,
        Sent(
            "white",
            m.MakeMove(
                notation=str(
                    Game.replay(get_rules("english"), None, played.moves).legal_moves()[0]
                ),
                v=0,
            ),
        ),
        0,
    )
    assert out.refusal is not None and out.refusal.code == "move/stale"
    await table_a.close()
    await table_b.close()


async def test_without_bot_workers_the_computer_is_unavailable(server):
    k = (await server(bot_workers=0)).kondavo
    from protocol.client import HttpError

    with pytest.raises(HttpError) as info:
        await k.create(opponent="computer", level=3)
    assert info.value.code == "computer/unavailable"
