"""The door every WebSocket passes before it is accepted: Origin and sockets per address.

A pure ASGI middleware (HTTP passes straight through). A handshake from a foreign
Origin, or from an address already holding its share of sockets, gets HTTP 403
before the socket is accepted, so a refused page never reaches a
room. It also leaves three things in the scope for ``ws.py``: the client's address
(``kondavo.ip``); a way to cut a socket off at once (``kondavo.abort``), which
ASGI itself lacks: a peer that stopped reading cannot be sent a close frame; and
the server's own ``send`` and ``receive`` (``kondavo.send``, ``kondavo.receive``),
for the frames of a game in play.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from websockets.protocol import State

from .limits import client_ip
from .origin import origin_allowed

log = logging.getLogger(__name__)


def transport_abort(send: Any) -> Callable[[], None] | None:
    """The server's way to drop the TCP connection under ``send``, if it has one.

    uvicorn hands the app its protocol object's bound ``send``; its transport can
    ``abort()`` (close without flushing). Other servers: None, and the socket is
    dropped by closing it normally once its writer is unblocked.
    """
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    abort = getattr(transport, "abort", None)
    return abort if callable(abort) else None


def frame_writer(send: Any) -> Callable[[bytes], bool] | None:
    """A way to write a binary frame at once, without a coroutine, or None.

    Under uvicorn's "websockets-sansio" protocol (pinned in pyproject.toml), its
    ``send`` of a frame waits for nothing while the transport takes data: it frames
    the bytes and writes them. Doing the same from the hub's fan-out saves waking the
    socket's writer task for every frame to every player and spectator, which was
    most of the cost of a frame above the bare echo's (bench/relay.py). The writer
    returns False, having written nothing, whenever uvicorn's send would have to wait
    (the peer's buffer is full) or would refuse (closing, closed): the caller then
    queues the frame for the writer task, which waits and fails as before.

    The fan-out hands the same bytes to every socket of a game, and a server's frame
    is never masked, so the frame on the wire is the same for all of them: it is
    built once (``_wire``) instead of by websockets' ``send_binary`` per socket, which
    checks the state, makes a ``Frame``, checks it and serializes it through a
    ``BytesIO``. That is only the same frame while the connection is open, mid no
    fragmented message and with no extension (permessage-deflate is off): otherwise
    the frame takes websockets' own path.
    """
    protocol: Any = getattr(send, "__self__", None)
    if type(protocol).__name__ != "WebSocketsSansIOProtocol":
        return None
    try:
        conn, transport, writable = protocol.conn, protocol.transport, protocol.writable
        conn.state, conn.extensions, conn.writes, conn.expect_continuation_frame  # noqa: B018
    except AttributeError:
        return None
    send_binary, data_to_send, write = conn.send_binary, conn.data_to_send, transport.write

    def write_frame(frame: bytes) -> bool:
        if (
            not writable.is_set()
            or protocol.disconnected
            or protocol.close_sent
            or not protocol.handshake_complete
            or protocol.initial_response is not None
            or transport.is_closing()
        ):
            return False
        # This runs inside the hub's fan-out, under another socket's command: nothing
        # may escape it. A socket that fails here is going; its writer task finds out.
        try:
            if (
                conn.state is _OPEN
                and not conn.extensions
                and not conn.expect_continuation_frame
                and not conn.writes
            ):
                write(_wire(frame))
            else:
                send_binary(frame)
                write(b"".join(data_to_send()))
        except Exception:
            return False
        return True

    return write_frame


_OPEN = State.OPEN
# The last payload framed and its frame: the fan-out writes one payload to every
# socket of a game in turn. Holding the payload keeps its identity from being reused.
# None to start with: b"" is a shared object, so it could not mark "nothing yet".
_last_wire: list[bytes | None] = [None, None]


def _wire(payload: bytes) -> bytes:
    """``payload`` as one final, unmasked binary frame (RFC 6455 section 5.2)."""
    last = _last_wire
    if payload is last[0] and last[1] is not None:
        return last[1]
    n = len(payload)
    if n < 126:
        head = bytes((0x82, n))
    elif n < 65536:
        head = struct.pack("!BBH", 0x82, 126, n)
    else:
        head = struct.pack("!BBQ", 0x82, 127, n)
    wire = head + payload
    last[0], last[1] = payload, wire
    return wire


class Gate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        state = scope["app"].state
        settings = state.settings
        if not origin_allowed(scope["headers"], state.origins, not settings.allowed_origins):
            log.debug("websocket %s refused: foreign origin", scope.get("path"))
            await _refuse(receive, send)
            return
        ip = client_ip(scope, state.trusted_networks)
        limits = state.address_limits
        if not limits.open_socket(ip):
            log.debug("websocket %s refused: %s holds too many sockets", scope.get("path"), ip)
            await _refuse(receive, send)
            return
        scope["kondavo.ip"] = ip
        scope["kondavo.abort"] = transport_abort(send)
        # Starlette wraps the send it passes on twice (its exception handlers, which
        # only watch for an HTTP response starting): two more coroutines for every
        # frame to every player and spectator (bench/load.py's relay ratio).
        scope["kondavo.send"] = send
        scope["kondavo.write_now"] = frame_writer(send)
        # Starlette's WebSocket.receive only checks the order of the handshake's
        # messages: one more coroutine per frame, and one more object that every
        # socket's wait for its next frame keeps alive (the collector walks those).
        scope["kondavo.receive"] = receive
        try:
            await self.app(scope, receive, send)
        finally:
            limits.close_socket(ip)
            # The scope is the server protocol's own, and these hold that protocol (its
            # bound send, its transport): a reference cycle, freed only by a full
            # garbage collection, which a busy node runs rarely (__main__.GC_THRESHOLDS).
            for key in _HOLD_THE_PROTOCOL:
                scope.pop(key, None)


_HOLD_THE_PROTOCOL = ("kondavo.abort", "kondavo.send", "kondavo.write_now", "kondavo.receive")


async def _refuse(receive: Receive, send: Send) -> None:
    """Refuse the handshake: a close before accepting is answered with HTTP 403.

    (The ASGI "websocket.http.response" extension could send 429 with a body, but
    uvicorn 0.54 then logs an error per refusal, which a flood would turn into a flood.)
    """
    await receive()  # websocket.connect
    await send({"type": "websocket.close", "code": 1008})
