"""Pattern tables: a learned worth for every arrangement of men in a small region.

The board is covered by overlapping regions (windows of 4 by 4 cells, two cells
apart, as Scan's evaluation uses; on a board where every square is played, 4 by 2, so
a region always holds eight squares). Each region's men, read square by square as
empty (or a king), own man or the other side's man, make a number below 3^8 = 6,561:
the index of its entry in that region's table. A position's pattern score is the sum
of its regions' entries read from White's side minus the same read from Black's (the
board turned half round, colours swapped), so a table describes a region as seen by
the side it belongs to and the score stays colour-symmetric. Everything here follows
from the board's geometry; the tables' numbers are learned (``tools/texel.py
patterns``) and shipped as ``engine/data/patterns/<rule set id>.json``.

For the evaluation's hot path every region's index is kept in one field of a packed
integer: each man adds its square's packed contribution (``3^i`` to the fields of
the regions it is the i-th square of as an own man, ``2 * 3^i`` where it is the
other side's), so all indexes come out of one chunked sum, as the men's per-square
weights do (``engine/evaluation.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .geometry import Board
from .rules import Rules

PATTERNS_DIR = Path(__file__).with_name("data") / "patterns"
# Bits of one region's field in the packed index sum (3^8 - 1 = 6,560 needs 13): whole
# 16-bit fields, so the evaluation unpacks every index at once with ``struct``.
FIELD_BITS = 16
FIELD_MASK = (1 << FIELD_BITS) - 1


@dataclass(frozen=True)
class Regions:
    """The regions of one board and each man's share of their indexes."""

    # Each region's squares (bit numbers), in the order its index reads them, from
    # White's side; and the same region from Black's side (each square turned half
    # round), in the same order.
    white: tuple[tuple[int, ...], ...]
    black: tuple[tuple[int, ...], ...]
    size: int  # entries of one region's table
    # Square -> packed contribution of a White man and of a Black man: fields 0..n-1
    # hold the regions' indexes from White's side, fields n..2n-1 from Black's.
    packed_white: dict[int, int]
    packed_black: dict[int, int]

    @property
    def count(self) -> int:
        return len(self.white)


@cache
def regions_for(board: Board) -> Regions:
    width, height = (4, 2) if board.all_squares else (4, 4)
    turned = {
        sq: board.square_at[(board.cols - 1 - col, board.rows - 1 - row)]
        for sq, (col, row) in board.coords.items()
    }
    white: list[tuple[int, ...]] = []
    for top in range(0, board.rows - height + 1, 2):
        for left in range(0, board.cols - width + 1, 2):
            cells = [
                board.square_at[(col, row)]
                for row in range(top, top + height)
                for col in range(left, left + width)
                if (col, row) in board.square_at
            ]
            white.append(tuple(cells))
    black = [tuple(turned[sq] for sq in region) for region in white]
    squares_per_region = {len(r) for r in white}
    if len(squares_per_region) != 1:
        raise ValueError(f"regions of {sorted(squares_per_region)} squares")
    n = len(white)
    packed_white = dict.fromkeys(board.squares, 0)
    packed_black = dict.fromkeys(board.squares, 0)
    for r in range(n):
        for i, sq in enumerate(white[r]):
            # From White's side a White man is "own" (1), a Black man "other" (2).
            packed_white[sq] += 3**i << FIELD_BITS * r
            packed_black[sq] += 2 * 3**i << FIELD_BITS * r
        for i, sq in enumerate(black[r]):
            packed_black[sq] += 3**i << FIELD_BITS * (n + r)
            packed_white[sq] += 2 * 3**i << FIELD_BITS * (n + r)
    return Regions(
        white=tuple(white),
        black=tuple(black),
        size=3 ** squares_per_region.pop(),
        packed_white=packed_white,
        packed_black=packed_black,
    )


def indexes(regions: Regions, white_men: int, black_men: int) -> tuple[list[int], list[int]]:
    """Each region's index from White's side and from Black's, square by square: the
    plain reading the packed sums must agree with (tests, the training script)."""

    def read(region: tuple[int, ...], own: int, other: int) -> int:
        index = 0
        for i, sq in enumerate(region):
            if own >> sq & 1:
                index += 3**i
            elif other >> sq & 1:
                index += 2 * 3**i
        return index

    return (
        [read(r, white_men, black_men) for r in regions.white],
        [read(r, black_men, white_men) for r in regions.black],
    )


# The largest worth of an entry, in hundredths of a man: the compiled evaluation keeps
# the tables as 16-bit numbers (half the cache of 32-bit ones), and no arrangement of
# eight men is worth 327 men.
MAX_ENTRY = 32767


def load_tables(rules: Rules) -> tuple[tuple[int, ...], ...] | None:
    """The rule set's learned tables, one per region, or None where none are shipped."""
    return _load(rules.id, rules.board)


@cache
def _load(rules_id: str, board: Board) -> tuple[tuple[int, ...], ...] | None:
    try:
        stored = json.loads((PATTERNS_DIR / f"{rules_id}.json").read_text())
    except FileNotFoundError:
        return None
    return tables_from_entries(regions_for(board), stored["entries"], rules_id)


def tables_from_entries(
    regions: Regions, entries: list[list[int]], name: str = "patterns"
) -> tuple[tuple[int, ...], ...]:
    """Tables from sparse ``[region, index, worth]`` entries (the rest are 0)."""
    tables = [[0] * regions.size for _ in range(regions.count)]
    for r, index, worth in entries:
        if not (0 <= r < regions.count and 0 <= index < regions.size):
            raise ValueError(f"{name}: entry {r}, {index} outside the board's regions")
        if not -MAX_ENTRY <= worth <= MAX_ENTRY:
            raise ValueError(f"{name}: entry {r}, {index} is {worth}, beyond ±{MAX_ENTRY}")
        tables[r][index] = int(worth)
    return tuple(tuple(t) for t in tables)


def entries_of(tables: tuple[tuple[int, ...], ...]) -> list[list[int]]:
    """The non-zero entries of ``tables``, as stored."""
    return [[r, i, v] for r, table in enumerate(tables) for i, v in enumerate(table) if v]
