"""Lobby traffic with open seeks churning: frames and bytes the lobby socket sends, this
tree against a baseline revision (issue 31 point 5: the lobby by increments).

For each server (the baseline, extracted from git into a temporary folder, and this
tree), in turn and in the same run: start ``python -m server`` on a free loopback port
(the memory store, or with ``--redis`` a private ``redis-server``), open ``--seeks``
open games, connect ``--watchers`` lobby sockets (each says hello and counts what it
receives), then for ``--seconds`` keep the seeks churning: ``--churn`` times a second a
new seek is opened and a random one cancelled (its creator's socket aborts it), so
about ``--seeks`` stay open. Prints, per server, the lobby frames and bytes sent per
second (all watchers together, and per watcher), and the ratios this tree / baseline.

    nice -n 10 .venv/bin/python bench/lobby.py --baseline f1f4a88 --watchers 50 \\
        --seeks 500 --churn 10 --seconds 20

The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadgen import raise_open_files  # noqa: E402
from nodes import checkout, start_node, stop_node  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402

from protocol import messages as m  # noqa: E402
from protocol.client import Kondavo, SeatTicket  # noqa: E402


class Watcher:
    """One lobby socket that counts the frames and bytes it receives."""

    def __init__(self, ws_url: str):
        self.ws_url = ws_url
        self.frames = 0
        self.bytes = 0
        self.counting = False
        self.task: asyncio.Task[None] | None = None

    async def run(self, ready: asyncio.Event) -> None:
        async with connect(
            f"{self.ws_url}/ws/lobby", subprotocols=[Subprotocol(m.SUBPROTOCOL)], max_size=None
        ) as ws:
            await ws.send(m.encode(m.Hello()))
            await ws.recv()  # the first listing
            ready.set()
            async for frame in ws:
                if self.counting:
                    self.frames += 1
                    self.bytes += len(frame)


async def cancel(k: Kondavo, seat: SeatTicket) -> None:
    async with k.connect(seat) as creator:
        await creator.abort()


async def churn(
    k: Kondavo, seeks: list[SeatTicket], per_second: float, until: float, rng: random.Random
) -> int:
    """Open a seek and cancel a random one ``per_second`` times a second until ``until``."""
    done = 0
    pending: set[asyncio.Task[None]] = set()
    started = time.monotonic()
    while time.monotonic() < until:
        due = started + done / per_second
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        seeks.append(await k.create(opponent="open", clock=None))
        gone = seeks.pop(rng.randrange(len(seeks) - 1))
        task = asyncio.create_task(cancel(k, gone))
        pending.add(task)
        task.add_done_callback(pending.discard)
        done += 1
    with contextlib.suppress(Exception):
        await asyncio.gather(*pending, return_exceptions=True)
    return done


async def measure(url: str, args: argparse.Namespace) -> dict[str, float]:
    k = Kondavo(url, timeout=30)
    rng = random.Random(1)
    seeks: list[SeatTicket] = []
    for start in range(0, args.seeks, 20):
        batch = min(20, args.seeks - start)
        seeks += await asyncio.gather(
            *(k.create(opponent="open", clock=None) for _ in range(batch))
        )
    ws_url = "ws" + url.removeprefix("http")
    watchers = [Watcher(ws_url) for _ in range(args.watchers)]
    readies = [asyncio.Event() for _ in watchers]
    for watcher, ready in zip(watchers, readies, strict=True):
        watcher.task = asyncio.create_task(watcher.run(ready))
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 60)
    await asyncio.sleep(2)  # the first changes after the fill
    for watcher in watchers:
        watcher.counting = True
    began = time.monotonic()
    churned = await churn(k, seeks, args.churn, began + args.seconds, rng)
    spent = time.monotonic() - began
    for watcher in watchers:
        watcher.counting = False
        assert watcher.task is not None
        watcher.task.cancel()
        with contextlib.suppress(BaseException):
            await watcher.task
    frames = sum(w.frames for w in watchers)
    sent = sum(w.bytes for w in watchers)
    return {
        "frames_per_s": frames / spent,
        "bytes_per_s": sent / spent,
        "frames_per_s_per_watcher": frames / spent / len(watchers),
        "bytes_per_frame": sent / frames if frames else 0.0,
        "churned_per_s": churned / spent,
    }


def run_one(tree: Path, args: argparse.Namespace, redis: object | None) -> dict[str, float]:
    redis_url = None
    if redis is not None:
        redis.flush()  # type: ignore[attr-defined]
        redis_url = redis.url  # type: ignore[attr-defined]
    url, process = start_node(
        redis_url, tree, KONDAVO_BOT_WORKERS="0", KONDAVO_ANALYSIS_WORKERS="0"
    )
    try:
        return asyncio.run(measure(url, args))
    finally:
        stop_node(process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="f1f4a88", help="the revision to compare with")
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--seeks", type=int, default=500)
    parser.add_argument(
        "--churn", type=float, default=10.0, help="seeks opened (and as many cancelled) per second"
    )
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=1, help="baseline/this pairs, alternated")
    parser.add_argument("--redis", action="store_true", help="on a private redis-server")
    args = parser.parse_args()
    raise_open_files()
    redis = None
    if args.redis:
        from relay_cluster import Redis

        redis = Redis()
    results: dict[str, list[dict[str, float]]] = {"baseline": [], "this": []}
    try:
        with tempfile.TemporaryDirectory(prefix="kondavo-lobby-baseline-") as folder:
            short = checkout(args.baseline, Path(folder), "server", "protocol", "engine")
            for n in range(args.rounds):
                for name, tree in (("baseline", Path(folder)), ("this", REPO)):
                    figures = run_one(tree, args, redis)
                    results[name].append(figures)
                    label = f"baseline {short}" if name == "baseline" else "this tree"
                    print(
                        f"round {n + 1} {label:>16}: {figures['frames_per_s']:8.1f} frames/s"
                        f" ({figures['frames_per_s_per_watcher']:.2f} per watcher),"
                        f" {figures['bytes_per_s'] / 1024:9.1f} KiB/s,"
                        f" {figures['bytes_per_frame']:7.0f} B/frame,"
                        f" churn {figures['churned_per_s']:.1f}/s",
                        flush=True,
                    )
    finally:
        if redis is not None:
            redis.stop()

    def mean(name: str, key: str) -> float:
        return sum(r[key] for r in results[name]) / len(results[name])

    ratios = {
        key: (mean("this", key) / mean("baseline", key) if mean("baseline", key) else None)
        for key in ("frames_per_s", "bytes_per_s")
    }
    print(
        f"this / baseline: frames/s x{ratios['frames_per_s']:.2f},"
        f" bytes/s x{ratios['bytes_per_s']:.3f}"
        f" ({args.watchers} watchers, {args.seeks} seeks, churn {args.churn:g}/s,"
        f" {'redis' if args.redis else 'memory'} store)"
    )
    print(json.dumps({"args": vars(args), "results": results, "ratios": ratios}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
