"""The lobby socket: after the client's ``hello``, the listing (or, for a ``hello``
with ``since``, the changes after that lobby version, when they are still kept), then
each change as the node's ``LobbyFeed`` applies it; answers pings. Built from the game
socket's pieces: ``handshake``, ``budget`` (as a spectator's), ``outbox``."""

from __future__ import annotations

from typing import Any

from starlette.websockets import WebSocket

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode, ProtocolError
from server.services.lobby import LobbyFeed
from server.store import StoreUnavailable
from server.web import handshake
from server.web.budget import Budget
from server.web.limits import SocketLimits
from server.web.outbox import GONE, Outbox


async def serve(feed: LobbyFeed, websocket: WebSocket, state: Any) -> None:
    """One lobby socket: a ``hello`` first, as on a game socket (else ``msg/hello_first``
    and close 4001); then the listing or the missed changes, and each change; answers
    pings."""
    outbox = Outbox(websocket, state.settings, state.watchdog, "lobby")
    budget = Budget(SocketLimits(state.settings, seated=False), outbox)
    if not await handshake.accept(websocket):
        return
    try:
        said = await handshake.hello(websocket, outbox, state.settings.hello_timeout_s)
    except GONE:
        said = None
    if said is None:
        outbox.release()
        return
    outbox.start()
    try:
        await feed.ready()
        if said.since is not None and said.since > feed.version:
            await feed.catch_up()  # it came from a node that is ahead of this one
    except StoreUnavailable:
        # Not a final close code: the client comes back by itself a little later.
        await outbox.close(CloseCode.SERVER_ERROR)
        await outbox.stop()
        outbox.release()
        return
    # From here to ``watch`` nothing awaits: no change can slip in between.
    missed = None if said.since is None else feed.since(said.since)
    if missed is None:
        assert feed.latest is not None
        outbox.deliver(feed.latest)
    else:
        for change in missed:
            outbox.deliver(change)
    feed.watch(outbox.deliver)
    receive = websocket.scope.get("kondavo.receive", websocket.receive)
    try:
        while not outbox.closing:
            frame = handshake.payload(await receive())
            if frame is None:
                return
            try:
                message = m.decode_client(frame)
            except ProtocolError as exc:
                if budget.admit(None, exc.ack):
                    budget.strike(exc.code, exc.sentence, exc.ack)
                continue
            ack = message.ack if isinstance(message, m.Command) else None
            if not budget.admit(message, ack):
                continue
            if isinstance(message, m.Ping):
                outbox.send(m.Pong(n=message.n, now=await feed.store.now()))
            elif isinstance(message, m.Hello):
                twice = m.sentence(ErrorCode.MSG_HELLO_TWICE)
                outbox.send(m.Error(code=ErrorCode.MSG_HELLO_TWICE, message=twice))
            else:
                what = f"'{message.t}' on the lobby socket (it takes hello and ping)"
                unknown = m.sentence(ErrorCode.MSG_UNKNOWN_TYPE, type=what)
                budget.strike(ErrorCode.MSG_UNKNOWN_TYPE, unknown, ack)
    except GONE:
        pass
    finally:
        feed.unwatch(outbox.deliver)
        await outbox.stop()
        outbox.release()
