"""``python -m server``: serve Kondavo on KONDAVO_HOST:KONDAVO_PORT (127.0.0.1:8000),
on the Redis at KONDAVO_REDIS_URL when it is set (several nodes may share one)."""

from __future__ import annotations

import gc
import logging
import sys

import uvicorn
from starlette.applications import Starlette

from protocol.messages import MAX_FRAME_BYTES

from .app import create_app
from .config import ConfigError, Settings

# Issue 7: a client frame beyond the protocol's 8 KiB is cut off by the transport
# with close code 1009 before it is even buffered whole.
WS_MAX_BYTES = MAX_FRAME_BYTES


def uvicorn_config(
    settings: Settings, app: Starlette | None = None, **overrides: object
) -> uvicorn.Config:
    """The one uvicorn configuration, shared by ``python -m server``, tests and benchmarks."""
    options: dict[str, object] = {
        "host": settings.host,
        "port": settings.port,
        "ws": "websockets-sansio",
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
    return uvicorn.Config(app or create_app(settings), **options)  # type: ignore[arg-type]


# Allocations between young collections, young collections between middle ones, and
# middle ones between full ones (CPython's defaults: 700, 10, 10). A full collection
# walks every object of every open socket (about 200 each: the ASGI coroutine
# chain, uvicorn's and websockets' state), and each move leaves a record and a
# cached engine game that outlive the young generations, so with the defaults one
# node stopped for 100-250 ms every few seconds under load (bench/load.py: paced
# relay p99 50 ms at 500 games; 9 ms with these).
GC_THRESHOLDS = (50_000, 20, 100)


def tune_gc() -> None:
    """Collect rarely, and never again look at what start-up made (modules, classes)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"kondavo: {exc}", file=sys.stderr)
        return 2
    config = uvicorn_config(settings)
    tune_gc()
    uvicorn.Server(config).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
