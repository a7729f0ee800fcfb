"""Learn the evaluation's weights from game outcomes (Texel tuning), per rule set.

    .venv/bin/python tools/texel.py selfplay english --games 600 --out /tmp/english.jsonl
    .venv/bin/python tools/texel.py corpus english /path/to/pdn-corpus --out /tmp/english.jsonl
    .venv/bin/python tools/texel.py fit english /tmp/english.jsonl [--write]

``selfplay`` plays the engine against itself at a fixed node budget a move (so the
games do not depend on the machine's speed) with a little root noise for variety, from
random four-ply openings, and writes every quiet position (no capture pending) with the
game's result for White and the search's score there (for White, clipped at 3,000):
one JSON line ``[white, black, kings, turn, result, game, score]``.
Games are adjudicated as matches are (``engine.match.Adjudicator``).

``corpus`` writes the same lines from the real games of a PDN corpus folder (its
``manifest.tsv`` names each file's rule set): the games from the rule set's start
position with a recorded result. The corpus is read where it lies; nothing of it is
copied into the repository, only the weights learned from it.

``fit`` is a logistic regression of the results on the evaluation's terms, which are
linear in its weights: a worth per square for a man (one table while many men are on
the board, one when few are, blended as the evaluation blends them), a worth per square
for a king, and the scalar terms (mobility, balance, tempo, trading down, crowning
threats). Black's squares share White's weights turned half round, so the score stays
colour-symmetric. The scale ``K`` of ``sigmoid(score / K)`` is fitted first for the
current evaluation and then held, so a man stays worth 100. The weights are pulled
towards the current ones (an L2 penalty, ``--reg``): a few ten thousand positions
refine the evaluation, they do not invent another. Every other game is held out; the
fit stops when the held-out loss stops falling, and the losses before and after are
printed, so a fit that only learns its own games shows. ``--write`` stores the weights
as ``engine/data/weights/<rule set id>.json``, where ``engine.evaluation.weights_for``
reads them.

``patterns`` fits the pattern tables (``engine/patterns.py``: a worth for every
arrangement of men in each 4x4 region, read from both sides) on top of the evaluation
as it stands, which it holds fixed: the same loss, ``K``, held-out games and early
stopping, a pull towards 0, and ``--lam`` to train on a blend of each position's game
result and the score self-play's search gave it (``selfplay`` stores it) rather than
the result alone; held-out positions are always scored against their results.
``--write`` stores the entries that are not 0 as ``engine/data/patterns/<rule set
id>.json``; with ``--all-games`` the tables written are fitted again on every game,
held-out ones included, with the pull and the number of steps the held-out games chose
(twice the positions; the held-out error printed is then the half fit's).

    .venv/bin/python tools/texel.py patterns english /tmp/english.jsonl --lam 0.5 [--write]

``terms`` fits a few scalar terms alone (``--names``, comma-separated) on top of the
evaluation as it stands, tables included, holding everything else: the way in for a
new term such as the kings' reach, which the rest was fitted without. A few numbers
cannot learn the games by heart, so its held-out games are scored against the same
blended target as its training games (and against their results alone, printed
beside it), and its pull towards the current worths is weak (``--reg``).

    .venv/bin/python tools/texel.py terms international /tmp/int.jsonl --lam 0.5 \
        --names king_safe,king_denied,extra_king [--write]

Needs numpy (``pip install -e '.[tools]'``); the engine itself reads only the JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import struct
import sys
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Game, Position, evaluation, get_rules  # noqa: E402
from engine.evaluation import (  # noqa: E402
    MAN,
    Evaluator,
    Weights,
    _crowning,
    derived_weights,
    flying_king_damping,
    king_reach_balance,
    weights_for,
)
from engine.game import Result  # noqa: E402
from engine.levels import game_history  # noqa: E402
from engine.match import Adjudicator  # noqa: E402
from engine.patterns import FIELD_BITS, PATTERNS_DIR, entries_of, regions_for  # noqa: E402
from engine.pdn import read_pdn_games  # noqa: E402
from engine.rules import Rules  # noqa: E402
from engine.search import Searcher, SearchParams  # noqa: E402

WEIGHTS_DIR = evaluation.WEIGHTS_DIR
SCALARS = (
    "mobility",
    "balance",
    "tempo",
    "trade_bonus",
    "crown_now",
    "crown_next",
    "crown_two",
    "crown_two_next",
    "king_safe",
    "king_denied",
    "extra_king",
)
# Search scores stored with self-play positions are clipped here (a won score is
# WIN minus plies; as a target it means "won" all the same).
CLIP_SCORE = 3000
POINTS = {Result.WHITE_WINS: 1.0, Result.BLACK_WINS: 0.0, Result.DRAW: 0.5}


# --- positions ----------------------------------------------------------------------


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
            seen: list[tuple[int, int, int, int, int]] = []
            verdict = None
            while not game.is_over and len(game.moves) < 250:
                pos = game.position
                params = SearchParams(node_limit=nodes, noise=15, seed=rng.getrandbits(32))
                result = searcher.search(pos, game_history(game), params)
                if not pos.has_capture():
                    # The search's score too, for White, clipped short of a won score:
                    # ``patterns --lam`` blends it with the game's result.
                    white_score = result.score if pos.turn == 0 else -result.score
                    white_score = max(-CLIP_SCORE, min(CLIP_SCORE, white_score))
                    seen.append((pos.white, pos.black, pos.kings, pos.turn, white_score))
                if result.move is None:
                    break
                game.play(result.move)
                if not game.is_over:
                    verdict = adjudicator.verdict(game.position)
                    if verdict is not None:
                        break
            res = game.result if game.is_over else (verdict or Result.DRAW)
            white_points = POINTS.get(res, 0.5) if res is not None else 0.5
            for w, b, k, t, score in seen:
                row = [w, b, k, t, white_points, seed * 100_000 + g, score]
                f.write(json.dumps(row) + "\n")
                written += 1
            f.flush()
            print(
                f"game {g + 1}/{games}: {res}, {len(game.moves)} plies, "
                f"{written} positions, {time.perf_counter() - started:.0f} s",
                flush=True,
            )


def corpus(variant: str, root: Path, out: Path) -> None:
    """Quiet positions of the corpus's games of ``variant`` with their recorded result."""
    rules = get_rules(variant)
    start = Position.start(rules).fen()
    games = positions = 0
    with out.open("w") as f:
        for row in (root / "manifest.tsv").read_text(encoding="utf-8").splitlines():
            if not row.strip() or row.startswith("#"):
                continue
            path, file_variant = row.split("\t")[:2]
            if file_variant != variant:
                continue
            text = (root / path).read_text(encoding="utf-8", errors="replace")
            for read in read_pdn_games(text, rules):
                game = read.game
                if game is None or game.rules != rules or game.start_fen != start:
                    continue
                if game.result is None or len(game.moves) < 10:
                    continue
                games += 1
                pos = game.start_position
                for m in game.moves:
                    pos = pos.play(m)
                    if not pos.has_capture() and pos.white and pos.black:
                        row_out = [pos.white, pos.black, pos.kings, pos.turn]
                        f.write(json.dumps([*row_out, POINTS[game.result], -games]) + "\n")
                        positions += 1
    print(f"{variant}: {games} games, {positions} positions written to {out}")


