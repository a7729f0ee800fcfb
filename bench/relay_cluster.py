"""Relay throughput and latency on Redis with one and with two server nodes.

Starts its own ``redis-server`` on a free loopback port (no persistence; never the
system's Redis) and ``python -m server`` nodes sharing it, then plays N concurrent
untimed games between scripted clients (random legal moves), each watched by S
spectators. With two nodes, White's socket is on node 1 and Black's on node 2 (every
move crosses Redis), spectators alternate. A finished game is replaced by a new one.

Relay latency: from the mover sending its move to the opponent receiving it.

    .venv/bin/python bench/relay_cluster.py --games 100 --spectators 2 --seconds 15

The last line is one JSON object with both runs and the two-node/one-node ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadgen import free_port  # noqa: E402
from nodes import start_node, stop_node  # noqa: E402

from protocol import messages as m  # noqa: E402
from protocol.client import CommandRefused, Kondavo  # noqa: E402


class Redis:
    def __init__(self) -> None:
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="kondavo-bench-redis-")
        server = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.process = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir, "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        import redis

        client = redis.Redis(port=self.port)
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.02)
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def flush(self) -> None:
        import redis

        redis.Redis(port=self.port).flushall()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


async def one_table(
    nodes: list[Kondavo], spectators: int, until: float, latencies: list[float], moves: list[int]
) -> None:
    rng = random.Random()
    while time.monotonic() < until:
        white = await nodes[0].create(variant="english", color="white", clock=None)
        black = await nodes[-1].join(white.game, invite=white.invite)
        w = await nodes[0].connect(white)
        b = await nodes[-1].connect(black)
        watchers = [await nodes[i % len(nodes)].connect(white.game) for i in range(spectators)]
        try:
            while time.monotonic() < until and w.status == "playing":
                mover, opponent = (w, b) if w.my_turn else (b, w)
                if not mover.my_turn:
                    await mover.until(lambda c: c.my_turn or c.status != "playing")
                    continue
                count = len(opponent.moves)
                move = rng.choice(mover.legal)
                sent = time.perf_counter()
                try:
                    ack, _ = await asyncio.gather(
                        mover.command(m.MakeMove, path=list(move["path"]), v=mover.v),
                        opponent.until(lambda c, n=count: len(c.moves) > n),
                    )
                except CommandRefused:
                    continue
                latencies.append(time.perf_counter() - sent)
                moves[0] += 1
                await mover.until(lambda c, v=ack.v: c.v >= v)
        finally:
            for conn in (w, b, *watchers):
                await conn.close()


async def run_mode(urls: list[str], games: int, spectators: int, seconds: float) -> dict:
    nodes = [Kondavo(url, timeout=30) for url in urls]
    latencies: list[float] = []
    moves = [0]
    warmup = 2.0
    until = time.monotonic() + seconds + warmup
    tables = [
        asyncio.create_task(one_table(nodes, spectators, until, latencies, moves))
        for _ in range(games)
    ]
    await asyncio.sleep(warmup)  # connecting and the first moves are not measured
    start_moves, start_latencies, started = moves[0], len(latencies), time.monotonic()
    await asyncio.gather(*tables)
    elapsed = time.monotonic() - started
    measured = sorted(latencies[start_latencies:])
    quantiles = statistics.quantiles(measured, n=100) if len(measured) > 2 else [0.0] * 99
    return {
        "nodes": len(urls),
        "moves": moves[0] - start_moves,
        "moves_per_s": round((moves[0] - start_moves) / elapsed, 1),
        "relay_p50_ms": round(quantiles[49] * 1000, 2),
        "relay_p99_ms": round(quantiles[98] * 1000, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()

    redis = Redis()
    results = []
    try:
        for count in (1, 2):
            redis.flush()
            started = [start_node(redis.url) for _ in range(count)]
            try:
                urls = [url for url, _ in started]
                result = asyncio.run(run_mode(urls, args.games, args.spectators, args.seconds))
            finally:
                for _, process in started:
                    stop_node(process)
            results.append(result)
            print(
                f"redis, {count} node(s): {result['moves_per_s']} moves/s, relay "
                f"p50 {result['relay_p50_ms']} ms, p99 {result['relay_p99_ms']} ms "
                f"({args.games} games, {args.spectators} spectators each, {result['moves']} moves)"
            )
    finally:
        redis.stop()
    ratio = round(results[1]["moves_per_s"] / results[0]["moves_per_s"], 2)
    print(f"two-node/one-node throughput: {ratio}  (cores here: {os.cpu_count()})")
    print(
        json.dumps(
            {
                "games": args.games,
                "spectators": args.spectators,
                "one_node": results[0],
                "two_nodes": results[1],
                "two_over_one": ratio,
                "cpus": os.cpu_count(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
