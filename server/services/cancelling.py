"""Background loops that stop when their task is cancelled, whatever swallowed it.

A node's loops (the timekeeper, the lobby feed) catch the store's errors and try
again. When the node shuts down, their tasks are cancelled; but a cancellation that
lands inside a store call can come out of it as something else (a Redis client that
turns it into a connection error while Redis is away, which the loop then catches as
``StoreUnavailable``), and the loop would go on for ever, holding up the shutdown
(seen: a server that never stopped after its Redis had gone). The Redis store now
re-raises the cancellation where it maps the client's errors (``raise_if_cancelled``,
in server/store/base.py); the loops check again before they sleep, for any store.

The app's lifespan also waits for them only so long (``stop_all``): a loop that still
does not stop is named in the log and left behind, and the node shuts down anyway.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from server.store.base import raise_if_cancelled

__all__ = ["STOP_WAIT_S", "raise_if_cancelled", "stop_all"]

log = logging.getLogger(__name__)

# Seconds the lifespan waits for its loops to end once cancelled. They stop within a
# store call's time; uvicorn's tests and operators wait longer than this for a node.
STOP_WAIT_S = 5.0


async def stop_all(
    tasks: Iterable[asyncio.Task[Any]], timeout: float = STOP_WAIT_S
) -> list[asyncio.Task[Any]]:
    """Cancel ``tasks`` and wait up to ``timeout`` seconds for them to end. A task that
    ended with an error, or that did not end, is logged by name; those that did not end
    are returned (left running: a shutdown that goes on beats one that hangs)."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    if not tasks:
        return []
    done, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            log.error(
                "background task %s failed while stopping",
                task.get_name(),
                exc_info=task.exception(),
            )
    for task in pending:
        log.error(
            "background task %s did not stop within %g s of being cancelled; "
            "shutting down without it",
            task.get_name(),
            timeout,
        )
    return [task for task in tasks if task in pending]