def load(paths: Iterable[Path]) -> list[list[Any]]:
    out = []
    for n, path in enumerate(paths):
        for line in path.open():
            row = json.loads(line)
            row[5] = row[5] * 8 + n  # game ids stay apart across files
            out.append(row)
    return out


# --- features -----------------------------------------------------------------------


class Features:
    """The evaluation's terms as a vector, linear in the weights (White's view)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        board = rules.board
        self.squares = board.squares
        self.n = n = len(board.squares)
        index = {sq: i for i, sq in enumerate(board.squares)}
        turned = {
            sq: board.square_at[(board.cols - 1 - col, board.rows - 1 - row)]
            for sq, (col, row) in board.coords.items()
        }
        self.white_index = index
        self.black_index = {sq: index[turned[sq]] for sq in board.squares}
        self.size = 3 * n + len(SCALARS)
        self.prior = Evaluator(rules, derived_weights(rules))
        self.kv = self.prior.king_value
        self.start_total = self.prior.start_total
        t = self.prior.tables
        self.w_dirs, self.b_dirs = t.step_dirs
        self.promo = t.promotion
        self.mask = board.mask
        cols = board.cols
        self.left = sum(1 << sq for sq, (c, _) in board.coords.items() if 2 * c < cols - 1)
        self.right = sum(1 << sq for sq, (c, _) in board.coords.items() if 2 * c > cols - 1)

    def weights_vector(self, w: Weights) -> list[float]:
        """The vector of ``w`` (men and kings as absolute worths per square)."""
        ev = Evaluator(self.rules, w)
        n = self.n
        out = [0.0] * self.size
        mid_table = ev.men_chunks[0]
        for i, sq in enumerate(self.squares):
            packed = _single(mid_table, sq)
            out[i] = MAN + (packed & 0xFFFF) - ev.men_offset
            out[n + i] = MAN + (packed >> 16 & 0xFFFF) - ev.men_offset
            k = ev.king_value
            for shift, plane in ev.king_pst[0]:
                if plane >> sq & 1:
                    k += 1 << shift
            out[2 * n + i] = k
        for j, name in enumerate(SCALARS):
            out[3 * n + j] = getattr(w, name)
        return out

    def row(self, white: int, black: int, kings: int, turn: int) -> list[float]:
        n, total_start = self.n, self.start_total
        x = [0.0] * self.size
        wm, bm, wk, bk = white & ~kings, black & ~kings, white & kings, black & kings
        nwm, nbm, nwk, nbk = wm.bit_count(), bm.bit_count(), wk.bit_count(), bk.bit_count()
        men = nwm + nbm
        phase = min(men, total_start)
        mid, end = phase / total_start, (total_start - phase) / total_start
        wi, bi = self.white_index, self.black_index
        for sq in _bits(wm):
            x[wi[sq]] += mid
            x[n + wi[sq]] += end
        for sq in _bits(bm):
            x[bi[sq]] -= mid
            x[n + bi[sq]] -= end
        for sq in _bits(wk):
            x[2 * n + wi[sq]] += 1
        for sq in _bits(bk):
            x[2 * n + bi[sq]] -= 1
        s = 3 * n
        if men:
            empty = self.mask & ~(white | black)
            mob = 0
            for d in self.w_dirs:
                mob += (((wm << d) if d > 0 else (wm >> -d)) & empty).bit_count()
            for d in self.b_dirs:
                mob -= (((bm << d) if d > 0 else (bm >> -d)) & empty).bit_count()
            x[s] = mob
            if phase * 2 > total_start:
                left, right = self.left, self.right
                x[s + 1] = -(
                    abs((wm & left).bit_count() - (wm & right).bit_count())
                    - abs((bm & left).bit_count() - (bm & right).bit_count())
                )
            w_one, w_two = _crowning(wm, empty & self.promo[0], empty, self.w_dirs)
            b_one, b_two = _crowning(bm, empty & self.promo[1], empty, self.b_dirs)
            if turn == 0:
                x[s + 4], x[s + 5], x[s + 6], x[s + 7] = w_one, -b_one, w_two, -b_two
            else:
                x[s + 4], x[s + 5], x[s + 6], x[s + 7] = -b_one, w_one, -b_two, w_two
        if wk or bk:
            ev = self.prior
            x[s + 8], x[s + 9] = king_reach_balance(
                wm,
                bm,
                wk,
                bk,
                self.mask & ~(white | black),
                ev.man_capture_dirs,
                ev.king_dirs,
                ev.flying,
            )
            x[s + 10] = max(nwk - 1, 0) - max(nbk - 1, 0)
        lead = (nwm - nbm) * MAN + (nwk - nbk) * self.kv
        total = men + nwk + nbk
        x[s + 3] = lead * (total_start - total) / (32 * total_start)
        if self.prior.flying and lead:
            # The evaluation damps a small lead against a flying king: the same here.
            damping = (
                flying_king_damping(nwm, nwk, nbm, nbk)
                if lead > 0
                else flying_king_damping(nbm, nbk, nwm, nwk)
            )
            if damping > 1:
                x = [v / damping for v in x]
        x[s + 2] = 1 if turn == 0 else -1
        return x


def _bits(b: int) -> Iterable[int]:
    while b:
        low = b & -b
        yield low.bit_length() - 1
        b ^= low


def _single(chunks: Any, sq: int) -> int:
    """The packed table entry of one square from an evaluator's chunk tables."""
    bit = 1 << sq
    return sum(table[bit >> shift & mask] for shift, mask, table in chunks)


