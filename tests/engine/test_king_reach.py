"""The kings' reach (``Weights.king_safe`` and ``king_denied``): each free square a king
could move to counts as safe, or as denied where a man of the other side could take
it there at once."""

from __future__ import annotations

import dataclasses

import pytest

from engine import Position, accel, get_rules
from engine.evaluation import Evaluator, weights_for

INTERNATIONAL = get_rules("international")
# Ten points a safe square and one a denied one: the score tells both counts apart.
REACH = dataclasses.replace(weights_for(INTERNATIONAL), king_safe=10, king_denied=1)


def _reach(rules, fen: str) -> int:
    """10 * safe + denied: the squares of White's kings less Black's, read off the score
    (from White's side, whoever is to move)."""
    p = Position.from_fen(rules, fen)
    args = (p.white, p.black, p.kings, p.turn)
    with_reach = Evaluator(rules, REACH).score(*args)
    without = Evaluator(rules, dataclasses.replace(REACH, king_safe=0, king_denied=0)).score(*args)
    if accel.available():
        assert accel.evaluation(Evaluator(rules, REACH)).score(*args) == with_reach
    return (with_reach - without) * (1 if p.turn == 0 else -1)


def test_a_flying_king_on_an_open_diagonal_reaches_every_square_of_it():
    # 46 is a corner: its one diagonal runs 41, 37, ..., 5, nine free squares.
    assert _reach(INTERNATIONAL, "W:WK46:B1") == 10 * 9


def test_a_square_a_man_could_take_the_king_on_is_denied():
    # The man on 23 stops the diagonal at 28, where it would take the king (32 is free):
    # 41, 37 and 32 safe, 28 denied.
    assert _reach(INTERNATIONAL, "W:WK46:B23") == 10 * 3 + 1


def test_where_men_may_not_take_kings_no_square_is_denied():
    rules = dataclasses.replace(INTERNATIONAL, men_capture_kings=False)
    assert _reach(rules, "W:WK46:B23") == 10 * 4


def test_a_short_king_reaches_its_neighbouring_squares_only():
    rules = dataclasses.replace(INTERNATIONAL, flying_kings=False)
    assert _reach(rules, "W:WK46:B23") == 10 * 1


@pytest.mark.parametrize("turn", ["W", "B"])
def test_the_other_sides_kings_count_against_it(turn):
    # Black's king on 5 runs down the same diagonal to White's man on 28, which would
    # take it on 23 (19 behind is free): 10, 14 and 19 safe, 23 denied.
    assert _reach(INTERNATIONAL, f"{turn}:W28:BK5") == -(10 * 3 + 1)
