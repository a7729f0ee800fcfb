"""The analyst on a node: a game's positions evaluated in worker processes.

The analyst has processes of its own, like the computer opponent's and made the same
way (``computer.make_pool``), but at a lower scheduling priority (``NICENESS``): an
analysis takes only the CPU that live games leave. In the computer's own pool, as
first built, a 100-ply analysis beside 100 paced games raised their relay p99 from
10 to 28 ms on a 2-core machine (``bench/analysis.py``), and a computer's move in a
live game waited behind the analysis' task.

An analysis is cut into tasks of a few positions (``CHUNK``) handed to the pool one
after another, and at most one task per worker is in the pool at any time for all
analyses together (``Analyst.slots``), so analyses queue behind each other fairly, a
task at a time. Who may ask how often is the web layer's business
(``web/analysis_api.py``).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from engine.analysis import evaluate_positions

CHUNK = 3  # positions per task: about half a second at the default budget on 10x10
NICENESS = 10  # added to the analyst's processes' nice value: below the node and bots


def _lower_priority() -> None:
    os.nice(NICENESS)


def make_analysis_pool(workers: int) -> ProcessPoolExecutor:
    """The analyst's processes (``forkserver``, as the computer's), at a lower priority."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("forkserver"),
        initializer=_lower_priority,
    )


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
