"""The app's lifespan stops its background loops with ``stop_all``: it waits for them
a bounded time, names any that will not stop, and never hangs the shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server.services.cancelling import stop_all


async def _loop_that_stops() -> None:
    while True:
        await asyncio.sleep(0.01)


async def _loop_that_will_not_stop(released: asyncio.Event) -> None:
    while not released.is_set():
        # The bug stop_all guards against: a loop that swallows its cancellation.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.01)


async def _loop_that_fails_when_stopped() -> None:
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        raise RuntimeError("the lobby feed could not close its subscription") from None


async def test_loops_that_stop_when_cancelled_are_waited_for_and_none_is_left():
    tasks = [asyncio.create_task(_loop_that_stops(), name=f"loop {i}") for i in range(3)]
    await asyncio.sleep(0.02)
    left = await stop_all(tasks, timeout=5)
    assert left == []
    assert all(task.cancelled() for task in tasks)


async def test_a_loop_that_will_not_stop_is_named_in_the_log_and_the_shutdown_goes_on(caplog):
    good = asyncio.create_task(_loop_that_stops(), name="timekeeper")
    released = asyncio.Event()
    stubborn = asyncio.create_task(_loop_that_will_not_stop(released), name="lobby feed")
    await asyncio.sleep(0.02)
    with caplog.at_level(logging.ERROR, logger="server.services.cancelling"):
        left = await asyncio.wait_for(stop_all([good, stubborn], timeout=0.2), timeout=5)
    assert left == [stubborn]
    assert good.cancelled()
    assert "lobby feed did not stop within 0.2 s" in caplog.text
    assert "timekeeper" not in caplog.text
    assert not stubborn.done()  # left behind, still running
    released.set()  # the test's own cleanup
    await asyncio.wait_for(stubborn, timeout=5)


async def test_a_loop_that_fails_while_stopping_is_logged_and_the_others_still_stop(caplog):
    failing = asyncio.create_task(_loop_that_fails_when_stopped(), name="lobby feed")
    good = asyncio.create_task(_loop_that_stops(), name="send watchdog")
    await asyncio.sleep(0.02)
    with caplog.at_level(logging.ERROR, logger="server.services.cancelling"):
        left = await stop_all([failing, good], timeout=5)
    assert left == []
    assert good.cancelled()
    assert "background task lobby feed failed while stopping" in caplog.text
    assert "could not close its subscription" in caplog.text
