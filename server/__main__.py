"""``python -m server [--host H] [--port N]``: serve Kondavo on KONDAVO_HOST:KONDAVO_PORT
(127.0.0.1:8000; ``--host`` and ``--port`` override them), on the Redis at
KONDAVO_REDIS_URL when it is set (several nodes may share one). Every other setting is
a ``KONDAVO_*`` environment variable (server/config.py); any other argument is refused."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys

from server.config import ConfigError, Settings
from server.net import serve
from server.web.app import create_app

# Allocations between young collections, young collections between middle ones, and
# middle ones between full ones (CPython's defaults: 700, 10, 10).
# - A collection stops the node for as long as it takes to walk the objects it looks
#   at, about 0.7 us each, and the young ones it walks are mostly alive: each game's
#   state is a new copy at every move and each socket waits on a new coroutine for
#   every frame, while the copies they replace die by reference counting. Those
#   deaths also lower CPython's allocation count, so a young collection can find far
#   more objects than its threshold: everything renewed since the last one.
# - So what a collection walks grows with the time since the last one. Measured at
#   bench/load.py's 2,000 paced games (relay p99 over a 40 s window unless said):
#   - (400, 2500, 100), the old setting: a middle collection every 100 s, walking
#     two million objects, 0.6-0.9 s (p99 41 ms, p99.9 0.9 s over 150 s);
#   - (400, 20, 1000): middle ones of 20-190 ms (p99 52 ms over 150 s);
#   - (400, 2, 10000): at most 30 ms, but a p99 of 10-24 ms from run to run;
#   - (200, 2, 20000): p99 8.7 ms, p99.9 17.5 ms, max 30 ms;
#   - (100, 2, 40000): p99 8.3 ms, at a price in the closed loop (bench/relay.py):
#     collections took 6.7% of the node's CPU, against 5.7% at 200 and 5.0% at 400.
# - Middle collections hand whatever survives them to the old generation at once,
#   so full collections, which walk every live object (about a second at that
#   load), wait for 20,000 of them: about 8 minutes with bench/relay.py's closed
#   loop at a full core, longer at a pace people play. Memory does not grow
#   meanwhile: a node in play makes no garbage cycles (gc.DEBUG_SAVEALL over 1,400
#   closed-loop games and 20 against the computer) since net/http_protocol.py and net/frames.py
#   break the two each socket left (tests/server/test_garbage_cycles.py).
GC_THRESHOLDS = (200, 2, 20_000)


def tune_gc() -> None:
    """Young objects often; everything older rarely; start-up's never again."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# What an argument the server does not take is told (exit code 2, as argparse's own).
ONLY_HOST_AND_PORT = (
    "it takes only --host and --port, not {}: every other setting is a KONDAVO_*"
    " environment variable (README, Configuration)"
)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 65535, not {text!r}")
    return int(text)


def arguments(argv: list[str]) -> argparse.Namespace:
    """``--host`` and ``--port``; anything else ends the process (2) with a sentence."""
    parser = argparse.ArgumentParser(
        prog="python -m server",
        description="Serve Kondavo.",
        epilog="Every other setting is a KONDAVO_* environment variable"
        " (README, Configuration): KONDAVO_REDIS_URL, KONDAVO_PUBLIC_URL, ...",
        allow_abbrev=False,
    )
    parser.add_argument(
        "--host", help="the address to listen on (overrides KONDAVO_HOST; default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=_port, help="the port to listen on (overrides KONDAVO_PORT; default 8000)"
    )
    args, others = parser.parse_known_args(argv)
    if others:
        parser.error(ONLY_HOST_AND_PORT.format(repr(" ".join(others))))
    return args


def main(argv: list[str] | None = None) -> int:
    args = arguments(sys.argv[1:] if argv is None else argv)
    env = dict(os.environ)
    if args.host is not None:
        env["KONDAVO_HOST"] = args.host
    if args.port is not None:
        env["KONDAVO_PORT"] = str(args.port)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env(env)
    except ConfigError as exc:
        print(f"kondavo: {exc}", file=sys.stderr)
        return 2
    app = create_app(settings)
    tune_gc()
    serve.run(settings, app)
    return 0


if __name__ == "__main__":
    sys.exit(main())
