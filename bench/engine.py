"""Engine benchmark: perft nodes/s, move-generation time and search nodes/s for every rule
set, against py-draughts on the same positions in the same run (perft and move generation).

    .venv/bin/python bench/engine.py [--py-draughts /path/to/other-venv/bin/python]
    .venv/bin/python bench/engine.py --baseline 63ae8e0 --search-depth 6   # search only
    .venv/bin/python bench/engine.py --without-patterns --search-depth 8   # what they cost

py-draughts also imports as ``draughts``, so it lives in its own virtual environment:

    python3 -m venv /tmp/pyd && /tmp/pyd/bin/pip install py-draughts

Both libraries run the same perft loop over their public API (generate the legal
moves, play each, recurse). Where the optional C accelerator (engine._accel) is built,
its perft (last ply counted; without and with a transposition table), its move
generation (Moves built for Python, as Position.legal_moves() gives them) and its search
at the same fixed depth on the same positions are timed in the same run, with their
ratio to the Python figures (the first table's search column is always the pure-Python
search's); ``KONDAVO_ENGINE=python`` leaves them out. The last line is one JSON object
with every figure.
py-draughts gets English wrong (captures optional), so only International,
Brazilian and Russian are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nodes import REPO, checkout_engine  # noqa: E402

from engine import VARIANTS, Position, accel, get_rules  # noqa: E402
from engine.evaluation import Evaluator, Weights, weights_for  # noqa: E402
from engine.perft import perft_fast, perft_public  # noqa: E402
from engine.search import Searcher, SearchParams  # noqa: E402

COMPARED = {
    "international": "StandardBoard",
    "brazilian": "BrazilianBoard",
    "russian": "RussianBoard",
}
ROUNDS = 3  # interleaved rounds; the best of each is kept

PY_DRAUGHTS_SCRIPT = r"""
import json, sys, time
import draughts
job = json.loads(sys.stdin.read())
Board = getattr(draughts, job["board"])

def perft(b, d):
    if d == 0:
        return 1
    n = 0
    for m in b.legal_moves:
        b.push(m)
        n += perft(b, d - 1)
        b.pop()
    return n

out = {}
b = Board()
start = time.perf_counter(); nodes = perft(b, job["depth"]); secs = time.perf_counter() - start
out["perft"] = {"nodes": nodes, "seconds": secs}
out["movegen"] = {}
for name, fen in job["fens"].items():
    b = Board.from_fen(fen)
    out.setdefault("counts", {})[name] = len(b.legal_moves)
    # The fastest of many short chunks: robust against a busy machine.
    best = float("inf")
    for _ in range(job["chunks"]):
        start = time.perf_counter()
        for _ in range(job["calls"]):
            b.legal_moves
        best = min(best, time.perf_counter() - start)
    out["movegen"][name] = best / job["calls"] * 1e6
