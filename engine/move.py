"""A move: the path its piece travels and the pieces it captures.

Two moves are equal when they share start, end and captured set: that is one
legal move for a player, however many routes lead there (RULES.md, "drop").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .position import Position
    from .rules import Rules


class Move:
    __slots__ = ("rules", "path", "captured", "capmask", "promotes", "from_bit", "to_bit")

    def __init__(
        self,
        rules: Rules,
        path: tuple[int, ...],
        captured: tuple[int, ...] = (),
        capmask: int = 0,
        promotes: bool = False,
    ) -> None:
        self.rules = rules
        self.path = path  # squares from start to end, every landing square of a capture
        self.captured = captured  # in capture order
        self.capmask = capmask  # the captured squares as a bitboard
        self.promotes = promotes  # the piece is a king when the move ends
        # Bits of start and end, so playing the move is a few integer operations.
        self.from_bit = 1 << path[0]
        self.to_bit = 1 << path[-1]

    @property
    def start(self) -> int:
        return self.path[0]

    @property
    def end(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (
            self.path[0] == other.path[0]
            and self.path[-1] == other.path[-1]
            and self.capmask == other.capmask
        )

    def __hash__(self) -> int:
        return hash((self.path[0], self.path[-1], self.capmask))

    def squares(self) -> list[str]:
        """The path as square labels."""
        name = self.rules.square_names.__getitem__
        return [name(s) for s in self.path]

    def __str__(self) -> str:
        return self._written(self.squares())

    def _written(self, path: list[str]) -> str:
        """The notation, from the path's labels: a capture names every square it
        lands on, a step only its two ends."""
        if self.captured:
            return self.rules.capture_separator.join(path)
        return f"{path[0]}-{path[-1]}"

    def __repr__(self) -> str:
        return f"<Move {self} ({self.rules.id})>"

    def to_dict(self) -> dict[str, Any]:
        # Every legal move of every position a server sends goes through here, so
        # each label is looked up once, for the path and the notation alike.
        name = self.rules.square_names.__getitem__
        path = [name(s) for s in self.path]
        return {
            "notation": self._written(path),
            "path": path,
            "captured": [name(s) for s in self.captured],
        }

    @classmethod
    def parse(cls, text: str, position: Position) -> Move:
        """The legal move ``text`` names in ``position`` (see ``Position.parse_move``)."""
        return position.parse_move(text)
