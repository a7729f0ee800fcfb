"""The analyst on a node: a game's positions evaluated in the computer's worker pool.

An analysis is cut into tasks of a few positions (``CHUNK``), handed to the pool one
after another, and at most one task per worker is in the pool at any time for all
analyses together (``Analyst.slots``). A move the computer must play in a live game
therefore waits for at most one task (a fraction of a second), never for a whole
analysis: live games keep their pace while games are analysed. Who may ask how often
is the web layer's business (``web/analysis_api.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from typing import Any

from engine.analysis import evaluate_positions

CHUNK = 3  # positions per task: about half a second at the default budget on 10x10


class Analyst:
    def __init__(self, pool: Executor, workers: int, nodes: int):
        self.pool = pool
        self.nodes = nodes
        self.slots = asyncio.Semaphore(max(1, workers))

    async def positions(
        self, variant: str, start_fen: str | None, moves: list[str]
    ) -> AsyncIterator[list[dict[str, Any]]]:
        """The evaluations of every position of the record, a task's worth at a time,
        in order (the start position first)."""
        loop = asyncio.get_running_loop()
        plies = list(range(len(moves) + 1))
        for first in range(0, len(plies), CHUNK):
            chunk = plies[first : first + CHUNK]
            async with self.slots:
                found = await loop.run_in_executor(
                    self.pool, evaluate_positions, variant, start_fen, moves, chunk, self.nodes
                )
            yield found
