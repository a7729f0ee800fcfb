"""Endgame databases: the exact result of every position with few pieces, per rule set.

A table holds every position of at most ``pieces`` pieces (both sides at least one; no
man on its own crowning row), with either side to move, and for each the result under
perfect play and its distance: won in d plies, lost in d plies, or drawn (never lost
nor won). It is computed here, by retrograde analysis over our own move generator, so
it follows the rule set's ``Rules`` exactly (captures, precedence, crowning, flying
kings); nothing in it names a variant.

Numbering. The positions are split by material (white men, white kings, black men,
black kings), and only White to move is stored: Black to move is the same position
turned half round with the colours swapped (every board here maps onto itself so,
its rows of crowning onto each other; ``Layout`` checks it). Within a material, a
position's number is built from the numbers of its four groups' square sets (each
set numbered among the sets of its size, men only on squares they may stand on),
so a position is found with four dictionary lookups and the table of a material is
one flat ``array``. Numbers where two groups share a square are unused (about a
fifth).

How: the materials are solved in an order where every move out of one (a capture,
or a man crowned) leads to one solved before, so those moves' results are read from
the table. Within a material and its colour-swapped twin, the moves that stay inside
(quiet moves that crown nothing) are generated once, each position's legal moves
with ``legal_moves``, and kept as reversed edges. A position with no legal move is
lost in 0; a move that takes the opponent's last piece wins in 1. Working outwards
by distance, a position with a move to a lost position is won in one ply more (or
at the distance its best move out of the material gives, if shorter), and a
position all of whose moves lead to won positions is lost in one ply more than its
longest (counted down per position: the moves not yet known to win for the
opponent). Whatever is left is a draw: neither side can force anything. The
distances make the search play the win out (it sees ``WIN - distance``), not just
keep it.

The draw rules of the game (``engine/draws.py``) that count plies are applied as if
their counts started at the position (``rule_limit``): a win that takes longer than
they allow is a draw here. Without that, a Russian or Brazilian table scored many
endings of two pieces against a lone king as won (or lost) that the rule ends as drawn
after five moves each, and level 8 traded into them: it lost a 20-game match 30% where
it scored 47.5% without tables (bench/strength.py --baseline). Level 8 with 4-piece
tables against f1f4a88's with 3-piece ones, 0.1 s a move, 240 games a rule set:
Russian 54.4% (about +30 Elo), English 47.3% (about -19), both within the error
margin (about 35 Elo).

How a table reaches the computer (SHIPPED). Size (``default_pieces``): 4 pieces on
boards of 32 squares, 3 on larger ones, or ``KONDAVO_ENDGAME_PIECES`` (0: no tables).
The default tables of all seven rule sets are shipped with the package, in
``engine/data`` (5.3 MB in all: 1.0-1.2 MB each for the five 8x8 rule sets, 76 kB
for International's 3 pieces, 161 kB for Turkish's): the computer has them from its
first game, a live server never spends minutes of a core building one beside its
games, and a container whose user has no home folder (server/deploy/Dockerfile)
has them too. ``python -m engine.endgame build --ship`` rebuilds them; a shipped
file of another FORMAT or built for other rules (``fingerprint``) is not read, and
tests check that each loads and holds what the builder builds.

Any other size is built on first use, in a background process (``table_for``), and
kept in the cache folder (``$KONDAVO_CACHE``, else ``$XDG_CACHE_HOME/kondavo``, else
``~/.cache/kondavo``), one file a rule set and size: each is built once a machine;
the computer plays without it meanwhile. ``python -m engine.endgame build [RULE
SET...] [--pieces N]`` builds them ahead of time and prints how long each took and
its file's size. Measured on this 2-core machine, shared with other work (``nice``):
4 pieces on 8x8 (7.5 million numbers) take 150-280 s, 140 MB of memory and about
1 MB of file; 3 pieces 1-3 s and 25-45 kB on 8x8, 20 s and 76 kB on 10x10, 68 s
and 161 kB on Turkish's 64 squares. International's 4 pieces (47 million numbers)
took 643 s of CPU (41 minutes of wall clock at ``nice -n 19``), 756 MB of memory and
3.6 MB of file: feasible, but too big to ship and too heavy to build beside a live
server's games, so its default stays 3; ``KONDAVO_ENDGAME_PIECES=international=4``
after ``python -m engine.endgame build international --pieces 4`` plays with it.
Turkish's 4 pieces would be 120 million numbers, 14 million of them solved at once:
not tried.
"""

