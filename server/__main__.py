"""``python -m server``: serve Kondavo on KONDAVO_HOST:KONDAVO_PORT (127.0.0.1:8000),
on the Redis at KONDAVO_REDIS_URL when it is set (several nodes may share one)."""

from __future__ import annotations

import logging
import sys

import uvicorn
from starlette.applications import Starlette

from .app import create_app
from .config import ConfigError, Settings

# Frames up to this size reach the protocol, which answers frame/too_large with a
# sentence; anything bigger is cut off by the transport with close code 1009.
WS_MAX_BYTES = 64 * 1024


def uvicorn_config(
    settings: Settings, app: Starlette | None = None, **overrides: object
) -> uvicorn.Config:
    """The one uvicorn configuration, shared by ``python -m server``, tests and benchmarks."""
    options: dict[str, object] = {
        "host": settings.host,
        "port": settings.port,
        "ws": "websockets-sansio",
        "ws_max_size": WS_MAX_BYTES,
        "lifespan": "on",
        "log_level": "info",
    }
    options.update(overrides)
    return uvicorn.Config(app or create_app(settings), **options)  # type: ignore[arg-type]


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"kondavo: {exc}", file=sys.stderr)
        return 2
    uvicorn.Server(uvicorn_config(settings)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
