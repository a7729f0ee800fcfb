"""The start of every socket: accept it, then read the client's ``hello``.

Both sockets (a game's, the lobby's) begin the same way: the server accepts with the
protocol's subprotocol, and the first frame must be a ``hello`` of this protocol
version, within ``hello_timeout_s``. Anything else is answered with an ``error`` and
closed with ``CloseCode.NO_HELLO`` (or ``UNSUPPORTED_VERSION``).
"""

from __future__ import annotations

import asyncio

from starlette.types import Message
from starlette.websockets import WebSocket

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode, ProtocolError
from server.web.outbox import Outbox


async def accept(websocket: WebSocket) -> bool:
    """Accept the socket, choosing ``kondavo.v1`` when the client offers it. A client
    that offers only other subprotocols speaks something else: refused (HTTP 403, as a
    close before the accept is answered), and False. One that offers none is accepted:
    its ``hello`` names the protocol version (protocol/README.md, "Transport")."""
    offered = websocket.scope.get("subprotocols") or []
    if offered and m.SUBPROTOCOL not in offered:
        await websocket.close(CloseCode.POLICY)
        return False
    await websocket.accept(subprotocol=m.SUBPROTOCOL if offered else None)
    return True


async def receive_frame(websocket: WebSocket) -> bytes | str | None:
    """The next frame's payload, or None once the peer has gone."""
    return payload(await websocket.receive())


def payload(message: Message) -> bytes | str | None:
    """A received ASGI message's frame payload, or None if it says the peer has gone."""
    if message["type"] == "websocket.disconnect":
        return None
    if message.get("bytes") is not None:
        return message["bytes"]
    return message.get("text") or ""


async def hello(websocket: WebSocket, outbox: Outbox, timeout_s: float) -> m.Hello | None:
    """The client's ``hello``; None (the socket refused and closed) if it did not say one."""
    try:
        frame = await asyncio.wait_for(receive_frame(websocket), timeout_s)
    except TimeoutError:
        await outbox.close(CloseCode.NO_HELLO)
        return None
    if frame is None:
        return None
    try:
        said = m.decode_client(frame)
    except ProtocolError as exc:
        await outbox.refuse_and_close(exc.code, exc.sentence, CloseCode.NO_HELLO, exc.ack)
        return None
    if not isinstance(said, m.Hello):
        await outbox.refuse_and_close(
            ErrorCode.MSG_HELLO_FIRST,
            m.sentence(ErrorCode.MSG_HELLO_FIRST),
            CloseCode.NO_HELLO,
            said.ack if isinstance(said, m.Command) else None,
        )
        return None
    if said.proto != m.PROTOCOL_VERSION:
        await outbox.refuse_and_close(
            ErrorCode.PROTO_VERSION,
            m.sentence(ErrorCode.PROTO_VERSION, ours=m.PROTOCOL_VERSION, theirs=said.proto),
            CloseCode.UNSUPPORTED_VERSION,
        )
        return None
    return said
