"""The ``Rules`` record: everything that makes one rule set differ from another.

Move generation, notation and the draw rules read these fields; only
``engine/variants.py`` builds the seven values and names the variants.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from .errors import InvalidSquareError
from .geometry import Board

if TYPE_CHECKING:  # position.py imports this module
    from .position import Position


class Color(enum.StrEnum):
    WHITE = "white"
    BLACK = "black"

    @property
    def opponent(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def turn(self) -> int:
        """0 for White, 1 for Black: the ``Position.turn`` of this side to move."""
        return 0 if self is Color.WHITE else 1

    def __str__(self) -> str:
        return self.value


class CrowningInCapture(enum.StrEnum):
    """What happens when a man reaches its last row in the middle of a capture."""

    ENDS_MOVE = "ends_move"  # crowned at once and the move stops there
    CONTINUES_AS_KING = "continues_as_king"  # crowned at once, keeps capturing as a king
    PASSES = "passes"  # stays a man; crowned only if the move ends on the last row


@dataclass(frozen=True)
class DrawRule:
    """One automatic draw rule.

    ``kind`` names the condition (see ``engine/draws.py``); the draw is declared once
    the condition has held for ``plies`` half-moves.
    """

    kind: str
    plies: int
    reason: str


@dataclass(frozen=True)
class Rules:
    """One rule set, as data. Field comments cite the rule they encode."""

    id: str
    name_en: str
    name_de: str
    board: Board
    first_to_move: Color
    # Rows of men at the start, counted from each side's own edge (0 = back row).
    start_rows: tuple[int, ...]
    # Direction groups ("forward", "sideways", "backward") a man steps and captures in.
    men_steps: frozenset[str]
    men_capture: frozenset[str]
    # Kings move any distance along a free line and capture from afar.
    flying_kings: bool
    # Criteria in order, each maximised among the capture sequences still allowed:
    # "pieces" (most pieces), "with_king" (a king captures rather than a man),
    # "kings" (most kings taken), "earliest_king" (meets a king earliest).
    capture_precedence: tuple[str, ...]
    men_capture_kings: bool
    # Captured pieces leave the board at once (Turkish) instead of at the end of the move.
    captured_removed_at_once: bool
    crowning_in_capture: CrowningInCapture
    # A piece may not reverse direction between two jumps (Turkish).
    no_turning_back: bool
    draw_rules: tuple[DrawRule, ...]
    notation: str  # "numeric" | "algebraic"
    capture_separator: str  # "x" or ":"
    # FEN may also use numbers (lidraughts stores Russian and Brazilian FEN that way).
    fen_accepts_numbers: bool
    gametype: str  # PDN GameType tag
    # Points a win scores in a PDN result, the first player's score written first:
    # 2 writes 2-0 / 1-1 / 0-2 (PDN 3.0's "International" result type, as lidraughts writes
    # it for its FMJD rule sets), 1 writes 1-0 / 1/2-1/2 / 0-1 (PDN 3.0's "Default" type).
    pdn_win_points: int = 2

    # --- derived -------------------------------------------------------------------

    @property
    def cols(self) -> int:
        return self.board.cols

    @property
    def rows(self) -> int:
        return self.board.rows

    @cached_property
    def start_fen(self) -> str:
        from .position import Position

        return Position.start(self).fen()

    def start_position(self) -> Position:
        from .position import Position

        return Position.start(self)

    def board_layout(self) -> list[tuple[str, int, int]]:
        """(label, col, row) of every playing square; row 0 is the top seen from White."""
        return [(self.square_name(sq), *self.board.coords[sq]) for sq in self.board.squares]

    def square_name(self, sq: int) -> str:
        try:
            return self.square_names[sq]
        except KeyError:
            return self._compute_square_name(sq)

    @cached_property
    def listing_order(self) -> tuple[int, ...]:
        """The squares in the order FEN lists them: by number, or for algebraic boards
        a1, c1, ..., b2, ...: rank by rank from White's side."""
        board = self.board
        if self.notation == "numeric":
            return tuple(sorted(board.squares, key=lambda s: board.numbers[s]))
        return tuple(sorted(board.squares, key=lambda s: (-board.coords[s][1], board.coords[s][0])))

    @cached_property
    def listing_rank(self) -> dict[int, int] | None:
        """Each square's place in ``listing_order``; None when that is the squares' bit
        order, so a FEN lists the set bits as they are walked and sorts nothing."""
        order = self.listing_order
        if order == tuple(sorted(order)):
            return None
        return {sq: place for place, sq in enumerate(order)}

    @cached_property
    def square_names(self) -> dict[int, str]:
        """Playing square -> label. Looked up for every square of every move shown or
        parsed: computed once, and read as a dict where it is hot (FEN, moves, pieces)."""
        return {sq: self._compute_square_name(sq) for sq in self.board.squares}

    @cached_property
    def squares_by_name(self) -> dict[str, int]:
        """Label -> playing square, exactly as ``square_names`` writes them: the room
        matches every move a client sends against the legal moves' squares with it."""
        return {name: sq for sq, name in self.square_names.items()}

    def _compute_square_name(self, sq: int) -> str:
        if self.notation == "numeric":
            return str(self.board.numbers[sq])
        return self.board.algebraic(sq)

    def parse_square(self, label: str, *, allow_numbers: bool = False) -> int:
        """Label -> square; raises ``InvalidSquareError`` quoting the label."""
        text = label.strip().lower()
        board = self.board
        if text.isdigit():
            if self.notation == "numeric" or allow_numbers or self.fen_accepts_numbers:
                num = int(text)
                if num in board.by_number:
                    return board.by_number[num]
                raise InvalidSquareError(
                    f"{label!r} is not a square: squares are numbered 1 to {len(board.squares)}"
                )
            raise InvalidSquareError(
                f"{label!r} is not a square: {self.name_en} uses algebraic squares like 'c3'"
            )
        if text in board.by_algebraic:
            if self.notation == "numeric":
                return board.by_algebraic[text]
            return board.by_algebraic[text]
        if len(text) >= 2 and text[0].isalpha() and text[1:].isdigit():
            col, rank = ord(text[0]) - ord("a"), int(text[1:])
            if 0 <= col < board.cols and 1 <= rank <= board.rows:
                raise InvalidSquareError(f"{label!r} is not a playing square")
        raise InvalidSquareError(f"{label!r} is not a square on the {self.name_en} board")

    def promotion_mask(self, color: Color) -> int:
        """The row where ``color``'s men are crowned: the far edge."""
        return self.board.row_mask(0 if color is Color.WHITE else self.board.rows - 1)

    def __repr__(self) -> str:
        return f"<Rules {self.id}>"

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and other.id == self.id
