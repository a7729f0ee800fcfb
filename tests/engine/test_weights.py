"""The evaluation's weights: derived from the rules, or fitted ones from data files."""

from __future__ import annotations

import json
import random

import pytest

from engine import VARIANTS, Position, evaluation, get_rules
from engine.evaluation import MAN, Evaluator, derived_weights, weights_for

SHIPPED = sorted(p.stem for p in evaluation.WEIGHTS_DIR.glob("*.json"))


def _positions(rules, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.start(rules)
        for _ in range(rng.randrange(6, 90)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if pos.white and pos.black:
            out.append(pos)
    return out


def _turned(rules):
    board = rules.board
    turned = {
        sq: board.square_at[(board.cols - 1 - col, board.rows - 1 - row)]
        for sq, (col, row) in board.coords.items()
    }

    def turn(bits: int) -> int:
        return sum(1 << turned[sq] for sq in board.squares if bits >> sq & 1)

    return turn


def test_fitted_weights_from_a_data_file_replace_the_derived_ones(data_dir):
    (data_dir / "english.json").write_text(
        json.dumps({"king": 177, "tempo": 9, "retired": 1, "fitted": "a note"})
    )
    english, russian = get_rules("english"), get_rules("russian")
    fitted = weights_for(english)
    assert (fitted.king, fitted.tempo) == (177, 9)
    assert fitted.guard == derived_weights(english).guard  # not in the file: derived
    assert Evaluator(english).king_value == 177
    assert weights_for(russian) == derived_weights(russian)  # no file: derived


def test_without_a_data_file_the_weights_are_derived(data_dir):
    rules = get_rules("international")
    assert not list(data_dir.iterdir())
    assert weights_for(rules) == derived_weights(rules)


def test_a_table_of_the_wrong_size_is_refused(data_dir):
    (data_dir / "english.json").write_text(json.dumps({"men_mid": [1, 2, 3]}))
    with pytest.raises(ValueError, match="men_mid has 3 squares"):
        weights_for(get_rules("english"))


@pytest.mark.parametrize("variant", ["english", "international", "turkish"])
def test_learned_square_tables_score_each_piece_at_its_square(data_dir, variant):
    # Tables with negative worths (the packed sums lift them) and a king table: a man's
    # or king's worth, seen alone against a fixed opponent, is its square's entry.
    rules = get_rules(variant)
    n = len(rules.board.squares)
    rng = random.Random(7)
    mid = [rng.randrange(-40, 40) for _ in range(n)]
    kings = [rng.randrange(-20, 30) for _ in range(n)]
    (data_dir / f"{variant}.json").write_text(
        json.dumps(
            {
                "men_mid": mid,
                "men_end": mid,
                "king_squares": kings,
                "king": 250,
                **dict.fromkeys(
                    ("mobility", "balance", "tempo", "trade_bonus", "crown_now", "crown_next"), 0
                ),
                "crown_two": 0,
                "crown_two_next": 0,
            }
        )
    )
    ev = Evaluator(rules)
    assert ev.men_offset > 0
    squares = rules.board.squares
    # Black's lone man on White's first square is worth the entry of White's last
    # square (the board turned half round); against it, White's lone man or king on
    # each other square is worth that square's entry.
    black, black_worth = 1 << squares[0], MAN + mid[n - 1]
    for i, sq in enumerate(squares[1:], start=1):
        assert ev.evaluate(1 << sq, black, 0, 0) == MAN + mid[i] - black_worth
        assert ev.evaluate(1 << sq, black, 1 << sq, 0) == 250 + kings[i] - black_worth


def test_every_weights_file_names_a_rule_set():
    assert set(SHIPPED) <= set(VARIANTS)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_rule_set_loads_its_weights_file_or_the_derived_weights(variant):
    # A shipped file gives whole square tables; without one the weights are derived.
    # Either way the evaluation stays colour-symmetric and the start position level.
    rules = get_rules(variant)
    w = weights_for(rules)
    n = len(rules.board.squares)
    if variant in SHIPPED:
        assert w != derived_weights(rules)
        assert w.men_mid is not None and len(w.men_mid) == n
        assert w.men_end is not None and len(w.men_end) == n
        assert w.king_squares is not None and len(w.king_squares) == n
    else:
        assert w == derived_weights(rules)
    ev = Evaluator(rules)
    start = Position.start(rules)
    assert abs(ev.evaluate(start.white, start.black, start.kings, start.turn)) < 20
    turn = _turned(rules)
    for pos in _positions(rules, 80, seed=11):
        here = ev.evaluate(pos.white, pos.black, pos.kings, pos.turn)
        mirror = ev.evaluate(turn(pos.black), turn(pos.white), turn(pos.kings), 1 - pos.turn)
        assert abs(here - mirror) <= 3
