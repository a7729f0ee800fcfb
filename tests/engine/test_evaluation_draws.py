"""Against a flying king a small lead rarely wins, so the evaluation damps it (as Scan
2.0 weighs such endings); with short kings the same lead is scored in full."""

from __future__ import annotations

import dataclasses

import pytest

from engine import Position, get_rules
from engine.evaluation import Evaluator, weights_for

INTERNATIONAL = get_rules("international")
# The same rules and weights but kings that step one square: only the damping differs.
SHORT_KINGS = dataclasses.replace(INTERNATIONAL, flying_kings=False)
# Without the kings' reach, which is not the same for a flying and a short king.
WEIGHTS = dataclasses.replace(weights_for(INTERNATIONAL), king_safe=0, king_denied=0)


def _scores(fen: str) -> tuple[int, int]:
    """The score with flying kings and with short kings, less the side to move's tempo."""
    out = []
    for rules in (INTERNATIONAL, SHORT_KINGS):
        p = Position.from_fen(rules, fen)
        score = Evaluator(rules, WEIGHTS).evaluate(p.white, p.black, p.kings, p.turn)
        out.append(score - WEIGHTS.tempo)
    return out[0], out[1]


@pytest.mark.parametrize(
    ("fen", "divisor"),
    [
        # A man more, as many kings on each side: half.
        ("W:WK1,K2,30,31,32,33:BK50,K49,20,19,18", 2),
        # Three pieces against a king and a man: an eighth.
        ("W:WK1,30,31:BK50,19", 8),
        # The same for Black ahead, Black to move.
        ("B:WK1,K2,30,31,32:BK50,K49,20,19,18,17", 2),
    ],
)
def test_a_small_lead_against_a_flying_king_is_damped(fen, divisor):
    flying, short = _scores(fen)
    assert short > 0
    assert abs(flying - short / divisor) < 1  # the division rounds down from White's side


def test_a_lead_against_men_only_is_scored_in_full():
    flying, short = _scores("W:WK1,K2,30,31,32,33:B20,19,18,17")
    assert flying == short > 0
