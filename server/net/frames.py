"""What uvicorn hands a socket's app, used past ASGI: dropping a connection at once
(``transport_abort``) and writing a game's frames straight to the transport
(``frame_writer``). The only module besides ``http_protocol`` that knows uvicorn's
internals; kept here so the rest of the server speaks plain ASGI.

Speed work: the direct frame writer is what ``bench/relay.py`` measures (a move's
event fanned out to every socket of its game without a task per send).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State


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
    if not isinstance(protocol, WebSocketsSansIOProtocol):
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
