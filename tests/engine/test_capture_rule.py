"""Position.capture_rule: why only some pieces may move, as a code a client words."""

from __future__ import annotations

import pytest

from engine import Game, get_rules


@pytest.mark.parametrize(
    ("variant", "fen", "rule"),
    [
        (
            "english",
            "W:W14,20,21,22,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,12,13,15,16",
            ("capture", 1),
        ),
        (
            "international",
            "W:W15,34,37,38,39,41,45,46,47,50:B1,3,5,6,7,8,9,10,12,17,19,36",
            ("most_pieces", 5),
        ),
        (
            "italian",
            "W:W21,23,25,26,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,10,14,22",
            ("most_pieces", 2),
        ),
        ("italian", "W:W9,17,K19,20,22,24,25,26,27,32:B15", ("with_king", 1)),
        ("italian", "W:WK2,K27:B1,5,K22", ("most_kings", 1)),
    ],
)
def test_the_rule_that_narrows_the_moves_is_named(variant: str, fen: str, rule: tuple[str, int]):
    game = Game(get_rules(variant), fen)
    assert game.position.capture_rule() == rule
    if rule[0] != "capture":
        # The rule is why a capture is missing from the legal moves.
        assert all(len(m.captured) == rule[1] for m in game.legal_moves())


def test_a_position_without_a_capture_has_no_rule():
    assert Game(get_rules("international")).position.capture_rule() is None
