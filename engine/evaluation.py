"""Static evaluation for the search, one ``Evaluator`` per rule set.

Every weight is derived from ``Rules`` fields (king range, board geometry, which
rows men start on, whether men take kings), never from a variant's name. The men's
per-square terms (middlegame and endgame advance, which wing) are packed into one
number per square and summed a chunk of the board at a time: ``table[(bits >> shift)
& mask]`` is the packed sum of that chunk's squares, so a weighted count is five
lookups on 10x10 instead of a loop over pieces or a dozen ``bit_count`` calls. The
kings' table is stored as bit-planes: weights ``w[sq]`` split into masks ``plane_k =
{sq : bit k of w[sq] is set}``, so their weighted count is
``sum(popcount(bits & plane_k) << k)``.

Scores are in hundredths of a man, from the side to move's point of view.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .patterns import FIELD_BITS as PATTERN_FIELD_BITS
from .patterns import load_tables, regions_for
from .rules import Rules
from .tables import tables_for

if TYPE_CHECKING:
    from .position import Position

MAN = 100
# Score of a won position (the side to move has no move or no piece), minus the
# distance in plies; anything above WIN_BOUND is a forced win.
WIN = 1_000_000
WIN_BOUND = WIN - 10_000
# Weights fitted to game outcomes (tools/texel.py), one small file a rule set named by
# its id; a rule set without one plays the weights derived from its rules.
WEIGHTS_DIR = Path(__file__).with_name("data") / "weights"


@dataclass(frozen=True)
class Weights:
    """The tunable numbers of the evaluation for one rule set."""

    king: int  # value of a king; a man is MAN
    guard: int  # a man on its own back row while the opponent still has men to crown
    advance_mid: int  # per row advanced, while many men are on the board
    advance_end: int  # the last row before crowning, when few men are left (grows squared)
    centre: int  # a man on the central files
    king_centre: int  # a king near the centre (short kings) ...
    king_diagonal: int  # ... or on the long diagonal (flying diagonal kings)
    mobility: int  # per free step of a man
    tempo: int  # having the move
    trade_bonus: int  # per 1/32 of the material lead, scaled by how much has been traded
    balance: int = 0  # per man more on one half of the board (left or right) than the other
    # A man one step from crowning with a free crowning square ahead: the side to move
    # crowns it now if it likes, the other side's may still be stopped. The quiescence
    # plays out captures only, so without these a search's leaves missed a king that
    # was one move away (a depth-6 search scored such positions some 200 higher than
    # the static score did; issue 6's note).
    crown_now: int = 0  # the side to move's man
    crown_next: int = 0  # the other side's man
    crown_two: int = 0  # the side to move's man two free steps from crowning ...
    crown_two_next: int = 0  # ... and the other side's
    # Kings' reach (Scan 2.0's king mobility): per free square a king could move to,
    # one where no man of the other side could take it (safe) and one where one could
    # (denied). A king that commands the board is worth more than one boxed in; a
    # short king's reach is its neighbouring squares.
    king_safe: int = 0
    king_denied: int = 0
    # Each king a side has beyond its first (Scan 2.0 weighs the first king apart): the
    # first king changes an ending most, the next ones less.
    extra_king: int = 0
    # Learned per-square tables (tools/texel.py), White's squares in ``board.squares``
    # order, Black's the same turned half round: a man's worth above ``MAN`` while many
    # men are on the board and when few are (they replace advance, guard and centre),
    # and a king's above ``king`` (replacing king_centre and king_diagonal).
    men_mid: tuple[int, ...] | None = None
    men_end: tuple[int, ...] | None = None
    king_squares: tuple[int, ...] | None = None
    # Learned pattern tables (``engine/patterns.py``), one per region of the board:
    # a worth for every arrangement of men in it, read from both sides.
    patterns: tuple[tuple[int, ...], ...] | None = None


def weights_for(rules: Rules) -> Weights:
    """The rule set's weights: fitted ones from ``data/weights/<id>.json``
    (``tools/texel.py`` writes them) where there is such a file, else ``derived_weights``;
    with the pattern tables of ``data/patterns/<id>.json`` where those are shipped."""
    weights = _scalar_weights(rules)
    tables = load_tables(rules)
    return weights if tables is None else replace(weights, patterns=tables)


def _scalar_weights(rules: Rules) -> Weights:
    fitted = _fitted(rules.id)
    derived = derived_weights(rules)
    if not fitted:
        return derived
    known = {f.name for f in fields(Weights)}
    values: dict[str, int | tuple[int, ...]] = {}
    for k, v in fitted.items():
        if k not in known:
            continue  # a note (source, positions) or a retired weight
        if isinstance(v, list):
            if len(v) != len(rules.board.squares):
                raise ValueError(
                    f"{rules.id}: {k} has {len(v)} squares, not {len(rules.board.squares)}"
                )
            values[k] = tuple(int(x) for x in v)
        else:
            values[k] = int(v)  # type: ignore[call-overload]
    return replace(derived, **values)  # type: ignore[arg-type]


@cache
def _fitted(rules_id: str) -> dict[str, object]:
    try:
        stored: dict[str, object] = json.loads((WEIGHTS_DIR / f"{rules_id}.json").read_text())
    except FileNotFoundError:
        return {}
    return stored


def derived_weights(rules: Rules) -> Weights:
    """Weights from the rule set's fields: king range and geometry set the king's worth."""
    board = rules.board
    if not rules.flying_kings:
        # A one-square king is worth a man and a half; more where men cannot take it.
        king = 150 if rules.men_capture_kings else 170
    elif board.all_squares:
        king = 260  # a rook-like king on a full board of men that step sideways too
    else:
        # A flying diagonal king dominates a small board and is worth three and a half
        # men on 10x10: fits of the static score to depth-6 search scores (below) put
        # it at 330-350 where 300 was used before.
        king = 250 + 45 * (board.cols - 8)
    guard = 6 if 0 in rules.start_rows else 0
    return Weights(
        king=king,
        guard=guard,
        advance_mid=2,
        advance_end=40 if board.rows <= 8 else 48,
        centre=4,
        king_centre=0 if rules.flying_kings else 6,
        king_diagonal=10 if rules.flying_kings and not board.all_squares else 0,
        mobility=1 if board.all_squares else 2,
        tempo=3,
        trade_bonus=8,
        # A lopsided formation is weak: more so on a wide board with many men.
        balance=3 if board.cols >= 10 else 2,
        # Shares of what crowning gains (a king for a man), fitted to depth-6 search
        # scores of 7,772 quiet 10x10 positions: the side to move's man one step away
        # crowns nearly always (those positions scored a median 205 above the static
        # score, the middle half 190-250), the other side's about two times in three;
        # two steps away, a fifth and a tenth.
        crown_now=(king - MAN) * 9 // 10,
        crown_next=(king - MAN) * 13 // 20,
        crown_two=(king - MAN) // 5,
        crown_two_next=(king - MAN) // 10,
    )


# Bits of one field of a packed per-square sum: room for any side's whole army.
FIELD = 16
_FIELD_MASK = (1 << FIELD) - 1
# Squares per chunk table, at most: 2^12 entries a table.
_CHUNK_BITS = 12
# (shift, mask, table) per chunk of the board: see ``_chunks``.
_Chunks = tuple[tuple[int, int, tuple[int, ...]], ...]
_CHUNK_CACHE: dict[tuple[str, Weights], tuple[_Chunks, _Chunks]] = {}
# Per rule set: chunks of the men's packed region-index contributions (they depend on
# the board alone, not on the tables' worths).
_PATTERN_CHUNK_CACHE: dict[str, tuple[_Chunks, _Chunks]] = {}
_UNROLLED = 6  # chunks a side the evaluation reads (Turkish's 71 bits need six)


def _chunks(weights: dict[int, int], bits: int) -> _Chunks:
    """(shift, mask, table) chunks of a per-square table of non-negative weights:
    ``table[(b >> shift) & mask]`` is the summed weight of the squares of bitboard ``b``
    in that chunk, so a weighted count is a few lookups instead of a loop over pieces."""
    n = -(-bits // _CHUNK_BITS)
    width = -(-bits // n)
    out = []
    for shift in range(0, bits, width):
        table = [0] * (1 << width)
        for sub in range(1, 1 << width):
            low = sub & -sub
            table[sub] = table[sub ^ low] + weights.get(shift + low.bit_length() - 1, 0)
        out.append((shift, (1 << width) - 1, tuple(table)))
    return tuple(out)


def _planes(weights: dict[int, int]) -> tuple[tuple[int, int], ...]:
    """(shift, mask) bit-planes of a per-square table of non-negative integer weights."""
    top = max(weights.values(), default=0)
    out = []
    for k in range(top.bit_length()):
        mask = 0
        for sq, w in weights.items():
            if w >> k & 1:
                mask |= 1 << sq
        if mask:
            out.append((k, mask))
    return tuple(out)


class Evaluator:
    """Evaluation for one rule set; masks and tables are built once and cached."""

    def __init__(self, rules: Rules, weights: Weights | None = None) -> None:
        self.rules = rules
        self.weights = w = weights or weights_for(rules)
        board = rules.board
        t = tables_for(rules)
        self.tables = t
        rows, cols = board.rows, board.cols
        self.king_value = w.king
        self.flying = rules.flying_kings
        # Men of one side at the start: the squares of its start rows.
        n_men = rules.start_position().white.bit_count()
        self.start_men = n_men
        self.start_total = 2 * n_men

        centre_lo, centre_hi = (cols - 1) / 2 - 1.5, (cols - 1) / 2 + 1.5
        mid: list[dict[int, int]] = [{}, {}]
        end: list[dict[int, int]] = [{}, {}]
        kpst: list[dict[int, int]] = [{}, {}]
        diagonal = board.long_diagonal
        # Black's square for each of White's: the board turned half round.
        turned = {
            sq: board.square_at[(cols - 1 - col, rows - 1 - row)]
            for sq, (col, row) in board.coords.items()
        }
        for sq, (col, row) in board.coords.items():
            for side in (0, 1):
                advance = rows - 1 - row if side == 0 else row
                m = w.advance_mid * advance
                if advance == 0:
                    m += w.guard
                if centre_lo <= col <= centre_hi and 1 <= advance <= rows - 2:
                    m += w.centre
                mid[side][sq] = m
                end[side][sq] = w.advance_end * advance * advance // ((rows - 1) * (rows - 1))
                dc = abs(col - (cols - 1) / 2)
                dr = abs(row - (rows - 1) / 2)
                k = int(w.king_centre * max(0.0, 1 - max(dc, dr) / (cols / 2)))
                if diagonal >> sq & 1:
                    k += w.king_diagonal
                kpst[side][sq] = k
        # Learned tables hold negative worths too; the packed sums need non-negative
        # ones, so every man's entry is lifted by ``men_offset`` and the score takes
        # it off again per man (exact: the blend of two lifted sums is lifted by as
        # much). A king's lowest entry is folded into its value instead.
        self.men_offset = 0
        if w.men_mid is not None and w.men_end is not None:
            self.men_offset = off = max(0, -min(w.men_mid), -min(w.men_end))
            for i, sq in enumerate(board.squares):
                mid[0][sq] = mid[1][turned[sq]] = w.men_mid[i] + off
                end[0][sq] = end[1][turned[sq]] = w.men_end[i] + off
        if w.king_squares is not None:
            low = min(w.king_squares)
            self.king_value = w.king + low
            for i, sq in enumerate(board.squares):
                kpst[0][sq] = kpst[1][turned[sq]] = w.king_squares[i] - low
        self.king_pst = (_planes(kpst[0]), _planes(kpst[1]))
        self.step_dirs = t.step_dirs
        self.mask = board.mask
        # Kings' reach: the directions they move in, and the directions each side's men
        # capture in (none where men may not take a king).
        self.king_dirs = t.king_dirs
        self.man_capture_dirs = t.capture_dirs if rules.men_capture_kings else ((), ())
        left = {sq for sq, (col, _) in board.coords.items() if 2 * col < cols - 1}
        right = {sq for sq, (col, _) in board.coords.items() if 2 * col > cols - 1}
        # The same weights unpacked, per side and indexed by square bit (0 off the
        # board), and the wings as masks: what the compiled evaluation
        # (engine/_accel/eval.c) reads, summing square by square.
        size = max(board.squares) + 1
        self.men_mid_by_square = _by_square(mid, size)
        self.men_end_by_square = _by_square(end, size)
        self.king_by_square = _by_square(kpst, size)
        self.left_mask = sum(1 << sq for sq in left)
        self.right_mask = sum(1 << sq for sq in right)
        # Squares within two steps of crowning: only men there can threaten to crown.
        promo_w, promo_b = t.promotion
        w_dirs, b_dirs = t.step_dirs
        near_w = _steps_onto(promo_w, w_dirs) & board.mask
        near_w |= _steps_onto(near_w, w_dirs) & board.mask & ~promo_w
        near_b = _steps_onto(promo_b, b_dirs) & board.mask
        near_b |= _steps_onto(near_b, b_dirs) & board.mask & ~promo_b
        self.near_crowning = (near_w, near_b)
        # Each man's middlegame and endgame weights and its wing, packed into one number
        # per square (FIELD bits each), summed a chunk of the board at a time.
        # The tables are built once per rule set and weights (tens of thousands of sums).
        # (Keyed without the pattern tables: hashing their 59,000 entries is slow.)
        chunk_key = (rules.id, replace(w, patterns=None) if w.patterns else w)
        chunks = _CHUNK_CACHE.get(chunk_key)
        if chunks is None:
            packed = [
                {
                    sq: (
                        mid[side][sq]
                        | end[side][sq] << FIELD
                        | (sq in left) << 2 * FIELD
                        | (sq in right) << 3 * FIELD
                    )
                    for sq in board.coords
                }
                for side in (0, 1)
            ]
            bits = board.mask.bit_length()
            chunks = _CHUNK_CACHE[chunk_key] = (
                _chunks(packed[0], bits),
                _chunks(packed[1], bits),
            )
        self.men_chunks = chunks

        # Pattern tables: each region's index comes out of one chunked sum over the men
        # (``engine/patterns.py``); the compiled evaluation reads the regions' squares.
        self.pattern_tables = w.patterns
        self.pattern_squares: tuple[tuple[tuple[int, ...], ...], ...] | None = None
        self.pattern_chunks: tuple[_Chunks, _Chunks] | None = None
        if w.patterns is not None:
            regions = regions_for(board)
            if len(w.patterns) != regions.count or any(len(t) != regions.size for t in w.patterns):
                raise ValueError(
                    f"{rules.id}: pattern tables do not fit the board's "
                    f"{regions.count} regions of {regions.size} entries"
                )
            self.pattern_squares = (regions.white, regions.black)
            pchunks = _PATTERN_CHUNK_CACHE.get(rules.id)
            if pchunks is None:
                bits = board.mask.bit_length()
                pchunks = _PATTERN_CHUNK_CACHE[rules.id] = (
                    _chunks(regions.packed_white, bits),
                    _chunks(regions.packed_black, bits),
                )
            self.pattern_chunks = pchunks

        self.score = self._scorer()

    # --- scoring -------------------------------------------------------------------

    def evaluate(self, white: int, black: int, kings: int, turn: int) -> int:
        """Score of the position for the side to move (``turn`` 0 = White)."""
        return self.score(white, black, kings, turn)

    def _scorer(self) -> Callable[[int, int, int, int], int]:
        """``evaluate`` as a plain function over its tables, the search's hot path: the
        constants are closure cells, not attributes, and the chunk lookups are unrolled
        (short boards are padded with empty chunks)."""
        kv, flying, start_total = self.king_value, self.flying, self.start_total
        men_offset = self.men_offset
        w = self.weights
        mobility, balance, tempo, trade = w.mobility, w.balance, w.tempo, w.trade_bonus
        trade_div = 32 * start_total
        mask = self.mask
        w_dirs, b_dirs = self.step_dirs
        kp_w, kp_b = self.king_pst
        fm = _FIELD_MASK
        crown_now, crown_next = w.crown_now, w.crown_next
        crown_two, crown_two_next = w.crown_two, w.crown_two_next
        promo_w, promo_b = self.tables.promotion
        near_w, near_b = self.near_crowning
        king_safe, king_denied, extra_king = w.king_safe, w.king_denied, w.extra_king
        king_reach = bool(king_safe or king_denied)
        king_dirs = self.king_dirs
        caps = self.man_capture_dirs
        empty_chunk = (0, 0, (0,))
        if max(len(c) for c in self.men_chunks) > _UNROLLED:
            raise ValueError(f"a board of more than {_UNROLLED} chunks")
        cw = self.men_chunks[0] + (empty_chunk,) * (_UNROLLED - len(self.men_chunks[0]))
        cb = self.men_chunks[1] + (empty_chunk,) * (_UNROLLED - len(self.men_chunks[1]))
        (a0, m0, t0), (a1, m1, t1), (a2, m2, t2), (a3, m3, t3), (a4, m4, t4), (a5, m5, t5) = cw
        (b0, n0, u0), (b1, n1, u1), (b2, n2, u2), (b3, n3, u3), (b4, n4, u4), (b5, n5, u5) = cb
        # Pattern chunks share the men's chunk shifts (the same board, the same split).
        pat_tables = self.pattern_tables or ()
        pw, pb = self.pattern_chunks or (cw, cb)
        pw = pw + (empty_chunk,) * (_UNROLLED - len(pw))
        pb = pb + (empty_chunk,) * (_UNROLLED - len(pb))
        if [c[:2] for c in pw] != [c[:2] for c in cw] or [c[:2] for c in pb] != [c[:2] for c in cb]:
            raise ValueError("pattern chunks split the board unlike the men's")
        p0, p1, p2, p3, p4, p5 = (c[2] for c in pw)
        q0, q1, q2, q3, q4, q5 = (c[2] for c in pb)
        # The packed sum's fields unpack with one ``struct`` call; Black's side reads the
        # same tables negated, so the pattern score is one C-level sum of lookups.
        pat_signed = _signed(pat_tables) if pat_tables else ()
        pat_bytes = len(pat_signed) * PATTERN_FIELD_BITS // 8
        pat_unpack = struct.Struct(f"<{len(pat_signed)}H").unpack
        getitem = tuple.__getitem__

        def score(white: int, black: int, kings: int, turn: int) -> int:
            if not black:
                return WIN if turn == 0 else -WIN
            if not white:
                return -WIN if turn == 0 else WIN
            wm = white & ~kings
            bm = black & ~kings
            wk = white & kings
            bk = black & kings
            nwm, nbm = wm.bit_count(), bm.bit_count()
            nwk, nbk = wk.bit_count(), bk.bit_count()
            w_mat = nwm * MAN + nwk * kv
            b_mat = nbm * MAN + nbk * kv
            lead = w_mat - b_mat
            score = lead - men_offset * (nwm - nbm)

            # Men: blend of the middlegame and endgame tables by how many men are left.
            men = nwm + nbm
            if men:
                ws = (
                    t0[wm >> a0 & m0]
                    + t1[wm >> a1 & m1]
                    + t2[wm >> a2 & m2]
                    + t3[wm >> a3 & m3]
                    + t4[wm >> a4 & m4]
                    + t5[wm >> a5 & m5]
                )
                bs = (
                    u0[bm >> b0 & n0]
                    + u1[bm >> b1 & n1]
                    + u2[bm >> b2 & n2]
                    + u3[bm >> b3 & n3]
                    + u4[bm >> b4 & n4]
                    + u5[bm >> b5 & n5]
                )
                mid = (ws & fm) - (bs & fm)
                if pat_tables:
                    # Every region's index from both sides, in one packed sum.
                    p = (
                        p0[wm >> a0 & m0]
                        + p1[wm >> a1 & m1]
                        + p2[wm >> a2 & m2]
                        + p3[wm >> a3 & m3]
                        + p4[wm >> a4 & m4]
                        + p5[wm >> a5 & m5]
                        + q0[bm >> b0 & n0]
                        + q1[bm >> b1 & n1]
                        + q2[bm >> b2 & n2]
                        + q3[bm >> b3 & n3]
                        + q4[bm >> b4 & n4]
                        + q5[bm >> b5 & n5]
                    )
                    score += sum(
                        map(getitem, pat_signed, pat_unpack(p.to_bytes(pat_bytes, "little")))
                    )
                end = (ws >> FIELD & fm) - (bs >> FIELD & fm)
                phase = men if men < start_total else start_total
                score += (mid * phase + end * (start_total - phase)) // start_total

                # Mobility: free steps of the men, set-wise.
                empty = mask & ~(white | black)
                mob = 0
                for d in w_dirs:
                    mob += (((wm << d) if d > 0 else (wm >> -d)) & empty).bit_count()
                for d in b_dirs:
                    mob -= (((bm << d) if d > 0 else (bm >> -d)) & empty).bit_count()
                score += mob * mobility

                # Balance: men spread evenly over both wings, while many are left.
                if phase * 2 > start_total:
                    bal = abs((ws >> 2 * FIELD & fm) - (ws >> 3 * FIELD)) - abs(
                        (bs >> 2 * FIELD & fm) - (bs >> 3 * FIELD)
                    )
                    score -= bal * balance

                # Crowning threats (``Weights.crown_now``): men with a free crowning
                # square one step ahead, or two free steps ahead; the side to move's
                # count more, as it moves first.
                if wm & near_w or bm & near_b:
                    w_one, w_two = _crowning(wm, empty & promo_w, empty, w_dirs)
                    b_one, b_two = _crowning(bm, empty & promo_b, empty, b_dirs)
                    if turn == 0:
                        score += (
                            crown_now * w_one
                            + crown_two * w_two
                            - crown_next * b_one
                            - crown_two_next * b_two
                        )
                    else:
                        score += (
                            crown_next * w_one
                            + crown_two_next * w_two
                            - crown_now * b_one
                            - crown_two * b_two
                        )

            if wk or bk:
                for k, plane in kp_w:
                    score += (wk & plane).bit_count() << k
                for k, plane in kp_b:
                    score -= (bk & plane).bit_count() << k
                if extra_king and (nwk > 1 or nbk > 1):
                    score += (max(nwk - 1, 0) - max(nbk - 1, 0)) * extra_king
                if king_reach:
                    safe, denied = king_reach_balance(
                        wm, bm, wk, bk, mask & ~(white | black), caps, king_dirs, flying
                    )
                    score += safe * king_safe + denied * king_denied

            # Trading down when ahead: the lead counts more the fewer pieces remain.
            if lead:
                total = nwm + nbm + nwk + nbk
                score += lead * trade * (start_total - total) // trade_div
                # Against a flying king a small lead rarely wins.
                if flying:
                    score //= (
                        flying_king_damping(nwm, nwk, nbm, nbk)
                        if lead > 0
                        else flying_king_damping(nbm, nbk, nwm, nwk)
                    )

            score = score if turn == 0 else -score
            return score + tempo

        return score


def flying_king_damping(
    ahead_men: int, ahead_kings: int, behind_men: int, behind_kings: int
) -> int:
    """What the side ahead's score is divided by when the side behind has a flying king.

    A small lead rarely wins against one (Scan 2.0 weighs it so): with three pieces
    or fewer the score is an eighth, with as many kings and at most a man more a half.
    The evaluation and the training features (tools/texel.py) both call this, so the
    rule is stated once in Python; ``_accel/eval.c`` repeats it for speed and the
    C/Python equality tests keep the two alike.
    """
    if not behind_kings:
        return 1
    if ahead_men + ahead_kings <= 3:
        return 8
    if ahead_kings == behind_kings and ahead_men - behind_men <= 1:
        return 2
    return 1


_SIGNED_CACHE: dict[int, tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]] = {}


def _signed(tables: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """``tables`` followed by the same tables negated (Black's side), built once per
    tables object: a searcher a game each builds an evaluator."""
    cached = _SIGNED_CACHE.get(id(tables))
    if cached is None or cached[0] is not tables:
        if len(_SIGNED_CACHE) > 16:
            _SIGNED_CACHE.clear()
        cached = _SIGNED_CACHE[id(tables)] = (
            tables,
            tuple(tables) + tuple(tuple(-x for x in t) for t in tables),
        )
    return cached[1]


def _by_square(
    per_side: list[dict[int, int]], size: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per-side {square: weight} maps as tuples indexed by square bit."""
    white, black = per_side
    return (
        tuple(white.get(sq, 0) for sq in range(size)),
        tuple(black.get(sq, 0) for sq in range(size)),
    )


def _steps_onto(target: int, dirs: tuple[int, ...]) -> int:
    """Squares (ghost bits included) from which one step in ``dirs`` lands on ``target``."""
    out = 0
    for d in dirs:
        out |= (target << -d) if d < 0 else (target >> d)
    return out


def _crowning(men: int, free_promo: int, empty: int, dirs: tuple[int, ...]) -> tuple[int, int]:
    """Men one step from a free crowning square, and men one free step from such a
    square (not already one step from another)."""
    one = _steps_onto(free_promo, dirs)
    two = _steps_onto(one & empty, dirs) & ~one
    return (men & one).bit_count(), (men & two).bit_count()


def _taken_on(men: int, empty: int, capture_dirs: tuple[int, ...]) -> int:
    """Squares where a piece would be taken by one of ``men`` at once: a man behind it
    in one of its capture directions and a free square beyond it."""
    out = 0
    for d in capture_dirs:
        behind = (men << d) if d > 0 else (men >> -d)
        beyond = (empty >> d) if d > 0 else (empty << -d)
        out |= behind & beyond
    return out


def king_reach_balance(
    wm: int,
    bm: int,
    wk: int,
    bk: int,
    empty: int,
    man_capture_dirs: tuple[tuple[int, ...], tuple[int, ...]],
    king_dirs: tuple[int, ...],
    flying: bool,
) -> tuple[int, int]:
    """White's kings' reach less Black's: (safe squares, denied squares), where a
    square is denied when a man of the other side could take a king there at once.
    The evaluation and the training features (tools/texel.py) both call this; a side
    without kings costs nothing (its opponent's men's threats are not looked for)."""
    w_caps, b_caps = man_capture_dirs
    safe = denied = 0
    if wk:
        safe, denied = _king_reach(wk, empty, _taken_on(bm, empty, b_caps), king_dirs, flying)
    if bk:
        b_safe, b_denied = _king_reach(bk, empty, _taken_on(wm, empty, w_caps), king_dirs, flying)
        safe, denied = safe - b_safe, denied - b_denied
    return safe, denied


def _king_reach(
    kings: int, empty: int, taken: int, dirs: tuple[int, ...], flying: bool
) -> tuple[int, int]:
    """Free squares ``kings`` could move to that are not in ``taken``, and those that
    are, counted once per king (kings on one line in one direction never reach the
    same square at the same distance, so the set-wise count per step is exact)."""
    safe = denied = 0
    for d in dirs:
        front = ((kings << d) if d > 0 else (kings >> -d)) & empty
        while front:
            safe += (front & ~taken).bit_count()
            denied += (front & taken).bit_count()
            if not flying:
                break
            front = ((front << d) if d > 0 else (front >> -d)) & empty
    return safe, denied


def evaluate(position: Position) -> int:
    """Score of ``position`` for the side to move, in hundredths of a man.

    A convenience that builds the evaluator each time; the search keeps its own.
    """
    return Evaluator(position.rules).evaluate(
        position.white, position.black, position.kings, position.turn
    )
