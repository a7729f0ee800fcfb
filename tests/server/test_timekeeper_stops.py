"""A node's timekeeper stops when the node shuts down, even where the store call it
was in turned the cancellation into a store error (a Redis client does that while
Redis is away): before, the server then never finished shutting down."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from server.services.timekeeper import Timekeeper
from server.store import StoreUnavailable


class _SwallowingStore:
    """A store whose ``due`` hangs, and answers a cancellation with a store error."""

    def __init__(self) -> None:
        self.calls = 0

    async def now(self) -> float:
        return 0.0

    async def due(self, now: float) -> list[str]:
        self.calls += 1
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError as exc:
            raise StoreUnavailable("redis: ConnectionError: the connection was cancelled") from exc
        return []


async def test_a_cancelled_timekeeper_stops_even_if_the_store_swallowed_the_cancellation():
    store = _SwallowingStore()
    task = asyncio.create_task(Timekeeper(SimpleNamespace(store=store), 0.01).run())
    while store.calls == 0:
        await asyncio.sleep(0.01)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=5)
    assert task in done and task.cancelled()
    assert store.calls == 1  # it did not go round again
