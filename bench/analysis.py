"""Analyst benchmark (issue 33 point 5): a 100-ply International game analysed at the
default budget, alone and while 100 live games are played beside it.

One node (``python -m server``, memory store, its default single computer worker). The
game is a self-played one (level 3 against itself, a fixed seed). Round 1: the
analysis alone. Round 2: 100 paced games (a move every 2 s each, one spectator) for the
analysis' duration without it, then round 3 with it, so the relay p99 with and without
the analyst come from the same minutes of the same machine. Target: the analysis under
60 s, and the live games' relay p99 no worse with it than without.

    .venv/bin/python bench/analysis.py [--games 100] [--plies 100]

The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import loadgen  # noqa: E402

from engine import Game, get_rules  # noqa: E402
from engine.levels import choose_move  # noqa: E402


def self_played(plies: int) -> list[str]:
    """An International game of at least ``plies`` moves between two level-3 computers
    (node-limited, so the same on every machine), the first seed that lasts that long."""
    rules = get_rules("international")
    for seed in range(100):
        game = Game(rules)
        while not game.is_over and len(game.moves) < plies:
            game.play(choose_move(game.position, 3, seed=seed + len(game.moves), time_limit=0.05))
        if len(game.moves) >= plies:
            return list(game.notation)
    raise RuntimeError(f"no self-played game lasted {plies} plies")


def analyse(url: str, moves: list[str]) -> dict:
    body = json.dumps({"variant": "international", "moves": moves}).encode()
    request = urllib.request.Request(
        f"{url}/api/analysis",
        data=body,
        method="POST",
        headers={"content-type": "application/json"},
    )
    started = time.perf_counter()
    first = None
    with urllib.request.urlopen(request, timeout=600) as answer:
        lines = []
        for raw in answer:
            if first is None:
                first = time.perf_counter() - started
            lines.append(json.loads(raw))
    done = lines[-1]
    assert done["t"] == "done", done
    depths = [line["depth"] for line in lines if line["t"] == "position"]
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "positions": len(depths),
        "mean_depth": round(sum(depths) / len(depths), 1),
        "first_line_s": round(first or 0.0, 2),
        "judged": {
            k: sum(s[k] for s in done["summary"].values())
            for k in ("inaccuracy", "mistake", "blunder")
        },
    }


def paced(url: str, games: int, seconds: float) -> dict:
    half = [games // 2, games - games // 2]
    runs = loadgen.in_processes("play", [([url], n, 1, seconds, 2.0, 5.0) for n in half if n])
    run = loadgen.merged(runs)
    return {
        "moves_per_s": round(run["moves"] / run["elapsed"], 1),
        "relay_p50_ms": round(loadgen.quantile(run["latencies"], 0.5) * 1000, 2),
        "relay_p99_ms": round(loadgen.quantile(run["latencies"], 0.99) * 1000, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--plies", type=int, default=100)
    args = parser.parse_args()
    loadgen.raise_open_files()
    moves = self_played(args.plies)
    print(f"game: {len(moves)} plies of International, self-played at level 3", flush=True)
    server = loadgen.start_kondavo()
    try:
        alone = analyse(server.url, moves)
        print(
            f"analysis alone: {alone['seconds']} s for {alone['positions']} positions "
            f"(mean depth {alone['mean_depth']}, first line after "
            f"{alone['first_line_s']} s); judged {alone['judged']}",
            flush=True,
        )
        window = max(30.0, alone["seconds"])
        without = paced(server.url, args.games, window)
        print(
            f"{args.games} paced games, no analysis: relay p50 {without['relay_p50_ms']} ms, "
            f"p99 {without['relay_p99_ms']} ms, {without['moves_per_s']} moves/s",
            flush=True,
        )
        beside: dict = {}
        thread = threading.Thread(target=lambda: beside.update(analyse(server.url, moves)))
        thread.start()
        with_analysis = paced(server.url, args.games, window)
        thread.join()
        print(
            f"{args.games} paced games, an analysis beside them: relay p50 "
            f"{with_analysis['relay_p50_ms']} ms, p99 {with_analysis['relay_p99_ms']} ms, "
            f"{with_analysis['moves_per_s']} moves/s; the analysis took {beside['seconds']} s",
            flush=True,
        )
    finally:
        server.stop()
    result = {
        "plies": len(moves),
        "analysis_alone_s": alone["seconds"],
        "analysis_beside_games_s": beside["seconds"],
        "relay_p99_ms_without": without["relay_p99_ms"],
        "relay_p99_ms_with": with_analysis["relay_p99_ms"],
        "p99_ratio": round(with_analysis["relay_p99_ms"] / max(without["relay_p99_ms"], 0.01), 2),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
