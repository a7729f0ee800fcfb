"""The fan-out's shortcut (net.frames.frame_writer) against the pinned uvicorn, on real sockets.

The hub writes a frame at once when a socket's writer is idle. If an upgrade of
uvicorn changed what the shortcut relies on, every frame would silently take the
slow path, or worse, be written when uvicorn's own send would have waited: these
tests say which.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator

import uvicorn
import websockets
from conftest import TEST_SETTINGS, free_port
from websockets.frames import Frame, Opcode

from server.net import frames as net_frames
from server.net.frames import _wire, frame_writer
from server.net.serve import uvicorn_config


class Probe:
    """An ASGI app that accepts one socket and hands its frame writer to the test."""

    def __init__(self) -> None:
        self.writer: asyncio.Future = asyncio.get_running_loop().create_future()
        self.done = asyncio.Event()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        assert scope["type"] == "websocket"
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        self.writer.set_result(frame_writer(send))
        await self.done.wait()


@contextlib.asynccontextmanager
async def served() -> AsyncIterator[tuple[Probe, str]]:
    """A real uvicorn with the server's own configuration, running a Probe."""
    probe = Probe()
    settings = dataclasses.replace(TEST_SETTINGS, port=free_port())
    server = uvicorn.Server(uvicorn_config(settings, probe, log_level="warning"))  # type: ignore[arg-type]
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield probe, f"ws://127.0.0.1:{settings.port}/"
    finally:
        probe.done.set()
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def test_a_frame_written_at_once_reaches_the_client_whole_and_in_order():
    async with served() as (probe, url), websockets.connect(url) as client:
        write = await asyncio.wait_for(probe.writer, 5)
        assert write is not None, "the pinned uvicorn's protocol is not recognised"
        frames = [bytes([i]) * (i * 1000 + 1) for i in range(70)]  # past 126 and 65535
        assert all(write(frame) for frame in frames)
        assert net_frames._last_wire[0] is frames[-1], "frames took websockets' own path"
        for frame in frames:
            assert await asyncio.wait_for(client.recv(), 5) == frame


def test_the_frame_built_once_for_all_sockets_is_the_frame_websockets_would_send():
    for n in (0, 1, 125, 126, 127, 65_535, 65_536, 70_000):
        payload = bytes(range(256)) * (n // 256) + bytes(n % 256)
        expected = Frame(Opcode.BINARY, payload).serialize(mask=False)
        assert _wire(payload) == expected
        assert _wire(payload) == expected  # and again, from the memo


async def test_nothing_is_written_at_once_to_a_peer_that_has_gone():
    async with served() as (probe, url):
        async with websockets.connect(url):
            write = await asyncio.wait_for(probe.writer, 5)
        for _ in range(200):  # until the server has seen the close
            if not write(b"late"):
                break
            await asyncio.sleep(0.01)
        assert write(b"late") is False


async def test_a_peer_that_stops_reading_gets_no_more_frames_at_once():
    # Once the transport's buffer passes its high-water mark, uvicorn's send would
    # wait: the writer must refuse, so the frame is queued for the socket's writer
    # task (which the send watchdog guards) instead of piling up in memory.
    async with served() as (probe, url), websockets.connect(url, max_queue=1) as client:
        client.transport.pause_reading()  # type: ignore[attr-defined]
        write = await asyncio.wait_for(probe.writer, 5)
        frame = b"x" * 60_000
        written = 0
        while written < 10_000 and write(frame):
            written += 1
            if written % 10 == 0:
                await asyncio.sleep(0)  # let the kernel's buffers fill
        assert written < 10_000, "the writer never saw the buffer fill"
        assert write(b"small") is False
        client.transport.abort()  # type: ignore[attr-defined]  # no closing handshake
