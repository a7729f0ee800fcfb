"""A long-running node forgets finished games (issue 34): its memory over 100,000 games.

One node on the memory store (``python -m server``, started as ``bench/load.py`` starts
it), with ``KONDAVO_FINISHED_KEPT_S`` short. Tables of scripted players play game
after game, each a real one: created and joined over HTTP, both players' sockets
opened, a move each, then a resignation. The node's RSS is sampled as the games
finish. Once the first finished games have expired, the node holds only the games of
the last keep time, so its RSS should stay flat however many games follow.

For a baseline in the same run, a second node with the default keep time (7 days)
plays a smaller number of games the same way: it keeps every one, and its RSS grows
with them.

    .venv/bin/python bench/forget.py --quick       # 20,000 games, a few minutes
    .venv/bin/python bench/forget.py               # 100,000 games

The last line is one JSON object: games, rss growth after the first expiry (MiB, and
per 10,000 games), and the baseline's growth per 10,000 games.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402


async def _frames_until(ws, wanted) -> dict:
    """Read ``ws`` until a message ``wanted(msg)`` accepts; that message."""
    while True:
        msg = msgpack.unpackb(await ws.recv())
        if wanted(msg):
            return msg


async def one_game(url: str, http: loadgen.Http) -> None:
    """English: Black moves, White moves, Black resigns."""
    created = await asyncio.to_thread(
        http.post, url + "/api/games", {"variant": "english", "clock": None, "color": "white"}
    )
    joined = await asyncio.to_thread(
        http.post, f"{url}/api/games/{created['id']}/join",
        {"invite": created["invite_url"].split("#invite=")[1]})  # fmt: skip
    ws_url = "ws" + url[4:]
    white = await loadgen._open(ws_url, created["id"], created["seat"]["token"])
    black = await loadgen._open(ws_url, created["id"], joined["seat"]["token"])
    try:
        state = await _frames_until(black, lambda m: m.get("t") == "state")
        await black.send(msgpack.packb({"t": "move", "path": state["legal"][0]["path"]}))
        moved = await _frames_until(white, lambda m: m.get("t") == "moved")
        await white.send(msgpack.packb({"t": "move", "path": moved["legal"][0]["path"]}))
        await _frames_until(black, lambda m: m.get("t") == "moved" and m["by"] == "white")
        await black.send(msgpack.packb({"t": "resign"}))
        await _frames_until(white, lambda m: m.get("t") == "over")
    finally:
        for ws in (white, black):
            with contextlib.suppress(Exception):
                await ws.close()


async def play(
    server: loadgen.Server, games: int, tables: int, every: int
) -> list[tuple[int, float, float]]:
    """Play ``games`` games on ``tables`` tables; (games done, seconds, RSS) samples."""
    done = [0]
    began = time.monotonic()
    samples = [(0, 0.0, server.rss_bytes())]
    next_sample = [every]

    async def table() -> None:
        http = loadgen.Http()
        try:
            while done[0] < games:
                await one_game(server.url, http)
                done[0] += 1
                if done[0] >= next_sample[0]:
                    next_sample[0] += every
                    samples.append((done[0], time.monotonic() - began, server.rss_bytes()))
        finally:
            http.close()

    await asyncio.gather(*(table() for _ in range(tables)))
    samples.append((done[0], time.monotonic() - began, server.rss_bytes()))
    return samples


def run(label: str, games: int, tables: int, every: int, **env: str) -> list:
    server = loadgen.start_kondavo(**env)
    try:
        samples = asyncio.run(play(server, games, tables, every))
    finally:
        server.stop()
    print(f"{label}:")
    for count, seconds, rss in samples:
        print(f"  {count:>7} games  {seconds:>6.0f} s  RSS {rss / 2**20:7.1f} MiB", flush=True)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 games")
    parser.add_argument("--games", type=int)
    parser.add_argument("--keep", type=float, default=5.0, help="KONDAVO_FINISHED_KEPT_S")
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--baseline-games", type=int)
    args = parser.parse_args()
    games = args.games or (20_000 if args.quick else 100_000)
    baseline_games = args.baseline_games or min(games, 10_000 if args.quick else 20_000)
    every = max(1000, games // 20)
    loadgen.raise_open_files()
    began = time.monotonic()

    kept = run(
        f"keep {args.keep:g} s, {games} games",
        games,
        args.tables,
        every,
        KONDAVO_FINISHED_KEPT_S=str(args.keep),
    )
    # Flat from the first sample taken two keep times in (the first games have expired,
    # and as many are kept as finish in one keep time).
    settled = next((s for s in kept if s[1] >= 2 * args.keep), kept[-1])
    end = kept[-1]
    growth = (end[2] - settled[2]) / 2**20
    per_10k = growth / max(1, end[0] - settled[0]) * 10_000
    baseline = run(
        f"baseline: keep 7 days, {baseline_games} games",
        baseline_games,
        args.tables,
        max(1000, baseline_games // 10),
    )
    base_growth = (baseline[-1][2] - baseline[0][2]) / 2**20
    base_per_10k = base_growth / max(1, baseline[-1][0]) * 10_000
    print(
        f"keep {args.keep:g} s: RSS {settled[2] / 2**20:.1f} MiB at {settled[0]} games "
        f"(after the first expiry) -> {end[2] / 2**20:.1f} MiB at {end[0]} games: "
        f"{growth:+.1f} MiB, {per_10k:+.2f} MiB per 10,000 games; baseline (kept 7 days): "
        f"{base_per_10k:+.2f} MiB per 10,000 games; took {time.monotonic() - began:.0f} s",
        flush=True,
    )
    print(
        json.dumps(
            {
                "games": end[0],
                "keep_s": args.keep,
                "rss_settled_mib": round(settled[2] / 2**20, 1),
                "rss_end_mib": round(end[2] / 2**20, 1),
                "growth_after_first_expiry_mib": round(growth, 1),
                "growth_mib_per_10k_games": round(per_10k, 2),
                "baseline_growth_mib_per_10k_games": round(base_per_10k, 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