from __future__ import annotations

import argparse
import hashlib
import lzma
import os
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Callable, Iterator
from itertools import combinations
from pathlib import Path

from .draws import MATERIAL_CONDITIONS
from .movegen import legal_moves
from .position import Position
from .rules import Rules
from .tables import tables_for

FORMAT = 4  # bump when the file layout or the meaning of its numbers changes
DATA_DIR = Path(__file__).resolve().parent / "data"
# Tables shipped in DATA_DIR (``python -m engine.endgame build --ship``), read before
# the cache folder: the rule sets whose default table is small enough for the
# repository (``SHIPPED`` in the module's docstring).

SMALL_BOARD = 32  # squares: boards this small get DEFAULT_PIECES, larger ones one less
DEFAULT_PIECES = 4

# (white men, white kings, black men, black kings), White to move.
Material = tuple[int, int, int, int]
# The kinds of square sets a position is numbered by: men of either colour may stand
# on different squares (not on their own crowning row), kings anywhere.
WHITE_MEN, KINGS, BLACK_MEN = 0, 1, 2
HELD = 32767  # a result the draw rules take away: a draw
CANNOT_LOSE = 16384  # added to a position's count of moves when it has a move not lost


def cache_dir() -> Path:
    """Where built tables are kept."""
    given = os.environ.get("KONDAVO_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kondavo"


def default_pieces(rules: Rules) -> int:
    """The table size the search uses for ``rules``: ``KONDAVO_ENDGAME_PIECES`` if set,
    either one size for every rule set or sizes by rule set id
    (``international=4,turkish=2``; the others keep theirs); 0 turns the tables off.
    Else DEFAULT_PIECES on boards of SMALL_BOARD squares, one less on larger ones (see
    the module's docstring for what each costs)."""
    usual = DEFAULT_PIECES if len(rules.board.squares) <= SMALL_BOARD else DEFAULT_PIECES - 1
    given = os.environ.get("KONDAVO_ENDGAME_PIECES", "").strip()
    if not given:
        return usual
    if "=" not in given:
        return int(given)
    for part in given.split(","):
        rid, _, size = part.partition("=")
        if rid.strip() == rules.id:
            return int(size)
    return usual


def fingerprint(rules: Rules) -> str:
    """A digest of every field of ``rules`` a table depends on (the board, how pieces
    move and capture, the draw counts), written in each file: a table built before
    such a field changed is not read (names and notation change nothing)."""
    b = rules.board
    fields = (
        (b.cols, b.rows, b.all_squares, b.mirrored),
        sorted(rules.men_steps),
        sorted(rules.men_capture),
        rules.flying_kings,
        rules.capture_precedence,
        rules.men_capture_kings,
        rules.captured_removed_at_once,
        str(rules.crowning_in_capture),
        rules.no_turning_back,
        [(r.kind, r.plies) for r in rules.draw_rules],
    )
    return hashlib.sha256(repr(fields).encode()).hexdigest()[:16]


def _code(wm: int, wk: int, bm: int, bk: int) -> int:
    """A material as one small int (a table's key for it)."""
    return wm | wk << 4 | bm << 8 | bk << 12


def materials(pieces: int) -> list[Material]:
    """Every material of 2..``pieces`` pieces, each side at least one, in an order where
    every move out of one (a capture: fewer pieces; a man crowned: fewer men) leads to
    one listed before it."""
    out = []
    for n in range(2, pieces + 1):
        for men in range(n + 1):
            for wm in range(men + 1):
                for wk in range(n - men + 1):
                    m = (wm, wk, men - wm, n - men - wk)
                    if m[0] + m[1] and m[2] + m[3]:
                        out.append(m)
    return out


def swapped(m: Material) -> Material:
    """The material with the colours swapped."""
    return (m[2], m[3], m[0], m[1])


class Layout:
    """How the positions of one rule set are numbered (see the module's docstring).

    ``subsets[kind][k]``: every set of ``k`` squares the kind may stand on, as
    bitboards, in number order; ``index[kind]``: a set's number among those of its
    size; ``turned_index[kind]``: the number of the set turned half round, among the
    sets of the other colour's kind (kings stay kings)."""

    def __init__(self, rules: Rules, largest: int) -> None:
        board = rules.board
        promo_w, promo_b = tables_for(rules).promotion
        half_turn = {
            sq: board.square_at.get((board.cols - 1 - c, board.rows - 1 - r))
            for sq, (c, r) in board.coords.items()
        }
        if None in half_turn.values():
            raise ValueError(f"{rules.id}: the board does not map onto itself turned round")

        def turn(bits: int) -> int:
            out = 0
            while bits:
                low = bits & -bits
                out |= 1 << half_turn[low.bit_length() - 1]  # type: ignore[operator]
                bits ^= low
            return out

        if turn(promo_w) != promo_b:
            raise ValueError(f"{rules.id}: the crowning rows do not swap when turned round")
        self.turn = turn
        domains = (
            [sq for sq in board.squares if not promo_w >> sq & 1],
            list(board.squares),
            [sq for sq in board.squares if not promo_b >> sq & 1],
        )
        self.subsets: list[list[list[int]]] = []
        self.index: list[dict[int, int]] = []
        for domain in domains:
            by_size: list[list[int]] = []
            numbers: dict[int, int] = {}
            for k in range(largest + 1):
                sets: list[int] = []
                for combo in combinations(domain, k):
                    bits = 0
                    for sq in combo:
                        bits |= 1 << sq
                    numbers[bits] = len(sets)
                    sets.append(bits)
                by_size.append(sets)
            self.subsets.append(by_size)
            self.index.append(numbers)
        self.turned_index = [
            {bits: self.index[2 - kind][turn(bits)] for bits in self.index[kind]}
            for kind in (WHITE_MEN, KINGS, BLACK_MEN)
        ]

    def dims(self, m: Material) -> tuple[int, int, int, int]:
        """How many numbers each of a material's four groups takes."""
        s = self.subsets
        return (
            len(s[WHITE_MEN][m[0]]),
            len(s[KINGS][m[1]]),
            len(s[BLACK_MEN][m[2]]),
            len(s[KINGS][m[3]]),
        )

    def strides(self, m: Material) -> tuple[int, int, int, int]:
        """(size of the material's table, stride of white men, of white kings, of black men)."""
        n0, n1, n2, n3 = self.dims(m)
        return n0 * n1 * n2 * n3, n1 * n2 * n3, n2 * n3, n3

    def decode(self, m: Material, i: int) -> tuple[int, int, int]:
        """(white, black, kings) of number ``i`` of material ``m`` (White to move)."""
        _, s0, s1, s2 = self.strides(m)
        i0, r = divmod(i, s0)
        i1, r = divmod(r, s1)
        i2, i3 = divmod(r, s2)
        s = self.subsets
        wm, wk = s[WHITE_MEN][m[0]][i0], s[KINGS][m[1]][i1]
        bm, bk = s[BLACK_MEN][m[2]][i2], s[KINGS][m[3]][i3]
        return wm | wk, bm | bk, wk | bk


# One material's results and how to find a position in them: (values, s0, s1, s2).
_Slice = tuple["array[int]", int, int, int]


class EndgameTable:
    """Results of all positions of at most ``pieces`` pieces of one rule set.

    ``probe(white, black, kings, turn)`` gives, for the side to move, ``d > 0`` (won in
    ``d`` plies), ``-(d + 1)`` (lost in ``d`` plies) or 0 (a draw); the caller checks
    that the position has at most ``pieces`` pieces and both sides at least one."""

    def __init__(
        self, rules: Rules, pieces: int, layout: Layout, values: dict[Material, array[int]]
    ) -> None:
        self.rules = rules
        self.pieces = pieces
        self.layout = layout
        self.values = values
        self._slices: dict[int, _Slice] = {}
        for m, v in values.items():
            _, s0, s1, s2 = layout.strides(m)
            self._slices[_code(*m)] = (v, s0, s1, s2)
        # Numbers of the four groups, White to move and (turned round) Black to move.
        ix, tx = layout.index, layout.turned_index
        self._lookups = (
            (ix[WHITE_MEN], ix[KINGS], ix[BLACK_MEN]),
            (tx[BLACK_MEN], tx[KINGS], tx[WHITE_MEN]),
        )

    def probe(self, white: int, black: int, kings: int, turn: int) -> int:
        if turn:
            a, b, c, d = black & ~kings, black & kings, white & ~kings, white & kings
        else:
            a, b, c, d = white & ~kings, white & kings, black & ~kings, black & kings
        entry = self._slices.get(
            a.bit_count() | b.bit_count() << 4 | c.bit_count() << 8 | d.bit_count() << 12
        )
        if entry is None:
            return 0
        values, s0, s1, s2 = entry
        men, kings_ix, other_men = self._lookups[turn]
        return values[men[a] * s0 + kings_ix[b] * s1 + other_men[c] * s2 + kings_ix[d]]

    @property
    def decisive(self) -> int:
        """How many positions (White to move; Black's are the same turned round) have a
        result other than a draw."""
        return sum(len(v) - v.count(0) for v in self.values.values())

    # --- files -------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """A header line, then every material's values in ``materials`` order, each as
        one type code (b: one signed byte, h: two, n: not built) and its array,
        compressed (xz)."""
        parts = []
        for m in materials(self.pieces):
            if m not in self.values:
                parts.append(b"n")  # not built (a part of a table, ``build(only=...)``)
                continue
            v = self.values[m]
            if max(v, default=0) < 128 and min(v, default=0) >= -128:
                v = array("b", v)
            if sys.byteorder != "little":
                v = array(v.typecode, v)
                v.byteswap()
            parts.append(v.typecode.encode() + v.tobytes())
        head = f"{FORMAT} {self.rules.id} {self.pieces} {fingerprint(self.rules)}\n".encode()
        return head + lzma.compress(b"".join(parts), preset=6)

    @classmethod
    def from_bytes(cls, rules: Rules, data: bytes) -> EndgameTable:
        head, _, packed = data.partition(b"\n")
        fmt, rid, pieces_text, made_for = head.decode().split()
        if int(fmt) != FORMAT or rid != rules.id:
            raise ValueError("an endgame table of another format or rule set")
        if made_for != fingerprint(rules):
            raise ValueError(f"an endgame table built for other {rules.id} rules")
        pieces = int(pieces_text)
        raw = lzma.decompress(packed)
        layout = Layout(rules, pieces - 1)
        values: dict[Material, array[int]] = {}
        at = 0
        for m in materials(pieces):
            code = chr(raw[at])
            if code == "n":
                at += 1
                continue
            v = array(code)
            size = layout.strides(m)[0]
            end = at + 1 + size * v.itemsize
            v.frombytes(raw[at + 1 : end])
            if sys.byteorder != "little":
                v.byteswap()
            values[m] = v
            at = end
        if at != len(raw):
            raise ValueError("an endgame table of another size")
        return cls(rules, pieces, layout, values)


# --- building ---------------------------------------------------------------------------


def positions(rules: Rules, pieces: int) -> Iterator[tuple[int, int, int]]:
    """(white, black, kings) of every position of 2..``pieces`` pieces, each side at
    least one, no man on its own crowning row."""
    squares = sorted(rules.board.squares)
    t = tables_for(rules)
    promo_w, promo_b = t.promotion
    for n in range(2, pieces + 1):
        for a in range(1, n):
            for ws in combinations(squares, a):
                white = 0
                for sq in ws:
                    white |= 1 << sq
                rest = [sq for sq in squares if not white >> sq & 1]
                for bs in combinations(rest, n - a):
                    black = 0
                    for sq in bs:
                        black |= 1 << sq
                    occupied = ws + bs
                    # Pieces that must be kings: men never stand on their crowning row.
                    must = (white & promo_w) | (black & promo_b)
                    for mask in range(1 << n):
                        kings = 0
                        for i, sq in enumerate(occupied):
                            if mask >> i & 1:
                                kings |= 1 << sq
                        if must & ~kings:
                            continue
                        yield white, black, kings


def rule_limit(rules: Rules) -> Callable[[int, int, int], int]:
    """``limit(white, black, kings)``: the plies within which a position's result must
    come for the rule set's draw rules not to end the game first, counted from the
    position as if their counts started there: the least ``plies`` of the material
    conditions that hold (a lone king against few pieces...), and of "no progress"
    when only kings are left (each move then counts). A win in more is scored a draw;
    a game's counts may have started earlier, which the table cannot know."""
    conditions = [
        (MATERIAL_CONDITIONS[r.kind], r.plies)
        for r in rules.draw_rules
        if r.kind in MATERIAL_CONDITIONS
    ]
    no_progress = min((r.plies for r in rules.draw_rules if r.kind == "no_progress"), default=None)
    never = 1 << 30

    def limit(white: int, black: int, kings: int) -> int:
        pos = Position(rules, white, black, kings, 0)
        plies = never
        for condition, n in conditions:
            if n < plies and condition(pos):
                plies = n
        if no_progress is not None and not (white | black) & ~kings:
            plies = min(plies, no_progress)
        return plies

    return limit


def least_limit(rules: Rules) -> int:
    """No result within this many plies is ever taken away by a draw rule."""
    plies = [r.plies for r in rules.draw_rules if r.kind in MATERIAL_CONDITIONS]
    plies += [r.plies for r in rules.draw_rules if r.kind == "no_progress"]
    return min(plies, default=1 << 30)


class _Builder:
    """Solves the materials of one rule set in ``materials`` order (see the docstring)."""

    def __init__(self, rules: Rules, pieces: int, report: Callable[[str], None] | None) -> None:
        self.rules = rules
        self.pieces = pieces
        self.t = tables_for(rules)
        self.layout = Layout(rules, pieces - 1)
        self.table = EndgameTable(rules, pieces, self.layout, {})
        self.limit = rule_limit(rules)
        self.floor = least_limit(rules)
        self.report = report

    def run(self, wanted: Material | None = None) -> EndgameTable:
        done: set[Material] = set()
        for m in materials(self.pieces):
            if m in done or (wanted is not None and not _leads_to(wanted, m)):
                continue
            group = [m] if swapped(m) == m else [m, swapped(m)]
            started, cpu = time.perf_counter(), time.process_time()
            self._solve(group)
            done.update(group)
            if self.report:
                sizes = sum(self.layout.strides(g)[0] for g in group)
                took = time.perf_counter() - started
                self.report(
                    f"  {' '.join(map(str, group))}: {sizes} numbers, {took:.1f} s "
                    f"({time.process_time() - cpu:.1f} s of CPU)"
                )
        return self.table

    def _store(self, m: Material, values: array[int]) -> None:
        self.table.values[m] = values
        _, s0, s1, s2 = self.layout.strides(m)
        self.table._slices[_code(*m)] = (values, s0, s1, s2)

    def _solve(self, group: list[Material]) -> None:
        """Solve a material and its colour-swapped twin together: a move inside one
        leads (turned round) into the other."""
        layout = self.layout
        offsets = []
        total = 0
        for m in group:
            offsets.append(total)
            total += layout.strides(m)[0]
        value = array("h", bytes(2 * total))  # 0: not known yet; else as probe, or HELD
        count = array("h", bytes(2 * total))  # moves inside not yet known to lose
        longest = array("h", bytes(2 * total))  # the longest loss a move out gives
        sources = array("i")  # the moves inside, as (from, to) pairs of numbers
        targets = array("i")
        layers: dict[int, list[int]] = {}  # distance -> positions decided at it
        offers: dict[int, list[int]] = {}  # distance -> positions a move out wins at it
        for k, m in enumerate(group):
            twin = len(group) - 1 - k
            self._forward(
                m,
                offsets[k],
                offsets[twin],
                value,
                count,
                longest,
                sources,
                targets,
                layers,
                offers,
            )
        # Parents of each position, reversed from the moves: parents[first[c]:first[c + 1]].
        first = array("i", bytes(4 * (total + 1)))
        for c in targets:
            first[c + 1] += 1
        run = 0
        for i in range(total + 1):
            run += first[i]
            first[i] = run
        fill = array("i", first)
        parents = array("i", bytes(4 * len(targets)))
        for p, c in zip(sources, targets, strict=True):
            parents[fill[c]] = p
            fill[c] += 1
        del fill, sources, targets

        def decode(node: int) -> tuple[int, int, int]:
            k = 0 if len(group) == 1 or node < offsets[1] else 1
            return layout.decode(group[k], node - offsets[k])

        def held(node: int, plies: int) -> bool:
            return plies > self.floor and plies > self.limit(*decode(node))

        d = 0
        last = max([*layers, *offers], default=-1)
        while d <= last:
            layer = layers.pop(d, [])
            for p in offers.pop(d, ()):
                if not value[p]:
                    if held(p, d):
                        value[p] = HELD
                    else:
                        value[p] = d
                        layer.append(p)
            nxt = layers.setdefault(d + 1, [])
            for c in layer:
                lo, hi = first[c], first[c + 1]
                if lo == hi:
                    continue
                if value[c] < 0:  # lost for its mover: every parent wins in d + 1
                    for p in parents[lo:hi]:
                        if not value[p]:
                            if held(p, d + 1):
                                value[p] = HELD
                            else:
                                value[p] = d + 1
                                nxt.append(p)
                else:
                    for p in parents[lo:hi]:
                        if not value[p]:
                            left = count[p] - 1
                            count[p] = left
                            if not left:  # every move leads to a win for the opponent
                                e = max(d + 1, longest[p])
                                if held(p, e):
                                    value[p] = HELD
                                else:
                                    value[p] = -(e + 1)  # lost in e
                                    layers.setdefault(e, []).append(p)
                                    last = max(last, e)
            if nxt:
                last = max(last, d + 1)
            d += 1
        for k, m in enumerate(group):
            v = value[offsets[k] : offsets[k] + layout.strides(m)[0]]
            for i, x in enumerate(v):
                if x == HELD:
                    v[i] = 0
            self._store(m, v)

    def _forward(
        self,
        m: Material,
        offset: int,
        twin_offset: int,
        value: array[int],
        count: array[int],
        longest: array[int],
        sources: array[int],
        targets: array[int],
        layers: dict[int, list[int]],
        offers: dict[int, list[int]],
    ) -> None:
        """Every position of material ``m``: its legal moves, once. A move inside
        becomes an edge to the twin material's number of the position after it (Black
        to move there is White to move turned round); a move out reads its result."""
        layout = self.layout
        t = self.t
        probe = self.table.probe
        sub = layout.subsets
        turned_men, turned_kings, turned_black_men = layout.turned_index
        _, t0, t1, t2 = layout.strides(swapped(m))
        _, s0, s1, s2 = layout.strides(m)
        add_source, add_target = sources.append, targets.append
        lost_now = layers.setdefault(0, [])
        won_now = layers.setdefault(1, [])
        for i0, wm in enumerate(sub[WHITE_MEN][m[0]]):
            # After a move, White's men are the twin's black men, White's kings its
            # black kings, Black's men and kings its white ones (all turned round).
            men_after = turned_men[wm] * t2
            for i1, wk in enumerate(sub[KINGS][m[1]]):
                if wk & wm:
                    continue
                white = wm | wk
                kings_after = turned_kings[wk]
                at1 = offset + i0 * s0 + i1 * s1
                for i2, bm in enumerate(sub[BLACK_MEN][m[2]]):
                    if bm & white:
                        continue
                    base2 = twin_offset + turned_black_men[bm] * t0
                    at2 = at1 + i2 * s2
                    for i3, bk in enumerate(sub[KINGS][m[3]]):
                        if bk & (white | bm):
                            continue
                        node = at2 + i3
                        black = bm | bk
                        kings = wk | bk
                        moves = legal_moves(t, white, black, kings, 0)
                        if not moves:
                            value[node] = -1  # lost in 0
                            lost_now.append(node)
                            continue
                        base = base2 + turned_kings[bk] * t1
                        inside = 0
                        win = 0  # the shortest win a move out gives
                        loss = 0  # the longest loss a move out gives
                        drawn = False  # a move out to a draw
                        for mv in moves:
                            cap = mv.capmask
                            fb, tb = mv.from_bit, mv.to_bit
                            if cap or mv.promotes:
                                left = black & ~cap
                                if not left:
                                    win = -1  # takes the last piece
                                    break
                                k = kings & ~cap
                                if k & fb:
                                    k = (k ^ fb) | tb
                                elif mv.promotes:
                                    k |= tb
                                v = probe((white ^ fb) | tb, left, k, 1)
                                if v < 0:
                                    if not win or -v < win:
                                        win = -v
                                elif v > 0:
                                    if v + 1 > loss:
                                        loss = v + 1
                                else:
                                    drawn = True
                            else:
                                if wk & fb:
                                    add_target(base + men_after + turned_kings[(wk ^ fb) | tb])
                                else:
                                    add_target(base + turned_men[(wm ^ fb) | tb] * t2 + kings_after)
                                add_source(node)
                                inside += 1
                        if win < 0:
                            # Won in 1 (the moves inside already listed lead nowhere new).
                            value[node] = 1
                            won_now.append(node)
                            continue
                        if win:
                            offers.setdefault(win, []).append(node)
                        if win or drawn:
                            count[node] = inside + CANNOT_LOSE
                        elif inside:
                            count[node] = inside
                            longest[node] = loss
                        else:  # every move leaves the material, to a win for the opponent
                            if loss > self.floor and loss > self.limit(white, black, kings):
                                value[node] = HELD
                            else:
                                value[node] = -(loss + 1)
                                layers.setdefault(loss, []).append(node)


def _leads_to(m: Material, other: Material) -> bool:
    """Whether play from material ``m`` (or its twin) may reach ``other``: each side's
    men only lessen, and its men and kings together too."""

    def within(a: Material, b: Material) -> bool:
        return (
            b[0] <= a[0]
            and b[0] + b[1] <= a[0] + a[1]
            and b[2] <= a[2]
            and b[2] + b[3] <= a[2] + a[3]
        )

    return within(m, other) or within(m, swapped(other))


def build(
    rules: Rules,
    pieces: int,
    report: Callable[[str], None] | None = None,
    only: Material | None = None,
) -> EndgameTable:
    """Solve every position of at most ``pieces`` pieces (see the module's docstring);
    ``report`` is told how long each material took. With ``only``, just that material
    and those play from it can reach (a part of the table, for tests: other
    materials probe as draws)."""
    return _Builder(rules, pieces, report).run(only)


def search_distance(position: Position, depth: int) -> int | None:
    """The result of ``position`` by plain minimax over its legal moves, to be checked
    against a table: ``d > 0`` won in d plies, ``-(d + 1)`` lost in d plies (as
    ``EndgameTable.probe``), None when neither comes within ``depth`` plies. It shares
    nothing with the retrograde builder but the move generator (no draw rules: they
    take nothing away within their fewest plies, ``least_limit``)."""
    seen: dict[tuple[int, int, int, int, int], int | None] = {}

    def solve(pos: Position, left: int) -> int | None:
        key = (pos.white, pos.black, pos.kings, pos.turn, left)
        if key in seen:
            return seen[key]
        moves = pos.legal_moves()
        result: int | None
        if not moves:
            result = -1
        elif not left:
            result = None
        else:
            win = longest = 0
            every_lost = True
            for m in moves:
                r = solve(pos.play(m), left - 1)
                if r is not None and r < 0 and (not win or -r < win):
                    win = -r  # the reply loses in -r - 1: a win in -r
                elif r is None or r < 0:
                    every_lost = False
                else:
                    longest = max(longest, r + 1)
            result = win if win else (-(longest + 1) if every_lost else None)
        seen[key] = result
        return result

    return solve(position, depth)


def from_children(table: EndgameTable, position: Position) -> int:
    """What ``position`` is worth by the table's results of the positions after each
    of its legal moves, one ply on (as ``probe``): the check that every entry follows
    from its children, draw rules included (``rule_limit``), at any distance."""
    moves = position.legal_moves()
    if not moves:
        return -1
    win = longest = 0
    every_lost = True
    for m in moves:
        after = position.play(m)
        v = table.probe(after.white, after.black, after.kings, after.turn) if after.own else -1
        if v < 0:
            win = -v if not win else min(win, -v)
        elif v == 0:
            every_lost = False
        else:
            longest = max(longest, v + 1)
    rules = table.rules
    if win:
        d, result = win, win
    elif every_lost:
        d, result = longest, -(longest + 1)
    else:
        return 0
    if d > least_limit(rules) and d > rule_limit(rules)(
        position.white, position.black, position.kings
    ):
        return 0  # the draw rules end it first
    return result


# --- on first use -----------------------------------------------------------------------

# Tables this process has loaded; for those not built yet, when to look again.
_LOADED: dict[tuple[str, int], EndgameTable] = {}
_NEXT_LOOK: dict[tuple[str, int], float] = {}
LOOK_EVERY = 5.0  # seconds between looks for a table being built
STALE_BUILD = 3600.0  # a build's lock older than this is taken as abandoned


def table_path(rules: Rules, pieces: int) -> Path:
    return cache_dir() / f"endgame-{rules.id}-{pieces}-v{FORMAT}.bin"


def shipped_path(rules: Rules, pieces: int) -> Path:
    """Where a table shipped with the package lies (``SHIPPED``)."""
    return DATA_DIR / f"endgame-{rules.id}-{pieces}.bin"


def _read(rules: Rules, path: Path) -> EndgameTable | None:
    try:
        return EndgameTable.from_bytes(rules, path.read_bytes())
    except (OSError, ValueError, lzma.LZMAError):
        return None


def table_for(rules: Rules, pieces: int | None = None) -> EndgameTable | None:
    """This process's table for ``rules``: the one shipped with the package, else the
    cache folder's; None while it is not built (or tables are off: size below 2). A
    shipped file of another format or built for other rules is passed over. The
    first call that finds none
    starts building it in a background process (once a machine: a lock file next to
    it), so no search ever waits for a table: the computer plays on without it until
    it is there (a few seconds to minutes, by board; ``python -m engine.endgame build``
    does it ahead of time)."""
    n = default_pieces(rules) if pieces is None else pieces
    if n < 2:
        return None
    key = (rules.id, n)
    table = _LOADED.get(key)
    if table is not None:
        return table
    now = time.monotonic()
    if now < _NEXT_LOOK.get(key, 0.0):
        return None
    _NEXT_LOOK[key] = now + LOOK_EVERY
    path = table_path(rules, n)
    table = _read(rules, shipped_path(rules, n)) or _read(rules, path)
    if table is None:
        _start_build(rules, n, path)
        return None
    _LOADED[key] = table
    return table


def _start_build(rules: Rules, pieces: int, path: Path) -> None:
    lock = path.with_suffix(".building")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime < STALE_BUILD:
            return  # another process is building it
        lock.write_text(str(os.getpid()))
        subprocess.Popen(
            [sys.executable, "-m", "engine.endgame", "build", rules.id, "--pieces", str(pieces)],
            cwd=str(Path(__file__).resolve().parent.parent),
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        pass  # no cache folder to write: the search goes without a table


def build_and_save(
    rules: Rules,
    pieces: int,
    report: Callable[[str], None] | None = None,
    path: Path | None = None,
) -> EndgameTable:
    """Build the table now and save it in the cache folder, or at ``path``
    (atomically: a process reading it meanwhile sees the old file or none)."""
    table = build(rules, pieces, report)
    path = path or table_path(rules, pieces)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
        f.write(table.to_bytes())
    os.replace(f.name, path)
    path.with_suffix(".building").unlink(missing_ok=True)
    _LOADED[(rules.id, pieces)] = table
    return table


def main(argv: list[str] | None = None) -> int:
    from .variants import VARIANTS, get_rules

    parser = argparse.ArgumentParser(description="Build the endgame tables ahead of time.")
    parser.add_argument("command", choices=["build"])
    parser.add_argument("variants", nargs="*", default=list(VARIANTS))
    parser.add_argument("--pieces", type=int, default=None)
    parser.add_argument("-v", "--verbose", action="store_true", help="time every material")
    parser.add_argument(
        "--ship", action="store_true", help=f"write into {DATA_DIR} (the shipped tables)"
    )
    args = parser.parse_args(argv)
    for v in args.variants:
        rules = get_rules(v)
        n = args.pieces or default_pieces(rules)
        started, cpu = time.perf_counter(), time.process_time()
        path = shipped_path(rules, n) if args.ship else table_path(rules, n)
        table = build_and_save(rules, n, print if args.verbose else None, path)
        print(
            f"{v}: {n} pieces, {sum(map(len, table.values.values()))} numbers, "
            f"{table.decisive} decisive (White to move), "
            f"{time.perf_counter() - started:.1f} s ({time.process_time() - cpu:.1f} s of CPU), "
            f"{path.stat().st_size} bytes -> {path}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
