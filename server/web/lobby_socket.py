"""The lobby socket: the listing at once, then every change the node's ``LobbyFeed``
sees; answers pings."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from starlette.websockets import WebSocket

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode, ProtocolError
from server.services.lobby import LobbyFeed, listing
from server.web.game_socket import accept, receive_frame
from server.web.limits import Window


async def serve(feed: LobbyFeed, websocket: WebSocket, settings: Any) -> None:
    """One lobby socket: the listing now, then each change; answers pings."""
    await accept(websocket)
    first = feed.latest or await listing(feed.store)
    queue = feed.watch()
    queue.put_nowait(first)
    sending = asyncio.Lock()  # the feed and the ping answers share one socket
    sender = asyncio.create_task(_send_all(websocket, queue, sending))
    budget = Window(settings.spectator_messages, settings.messages_window_s)
    try:
        while (frame := await receive_frame(websocket)) is not None:
            if not budget.allow():
                await websocket.close(CloseCode.POLICY)
                return
            try:
                message = m.decode_client(frame)
            except ProtocolError as exc:
                reply: m.ServerMessage = m.Error(code=exc.code, message=exc.sentence)
            else:
                if isinstance(message, m.Hello):
                    continue
                reply = _answer(message, await feed.store.now())
            async with sending:
                await websocket.send_bytes(m.encode(reply))
    finally:
        feed.unwatch(queue)
        sender.cancel()
        with contextlib.suppress(BaseException):
            await sender


def _answer(message: m.ClientMessage, now: int) -> m.ServerMessage:
    if isinstance(message, m.Ping):
        return m.Pong(n=message.n, now=now)
    what = f"'{message.t}' on the lobby socket (it takes hello and ping)"
    return m.Error(
        code=ErrorCode.MSG_UNKNOWN_TYPE, message=m.sentence(ErrorCode.MSG_UNKNOWN_TYPE, type=what)
    )


async def _send_all(
    websocket: WebSocket, queue: asyncio.Queue[m.Lobby], sending: asyncio.Lock
) -> None:
    with contextlib.suppress(Exception):
        while True:
            listing = await queue.get()
            async with sending:
                await websocket.send_bytes(m.encode(listing))