print(json.dumps(out))
"""


def numeric_fen(pos: Position) -> str:
    """FEN with square numbers (lidraughts style), which py-draughts reads for every board."""
    board = pos.rules.board

    def listing(bits: int) -> str:
        return ",".join(
            ("K" if pos.kings >> s & 1 else "") + str(board.numbers[s])
            for s in sorted(board.squares, key=board.numbers.get)
            if bits >> s & 1
        )

    return f"{'W' if pos.turn == 0 else 'B'}:W{listing(pos.white)}:B{listing(pos.black)}"


def midgame(variant: str) -> Position:
    """A reproducible position about 20 plies in with no capture pending."""
    rules = get_rules(variant)
    rng = random.Random(2026)
    while True:
        pos = Position.start(rules)
        for _ in range(20):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if pos.legal_moves() and not pos.has_capture() and len(pos.legal_moves()) >= 5:
            return pos


def search_positions(variant: str, count: int) -> list[Position]:
    """``count`` reproducible positions 16-40 random plies in, no capture pending."""
    rules = get_rules(variant)
    rng = random.Random(2026)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start(rules)
        for _ in range(rng.randint(16, 40)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if pos.legal_moves() and not pos.has_capture() and len(pos.legal_moves()) >= 5:
            out.append(pos)
    return out


def search_nodes(
    positions: list[Position],
    depth: int,
    engine: str | None = None,
    weights: Weights | None = None,
) -> tuple[int, float]:
    """Nodes of level 8's search (forward pruning, reductions) to a fixed depth, a fresh
    searcher a position: the same tree in every run, so only the time can change; and
    the CPU seconds of the searches alone. The searchers are made first and left out of
    the time: making one loads the evaluation's tables (about 1 ms), which at a small
    depth would weigh as much as the search.
    ``engine``: "python" or "c" (``KONDAVO_ENGINE`` for these searches); None: as set.
    ``weights``: the evaluation's (default: the rule set's own)."""
    before = os.environ.get("KONDAVO_ENGINE")
    if engine is not None:
        os.environ["KONDAVO_ENGINE"] = engine
    try:
        searchers = [
            Searcher(pos.rules, evaluator=Evaluator(pos.rules, weights)) for pos in positions
        ]
        cpu = time.process_time()
        nodes = sum(
            searcher.search(pos, params=SearchParams(max_depth=depth, seed=1)).nodes
            for searcher, pos in zip(searchers, positions, strict=True)
        )
        return nodes, time.process_time() - cpu
    finally:
        if before is None:
            os.environ.pop("KONDAVO_ENGINE", None)
        else:
            os.environ["KONDAVO_ENGINE"] = before


BASELINE_SEARCH = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from engine import Position, get_rules
from engine.search import Searcher, SearchParams
job = json.loads(sys.stdin.read())
rules = get_rules(job["variant"])
positions = [Position.from_fen(rules, f) for f in job["fens"]]
searchers = [Searcher(rules) for _ in positions]  # made outside the time, as ours are
start = time.process_time()
nodes = sum(s.search(p, params=SearchParams(max_depth=job["depth"], seed=1)).nodes
            for s, p in zip(searchers, positions))
print(json.dumps({"nodes": nodes, "seconds": time.process_time() - start}))
"""


def _search_in_child(tree: Path, variant: str, depth: int, fens: list[str]) -> dict:
    """``BASELINE_SEARCH`` run on the ``engine/`` of ``tree``: its nodes and CPU seconds."""
    job = json.dumps({"variant": variant, "depth": depth, "fens": fens})
    return json.loads(
        subprocess.run(
            [sys.executable, "-c", BASELINE_SEARCH, str(tree)],
            input=job,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )


def _nps_rows(best: dict, key: str, label: str) -> dict:
    """Print a line a rule set, ours against the other search (``best``: rule set ->
    [our n/s, its n/s, our nodes, its nodes]), and return the same as JSON rows whose
    other side's fields are prefixed with ``key``."""
    rows = {}
    for variant, (ours, theirs, n_ours, n_theirs) in best.items():
        rows[variant] = {
            "nps": round(ours),
            f"{key}_nps": round(theirs),
            "ratio": round(ours / theirs, 3),
            "nodes": n_ours,
            f"{key}_nodes": n_theirs,
        }
        print(
            f"{variant:<14} {ours:>10,.0f} n/s ({n_ours} nodes)   {label}: "
            f"{theirs:>10,.0f} n/s ({n_theirs} nodes)   x{ours / theirs:.2f}"
        )
    return rows


def search_without_patterns(depth: int, rounds: int) -> dict:
    """Search nodes/s at fixed depth of every rule set that ships pattern tables, with
    them and with the same evaluation without them, on the same positions, in this
    process (the C search where it is built), rounds interleaved, the best of each
    kept, per CPU second. What the tables cost in speed; their nodes differ too, as
    the scores that order and prune the search do."""
    out: dict = {}
    variants = [v for v in VARIANTS if weights_for(get_rules(v)).patterns is not None]
    best = {v: [0.0, 0.0, 0, 0] for v in variants}
    positions = {v: search_positions(v, 8) for v in variants}
    for _ in range(rounds):
        for variant in variants:
            plain = replace(weights_for(get_rules(variant)), patterns=None)
            for slot, weights in ((0, None), (1, plain)):
                nodes, secs = search_nodes(positions[variant], depth, weights=weights)
                best[variant][slot] = max(best[variant][slot], nodes / secs)
                best[variant][2 + slot] = nodes
    engine = "C" if accel.available() else "Python"
    print(
        f"{engine} search at depth {depth}, 8 positions a rule set, best of {rounds} rounds, "
        "nodes per CPU second: with the pattern tables against without"
    )
    out.update(_nps_rows(best, "without", "without"))
    return out


def search_vs_baseline(revision: str, depth: int, rounds: int) -> dict:
    """Search nodes/s at fixed depth of the working tree and of git revision
    ``revision`` (its ``engine/`` extracted to a temporary folder, its accelerator built
    there; each tree searched in a child process of its own), on the same positions,
    rounds interleaved, the best of each kept. Per
    CPU second of the searching process, not wall time: on a shared machine the wall
    clock measures the neighbours as much as the code."""
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="kondavo-baseline-") as folder:
        revision, built = checkout_engine(revision, Path(folder))
        if not built:
            print(f"{revision} has no accelerator built here: it searches in pure Python")
        best = {v: [0.0, 0.0, 0, 0] for v in VARIANTS}  # ours n/s, theirs n/s, nodes
        positions = {v: search_positions(v, 8) for v in VARIANTS}
        for _ in range(rounds):
            for variant in VARIANTS:
                fens = [p.fen() for p in positions[variant]]
                # Both trees searched by the same script in a process of their own:
                # a fresh process pays for touching its transposition tables' pages,
                # which a long-lived one does not.
                ours = _search_in_child(REPO, variant, depth, fens)
                got = _search_in_child(Path(folder), variant, depth, fens)
                nodes, secs = ours["nodes"], ours["seconds"]
                b = best[variant]
                b[0] = max(b[0], nodes / secs)
                b[1] = max(b[1], got["nodes"] / got["seconds"])
                b[2], b[3] = nodes, got["nodes"]
    print(
        f"search at depth {depth}, 8 positions a rule set, best of {rounds} rounds, nodes "
        f"per CPU second: working tree against {revision}"
    )
    out.update(_nps_rows(best, "baseline", revision))
    return out


