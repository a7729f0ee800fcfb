"""Reading move text: full paths, or start and end when that is unambiguous."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, InvalidSquareError
from .move import Move

if TYPE_CHECKING:
    from .position import Position

_SEPARATORS = re.compile(r"[-x:×]")
_MAX_LEN = 200


def parse_path(pos: Position, text: object) -> tuple[list[int], bool]:
    """Square ids named by ``text`` and whether it was written as a capture."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"{text!r} is not move text")
    if len(text) > _MAX_LEN:
        raise InvalidMoveError(f"move text of {len(text)} characters is too long")
    cleaned = text.strip().lower().rstrip("!?+#*")
    parts = _SEPARATORS.split(cleaned)
    if len(parts) < 2 or any(p.strip() == "" for p in parts):
        raise InvalidMoveError(
            f"{text!r} is not a move: write squares joined by '-' for a step "
            f"or '{pos.rules.capture_separator}' for a capture, e.g. "
            f"{_example(pos)}"
        )
    path = []
    for p in parts:
        try:
            path.append(pos.rules.parse_square(p.strip()))
        except InvalidSquareError as e:
            raise InvalidMoveError(f"{text!r}: {e}") from None
    return path, any(c in cleaned for c in "x:×")


def _example(pos: Position) -> str:
    moves = pos.legal_moves()
    return f"'{moves[0]}'" if moves else "'11-15'"


def parse_move(pos: Position, text: str) -> Move:
    path, _ = parse_path(pos, text)
    return move_along(pos, path, text)


def move_along(pos: Position, path: list[int], text: str | None = None) -> Move:
    """The legal move whose path is ``path``, or whose path contains it in order."""
    legal = pos.legal_moves()
    exact = [m for m in legal if list(m.path) == path]
    if exact:
        return exact[0]
    candidates = []
    for m in legal:
        same_ends = m.path[0] == path[0] and m.path[-1] == path[-1]
        if same_ends and _in_order(path, m.path) and m not in candidates:
            candidates.append(m)
    if len(candidates) == 1:
        return candidates[0]
    shown = text if text is not None else "-".join(pos.rules.square_name(s) for s in path)
    if candidates:
        listed = ", ".join(str(m) for m in candidates)
        raise AmbiguousMoveError(
            f"{shown!r} matches several legal moves: {listed}; give the full path"
        )
    if not legal:
        raise IllegalMoveError(f"{shown!r}: {pos.side_to_move} has no legal move; the game is over")
    reason = pos.explain_illegal(path)
    raise IllegalMoveError(f"{shown!r} is illegal: {reason}")


def _in_order(short: list[int], long: tuple[int, ...]) -> bool:
    it = iter(long)
    return all(s in it for s in short)