# --- fitting ------------------------------------------------------------------------


def fit(variant: str, paths: list[Path], regs: list[float], steps: int, write: bool) -> None:
    try:
        import numpy as np
    except ImportError:
        sys.exit("fit needs numpy: pip install -e '.[tools]'")
    rules = get_rules(variant)
    data = [d for d in load(paths) if d[0] and d[1]]
    feats = Features(rules)
    started = time.perf_counter()
    X = np.array([feats.row(w, b, k, t) for w, b, k, t, *_ in data], dtype=np.float64)
    y = np.array([d[4] for d in data], dtype=np.float64)
    held = np.array([d[5] // 8 % 2 == 1 for d in data])  # whole games: every other one
    prior = np.array(feats.weights_vector(derived_weights(rules)), dtype=np.float64)
    # The vector must reproduce the evaluation it stands for (up to integer rounding).
    ev = Evaluator(rules, derived_weights(rules))
    static = np.array(
        [ev.score(w, b, k, t) * (1 if t == 0 else -1) for w, b, k, t, *_ in data[:5000]]
    )
    gap = np.abs(X[:5000] @ prior - static)
    print(
        f"{variant}: {len(data)} positions ({int(held.sum())} held out) from "
        f"{', '.join(p.name for p in paths)}; features in {time.perf_counter() - started:.0f} s; "
        f"feature model vs evaluation: mean gap {gap.mean():.2f}, max {gap.max():.0f}",
        flush=True,
    )
    clip = 4000.0

    def loss(theta: Any, rows: Any, k: float) -> float:
        s = np.clip(X[rows] @ theta, -clip, clip) / k
        p = 1 / (1 + np.exp(-s))
        return float(np.mean((y[rows] - p) ** 2))

    train = ~held
    k = min((loss(prior, train, k), k) for k in (40, 60, 80, 100, 130, 160, 200, 260, 330))[1]
    base_train, base_held = loss(prior, train, k), loss(prior, held, k)
    print(f"K = {k}; squared error {base_train:.5f} (held out {base_held:.5f})", flush=True)

    # Adam on the squared error of sigmoid(score / K) plus reg * mean squared change
    # (in men) from the current weights; each pull of ``regs`` is tried, the one with
    # the lowest held-out error kept.
    Xt, yt = X[train], y[train]
    best_held, best, best_reg = base_held, prior.copy(), None
    for reg in regs:

        def gradient(theta: Any, reg: float = reg) -> Any:
            p = 1 / (1 + np.exp(-np.clip(Xt @ theta, -clip, clip) / k))
            g_s = -2 * (yt - p) * p * (1 - p) / k
            return Xt.T @ g_s / len(yt) + 2 * reg * (theta - prior) / (MAN * MAN) / len(theta)

        # Early stopping: once the held-out error rises, it has begun to learn the
        # games, not the game.
        theta, run_best, _, taken = _adam(
            prior, gradient, lambda t: loss(t, held, k), steps, lr=0.1
        )
        if run_best < best_held:
            best_held, best, best_reg = run_best, theta, reg
        print(
            f"reg {reg}: {taken} steps, error {loss(theta, train, k):.5f}, "
            f"best held out {run_best:.5f}",
            flush=True,
        )
    print(f"kept reg {best_reg}")
    rounded = np.round(best)
    final_held = loss(rounded, held, k)
    print(f"{variant}: held-out error {base_held:.5f} -> {final_held:.5f}")
    n = feats.n
    moved = np.abs(rounded - prior)
    print(
        "change from the current weights, mean |d| (max): men "
        f"{moved[: 2 * n].mean():.1f} ({moved[: 2 * n].max():.0f}), "
        f"kings {moved[2 * n : 3 * n].mean():.1f}; "
        + ", ".join(
            f"{name} {prior[3 * n + j]:.0f}->{rounded[3 * n + j]:.0f}"
            for j, name in enumerate(SCALARS)
        )
    )
    weights = to_weights(rules, feats, [int(v) for v in rounded])
    if write:
        WEIGHTS_DIR.mkdir(parents=True, exist_ok=True)
        path = WEIGHTS_DIR / f"{rules.id}.json"
        stored = {
            "fitted": f"tools/texel.py fit, {len(data)} positions, K {k}, reg {best_reg}, "
            f"held-out squared error {base_held:.5f} -> {final_held:.5f}",
            "king": weights.king,
            **{name: getattr(weights, name) for name in SCALARS},
            "men_mid": list(weights.men_mid or ()),
            "men_end": list(weights.men_end or ()),
            "king_squares": list(weights.king_squares or ()),
        }
        path.write_text(json.dumps(stored, indent=None, separators=(",", ":")) + "\n")
        print(f"written to {path}")


# --- pattern tables -----------------------------------------------------------------


def fit_patterns(
    variant: str,
    paths: list[Path],
    regs: list[float],
    steps: int,
    lam: float,
    write: bool,
    lr: float = 0.1,
    phases: int = 1,
    all_games: bool = False,
) -> None:
    """Fit the rule set's pattern tables (``engine/patterns.py``) on top of its current
    evaluation: the score of each position is its static score without patterns plus
    the sum of its regions' entries from White's side minus those from Black's, and
    only the entries move. Same loss, ``K``, held-out games and early stopping as
    ``fit``; the pull is towards 0 (an arrangement seen in few positions stays near 0).
    With ``phases`` 2, two sets of tables, one for many men and one for few, blended
    by the number of men as the men's square tables are (as Scan 2.0's are): a measure
    of what splitting would gain (the evaluation reads one set, so it is not written;
    on International, 1.34 M positions, the held-out error fell to 0.08789 against one
    set's 0.08812, too little to build it for)."""
    if write and phases != 1:
        sys.exit("patterns --write stores one set of tables: the evaluation reads no other")
    try:
        import numpy as np
    except ImportError:
        sys.exit("patterns needs numpy: pip install -e '.[tools]'")
    rules = get_rules(variant)
    regions = regions_for(rules.board)
    n_reg, size = regions.count, regions.size
    data = [d for d in load(paths) if d[0] and d[1]]
    started = time.perf_counter()
    ev = Evaluator(rules, replace(weights_for(rules), patterns=None))
    base = np.array(
        [ev.score(w, b, k, t) * (1 if t == 0 else -1) for w, b, k, t, *_ in data],
        dtype=np.float64,
    )
    unpack = struct.Struct(f"<{2 * n_reg}H").unpack
    nbytes = 2 * n_reg * FIELD_BITS // 8
    pw, pb = regions.packed_white, regions.packed_black
    fields = np.empty((len(data), 2 * n_reg), dtype=np.int64)
    for row, (w, b, k, *_) in enumerate(data):
        packed = sum(pw[sq] for sq in _bits(w & ~k)) + sum(pb[sq] for sq in _bits(b & ~k))
        fields[row] = unpack(packed.to_bytes(nbytes, "little"))
    offsets = np.arange(n_reg, dtype=np.int64) * size
    own = fields[:, :n_reg] + offsets  # entries read from White's side (+)
    other = fields[:, n_reg:] + offsets  # ... and from Black's (-)
    y = np.array([d[4] for d in data], dtype=np.float64)
    held = np.array([d[5] // 8 % 2 == 1 for d in data])
    train = ~held
    print(
        f"{variant}: {len(data)} positions ({int(held.sum())} held out, "
        f"{sum(len(d) > 6 for d in data)} with a search score), {n_reg} regions of "
        f"{size} entries; features in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    clip = 4000.0
    n_table = n_reg * size
    n_params = phases * n_table
    # Each position's share of the tables for many men (the evaluation's phase): 1 with
    # one set of tables.
    start_total = ev.start_total
    many = np.array(
        [
            min((w & ~k).bit_count() + (b & ~k).bit_count(), start_total) / start_total
            if phases == 2
            else 1.0
            for w, b, k, *_ in data
        ]
    )

    def scores(theta: Any, rows: Any) -> Any:
        out = base[rows] + many[rows] * (
            theta[own[rows]].sum(axis=1) - theta[other[rows]].sum(axis=1)
        )
        if phases == 2:
            out += (1 - many[rows]) * (
                theta[own[rows] + n_table].sum(axis=1) - theta[other[rows] + n_table].sum(axis=1)
            )
        return out

    def loss(theta: Any, rows: Any, k: float) -> float:
        p = 1 / (1 + np.exp(-np.clip(scores(theta, rows), -clip, clip) / k))
        return float(np.mean((y[rows] - p) ** 2))

    zero = np.zeros(n_params)
    k = min((loss(zero, train, k), k) for k in (40, 60, 80, 100, 130, 160, 200, 260, 330))[1]
    base_train, base_held = loss(zero, train, k), loss(zero, held, k)
    print(f"K = {k}; squared error {base_train:.5f} (held out {base_held:.5f})", flush=True)
    target = _blend_target(data, y, train if not all_games else np.ones_like(train), lam, k)
    seen = np.bincount(own[train].ravel(), minlength=n_table) + np.bincount(
        other[train].ravel(), minlength=n_table
    )

    def adam(reg: float, rows: Any, steps: int, check: bool) -> tuple[Any, float, int]:
        """Adam from zero tables on ``rows`` for up to ``steps`` steps; with ``check``,
        the held-out error picks the best tables and ends the run (``_adam``): (tables,
        their held-out error, the step they were at)."""
        own_t, other_t, y_t, n_t = own[rows], other[rows], target[rows], int(rows.sum())
        many_t, base_t = many[rows], base[rows]
        if phases == 2:
            own_te, other_te = own_t + n_table, other_t + n_table

        def gradient(theta: Any) -> Any:
            s = base_t + many_t * (theta[own_t].sum(axis=1) - theta[other_t].sum(axis=1))
            if phases == 2:
                s += (1 - many_t) * (theta[own_te].sum(axis=1) - theta[other_te].sum(axis=1))
            p = 1 / (1 + np.exp(-np.clip(s, -clip, clip) / k))
            g = -2 * (y_t - p) * p * (1 - p) / k
            grad = np.zeros(n_params)
            for phase, share in enumerate((many_t, 1 - many_t)[:phases]):
                gs = np.repeat(g * share, n_reg)
                grad[phase * n_table : (phase + 1) * n_table] = np.bincount(
                    own_t.ravel(), weights=gs, minlength=n_table
                ) - np.bincount(other_t.ravel(), weights=gs, minlength=n_table)
            return grad / n_t + 2 * reg * theta / (MAN * MAN) / n_t

        held_loss = (lambda t: loss(t, held, k)) if check else None
        theta, run_best, run_step, taken = _adam(zero, gradient, held_loss, steps, lr)
        print(
            f"reg {reg}: {taken} steps, error {loss(theta, train, k):.5f}"
            + (f", best held out {run_best:.5f} at step {run_step}" if check else ""),
            flush=True,
        )
        return theta, run_best, run_step

    best_held, best, best_reg, best_step = base_held, zero, None, 0
    for reg in regs:
        theta, h, step = adam(reg, train, steps, check=True)
        if h < best_held:
            best_held, best, best_reg, best_step = h, theta, reg, step
    final_held = loss(np.round(best), held, k)
    if all_games and best_reg is not None:
        # The held-out games chose the pull and the number of steps; the tables written
        # are then fitted again on every game (twice the positions) with that choice,
        # so the error printed below is the half fit's, not theirs.
        print(f"fitting again on all {len(data)} positions: reg {best_reg}, {best_step} steps")
        best = adam(best_reg, np.ones_like(train), best_step, check=False)[0]
    rounded = np.round(best)
    used = rounded != 0
    print(
        f"{variant}: kept reg {best_reg}; held-out error {base_held:.5f} -> {final_held:.5f}"
        f"{' (the half fit; the tables are fitted on all games)' if all_games else ''}; "
        f"{int(used.sum())} entries not 0 of {n_params} ({int((seen > 0).sum())} seen), "
        f"mean |entry| {np.abs(rounded[used]).mean() if used.any() else 0:.1f}, "
        f"max {np.abs(rounded).max():.0f}; took {time.perf_counter() - started:.0f} s"
    )
    if write:
        tables = tuple(
            tuple(int(x) for x in rounded[r * size : (r + 1) * size]) for r in range(n_reg)
        )
        PATTERNS_DIR.mkdir(parents=True, exist_ok=True)
        path = PATTERNS_DIR / f"{rules.id}.json"
        stored = {
            "fitted": f"tools/texel.py patterns, {len(data)} positions, K {k}, reg {best_reg}, "
            f"held-out squared error {base_held:.5f} -> {final_held:.5f}"
            + (f" (half fit; then {best_step} steps on all games)" if all_games else ""),
            "regions": n_reg,
            "entries": entries_of(tables),
        }
        path.write_text(json.dumps(stored, separators=(",", ":")) + "\n")
        print(f"written to {path}")


# --- single terms -------------------------------------------------------------------


def fit_terms(
    variant: str,
    paths: list[Path],
    names: list[str],
    regs: list[float],
    steps: int,
    lam: float,
    write: bool,
) -> None:
    """Fit a few of the scalar terms (``SCALARS``) on top of the evaluation as it stands,
    pattern tables included, holding everything else: for a new term, whose worth the
    rest of the evaluation was fitted without. Same loss, ``K``, held-out games and
    early stopping as ``fit``, ``--lam`` as ``patterns``; the pull is towards the terms'
    current worths."""
    try:
        import numpy as np
    except ImportError:
        sys.exit("terms needs numpy: pip install -e '.[tools]'")
    unknown = [n for n in names if n not in SCALARS]
    if unknown:
        sys.exit(f"not a scalar term: {', '.join(unknown)} (one of {', '.join(SCALARS)})")
    rules = get_rules(variant)
    data = [d for d in load(paths) if d[0] and d[1]]
    started = time.perf_counter()
    current = weights_for(rules)
    ev = Evaluator(rules, replace(current, **{n: 0 for n in names}))
    base = np.array(
        [ev.score(w, b, k, t) * (1 if t == 0 else -1) for w, b, k, t, *_ in data],
        dtype=np.float64,
    )
    feats = Features(rules)
    columns = [3 * feats.n + SCALARS.index(n) for n in names]
    X = np.array(
        [[feats.row(w, b, k, t)[c] for c in columns] for w, b, k, t, *_ in data],
        dtype=np.float64,
    )
    y = np.array([d[4] for d in data], dtype=np.float64)
    held = np.array([d[5] // 8 % 2 == 1 for d in data])
    train = ~held
    prior = np.array([getattr(current, n) for n in names], dtype=np.float64)
    print(
        f"{variant}: {len(data)} positions ({int(held.sum())} held out, "
        f"{int((X != 0).any(axis=1).sum())} where the terms are not 0); "
        f"features in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    clip = 4000.0

    def loss(theta: Any, rows: Any, k: float, target: Any) -> float:
        p = 1 / (1 + np.exp(-np.clip(base[rows] + X[rows] @ theta, -clip, clip) / k))
        return float(np.mean((target[rows] - p) ** 2))

    k = min((loss(prior, train, k, y), k) for k in (40, 60, 80, 100, 130, 160, 200, 260, 330))[1]
    # Unlike the tables' tens of thousands of entries, a few terms cannot learn the
    # games by heart: the held-out games are scored against the same blended target
    # (a result alone hardly moves with a term that matters in a few positions), and
    # against their results alone as well, printed beside it.
    target = _blend_target(data, y, np.ones(len(data), dtype=bool), lam, k)
    base_held = loss(prior, held, k, target)
    print(
        f"K = {k}; held-out error {base_held:.5f} ({loss(prior, held, k, y):.5f} against "
        "the results alone)",
        flush=True,
    )
    Xt, bt, yt = X[train], base[train], target[train]
    best_held, best, best_reg = base_held, prior.copy(), None
    for reg in regs:

        def gradient(theta: Any, reg: float = reg) -> Any:
            p = 1 / (1 + np.exp(-np.clip(bt + Xt @ theta, -clip, clip) / k))
            g = -2 * (yt - p) * p * (1 - p) / k
            return Xt.T @ g / len(yt) + 2 * reg * (theta - prior) / (MAN * MAN)

        theta, run_best, _, taken = _adam(
            prior, gradient, lambda t: loss(t, held, k, target), steps, lr=0.1
        )
        print(f"reg {reg}: {taken} steps, best held out {run_best:.5f}", flush=True)
        if run_best < best_held:
            best_held, best, best_reg = run_best, theta, reg
    rounded = np.round(best)
    final_held = loss(rounded, held, k, target)
    print(
        f"{variant}: kept reg {best_reg}; held-out error {base_held:.5f} -> {final_held:.5f} "
        f"(against the results alone {loss(prior, held, k, y):.5f} -> "
        f"{loss(rounded, held, k, y):.5f}); "
        + ", ".join(f"{n} {p:.0f}->{r:.0f}" for n, p, r in zip(names, prior, rounded, strict=True))
    )
    if write:
        path = WEIGHTS_DIR / f"{rules.id}.json"
        stored = json.loads(path.read_text()) if path.exists() else {}
        for n, r in zip(names, rounded, strict=True):
            stored[n] = int(r)
        stored["fitted_terms"] = (
            f"tools/texel.py terms {','.join(names)}, {len(data)} positions, K {k}, "
            f"reg {best_reg}, held-out squared error {base_held:.5f} -> {final_held:.5f}"
        )
        path.write_text(json.dumps(stored, indent=None, separators=(",", ":")) + "\n")
        print(f"written to {path}")


def _blend_target(data: list[list[Any]], y: Any, train: Any, lam: float, k: float) -> Any:
    """The training target: ``lam`` of each position's game result and the rest of what
    self-play's search scored it (as a probability at scale ``k``), for the positions
    ``train`` marks that have a search score; the others keep their results alone. One
    game's result is a noisy label for each of its positions, the search score a less
    noisy one. ``patterns`` marks its training games only, so its held-out error still
    measures outcomes; ``terms`` marks every game (a few numbers cannot learn games by
    heart) and scores the held-out ones against their results beside it."""
    import numpy as np

    searched = np.array([len(d) > 6 for d in data])
    if lam >= 1 or not searched.any():
        return y
    score = np.array([d[6] if len(d) > 6 else 0 for d in data], dtype=np.float64)
    blend = lam * y + (1 - lam) / (1 + np.exp(-score / k))
    print(f"training target: {lam} of the result, {1 - lam:.2f} of the search", flush=True)
    return np.where(searched & train, blend, y)


def _adam(
    theta: Any, gradient: Any, held_loss: Any, steps: int, lr: float
) -> tuple[Any, float, int, int]:
    """Adam from ``theta`` along ``gradient`` (a function of theta). With a ``held_loss``
    (checked every 10 steps) it keeps the theta of the lowest and stops once that loss
    has risen clearly above its best; with None it runs all ``steps`` and keeps the
    last: (theta kept, its held-out loss or nan, the step it was at, steps taken)."""
    import numpy as np

    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    best, best_loss, best_step = theta.copy(), float("nan"), 0
    if held_loss is not None:
        best_loss = held_loss(theta)
    step = 0
    for step in range(1, steps + 1):
        grad = gradient(theta)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        theta = theta - lr * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-12)
        if held_loss is None:
            best, best_step = theta, step
        elif step % 10 == 0:
            h = held_loss(theta)
            if h < best_loss:
                best, best_loss, best_step = theta.copy(), h, step
            elif h > best_loss + 3e-4:
                break
    return best, best_loss, best_step, step


def to_weights(rules: Rules, feats: Features, theta: list[int]) -> Weights:
    n = feats.n
    kings = theta[2 * n : 3 * n]
    king = min(kings)
    return replace(
        derived_weights(rules),
        king=king,
        men_mid=tuple(v - MAN for v in theta[:n]),
        men_end=tuple(v - MAN for v in theta[n : 2 * n]),
        king_squares=tuple(v - king for v in kings),
        **{name: theta[3 * n + j] for j, name in enumerate(SCALARS)},
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("selfplay")
    sp.add_argument("variant")
    sp.add_argument("--games", type=int, default=200)
    sp.add_argument("--nodes", type=int, default=1500)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--out", type=Path, required=True)
    cp = sub.add_parser("corpus")
    cp.add_argument("variant")
    cp.add_argument("root", type=Path, help="the corpus folder (with its manifest.tsv)")
    cp.add_argument("--out", type=Path, required=True)
    fp = sub.add_parser("fit")
    fp.add_argument("variant")
    fp.add_argument("data", type=Path, nargs="+")
    fp.add_argument("--reg", default="0.1,0.3,1,3", help="pulls towards the current weights to try")
    fp.add_argument("--steps", type=int, default=3000)
    fp.add_argument("--write", action="store_true")
    tp = sub.add_parser("terms")
    tp.add_argument("variant")
    tp.add_argument("data", type=Path, nargs="+")
    tp.add_argument("--names", required=True, help="scalar terms to fit, comma-separated")
    tp.add_argument("--reg", default="0,0.0001,0.001", help="pulls towards their current worths")
    tp.add_argument("--steps", type=int, default=2000)
    tp.add_argument("--lam", type=float, default=1.0, help="as for patterns")
    tp.add_argument("--write", action="store_true")
    pp = sub.add_parser("patterns")
    pp.add_argument("variant")
    pp.add_argument("data", type=Path, nargs="+")
    pp.add_argument("--reg", default="1,10,100", help="pulls towards 0 to try")
    pp.add_argument("--steps", type=int, default=1000)
    pp.add_argument("--lr", type=float, default=0.1, help="Adam's step, in hundredths of a man")
    pp.add_argument(
        "--lam",
        type=float,
        default=1.0,
        help="share of the game result in the target (the rest: the search score)",
    )
    pp.add_argument(
        "--phases",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: tables for many men and for few, blended by the men left",
    )
    pp.add_argument(
        "--all-games",
        action="store_true",
        help="write tables fitted again on every game, with the pull and steps the held-out "
        "games chose",
    )
    pp.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if args.command == "selfplay":
        selfplay(args.variant, args.games, args.nodes, args.seed, args.out)
    elif args.command == "corpus":
        corpus(args.variant, args.root, args.out)
    elif args.command == "terms":
        fit_terms(
            args.variant,
            args.data,
            args.names.split(","),
            [float(r) for r in args.reg.split(",")],
            args.steps,
            args.lam,
            args.write,
        )
    elif args.command == "patterns":
        fit_patterns(
            args.variant,
            args.data,
            [float(r) for r in args.reg.split(",")],
            args.steps,
            args.lam,
            args.write,
            args.lr,
            args.phases,
            args.all_games,
        )
    else:
        fit(
            args.variant, args.data, [float(r) for r in args.reg.split(",")], args.steps, args.write
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
