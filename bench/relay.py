"""Relay benchmark (issue 3): N concurrent games, S spectators each, one server.

Scripted players make random legal moves as fast as the server relays them, on the
memory store (``python -m server``, its own process). Prints moves/s and relay
latency (mover's send to opponent's receipt) p50/p99, and, in the same run, a bare
WebSocket echo on the same stack (uvicorn + Starlette, same configuration, same
socket count) as the floor. Relay ratio = frames delivered per second by the game
server over the echo's frames per second.

    .venv/bin/python bench/relay.py --games 100 --spectators 2 --seconds 20

The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    args = parser.parse_args()
    loadgen.raise_open_files()
    sockets = args.games * (2 + args.spectators)

    server = loadgen.start_kondavo()
    try:
        share = [
            args.games // args.clients + (i < args.games % args.clients)
            for i in range(args.clients)
        ]
        sampler = loadgen.CpuSampler([server])
        runs = loadgen.in_processes(
            "play", [([server.url], n, args.spectators, args.seconds) for n in share if n]
        )
        sampler.stop()
    finally:
        server.stop()
    server_cpu = sampler.share(runs[0]["window"])
    client_cpu = sum(r["client_cpu"] for r in runs)
    elapsed = max(r["elapsed"] for r in runs)
    moves = sum(r["moves"] for r in runs)
    frames = sum(r["frames"] for r in runs)
    latencies = [x for r in runs for x in r["latencies"]]
    moves_per_s = moves / elapsed
    frames_per_s = frames / elapsed
    p50 = loadgen.quantile(latencies, 0.50) * 1000
    p99 = loadgen.quantile(latencies, 0.99) * 1000

    echo_server = loadgen.start_echo()
    try:
        share = [
            sockets // args.clients + (i < sockets % args.clients) for i in range(args.clients)
        ]
        echoes = loadgen.in_processes(
            "echo", [(echo_server.ws_url + "/echo", n, args.seconds) for n in share if n]
        )
    finally:
        echo_server.stop()
    echo_per_s = sum(e["round_trips"] for e in echoes) / max(e["elapsed"] for e in echoes)
    ratio = frames_per_s / echo_per_s if echo_per_s else 0.0

    print(
        f"games {args.games}, spectators {args.spectators} each, {sockets} sockets, "
        f"{args.seconds:g} s measured, cores {os.cpu_count()}"
    )
    print(
        f"game server: {moves_per_s:.1f} moves/s, {frames_per_s:.0f} frames/s delivered, "
        f"relay p50 {p50:.2f} ms, p99 {p99:.2f} ms, server CPU {server_cpu:.0%} "
        f"of a core, load generator {client_cpu:.0%}"
    )
    print(f"bare echo, same stack and socket count: {echo_per_s:.0f} round trips/s")
    print(f"relay ratio (frames delivered / echo frames): {ratio:.2f}")
    print(
        json.dumps(
            {
                "games": args.games,
                "spectators": args.spectators,
                "moves_per_s": round(moves_per_s, 1),
                "relay_p50_ms": round(p50, 2),
                "relay_p99_ms": round(p99, 2),
                "echo_rtt_per_s": round(echo_per_s, 1),
                "relay_ratio": round(ratio, 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
