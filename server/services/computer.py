"""The computer opponent: the engine's levels searched in a process pool (``PoolBot``),
and the seat that plays their moves (``BotTable``).

``PoolBot.choose`` hands ``engine.levels.choose_move_game`` (plain values in, a move
in notation out) to a ``ProcessPoolExecutor`` that the app's lifespan owns, so a
search never runs on the event loop. Each move gets its level's think time, cut
short when the bot's clock runs low (``think_budget``).

A ``Bot`` chooses moves, a ``BotTable`` plays them. A bot plays through the same
command path as people (``Games.run`` with a ``move`` message), so the room checks its
moves like any other, and a move chosen for a position that has since changed is
refused as stale (it carries the version it was made against).

The table is a ``Games`` observer: whenever a command leaves a computer game with
the computer to move (the creation, the person's move, a reconnect, a rematch), the
node that ran it starts thinking. Nothing else remembers that the bot must move, so
should that node die mid-thought, the game's deadline (``room.deadline``: the
computer's turn overdue) brings it to some node's timekeeper, whose ``Tick`` passes
through ``Games.run`` and so through this observer again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import time
import zlib
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Protocol

from engine.levels import choose_move_game, get_level
from protocol.messages import ErrorCode, MakeMove
from server.core import room
from server.core.commands import Sent
from server.core.record import GameRecord, Side
from server.services.games import Games

# Of the time left on its clock, the bot spends at most this share on one move
# (a game lasts about 40 more moves), and never less than the floor.
CLOCK_SHARE = 1 / 30
MIN_THINK_S = 0.05


def think_budget(level: int, time_left_ms: int | None) -> float:
    """Seconds the bot may think: its level's think time, shortened on a low clock.

    >>> think_budget(8, None), think_budget(8, 300_000), think_budget(8, 30_000)
    (3.0, 3.0, 1.0)
    """
    budget = get_level(level).think_time
    if time_left_ms is not None:
        budget = min(budget, max(MIN_THINK_S, time_left_ms / 1000 * CLOCK_SHARE))
    return budget


def make_pool(workers: int) -> ProcessPoolExecutor:
    """The search processes. ``forkserver``: forking a process that runs an event
    loop and threads would copy their locks in whatever state they are."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"))


class PoolBot:
    """A ``Bot`` that runs the engine's search in ``pool``."""

    def __init__(self, pool: Executor):
        self.pool = pool

    async def choose(
        self,
        variant: str,
        start_fen: str | None,
        moves: list[str],
        level: int,
        time_left_ms: int | None,
    ) -> str:
        # Reproducible: the same position at the same level gets the same move.
        seed = zlib.crc32(f"{variant}:{start_fen}:{' '.join(moves)}".encode())
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.pool,
            choose_move_game,
            variant,
            start_fen,
            list(moves),
            level,
            seed,
            think_budget(level, time_left_ms),
        )


log = logging.getLogger(__name__)


class Bot(Protocol):
    async def choose(
        self,
        variant: str,
        start_fen: str | None,
        moves: list[str],
        level: int,
        time_left_ms: int | None,
    ) -> str:
        """The move to play (notation or a path joined by '-'/'x') after ``moves``.

        Must not block the event loop: run the search in an executor.
        """
        ...


class BotTable:
    """Plays the computer's seat of every game whose commands pass through this node."""

    RETRY_S = 1.0  # after a failed search or store error, look again this much later
    ATTEMPTS = 5

    def __init__(self, games: Games, bot: Bot):
        self.games = games
        self.bot = bot
        self.metrics = games.metrics  # think times, when the node counts
        self._thinking: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        games.observers.append(self.observe)

    @property
    def thinking(self) -> set[str]:
        return set(self._thinking)

    async def watch(self, record: GameRecord) -> None:
        """Play the computer's seat of ``record`` (already stored) from now on."""
        await self.observe(record)

    async def observe(self, record: GameRecord) -> None:
        if room.bot_to_move(record):
            self.consider(record.id)

    def consider(self, game_id: str) -> None:
        """Think about ``game_id``; if this node already does, look again once done."""
        if game_id in self._thinking:
            self._again.add(game_id)  # e.g. the reply came while the last move committed
        else:
            self._thinking[game_id] = asyncio.create_task(self._think(game_id))

    async def close(self) -> None:
        tasks = list(self._thinking.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self._thinking.clear()
        if self.observe in self.games.observers:
            self.games.observers.remove(self.observe)

    async def _think(self, game_id: str) -> None:
        failures = 0
        try:
            while True:
                self._again.discard(game_id)
                if await self._move(game_id):
                    failures += 1
                    if failures >= self.ATTEMPTS:
                        return  # the game's deadline brings it back later
                    await asyncio.sleep(self.RETRY_S)  # failed: try again a little later
                elif game_id not in self._again:
                    return
        finally:
            self._thinking.pop(game_id, None)
            self._again.discard(game_id)

    async def _move(self, game_id: str) -> bool:
        """Play the computer's move if it is its turn; True if it should try again."""
        try:
            record = await self.games.store.load(game_id)
            if record is None or not room.bot_to_move(record):
                return False
            side: Side = record.side_to_move
            now = await self.games.store.now()
            asked = time.perf_counter()
            move = await self.bot.choose(
                record.variant,
                record.start_fen,
                list(record.moves),
                record.level or 1,
                record.time_left(side, now) if record.clocked else None,
            )
            if self.metrics is not None:
                self.metrics.think.observe(time.perf_counter() - asked)
            # ``v``: made against this position; if it changed meanwhile, it is dropped.
            command = Sent(side, MakeMove(notation=move, v=record.position_version))
            outcome = await self.games.run(game_id, command)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: the bot failed to move", game_id)
            return True
        refusal = getattr(outcome, "refusal", None)
        if refusal is None:
            return False
        if refusal.code in _OVERTAKEN:
            log.debug("game %s: the bot's move %r was overtaken: %s", game_id, move, refusal.code)
            return False
        log.warning("game %s: the bot's move %r was refused: %s", game_id, move, refusal.code)
        return True


# Refusals that only mean the game moved on while the bot thought.
_OVERTAKEN = {
    ErrorCode.MOVE_STALE,
    ErrorCode.MOVE_NOT_YOUR_TURN,
    ErrorCode.GAME_OVER,
}
