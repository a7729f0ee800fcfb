"""A node in play leaves no reference cycles behind: not at a WebSocket upgrade
(server/net/http_protocol.py), not when a game's socket closes (net/frames.py,
net/ws_protocol.py).

That is what lets it run its full garbage collections rarely
(server.__main__.GC_THRESHOLDS) without growing meanwhile. Each test counts the
server's protocol objects still alive with the collector off, so only reference
counting can have freed them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc

import uvicorn
import websockets
from conftest import TEST_SETTINGS, free_port
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.server import ServerProtocol

from protocol.client import Kondavo
from server.net.serve import uvicorn_config


async def accept_then_close(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": 1000})


def alive(kind: type) -> int:
    # type(), not isinstance(): a dead weak proxy among the objects raises on the latter.
    return sum(issubclass(type(o), kind) for o in gc.get_objects())


async def test_an_upgraded_connection_frees_its_http_protocol_by_reference_counting():
    settings = dataclasses.replace(TEST_SETTINGS, port=free_port())
    config = uvicorn_config(settings, accept_then_close, log_level="warning")  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    gc.collect()
    gc.disable()  # only reference counting frees anything from here on
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        before = alive(HttpToolsProtocol)
        for _ in range(20):
            async with websockets.connect(f"ws://127.0.0.1:{settings.port}/") as client:
                await client.wait_closed()
        await asyncio.sleep(0.2)  # the server's side of the last close
        assert alive(HttpToolsProtocol) == before
    finally:
        gc.enable()
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def test_a_game_socket_that_closed_frees_its_protocol_by_reference_counting(k: Kondavo):
    white = await k.create(variant="russian", clock=None)
    black = await k.join(white.game, invite=white.invite)
    gc.collect()
    gc.disable()
    try:
        before = alive(WebSocketsSansIOProtocol)
        for _ in range(3):
            connections = [await k.connect(white), await k.connect(black)]
            connections += [await k.connect(white.game) for _ in range(3)]
            for connection in connections:
                await connection.close()
        for _ in range(100):  # the server's side of the closes, and the app's return
            if alive(WebSocketsSansIOProtocol) == before:
                break
            await asyncio.sleep(0.05)
        assert alive(WebSocketsSansIOProtocol) == before
    finally:
        gc.enable()


async def test_a_finished_games_closed_sockets_free_their_websocket_connections(k: Kondavo):
    """The players resign and close, as bench/forget.py's games do: websockets' own
    connection object (its parser waits for an end of stream uvicorn never reports)
    is freed by reference counting too."""
    gc.collect()
    gc.disable()
    try:
        before = alive(ServerProtocol)
        for _ in range(3):
            white = await k.create(variant="russian", clock=None)
            black = await k.join(white.game, invite=white.invite)
            w, b = await k.connect(white), await k.connect(black)
            watcher = await k.connect(white.game)
            await w.resign()
            for connection in (w, b, watcher):
                await connection.until(lambda c: c.status != "playing")
                await connection.close()
        for _ in range(100):
            if alive(ServerProtocol) == before:
                break
            await asyncio.sleep(0.05)
        assert alive(ServerProtocol) == before
    finally:
        gc.enable()
