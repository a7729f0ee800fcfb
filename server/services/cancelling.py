"""Background loops that stop when their task is cancelled, whatever swallowed it.

A node's loops (the timekeeper, the lobby feed) catch the store's errors and try
again. When the node shuts down, their tasks are cancelled; but a cancellation that
lands inside a store call can come out of it as something else (a Redis client that
turns it into a connection error while Redis is away, which the loop then catches as
``StoreUnavailable``), and the loop would go on for ever, holding up the shutdown
(seen: a server that never stopped after its Redis had gone).
"""

from __future__ import annotations

import asyncio


def raise_if_cancelled() -> None:
    """Raise ``CancelledError`` if the current task has been asked to stop."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
