"""A node's timekeeper stops when the node shuts down, even where the store call it
was in turned the cancellation into a store error (a Redis client does that while
Redis is away): before, the server then never finished shutting down."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from server.services.timekeeper import Timekeeper
from server.store import StoreUnavailable
from server.store.redis import call


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


async def _client_call_while_redis_is_away() -> None:
    """A Redis client's call that answers a cancellation with a connection error."""
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError as exc:
        raise RedisConnectionError("Connection closed by server.") from exc


async def test_a_redis_call_cancelled_while_redis_is_away_stays_cancelled():
    task = asyncio.create_task(call(_client_call_while_redis_is_away(), 5))
    await asyncio.sleep(0.01)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=5)
    assert task in done and task.cancelled()


async def test_a_redis_call_that_fails_while_redis_is_away_is_the_store_unavailable():
    async def refused() -> None:
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    with pytest.raises(StoreUnavailable, match="Connection refused"):
        await call(refused(), 5)
