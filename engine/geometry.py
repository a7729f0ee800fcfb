"""Board geometry: which squares exist, how they are numbered and named, and the
shift of each direction in the engine's padded bit layout.

Squares are bit indexes in a Python int. Dark-square boards use the classic
"ghost square" layout (one unused bit after every two rows), so each diagonal
direction is a constant shift and a step off the board lands on a ghost bit or
outside the int; the orthogonal board (Turkish) uses one ghost column per row.
Row 0 is the top of the board as seen from White, so White's forward is "up".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

FILES = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Numbering:
    """How numeric notation counts the playing squares.

    ``from_top``: square 1 is on the top row (as seen from White);
    ``left_to_right``: numbers run left to right along each row.
    """

    from_top: bool = True
    left_to_right: bool = True


@dataclass(frozen=True)
class Board:
    """A board: its size, which squares are playable, and its direction groups."""

    cols: int
    rows: int
    all_squares: bool = False  # Turkish: every square is a playing square, moves are orthogonal
    mirrored: bool = False  # a1 is not a playing square (Spanish, Italian)
    numbering: Numbering = field(default_factory=Numbering)

    # --- layout --------------------------------------------------------------------

    @cached_property
    def _layout(self) -> tuple[list[int], dict[int, tuple[int, int]]]:
        """Bit of each playing square (top-left first, row by row) and its (col, row)."""
        bits: list[int] = []
        coords: dict[int, tuple[int, int]] = {}
        if self.all_squares:
            for row in range(self.rows):
                for col in range(self.cols):
                    bit = row * (self.cols + 1) + col
                    bits.append(bit)
                    coords[bit] = (col, row)
            return bits, coords
        half = self.cols // 2
        for i in range(half * self.rows):
            row = i // half
            # The top-left playing square is on the second file of a normal board.
            inner_col = 2 * (i % half) + (1 if row % 2 == 0 else 0)
            col = self.cols - 1 - inner_col if self.mirrored else inner_col
            bit = i + i // self.cols
            bits.append(bit)
            coords[bit] = (col, row)
        return bits, coords

    @cached_property
    def squares(self) -> tuple[int, ...]:
        """Every playing square, row by row from the top."""
        return tuple(self._layout[0])

    @cached_property
    def coords(self) -> dict[int, tuple[int, int]]:
        """Square -> (col, row): col 0 is file a, row 0 is the top row seen from White."""
        return self._layout[1]

    @cached_property
    def square_at(self) -> dict[tuple[int, int], int]:
        return {cr: sq for sq, cr in self.coords.items()}

    @cached_property
    def mask(self) -> int:
        m = 0
        for sq in self.squares:
            m |= 1 << sq
        return m

    # --- directions ----------------------------------------------------------------

    @cached_property
    def direction_groups(self) -> dict[str, dict[str, tuple[int, ...]]]:
        """Shifts by group, per colour: 'forward', 'backward', 'sideways'."""
        up: tuple[int, ...]
        down: tuple[int, ...]
        side: tuple[int, ...]
        if self.all_squares:
            vertical = self.cols + 1
            up, down, side = (-vertical,), (vertical,), (-1, 1)
        else:
            half = self.cols // 2
            up, down, side = (-half, -half - 1), (half, half + 1), ()
        return {
            "white": {"forward": up, "backward": down, "sideways": side},
            "black": {"forward": down, "backward": up, "sideways": side},
        }

    @cached_property
    def directions(self) -> tuple[int, ...]:
        g = self.direction_groups["white"]
        return g["forward"] + g["sideways"] + g["backward"]

    @cached_property
    def rays(self) -> dict[int, dict[int, tuple[int, ...]]]:
        """rays[square][direction]: the squares from ``square`` outwards, nearest first."""
        on_board = set(self.squares)
        rays: dict[int, dict[int, tuple[int, ...]]] = {}
        for sq in self.squares:
            per_dir = {}
            col, row = self.coords[sq]
            for d in self.directions:
                ray = []
                s, c, r = sq, col, row
                while True:
                    s += d
                    if s not in on_board:
                        break
                    nc, nr = self.coords[s]
                    # A real step moves one row and/or one column; anything else wrapped.
                    if abs(nc - c) > 1 or abs(nr - r) > 1:
                        break
                    ray.append(s)
                    c, r = nc, nr
                per_dir[d] = tuple(ray)
            rays[sq] = per_dir
        return rays

    def row_mask(self, row: int) -> int:
        m = 0
        for sq, (_, r) in self.coords.items():
            if r == row:
                m |= 1 << sq
        return m

    @cached_property
    def long_diagonal(self) -> int:
        """The main road a1-h8 on a normal dark-square board (empty elsewhere)."""
        if self.all_squares:
            return 0
        m = 0
        for sq, (col, row) in self.coords.items():
            if col == self.rows - 1 - row:  # file index == rank index
                m |= 1 << sq
        return m

    # --- names ---------------------------------------------------------------------

    def algebraic(self, sq: int) -> str:
        col, row = self.coords[sq]
        return f"{FILES[col]}{self.rows - row}"

    @cached_property
    def numbers(self) -> dict[int, int]:
        """Square -> its number in numeric notation (1-based)."""
        n = self.numbering

        def order(sq: int) -> tuple[int, int]:
            col, row = self.coords[sq]
            return (row if n.from_top else -row, col if n.left_to_right else -col)

        return {sq: i + 1 for i, sq in enumerate(sorted(self.squares, key=order))}

    @cached_property
    def by_number(self) -> dict[int, int]:
        return {num: sq for sq, num in self.numbers.items()}

    @cached_property
    def by_algebraic(self) -> dict[str, int]:
        return {self.algebraic(sq): sq for sq in self.squares}
