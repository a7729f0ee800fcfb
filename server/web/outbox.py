"""One socket's outgoing side: its send queue, the writer that drains it, and its close.

Whatever a socket sends goes through its ``Outbox``, in order. While the writer is
idle (its queue empty, no send waiting), a plain message is written at once by
``deliver`` instead (``net.frames.frame_writer``): no task wakes for it. Anything
else, or a transport that would make the send wait, goes through the queue, and the
writer hands items that are not messages (a game's events, a resync) to ``render``.

A socket that stops reading only ever blocks its own writer: when its queue fills
up, or one write stays blocked for ``send_timeout_s`` (the node's ``SendWatchdog``),
it is cut off (issue 7).

The close policy lives here too: ``close_after`` queues a close behind what is
already queued; ``close`` closes now, and drops the connection when not even the
close frame goes through.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode
from server.net.watchdog import SendWatchdog
from server.services.metrics import Metrics
from server.store import StoreUnavailable

log = logging.getLogger(__name__)

SEND_QUEUE = 512  # items a socket may fall behind before it is cut off
UNAVAILABLE = m.sentence(ErrorCode.SERVER_BUSY)
# A peer that has gone away: not worth a traceback.
GONE = (WebSocketDisconnect, OSError)


class _Close:
    """Writer instruction: close the socket with ``code`` (after what was queued)."""

    def __init__(self, code: int):
        self.code = code


async def _nothing_to_render(item: Any) -> None:
    raise TypeError(f"this socket sends only messages, not {type(item).__name__}")


class Outbox:
    def __init__(
        self,
        websocket: WebSocket,
        settings: Any,
        watchdog: SendWatchdog | None,
        name: str,
        render: Callable[[Any], Awaitable[None]] = _nothing_to_render,
        metrics: Metrics | None = None,
    ):
        self.websocket = websocket
        self.settings = settings
        self.watchdog = watchdog
        self.name = name  # for the log: "game <id>", "lobby"
        self.render = render
        self.metrics = metrics  # counts the store's outages, when the node counts
        # A deque and one future the writer waits on when it is empty. An
        # asyncio.Queue costs several calls and a waiter list per item, once per
        # frame per socket (bench/relay.py).
        self.queue: deque[Any] = deque()
        self._wakeup: asyncio.Future[None] | None = None
        self.closing = False
        self.closed = False
        scope = websocket.scope
        # Drops the TCP connection at once (see net/frames.py); None outside uvicorn.
        self._abort = scope.get("kondavo.abort")
        # The server's send under Starlette's wrappers (web/gate.py): frames go straight
        # to it. Starlette's WebSocket would only repeat checks uvicorn makes itself
        # (nothing after a close) and turn the OSError of a lost peer into its own.
        self._send_frame = scope.get("kondavo.send", websocket.send)
        # And a way to write a frame without waiting, when the transport takes it.
        self._write_now: Callable[[bytes], bool] | None = scope.get("kondavo.write_now")
        # When the pending send began (None: no send waiting): the node's one
        # SendWatchdog cuts the socket off when a send waits too long.
        self.sending_since: float | None = None
        self._writer: asyncio.Task[None] | None = None

    # --- handing over -----------------------------------------------------------------

    def write_now(self, frame: bytes) -> bool:
        """Write ``frame`` at once if nothing is queued or being sent and the transport
        takes it without waiting; False (nothing written) otherwise."""
        return (
            self._wakeup is not None
            and not self.queue
            and not self.closing
            and self._write_now is not None
            and self._write_now(frame)
        )

    def deliver(self, item: Any) -> None:
        """Send ``item`` after everything handed over before it: a server message, or
        something for ``render``."""
        if self.closing:
            return
        if isinstance(item, m.ServerMessage) and self.write_now(m.encode(item)):
            return
        queue = self.queue
        if len(queue) < SEND_QUEUE:
            queue.append(item)
        else:
            # It does not read: cut it off rather than hold events for it forever.
            self.closing = True
            queue.clear()
            queue.append(_Close(CloseCode.TOO_SLOW))
            # The writer is most likely blocked on the full socket: the close frame
            # could never be sent, so drop the connection if it is still open shortly.
            asyncio.get_running_loop().call_later(0.5, self.cut_off)
        wakeup = self._wakeup
        if wakeup is not None:
            self._wakeup = None
            if not wakeup.done():
                wakeup.set_result(None)

    def send(self, message: m.ServerMessage) -> None:
        self.deliver(message)

    def close_after(self, code: int) -> None:
        """Close with ``code`` once what is queued has been sent; take nothing more."""
        self.deliver(_Close(code))
        self.closing = True

    # --- the writer -------------------------------------------------------------------

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write_loop())
        if self.watchdog is not None:
            self.watchdog.add(self)

    async def stop(self) -> None:
        """End the writer: after a close was asked for, let it send what is queued up to
        the close frame first (for at most ``send_timeout_s``)."""
        writer = self._writer
        if writer is None:
            return
        if self.closing and not writer.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(writer), self.settings.send_timeout_s)
            if not writer.done():
                self.cut_off()
        writer.cancel()
        if self.watchdog is not None:
            self.watchdog.discard(self)
        with contextlib.suppress(BaseException):
            await writer

    async def _write_loop(self) -> None:
        queue = self.queue
        loop = asyncio.get_running_loop()
        try:
            while not self.closed:
                while not queue:
                    # Waits on a bare future, not a helper coroutine: with thousands of
                    # sockets idle between moves, every object a wait keeps alive is
                    # one more for each young garbage collection to walk (issue 7).
                    self._wakeup = wakeup = loop.create_future()
                    try:
                        await wakeup
                    finally:
                        self._wakeup = None
                        del wakeup
                item = queue.popleft()
                if type(item) is _Close:
                    await self.close(item.code)
                    return
                if isinstance(item, m.ServerMessage):
                    await self.write(item)
                else:
                    await self.render(item)
                # Let the item go before waiting for the next: a move's event (the
                # board, the legal moves) would otherwise live until the next move.
                item = None
        except asyncio.CancelledError:
            raise
        except GONE:
            # The peer is gone or the socket broke: the reader will see the disconnect.
            log.debug("%s: writer stopped", self.name, exc_info=True)
        except StoreUnavailable:
            # What was to be sent could not be read (a snapshot, a catch-up): not a bug.
            # The socket cannot go on without it, so it closes with a code the client
            # answers by coming back shortly (and catching up then).
            log.warning("%s: store unavailable while catching a socket up", self.name)
            self.count_busy()
            await self.refuse_and_close(ErrorCode.SERVER_BUSY, UNAVAILABLE, CloseCode.SERVER_ERROR)
        except Exception:
            log.exception("%s: unexpected error while sending", self.name)
            with contextlib.suppress(Exception):
                await self.websocket.close(CloseCode.SERVER_ERROR)

    async def write(self, message: m.ServerMessage) -> None:
        await self.write_frame(m.encode(message))

    async def write_frame(self, frame: bytes) -> None:
        # The send only waits while the transport's buffer is full (the peer is slow);
        # the node's watchdog cuts the socket off when one send waits send_timeout_s.
        # A timestamp per frame costs far less than a timeout (a timer) per frame.
        self.sending_since = time.monotonic()
        try:
            await self._send_frame({"type": "websocket.send", "bytes": frame})
        finally:
            self.sending_since = None

    def count_busy(self) -> None:
        if self.metrics is not None:
            self.metrics.busy.inc()

    def release(self) -> None:
        """Let go of the server's connection (its send, its transport) and of ``render``:
        once the socket's app returns, nothing here may keep the connection alive until
        a full garbage collection (the render hook and its owner refer to each other)."""
        self._abort = self._write_now = None
        self._send_frame = self.websocket.send
        self.render = _nothing_to_render

    # --- closing ----------------------------------------------------------------------

    def cut_off(self) -> None:
        """Drop the connection without a closing handshake (the peer does not read)."""
        if self.closed or self._abort is None:
            return
        self.closed = True
        log.info("%s: cut off a socket that stopped reading", self.name)
        with contextlib.suppress(Exception):
            self._abort()

    async def refuse_and_close(
        self, code: ErrorCode, sentence: str, close: int, ack: int | None = None
    ) -> None:
        """Say why in an ``error``, then close with ``close``."""
        with contextlib.suppress(Exception):
            await self.write(m.Error(code=code, message=sentence, ack=ack))
        await self.close(close)

    async def close(self, code: int) -> None:
        self.closing = True
        try:
            async with asyncio.timeout(self.settings.send_timeout_s):
                await self.websocket.close(code)
        except TimeoutError:
            self.cut_off()  # not even the close frame goes through
        except Exception:
            pass
        self.closed = True
