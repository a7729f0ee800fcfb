"""Endgame databases: the exact result of every position with few pieces, per rule set.

A table holds every position of at most ``pieces`` pieces (both sides at least one; no
man on its own crowning row), with either side to move, and for each the result under
perfect play and its distance: won in d plies, lost in d plies, or drawn (never lost
nor won). It is computed here, by retrograde analysis over our own move generator, so
it follows the rule set's ``Rules`` exactly (captures, precedence, crowning, flying
kings); nothing in it names a variant.

How: every position's legal moves are generated once, giving the graph of positions.
A position with no legal move is lost in 0. Working outwards by distance, a position
with a move to a lost position is won in one ply more, and a position all of whose
moves lead to won positions is lost in one ply more than its longest. A move that
takes the opponent's last piece wins at once. Whatever is left is a draw: neither
side can force anything. The distances make the search play the win out (it sees
``WIN - distance``), not just keep it.

The draw rules of the game (``engine/draws.py``) that count plies are applied as if
their counts started at the position (``rule_limit``): a win that takes longer than
they allow is a draw here. Without that, a Russian or Brazilian table scored many
endings of two pieces against a lone king as won (or lost) that the rule ends as drawn
after five moves each, and level 8 traded into them: it lost a 20-game match 30% where
it scored 47.5% without tables (bench/strength.py --baseline).

Tables are built on first use, in a background process (``table_for``), and kept in
the cache folder (``$KONDAVO_CACHE``, else ``$XDG_CACHE_HOME/kondavo``, else
``~/.cache/kondavo``), one file a rule set and size: each is built once a machine.
Size (``default_pieces``): 3 pieces (2 on boards of all 64 squares), or
``KONDAVO_ENDGAME_PIECES`` (0: no tables). Measured on this 2-core machine, shared:
3 pieces take 12-40 s and about 0.5-1 MB on 8x8, 2 minutes and 2 MB on 10x10.
``python -m engine.endgame build [RULE SET...] [--pieces N]`` builds them ahead of
time and prints how long each took.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import zlib
from array import array
from collections.abc import Callable, Iterator
from itertools import combinations
from pathlib import Path

from .draws import MATERIAL_CONDITIONS
from .movegen import legal_moves
from .position import Position
from .rules import Rules
from .tables import tables_for

FORMAT = 2  # bump when the file layout or the meaning of its numbers changes
DEFAULT_PIECES = 3
LARGE_BOARD = 50  # squares


def cache_dir() -> Path:
    """Where built tables are kept."""
    given = os.environ.get("KONDAVO_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kondavo"


def default_pieces(rules: Rules) -> int:
    """The table size the search uses for ``rules``: ``KONDAVO_ENDGAME_PIECES`` if set
    (0 turns the tables off); else 3 on boards of at most LARGE_BOARD squares, 2 on
    larger ones (a 64-square board's 3-piece table would take millions of positions
    and gigabytes to build in pure Python)."""
    given = os.environ.get("KONDAVO_ENDGAME_PIECES")
    if given:
        return int(given)
    return DEFAULT_PIECES if len(rules.board.squares) <= LARGE_BOARD else 2


class EndgameTable:
    """Results of all positions of at most ``pieces`` pieces of one rule set.

    ``probe(white, black, kings, turn)`` gives, for the side to move, ``d > 0`` (won in
    ``d`` plies), ``-(d + 1)`` (lost in ``d`` plies) or 0 (a draw); the caller checks
    that the position has at most ``pieces`` pieces."""

    def __init__(self, rules: Rules, pieces: int, values: dict[int, int]) -> None:
        self.rules = rules
        self.pieces = pieces
        self._shift = rules.board.mask.bit_length()
        self._values = values  # decisive positions only: absent means drawn

    def key(self, white: int, black: int, kings: int, turn: int) -> int:
        s = self._shift
        return white | black << s | (kings & (white | black)) << 2 * s | turn << 3 * s

    def probe(self, white: int, black: int, kings: int, turn: int) -> int:
        s = self._shift
        return self._values.get(white | black << s | kings << 2 * s | turn << 3 * s, 0)

    @property
    def decisive(self) -> int:
        return len(self._values)

    # --- files -------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        keys = sorted(self._values)
        width = (4 * self._shift + 8) // 8
        body = b"".join(k.to_bytes(width, "little") for k in keys)
        vals = array("h", (self._values[k] for k in keys)).tobytes()
        head = f"{FORMAT} {self.rules.id} {self.pieces} {len(keys)} {width}\n".encode()
        return head + zlib.compress(body + vals, 6)

    @classmethod
    def from_bytes(cls, rules: Rules, data: bytes) -> EndgameTable:
        head, _, packed = data.partition(b"\n")
        fmt, rid, pieces, count, width = head.decode().split()
        if int(fmt) != FORMAT or rid != rules.id:
            raise ValueError("an endgame table of another format or rule set")
        n, w = int(count), int(width)
        raw = zlib.decompress(packed)
        vals = array("h")
        vals.frombytes(raw[n * w :])
        keys = (int.from_bytes(raw[i * w : (i + 1) * w], "little") for i in range(n))
        return cls(rules, int(pieces), dict(zip(keys, vals, strict=True)))


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


HELD = 32767  # a result the draw rules take away: a draw


def rule_limit(rules: Rules) -> Callable[[int, int], int]:
    """``limit(key, shift)``: the plies within which a position's result must come for
    the rule set's draw rules not to end the game first, counted from the position as
    if their counts started there: the least ``plies`` of the material conditions that
    hold (a lone king against few pieces...), and of "no progress" when only kings are
    left (each move then counts). A win in more is scored a draw; a game's counts may
    have started earlier, which the table cannot know."""
    conditions = [
        (MATERIAL_CONDITIONS[r.kind], r.plies)
        for r in rules.draw_rules
        if r.kind in MATERIAL_CONDITIONS
    ]
    no_progress = min((r.plies for r in rules.draw_rules if r.kind == "no_progress"), default=None)
    never = 1 << 30
    seen: dict[int, int] = {}

    def limit(key: int, shift: int) -> int:
        low = (1 << shift) - 1
        board = key & ((1 << 3 * shift) - 1)  # the side to move changes no condition
        found = seen.get(board)
        if found is not None:
            return found
        white, black, kings = key & low, key >> shift & low, key >> 2 * shift & low
        pos = Position(rules, white, black, kings, 0)
        plies = never
        for condition, n in conditions:
            if n < plies and condition(pos):
                plies = n
        if no_progress is not None and not (white | black) & ~kings:
            plies = min(plies, no_progress)
        seen[board] = plies
        return plies

    return limit


def build(rules: Rules, pieces: int) -> EndgameTable:
    """Solve every position of at most ``pieces`` pieces (see the module's docstring)."""
    t = tables_for(rules)
    shift = rules.board.mask.bit_length()
    index: dict[int, int] = {}
    nodes: list[int] = []  # key of each position, by id
    for white, black, kings in positions(rules, pieces):
        base = white | black << shift | kings << 2 * shift
        for turn in (0, 1):
            key = base | turn << 3 * shift
            index[key] = len(nodes)
            nodes.append(key)
    total = len(nodes)
    # Forward edges (children, deduplicated), and the positions decided at once.
    UNKNOWN = 0
    value = array("h", [UNKNOWN]) * total  # d > 0 won in d, -(d + 1) lost in d
    remaining = array("i", [0]) * total  # children not yet known to be won for the mover
    children: list[array[int]] = [array("i")] * total
    lost_now: list[int] = []  # no legal move
    won_now: list[int] = []  # a move takes the last piece
    low = (1 << shift) - 1
    for i, key in enumerate(nodes):
        white, black, kings = key & low, key >> shift & low, key >> 2 * shift & low
        turn = key >> 3 * shift
        own, opp = (white, black) if turn == 0 else (black, white)
        moves = legal_moves(t, own, opp, kings, turn)
        if not moves:
            value[i] = -1  # lost in 0
            lost_now.append(i)
            continue
        kids = set()
        wins_now = False
        for m in moves:
            fb, tb, cap = 1 << m.path[0], 1 << m.path[-1], m.capmask
            n_opp = opp & ~cap
            if not n_opp:
                wins_now = True
                break
            n_own = (own & ~fb) | tb
            k = kings & ~cap
            if k & fb:
                k = (k & ~fb) | tb
            elif m.promotes:
                k |= tb
            cw, cb = (n_own, n_opp) if turn == 0 else (n_opp, n_own)
            kids.add(index[cw | cb << shift | k << 2 * shift | (turn ^ 1) << 3 * shift])
        if wins_now:
            value[i] = 1  # takes the last piece: won in 1
            won_now.append(i)
            continue
        children[i] = array("i", kids)
        remaining[i] = len(kids)
    # Reverse edges, flattened: parents of c are parents[start[c]:start[c + 1]].
    start = array("i", [0]) * (total + 1)
    for i in range(total):
        for c in children[i]:
            start[c + 1] += 1
    for c in range(total):
        start[c + 1] += start[c]
    fill = array("i", start[:total])
    parents = array("i", [0]) * start[total]
    for i in range(total):
        for c in children[i]:
            parents[fill[c]] = i
            fill[c] += 1
    del children, fill
    # Outwards by distance, one layer at a time: the positions decided at distance d
    # decide their parents at d + 1. A parent lost is lost at the distance of the last
    # of its moves to be found won for the opponent, which is the longest.
    # A result further away than a draw rule allows (``rule_limit``) is a draw: such a
    # position is marked HELD and decides nothing further.
    limit = rule_limit(rules)
    layers: dict[int, list[int]] = {0: lost_now, 1: won_now}
    d = 0
    while d in layers:
        nxt = layers.setdefault(d + 1, [])
        for c in layers.pop(d):
            v = value[c]
            if v == HELD:
                continue
            for p in parents[start[c] : start[c + 1]]:
                if value[p] != UNKNOWN:
                    continue
                if v < 0:  # the child is lost for its mover: the parent wins at d + 1
                    if d + 1 > limit(nodes[p], shift):
                        value[p] = HELD
                        continue
                    value[p] = d + 1
                    nxt.append(p)
                else:
                    remaining[p] -= 1
                    if not remaining[p]:  # every move leads to a win for the opponent
                        if d + 1 > limit(nodes[p], shift):
                            value[p] = HELD
                            continue
                        value[p] = -(d + 2)  # lost in d + 1
                        nxt.append(p)
        if not nxt and d + 2 not in layers:
            break
        d += 1
    values = {nodes[i]: v for i, v in enumerate(value) if v != UNKNOWN and v != HELD}
    return EndgameTable(rules, pieces, values)


# --- on first use -----------------------------------------------------------------------

# Tables this process has loaded; for those not built yet, when to look again.
_LOADED: dict[tuple[str, int], EndgameTable] = {}
_NEXT_LOOK: dict[tuple[str, int], float] = {}
LOOK_EVERY = 5.0  # seconds between looks for a table being built
STALE_BUILD = 3600.0  # a build's lock older than this is taken as abandoned


def table_path(rules: Rules, pieces: int) -> Path:
    return cache_dir() / f"endgame-{rules.id}-{pieces}-v{FORMAT}.bin"


def table_for(rules: Rules, pieces: int | None = None) -> EndgameTable | None:
    """This process's table for ``rules``, loaded from the cache folder; None while it
    is not built (or tables are off: size below 2). The first call that finds none
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
    try:
        table = EndgameTable.from_bytes(rules, path.read_bytes())
    except (OSError, ValueError, zlib.error):
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


def build_and_save(rules: Rules, pieces: int) -> EndgameTable:
    """Build the table now and save it in the cache folder (atomically: a process
    reading it meanwhile sees the old file or none)."""
    table = build(rules, pieces)
    path = table_path(rules, pieces)
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
    args = parser.parse_args(argv)
    for v in args.variants:
        rules = get_rules(v)
        n = args.pieces or default_pieces(rules)
        started = time.perf_counter()
        table = build_and_save(rules, n)
        path = table_path(rules, n)
        print(
            f"{v}: {n} pieces, {table.decisive} decisive positions, "
            f"{time.perf_counter() - started:.1f} s, {path.stat().st_size} bytes -> {path}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
