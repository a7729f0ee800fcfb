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
# middle ones between full ones (CPython's defaults: 700, 10, 10).
# - A collection stops the node for as long as it takes to walk the objects it
#   looks at, about half a microsecond each. Under load most of the young ones are
#   alive: each socket's wait for its next frame (futures, coroutine frames) and
#   each game's state, renewed on every move.
# - So young collections are kept small and frequent: a few ms each. With 50,000
#   they stopped the node 100-250 ms every few seconds (bench/load.py's 2,000 paced
#   games, one machine: relay p99 177 ms over 200 s, against 22 ms with these).
# - Middle collections walk everything that survived since the last one: up to a
#   second at that load, so they come once in a million allocations (a minute and
#   a half there; the price: a p99.9 of 0.7 s, and garbage cycles wait that long).
#   Full ones, rarer still, also wait for CPython's own rule (a quarter more
#   long-lived objects than at the last one).
GC_THRESHOLDS = (400, 2500, 100)


def tune_gc() -> None:
    """Young objects often, a few at a time; the rest rarely; start-up's never again."""
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
