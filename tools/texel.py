"""Fit the evaluation's weights to game outcomes (Texel tuning), per rule set.

    .venv/bin/python tools/texel.py selfplay english --games 200 --out /tmp/english.jsonl
    .venv/bin/python tools/texel.py fit english /tmp/english.jsonl [--write]

``selfplay`` plays the engine against itself at a fixed node budget a move (so the
games do not depend on the machine's speed) with a little root noise for variety, from
random four-ply openings, and writes every quiet position (no capture pending) after
the opening with the game's result for White: one JSON line ``[white, black, kings,
turn, result, game]``. Games are adjudicated as matches are (``engine.match.Adjudicator``).

``fit`` minimises the mean squared error between each position's result and
``sigmoid(score / K)`` of the static score (Texel's method, a logistic regression on
outcomes): first ``K`` for the current weights, then each weight of ``Weights`` in turn,
nudged up and down while that lowers the error, in rounds of shrinking steps. The
weights are integers in hundredths of a man, like the hand-set ones they start from.
Rounds stop as soon as the held-out error stops falling (early stopping), and the
weights of the last round that lowered it are kept. ``--write`` stores them in
``engine/data/weights.json`` under the rule set's id, where
``engine.evaluation.weights_for`` reads them. Half the positions
(every other game) are held out, and the error on them is printed before and after,
so a fit that only learns its own games shows.

Only this script needs the data: the engine reads the small JSON file.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import asdict, fields, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game, evaluation, get_rules  # noqa: E402
from engine.evaluation import Evaluator, Weights, derived_weights, weights_for  # noqa: E402
from engine.game import Result  # noqa: E402
from engine.levels import game_history  # noqa: E402
from engine.match import Adjudicator  # noqa: E402
from engine.search import Searcher, SearchParams  # noqa: E402

WEIGHTS_FILE = evaluation.WEIGHTS_FILE
# Weights never tuned: the man's value is the unit, and these are fixed by the rules.
FIXED = {"guard"}


def selfplay(variant: str, games: int, nodes: int, seed: int, out: Path) -> None:
    rules = get_rules(variant)
    rng = random.Random(seed)
    written = 0
    started = time.perf_counter()
    with out.open("a") as f:
        for g in range(games):
            game = Game(rules)
            for _ in range(4):
                moves = game.legal_moves()
                if not moves:
                    break
                game.play(rng.choice(moves))
            searcher = Searcher(rules)
            adjudicator = Adjudicator()
            seen: list[tuple[int, int, int, int]] = []
            verdict = None
            while not game.is_over and len(game.moves) < 250:
                pos = game.position
                if not pos.has_capture():
                    seen.append((pos.white, pos.black, pos.kings, pos.turn))
                params = SearchParams(node_limit=nodes, noise=15, seed=rng.getrandbits(32))
                result = searcher.search(pos, game_history(game), params)
                if result.move is None:
                    break
                game.play(result.move)
                if not game.is_over:
                    verdict = adjudicator.verdict(game.position)
                    if verdict is not None:
                        break
            res = game.result if game.is_over else (verdict or Result.DRAW)
            white_points = {Result.WHITE_WINS: 1.0, Result.BLACK_WINS: 0.0}.get(res, 0.5)
            for w, b, k, t in seen:
                f.write(json.dumps([w, b, k, t, white_points, seed * 100_000 + g]) + "\n")
                written += 1
            f.flush()
            print(
                f"game {g + 1}/{games}: {res}, {len(game.moves)} plies, "
                f"{written} positions, {time.perf_counter() - started:.0f} s",
                flush=True,
            )


def load(path: Path) -> list[list]:
    return [json.loads(line) for line in path.open()]


def error(rules, weights: Weights, data, k: float) -> float:
    """Mean squared error of ``sigmoid(score / k)`` (White's view) against the results."""
    evaluation._CHUNK_CACHE.clear()  # one table set a trial: the cache would only grow
    score = Evaluator(rules, weights).score
    total = 0.0
    for w, b, kings, turn, result, _ in data:
        s = score(w, b, kings, turn)
        if turn:
            s = -s
        s = max(-2000.0, min(2000.0, s))
        p = 1.0 / (1.0 + math.exp(-s / k))
        total += (result - p) ** 2
    return total / len(data)


def fit(variant: str, path: Path, rounds: int, write: bool) -> None:
    rules = get_rules(variant)
    data = load(path)
    # Positions of one game are alike: hold out whole games (every other), not positions.
    train = [d for d in data if d[5] % 2 == 0]
    held = [d for d in data if d[5] % 2 == 1]
    weights = weights_for(rules)
    k = min((error(rules, weights, train, k), k) for k in (60, 80, 100, 130, 160, 200, 260))[1]
    base_train, base_held = error(rules, weights, train, k), error(rules, weights, held, k)
    print(
        f"{variant}: {len(train)} positions to fit, {len(held)} held out; K = {k}; "
        f"error {base_train:.5f} (held out {base_held:.5f})",
        flush=True,
    )
    best = base_train
    best_held, kept = base_held, weights
    names = [f.name for f in fields(Weights) if f.name not in FIXED]
    # Each weight stays within a band around its derived value: a fit of some thousand
    # positions should refine the hand-set evaluation, not invent another.
    start = derived_weights(rules)
    bounds = {n: (getattr(start, n) // 2, getattr(start, n) * 2 + 10) for n in names}
    bounds["king"] = (start.king * 3 // 4, start.king * 3 // 2)
    for r in range(rounds):
        changed = False
        for name in names:
            value = getattr(weights, name)
            step = max(1, abs(value) // 8) if r < rounds // 2 else 1
            lo, hi = bounds[name]
            for sign in (1, -1):
                improved = False
                while True:
                    trial = replace(weights, **{name: min(hi, max(lo, value + sign * step))})
                    if trial == weights:
                        break
                    e = error(rules, trial, train, k)
                    if e >= best:
                        break
                    weights, best, value, improved, changed = (
                        trial,
                        e,
                        value + sign * step,
                        True,
                        True,
                    )
                if improved:
                    break
        held_now = error(rules, weights, held, k)
        print(
            f"round {r + 1}: error {best:.5f} (held out {held_now:.5f})  {asdict(weights)}",
            flush=True,
        )
        # Early stopping: a round that fits its own games better but the held-out ones
        # worse has begun to learn the games, not the game.
        if held_now >= best_held:
            break
        best_held, kept = held_now, weights
        if not changed:
            break
    weights = kept
    print(f"{variant}: held-out error {base_held:.5f} -> {best_held:.5f}; kept {asdict(weights)}")
    if write and weights == derived_weights(rules):
        print("nothing fitted beats the derived weights on held-out games: nothing written")
    elif write:
        stored = json.loads(WEIGHTS_FILE.read_text()) if WEIGHTS_FILE.exists() else {}
        stored[rules.id] = asdict(weights)
        WEIGHTS_FILE.parent.mkdir(exist_ok=True)
        WEIGHTS_FILE.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        print(f"written to {WEIGHTS_FILE}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("selfplay")
    sp.add_argument("variant")
    sp.add_argument("--games", type=int, default=200)
    sp.add_argument("--nodes", type=int, default=1500)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--out", type=Path, required=True)
    fp = sub.add_parser("fit")
    fp.add_argument("variant")
    fp.add_argument("data", type=Path)
    fp.add_argument("--rounds", type=int, default=6)
    fp.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if args.command == "selfplay":
        selfplay(args.variant, args.games, args.nodes, args.seed, args.out)
    else:
        fit(args.variant, args.data, args.rounds, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
