"""The HTTP protocol the server runs under uvicorn leaves nothing for the garbage
collector when a connection becomes a WebSocket (server/http_protocol.py).

A node in play then makes no garbage cycles, which is what lets it run its full
collections rarely (server.__main__.GC_THRESHOLDS) without growing meanwhile.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc

import uvicorn
import websockets
from conftest import TEST_SETTINGS, free_port
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.__main__ import uvicorn_config


async def accept_then_close(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": 1000})


def http_protocols_alive() -> int:
    # type(), not isinstance(): a dead weak proxy among the objects raises on the latter.
    return sum(issubclass(type(o), HttpToolsProtocol) for o in gc.get_objects())


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
        before = http_protocols_alive()
        for _ in range(20):
            async with websockets.connect(f"ws://127.0.0.1:{settings.port}/") as client:
                await client.wait_closed()
        await asyncio.sleep(0.2)  # the server's side of the last close
        assert http_protocols_alive() == before
    finally:
        gc.enable()
        server.should_exit = True
        await asyncio.wait_for(task, 10)