def timed(fn, *args) -> tuple[int, float]:
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def depth_for(pos: Position, leaves: int) -> int:
    """The first depth whose tree has at least ``leaves`` leaves: every rule set is timed on
    a tree of about the same size, so transposition-table gains compare fairly."""
    depth = 1
    while perft_fast(pos, depth) < leaves and depth < 12:
        depth += 1
    return depth


C_TABLE_BITS = 18  # the C perft's table when timed with one: 2**18 entries, 16 MB

CHUNKS = 40  # move generation is timed in short chunks; the fastest chunk counts


def movegen_us(pos: Position, calls: int) -> float:
    """Microseconds per legal-move generation (a fresh position each call: no cache)."""
    rules, w, b, k, turn = pos.rules, pos.white, pos.black, pos.kings, pos.turn
    best = float("inf")
    for _ in range(CHUNKS):
        start = time.perf_counter()
        for _ in range(calls):
            Position(rules, w, b, k, turn).legal_moves()
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def c_depth_for(pos: Position, leaves: int) -> int:
    """As ``depth_for``, counted by the C perft: its trees must be larger to be timed."""
    depth = 1
    while accel.perft(pos, depth) < leaves and depth < 14:
        depth += 1
    return depth


def c_movegen_us(pos: Position, calls: int) -> float:
    """As ``movegen_us``, through the C generator (the Moves built for Python included)."""
    rules, w, b, k, turn = pos.rules, pos.white, pos.black, pos.kings, pos.turn
    best = float("inf")
    for _ in range(CHUNKS):
        start = time.perf_counter()
        for _ in range(calls):
            accel.legal_moves(Position(rules, w, b, k, turn))
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def run_py_draughts(python: str, board: str, depth: int, fens: dict, calls: int) -> dict:
    job = json.dumps(
        {"board": board, "depth": depth, "fens": fens, "calls": calls, "chunks": CHUNKS}
    )
    out = subprocess.run(
        [python, "-c", PY_DRAUGHTS_SCRIPT], input=job, capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        raise RuntimeError(f"py-draughts failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--py-draughts",
        metavar="PYTHON",
        help="interpreter of a virtual environment with py-draughts installed",
    )
    parser.add_argument(
        "--fast-leaves",
        type=int,
        default=800_000,
        help="time the fast perft on trees of at least this many leaves",
    )
    parser.add_argument(
        "--public-leaves",
        type=int,
        default=150_000,
        help="time the public-API perft on trees of at least this many leaves",
    )
    parser.add_argument(
        "--c-leaves",
        type=int,
        default=20_000_000,
        help="time the C perft on trees of at least this many leaves",
    )
    parser.add_argument("--calls", type=int, default=500, help="move generations per timed chunk")
    parser.add_argument(
        "--search-depth",
        type=int,
        default=6,
        help="plies of the fixed-depth search timed on 8 positions a rule set",
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="only the fixed-depth search, against git revision REV's in "
        "the same run (nodes/s of both and their ratio)",
    )
    parser.add_argument(
        "--without-patterns",
        action="store_true",
        help="only the fixed-depth search, with and without the shipped pattern tables",
    )
    args = parser.parse_args()
    if args.without_patterns:
        print(
            json.dumps(
                {"search_without_patterns": search_without_patterns(args.search_depth, ROUNDS)}
            )
        )
        return
    if args.baseline:
        print(
            json.dumps(
                {"search_vs_baseline": search_vs_baseline(args.baseline, args.search_depth, ROUNDS)}
            )
        )
        return

    figures: dict = {
        "perft_nps": {},
        "perft_public_nps": {},
        "movegen_us": {},
        "search_nps": {},
        "vs_py_draughts": {},
        "c_perft_nps": {},
        "c_perft_table_nps": {},
        "c_movegen_us": {},
        "c_search_nps": {},
    }
    with_c = accel.available()
    starts = {v: Position.start(get_rules(v)) for v in VARIANTS}
    mids = {v: midgame(v) for v in VARIANTS}
    fast_depth = {v: depth_for(starts[v], args.fast_leaves) for v in VARIANTS}
    public_depth = {v: depth_for(starts[v], args.public_leaves) for v in VARIANTS}
    fast = dict.fromkeys(VARIANTS, 0.0)
    public = dict.fromkeys(VARIANTS, 0.0)
    gen = {v: {"start": float("inf"), "midgame": float("inf")} for v in VARIANTS}
    searched = {v: search_positions(v, 8) for v in VARIANTS}
    search = dict.fromkeys(VARIANTS, 0.0)
    search_tree = dict.fromkeys(VARIANTS, 0)
    c_depth = {v: c_depth_for(starts[v], args.c_leaves) for v in VARIANTS} if with_c else {}
    c_fast = dict.fromkeys(VARIANTS, 0.0)
    c_hashed = dict.fromkeys(VARIANTS, 0.0)
    c_gen = {v: {"start": float("inf"), "midgame": float("inf")} for v in VARIANTS}
    c_search = dict.fromkeys(VARIANTS, 0.0)
    c_search_tree = dict.fromkeys(VARIANTS, 0)
    theirs: dict[str, dict] = {}
    # Rounds go over every rule set in turn and keep each one's best figure: the machine
    # is shared, and interleaving spreads its noise evenly over all of them.
    for _ in range(ROUNDS):
        for variant in VARIANTS:
            start, mid = starts[variant], mids[variant]
            nodes, secs = timed(perft_fast, start, fast_depth[variant])
            fast[variant] = max(fast[variant], nodes / secs)
            nodes_pub, secs_pub = timed(perft_public, start, public_depth[variant])
            public[variant] = max(public[variant], nodes_pub / secs_pub)
            for name, pos in (("start", start), ("midgame", mid)):
                gen[variant][name] = min(gen[variant][name], movegen_us(pos, args.calls))
            if with_c:
                nodes_c, secs_c = timed(accel.perft, start, c_depth[variant])
                c_fast[variant] = max(c_fast[variant], nodes_c / secs_c)
                nodes_c, secs_c = timed(accel.perft, start, c_depth[variant], False, C_TABLE_BITS)
                c_hashed[variant] = max(c_hashed[variant], nodes_c / secs_c)
                for name, pos in (("start", start), ("midgame", mid)):
                    us = c_movegen_us(pos, args.calls)
                    c_gen[variant][name] = min(c_gen[variant][name], us)
            # The search column is the pure-Python search's, the C one's beside it below.
            search_tree[variant], secs = search_nodes(
                searched[variant], args.search_depth, "python"
            )
            search[variant] = max(search[variant], search_tree[variant] / secs)
            if with_c:
                c_search_tree[variant], secs = search_nodes(
                    searched[variant], args.search_depth, "c"
                )
                c_search[variant] = max(c_search[variant], c_search_tree[variant] / secs)
            if args.py_draughts and variant in COMPARED:
                fens = {"start": numeric_fen(start), "midgame": numeric_fen(mid)}
                got = run_py_draughts(
                    args.py_draughts, COMPARED[variant], public_depth[variant], fens, args.calls
                )
                if got["perft"]["nodes"] != nodes_pub:
                    print(
                        f"  ! py-draughts counts {got['perft']['nodes']} at depth "
                        f"{public_depth[variant]}, we count {nodes_pub}"
                    )
                for name, pos in (("start", start), ("midgame", mid)):
                    if got["counts"][name] != len(pos.legal_moves()):
                        print(
                            f"  ! py-draughts lists {got['counts'][name]} moves on {name}, "
                            f"we list {len(pos.legal_moves())}"
                        )
                best = theirs.setdefault(variant, got)
                best["perft"]["seconds"] = min(best["perft"]["seconds"], got["perft"]["seconds"])
                for k in ("start", "midgame"):
                    best["movegen"][k] = min(best["movegen"][k], got["movegen"][k])

    for variant in VARIANTS:
        figures["perft_nps"][variant] = round(fast[variant])
        figures["perft_public_nps"][variant] = round(public[variant])
        figures["movegen_us"][variant] = {k: round(v, 2) for k, v in gen[variant].items()}
        figures["search_nps"][variant] = round(search[variant])
        print(
            f"{variant:<14} {fast[variant]:>12,.0f} n/s (d{fast_depth[variant]}) "
            f"{public[variant]:>12,.0f} n/s (d{public_depth[variant]}) "
            f"{gen[variant]['start']:>11.2f} us {gen[variant]['midgame']:>9.2f} us "
            f"{search[variant]:>9,.0f} n/s search ({search_tree[variant]} nodes, "
            f"d{args.search_depth})"
        )
        if variant in theirs:
            their_nps = theirs[variant]["perft"]["nodes"] / theirs[variant]["perft"]["seconds"]
            their_gen = theirs[variant]["movegen"]
            ratio_perft = public[variant] / their_nps
            ratio_gen = {k: their_gen[k] / gen[variant][k] for k in ("start", "midgame")}
            figures["vs_py_draughts"][variant] = {
                "perft": round(ratio_perft, 2),
                "movegen": round(min(ratio_gen.values()), 2),
                "py_draughts_perft_nps": round(their_nps),
                "py_draughts_movegen_us": {k: round(v, 2) for k, v in their_gen.items()},
            }
            print(
                f"{'  py-draughts':<14} {'':>22} {their_nps:>12,.0f} n/s "
                f"(d{public_depth[variant]}) {their_gen['start']:>11.2f} us "
                f"{their_gen['midgame']:>9.2f} us   -> ours x{ratio_perft:.2f} perft, "
                f"x{ratio_gen['start']:.2f} / x{ratio_gen['midgame']:.2f} movegen"
            )
    if with_c:
        print(
            "C accelerator: perft without a table (last ply counted) and with one, against "
            "the fast perft above (with a table) and the public one; move generation "
            "against Python's; the search (engine/_accel/search.c) against Python's on "
            "the same positions"
        )
    else:
        print("C accelerator not built or KONDAVO_ENGINE=python: no C figures")
    for variant in VARIANTS if with_c else ():
        cg = c_gen[variant]
        figures["c_perft_nps"][variant] = round(c_fast[variant])
        figures["c_perft_table_nps"][variant] = round(c_hashed[variant])
        figures["c_movegen_us"][variant] = {k: round(v, 2) for k, v in cg.items()}
        figures["c_search_nps"][variant] = round(c_search[variant])
        print(
            f"{variant:<14} {c_fast[variant]:>12,.0f} n/s (d{c_depth[variant]})   "
            f"x{c_fast[variant] / fast[variant]:.1f} fast, "
            f"x{c_fast[variant] / public[variant]:.1f} public   "
            f"table: {c_hashed[variant]:>13,.0f} n/s x{c_hashed[variant] / fast[variant]:.1f} "
            f"fast   "
            f"{cg['start']:>6.2f} us {cg['midgame']:>6.2f} us   "
            f"x{gen[variant]['start'] / cg['start']:.1f} / "
            f"x{gen[variant]['midgame'] / cg['midgame']:.1f} movegen   "
            f"{c_search[variant]:>10,.0f} n/s search ({c_search_tree[variant]} nodes, "
            f"d{args.search_depth}) x{c_search[variant] / search[variant]:.1f}"
        )
    intl = figures["perft_nps"]["international"]
    intl_public = figures["perft_public_nps"]["international"]
    for variant in ("spanish", "italian", "turkish"):
        print(
            f"{variant} vs International: fast perft "
            f"x{figures['perft_nps'][variant] / intl:.2f}, public perft "
            f"x{figures['perft_public_nps'][variant] / intl_public:.2f}"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
