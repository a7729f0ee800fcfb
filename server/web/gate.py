"""The door every WebSocket passes before it is accepted: Origin and sockets per address.

A pure ASGI middleware (HTTP passes straight through). A handshake from a foreign
Origin, or from an address already holding its share of sockets, gets HTTP 403
before the socket is accepted, so a refused page never reaches a
room. It also leaves three things in the scope for ``game_socket``: the client's address
(``kondavo.ip``); a way to cut a socket off at once (``kondavo.abort``), which
ASGI itself lacks: a peer that stopped reading cannot be sent a close frame; and
the server's own ``send`` and ``receive`` (``kondavo.send``, ``kondavo.receive``),
for the frames of a game in play.
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Receive, Scope, Send

from server.net.frames import frame_writer, transport_abort
from server.web.limits import client_ip
from server.web.origin import origin_allowed

log = logging.getLogger(__name__)


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
