"""Check the endgame tables against a search that shares nothing with their builder.

    .venv/bin/python bench/endgame_check.py english russian --samples 2000 --depth 7

For random positions of a rule set's table (the one the search reads: shipped, or
from the cache folder, else built now), plain minimax over the legal moves
(``endgame.search_distance``) must find the same result wherever one comes within
``--depth`` plies: a win or loss at the table's distance exactly, and nothing where
the table has a draw or a longer result. Prints per rule set how many positions of
each kind agreed, and every disagreement (there should be none). Each sampled
position is also checked one ply on (``endgame.from_children``): its entry must be
what its children's entries give, draw rules included, at any distance. A script
that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from engine import Position, endgame, get_rules  # noqa: E402


def check(variant: str, pieces: int | None, samples: int, depth: int, seed: int) -> int:
    rules = get_rules(variant)
    n = pieces or endgame.default_pieces(rules)
    started = time.perf_counter()
    # The shipped table, else the cache folder's, else one built now.
    table = endgame.table_for(rules, n) or endgame.build_and_save(rules, n)
    got = time.perf_counter() - started
    rng = random.Random(seed)
    # Positions of the most pieces are the ones a smaller table never checked.
    mats = [m for m in table.values if sum(m) == n]
    weights = [len(table.values[m]) for m in mats]
    kinds = {"won": 0, "lost": 0, "beyond": 0}
    wrong = 0
    started = time.perf_counter()
    done = 0
    while done < samples:
        m = rng.choices(mats, weights)[0]
        white, black, kings = table.layout.decode(m, rng.randrange(len(table.values[m])))
        if (white | black).bit_count() != n or white & black:
            continue  # a number where two groups share a square
        done += 1
        turn = rng.randrange(2)
        if turn:  # the same position turned round, Black to move
            white, black = table.layout.turn(black), table.layout.turn(white)
            kings = table.layout.turn(kings)
        v = table.probe(white, black, kings, turn)
        expected = v if (0 < v <= depth or (v < 0 and -v - 1 <= depth)) else None
        pos = Position(rules, white, black, kings, turn)
        if endgame.from_children(table, pos) != v:
            wrong += 1
            print(f"  INCONSISTENT {variant} {pos.fen()}: table {v}", flush=True)
        found = endgame.search_distance(pos, depth)
        if found != expected:
            wrong += 1
            fen = Position(rules, white, black, kings, turn).fen()
            print(f"  DISAGREE {variant} {fen}: table {v}, search {found}", flush=True)
        elif expected is None:
            kinds["beyond"] += 1
        else:
            kinds["won" if expected > 0 else "lost"] += 1
    print(
        f"{variant}: {n} pieces, table read in {got:.1f} s; {samples} random positions of "
        f"{n} pieces searched {depth} plies in {time.perf_counter() - started:.0f} s: "
        f"{kinds['won']} won and {kinds['lost']} lost within {depth} plies agree at the "
        f"same distance, {kinds['beyond']} drawn or longer agree; {wrong} disagree "
        "(search or one ply on)",
        flush=True,
    )
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--pieces", type=int, default=None)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    wrong = sum(check(v, args.pieces, args.samples, args.depth, args.seed) for v in args.variants)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
