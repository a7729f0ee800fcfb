"""Benchmark of the computer opponent: search speed and depth, and level ladders.

    .venv/bin/python bench/bot.py                       # speed for every rule set + a short ladder
    .venv/bin/python bench/bot.py --seconds 2 --games 8 --levels 2,5,8 --variants russian,english

For each rule set: nodes per second and the depth level 8 completes in ``--seconds``
from the start position and from a middlegame position reached by play; then short
matches of level k against level k-1 for the chosen k (colours alternating from
balanced openings), with the score and Elo difference of the stronger level.
A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from engine import VARIANTS, Position  # noqa: E402
from engine.levels import get_level, search_move  # noqa: E402
from engine.match import run_match  # noqa: E402
from engine.search import Searcher  # noqa: E402


def middlegame(variant: str, plies: int = 16) -> Position:
    """A position after ``plies`` moves of fast level-5 play from the start."""
    pos = Position.start(VARIANTS[variant])
    for i in range(plies):
        if not pos.legal_moves():
            break
        move = search_move(pos, 5, seed=i, node_limit=2000).move
        assert move is not None
        pos = pos.play(move)
    return pos


def speed(variant: str, seconds: float) -> None:
    rules = VARIANTS[variant]
    for label, pos in (("start", Position.start(rules)), ("middlegame", middlegame(variant))):
        params = get_level(8).params(seed=1, time_limit=seconds)
        # Let the search use the whole budget: no early stop before the next iteration.
        result = Searcher(rules, params).search(pos)
        print(
            f"{variant:14s} {label:10s} depth {result.depth:2d}  {result.nodes:8d} nodes  "
            f"{result.nodes_per_second:8.0f} nodes/s  {result.seconds:5.2f} s  "
            f"best {result.move}  score {result.score:+d}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--variants", default=",".join(VARIANTS), help="comma-separated rule sets (default: all)"
    )
    ap.add_argument("--seconds", type=float, default=1.0, help="search time for the speed test")
    ap.add_argument("--levels", default="2,5,8", help="k for the level k vs k-1 matches")
    ap.add_argument(
        "--ladder-variants", default="english,russian", help="rule sets for the matches"
    )
    ap.add_argument("--games", type=int, default=6, help="games per match")
    ap.add_argument("--time", type=float, default=0.3, help="cap on seconds per move in matches")
    ap.add_argument("--jobs", type=int, default=2, help="games in parallel")
    args = ap.parse_args(argv)

    print(f"# search speed, level 8, {args.seconds:g} s per position")
    for v in args.variants.split(","):
        speed(v.strip(), args.seconds)

    print(f"\n# level k vs k-1, {args.games} games, at most {args.time:g} s per move")
    for v in args.ladder_variants.split(","):
        for k in (int(x) for x in args.levels.split(",")):
            t0 = time.perf_counter()
            score = run_match(v.strip(), k, k - 1, args.games, args.time, seed=k, jobs=args.jobs)
            print(
                f"{v:14s} level {k} vs {k - 1}: {score}  [{time.perf_counter() - t0:.0f} s]",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
