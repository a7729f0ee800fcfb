"""The compiled evaluation (engine/_accel/eval.c) scores every position exactly as
``Evaluator.score`` does: every rule set, derived and learned weights, both sides."""

from __future__ import annotations

import dataclasses
import os
import random

import pytest

from engine import VARIANTS, Position, accel, get_rules
from engine.evaluation import Evaluator, derived_weights, weights_for
from engine.patterns import regions_for

pytestmark = pytest.mark.skipif(
    not accel.built() and os.environ.get("KONDAVO_ENGINE", "").strip() == "python",
    reason="KONDAVO_ENGINE=python and engine._accel not built: pure-Python run asked for",
)


def _positions(rules, count: int, seed: int) -> list[Position]:
    """Positions of random playouts (men, then kings late in long games) and random
    placements with kings of both colours anywhere a king may stand."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count // 2:
        pos = Position.start(rules)
        for _ in range(rng.randrange(0, 160)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
            out.append(pos)
    squares = list(rules.board.squares)
    while len(out) < count:
        picked = rng.sample(squares, rng.randrange(1, min(len(squares), 16)))
        white = black = kings = 0
        for sq in picked:
            b = 1 << sq
            if rng.random() < 0.5:
                white |= b
            else:
                black |= b
            if rng.random() < 0.3:
                kings |= b
        out.append(Position(rules, white, black, kings, rng.randrange(2)))
    return out


def _random_learned(rules, seed: int):
    """Learned tables as tools/texel.py writes them, negative entries included."""
    rng = random.Random(seed)
    n = len(rules.board.squares)
    return dataclasses.replace(
        derived_weights(rules),
        men_mid=tuple(rng.randint(-60, 90) for _ in range(n)),
        men_end=tuple(rng.randint(-40, 160) for _ in range(n)),
        king_squares=tuple(rng.randint(-50, 70) for _ in range(n)),
        king_safe=rng.randint(1, 9),
        king_denied=rng.randint(-9, 2),
        extra_king=rng.randint(-60, 10),
    )


@pytest.fixture(params=["as_detected", "shifts"])
def gather(request, monkeypatch) -> str:
    """How the compiled evaluation gathers the pattern regions' men: pext where the
    processor does it fast (else shifts), or shifts on any processor (KONDAVO_PEXT=0)."""
    if request.param == "shifts":
        monkeypatch.setenv("KONDAVO_PEXT", "0")
    else:
        monkeypatch.delenv("KONDAVO_PEXT", raising=False)
    return request.param


def _assert_same_scores(
    rules, evaluator: Evaluator, positions: list[Position], gather: str | None = None
) -> None:
    compiled = accel.evaluation(evaluator)
    if gather == "shifts":
        assert compiled.gather == "shifts"
    elif gather is not None:
        assert compiled.gather in ("pext", "shifts")
    for pos in positions:
        for turn in (0, 1):
            args = (pos.white, pos.black, pos.kings, turn)
            assert compiled.score(*args) == evaluator.score(*args), (pos.fen(), turn)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_evaluation_scores_as_python_with_derived_weights(variant):
    rules = get_rules(variant)
    evaluator = Evaluator(rules, derived_weights(rules))
    _assert_same_scores(rules, evaluator, _positions(rules, 600, seed=1))


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_evaluation_scores_as_python_with_the_shipped_weights(variant, gather):
    rules = get_rules(variant)
    evaluator = Evaluator(rules, weights_for(rules))
    _assert_same_scores(rules, evaluator, _positions(rules, 600, seed=2), gather)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_evaluation_scores_as_python_with_learned_tables(variant):
    rules = get_rules(variant)
    evaluator = Evaluator(rules, _random_learned(rules, seed=3))
    _assert_same_scores(rules, evaluator, _positions(rules, 600, seed=4))


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_evaluation_scores_as_python_with_pattern_tables(variant, gather):
    rules = get_rules(variant)
    regions = regions_for(rules.board)
    rng = random.Random(5)
    tables = tuple(
        tuple(rng.randint(-80, 80) for _ in range(regions.size)) for _ in range(regions.count)
    )
    evaluator = Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=tables))
    _assert_same_scores(rules, evaluator, _positions(rules, 600, seed=6), gather)


def test_the_compiled_evaluation_says_how_it_gathers_the_regions_men(monkeypatch):
    rules = get_rules("english")
    assert accel.evaluation(Evaluator(rules, derived_weights(rules))).gather is None
    monkeypatch.setenv("KONDAVO_PEXT", "0")
    assert accel.evaluation(Evaluator(rules)).gather == "shifts"


def test_the_compiled_evaluation_refuses_pattern_tables_of_the_wrong_size():
    rules = get_rules("english")
    evaluator = Evaluator(rules)
    evaluator.pattern_squares = (regions_for(rules.board).white, regions_for(rules.board).black)
    evaluator.pattern_tables = ((0,) * 100,) * regions_for(rules.board).count
    with pytest.raises(ValueError, match="3\\^8"):
        accel.evaluation(evaluator)


def test_the_compiled_evaluation_refuses_a_region_naming_a_square_twice():
    rules = get_rules("english")
    regions = regions_for(rules.board)
    evaluator = Evaluator(rules)
    twice = (regions.white[0][:7] + regions.white[0][:1],) + regions.white[1:]
    evaluator.pattern_squares = (twice, regions.black)
    with pytest.raises(ValueError, match="eight different squares"):
        accel.evaluation(evaluator)


def test_a_side_without_pieces_has_lost_in_the_compiled_evaluation_too():
    rules = get_rules("international")
    evaluator = Evaluator(rules)
    compiled = accel.evaluation(evaluator)
    for turn in (0, 1):
        assert compiled.score(1 << 5, 0, 0, turn) == evaluator.score(1 << 5, 0, 0, turn)
        assert compiled.score(0, 1 << 5, 0, turn) == evaluator.score(0, 1 << 5, 0, turn)


def test_the_compiled_evaluation_refuses_a_negative_bitboard():
    compiled = accel.evaluation(Evaluator(get_rules("english")))
    with pytest.raises(OverflowError):
        compiled.score(-1, 0, 0, 0)
