"""The lobby: open games to join and live games to watch, over HTTP and a socket.

One feed per node polls the store and pushes a ``lobby`` message to its lobby
sockets when the listing changes; polling keeps it the same on every store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode, ProtocolError

from . import room, views
from .limits import Window
from .store import Store
from .ws import accept, receive_frame

log = logging.getLogger(__name__)

LISTED = 50  # open games and live games shown, each
# Open games read per listing, newest first. Some of the newest may be hidden (their
# creator came and went, ``room.seek_listed``) for up to a minute before they are
# withdrawn; read only LISTED, fifty such seeks would empty the lobby of the older
# games still waiting. Reading four times as many takes two hundred a minute to do that,
# past what the per-address cap on game creation lets one address make.
WAITING_READ = 4 * LISTED


async def listing(store: Store) -> m.Lobby:
    waiting, live = await store.waiting_and_live(WAITING_READ, LISTED)
    shown = [r for r in waiting if room.seek_listed(r)][:LISTED]
    return m.Lobby(
        open=[views.open_entry(r) for r in shown],
        live=[views.live_entry(r, await store.spectators(r.id)) for r in live],
    )


class LobbyFeed:
    def __init__(self, store: Store, every_s: float):
        self.store = store
        self.every_s = every_s
        self.sockets: set[asyncio.Queue[m.Lobby]] = set()
        self.latest: m.Lobby | None = None

    async def run(self) -> None:
        while True:
            try:
                if self.sockets:
                    current = await listing(self.store)
                    if current != self.latest:
                        self.latest = current
                        for queue in list(self.sockets):
                            _replace(queue, current)
                else:
                    self.latest = None
            except Exception:
                log.exception("lobby: listing failed")
            await asyncio.sleep(self.every_s)

    async def serve(self, websocket: WebSocket, settings: Any) -> None:
        """One lobby socket: the listing now, then each change; answers pings."""
        await accept(websocket)
        queue: asyncio.Queue[m.Lobby] = asyncio.Queue(1)
        queue.put_nowait(self.latest or await listing(self.store))
        self.sockets.add(queue)
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
                    reply = _answer(message, await self.store.now())
                async with sending:
                    await websocket.send_bytes(m.encode(reply))
        finally:
            self.sockets.discard(queue)
            sender.cancel()
            with contextlib.suppress(BaseException):
                await sender


def _answer(message: m.ClientMessage, now: int) -> m.ServerMessage:
    if isinstance(message, m.Ping):
        return m.Pong(n=message.n, now=now)
    return m.Error(
        code=ErrorCode.MSG_UNKNOWN_TYPE, message="The lobby socket only takes hello and ping."
    )


def _replace(queue: asyncio.Queue[m.Lobby], listing: m.Lobby) -> None:
    """Only the newest listing matters to a slow reader."""
    while not queue.empty():
        queue.get_nowait()
    queue.put_nowait(listing)


async def _send_all(
    websocket: WebSocket, queue: asyncio.Queue[m.Lobby], sending: asyncio.Lock
) -> None:
    with contextlib.suppress(Exception):
        while True:
            listing = await queue.get()
            async with sending:
                await websocket.send_bytes(m.encode(listing))
