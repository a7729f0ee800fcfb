"""Automatic draw conditions, named by ``DrawRule.kind`` in each rule set's data.

Each condition looks at the position (and, for "no_progress", the game's
counter); ``Game`` counts how many plies it has held and declares the draw
once that reaches the rule's ``plies``.
"""

from __future__ import annotations

from collections.abc import Callable

from .position import Position

# (men, kings) of the stronger side that FMJD 6.3 / 6.4 name against a lone king.
_FMJD_16 = {(0, 3), (1, 2), (2, 1)}
_FMJD_5 = {(0, 2), (1, 1), (0, 1)}


def _lone_king_against(pos: Position) -> tuple[tuple[int, int], int] | None:
    """(men, kings) of the side facing a lone king, and the lone king's bitboard; else None."""
    wm, wk, bm, bk = pos.material()
    if (bm, bk) == (0, 1) and wm + wk >= 1:
        return (wm, wk), pos.black & pos.kings
    if (wm, wk) == (0, 1) and bm + bk >= 1:
        return (bm, bk), pos.white & pos.kings
    return None


def three_vs_lone_king(pos: Position) -> bool:
    found = _lone_king_against(pos)
    return found is not None and found[0] in _FMJD_16


def two_vs_lone_king(pos: Position) -> bool:
    found = _lone_king_against(pos)
    return found is not None and found[0] in _FMJD_5


def many_kings_vs_lone_king(pos: Position) -> bool:
    found = _lone_king_against(pos)
    return found is not None and found[0][1] >= 3


def few_vs_lone_king(pos: Position) -> bool:
    found = _lone_king_against(pos)
    return found is not None and sum(found[0]) <= 2


def three_vs_lone_king_on_long_diagonal(pos: Position) -> bool:
    found = _lone_king_against(pos)
    return (
        found is not None and sum(found[0]) == 3 and bool(found[1] & pos.rules.board.long_diagonal)
    )


def _kings_both_sides(pos: Position, low: int, high: int) -> bool:
    wm, wk, bm, bk = pos.material()
    return wk > 0 and bk > 0 and low <= wm + wk + bm + bk <= high


def kings_both_sides_4_5(pos: Position) -> bool:
    return _kings_both_sides(pos, 4, 5)


def kings_both_sides_6_7(pos: Position) -> bool:
    return _kings_both_sides(pos, 6, 7)


# Conditions that hold while the material stays the same; their count restarts on any change.
MATERIAL_CONDITIONS: dict[str, Callable[[Position], bool]] = {
    "three_vs_lone_king": three_vs_lone_king,
    "two_vs_lone_king": two_vs_lone_king,
    "many_kings_vs_lone_king": many_kings_vs_lone_king,
    "few_vs_lone_king": few_vs_lone_king,
    "three_vs_lone_king_on_long_diagonal": three_vs_lone_king_on_long_diagonal,
    "kings_both_sides_4_5": kings_both_sides_4_5,
    "kings_both_sides_6_7": kings_both_sides_6_7,
}
