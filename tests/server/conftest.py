"""A real Kondavo server on a free loopback port, in the test's own event loop.

Not Starlette's TestClient: it runs the app in another loop (starlette issue 487),
and these tests want real sockets end to end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
import uvicorn
from redis_server import RedisServer, redis_server_or_skip

from protocol.client import Kondavo
from server.config import Settings
from server.net.serve import uvicorn_config
from server.web.app import create_app

# Fast enough that tests waiting for a flag or a claim take a fraction of a second.
TEST_SETTINGS = Settings(
    host="127.0.0.1",
    port=0,
    claim_after_s=0.4,
    # Limits out of the way; the tests of the limits set their own.
    player_messages=1_000_000,
    spectator_messages=1_000_000,
    chat_lines=1_000,
    sockets_per_ip=0,
    games_per_ip=0,
    tick_s=0.02,
    lobby_refresh_s=0.05,
    hello_timeout_s=1.0,
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Running:
    url: str
    kondavo: Kondavo
    settings: Settings
    server: uvicorn.Server

    @property
    def ws_url(self) -> str:
        return self.kondavo.ws_url

    @property
    def store(self):  # the app's store, to look behind the API in a test
        return self.server.config.app.state.store  # type: ignore[union-attr]


async def start(settings: Settings, bot=None) -> Running:
    settings = dataclasses.replace(settings, port=free_port())
    app = create_app(settings, bot=bot)
    server = uvicorn.Server(uvicorn_config(settings, app, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # surfaces the start-up error
        await asyncio.sleep(0.01)
    url = f"http://127.0.0.1:{settings.port}"
    running = Running(url, Kondavo(url, timeout=5.0), settings, server)
    running._task = task  # type: ignore[attr-defined]
    return running


async def stop(running: Running) -> None:
    running.server.should_exit = True
    await asyncio.wait_for(running._task, 10)  # type: ignore[attr-defined]


@pytest.fixture
async def live() -> AsyncIterator[Running]:
    running = await start(TEST_SETTINGS)
    try:
        yield running
    finally:
        await stop(running)


@pytest.fixture
async def k(live: Running) -> Kondavo:
    return live.kondavo


@pytest.fixture
async def serve() -> AsyncIterator:
    """Start extra servers with other settings: ``await serve(events_kept=3)``."""
    started: list[Running] = []

    async def with_settings(bot=None, **changes) -> Running:
        running = await start(dataclasses.replace(TEST_SETTINGS, **changes), bot=bot)
        started.append(running)
        return running

    try:
        yield with_settings
    finally:
        for running in started:
            await stop(running)


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server for the test module (test_cluster's keeps an AOF)."""
    server = redis_server_or_skip()
    try:
        yield server
    finally:
        server.cleanup()
