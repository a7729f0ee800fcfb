"""tools/texel.py's features, dotted with the weights they stand for, give the
evaluation's score: what the training fits is what the engine plays."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from pathlib import Path

import pytest

from engine import get_rules
from engine.evaluation import Evaluator, weights_for

_spec = importlib.util.spec_from_file_location(
    "texel", Path(__file__).resolve().parents[2] / "tools" / "texel.py"
)
assert _spec is not None and _spec.loader is not None
texel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(texel)


def _positions(rules, count: int, seed: int):
    """Few pieces, kings among them: endings, where a lead is damped against a king."""
    rng = random.Random(seed)
    squares = list(rules.board.squares)
    for _ in range(count):
        picked = rng.sample(squares, rng.randrange(2, 12))
        half = len(picked) // 2
        white = sum(1 << s for s in picked[:half])
        black = sum(1 << s for s in picked[half:])
        kings = sum(1 << s for s in picked if rng.random() < 0.4)
        yield white, black, kings, rng.randrange(2)


@pytest.mark.parametrize("variant", ["international", "english", "russian"])
def test_the_training_features_score_positions_as_the_evaluation_does(variant):
    rules = get_rules(variant)
    features = texel.Features(rules)
    # The kings' terms too, whatever a rule set ships for them.
    weights = dataclasses.replace(
        weights_for(rules), patterns=None, king_safe=5, king_denied=-3, extra_king=-40
    )
    theta = features.weights_vector(weights)
    evaluator = Evaluator(rules, weights)
    for white, black, kings, turn in _positions(rules, 1000, seed=3):
        row = features.row(white, black, kings, turn)
        linear = sum(x * w for x, w in zip(row, theta, strict=True))
        score = evaluator.score(white, black, kings, turn)
        # Within the evaluation's rounding (its divisions round down; the features
        # keep fractions).
        assert abs((score if turn == 0 else -score) - linear) < 6, (white, black, kings)
