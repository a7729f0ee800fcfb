"""How a node is served: the one uvicorn configuration, shared by ``python -m server``,
tests and benchmarks."""

from __future__ import annotations

import uvicorn
from starlette.types import ASGIApp

from protocol.messages import MAX_FRAME_BYTES
from server.config import Settings
from server.net.http_protocol import UpgradeReleasingHttpToolsProtocol
from server.net.ws_protocol import ParserReleasingWebSocketProtocol

# Issue 7: a client frame beyond the protocol's 8 KiB is cut off by the transport
# with close code 1009 before it is even buffered whole.
WS_MAX_BYTES = MAX_FRAME_BYTES


def uvicorn_config(settings: Settings, app: ASGIApp, **overrides: object) -> uvicorn.Config:
    """The one uvicorn configuration, shared by ``python -m server``, tests and benchmarks."""
    options: dict[str, object] = {
        "host": settings.host,
        "port": settings.port,
        # httptools, without the reference cycle it leaves at each WebSocket upgrade.
        "http": UpgradeReleasingHttpToolsProtocol,
        # websockets' sans-I/O protocol, without the cycle each closed socket leaves.
        "ws": ParserReleasingWebSocketProtocol,
        "ws_max_size": WS_MAX_BYTES,
        # Compression costs memory per socket and CPU per frame, and invites
        # compression bombs; msgpack frames are small already.
        "ws_per_message_deflate": False,
        # Protocol pings find dead peers; a missing pong closes the socket (1011),
        # and the room tells the opponent (presence).
        "ws_ping_interval": settings.ping_interval_s,
        "ws_ping_timeout": settings.ping_timeout_s,
        # X-Forwarded-For is read by the app, only from KONDAVO_TRUSTED_PROXIES.
        "proxy_headers": False,
        "lifespan": "on",
        "log_level": "info",
    }
    options.update(overrides)
    return uvicorn.Config(app, **options)  # type: ignore[arg-type]


def run(settings: Settings, app: ASGIApp) -> None:
    """Serve ``app`` until the process is told to stop."""
    uvicorn.Server(uvicorn_config(settings, app)).run()
