"""The computer opponent in the server: the engine's levels, searched in a process pool.

``PoolBot.choose`` hands ``engine.levels.choose_move_game`` (plain values in, a move
in notation out) to a ``ProcessPoolExecutor`` that the app's lifespan owns, so a
search never runs on the event loop. Each move gets its level's think time, cut
short when the bot's clock runs low (``think_budget``).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import zlib
from concurrent.futures import Executor, ProcessPoolExecutor

from engine.levels import choose_move_game, get_level

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
    """A ``bots.Bot`` that runs the engine's search in ``pool``."""

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
