"""The evaluation's weights: derived from the rules, or fitted ones from a data file."""

from __future__ import annotations

import json

import pytest

from engine import evaluation, get_rules
from engine.evaluation import Evaluator, derived_weights, weights_for


@pytest.fixture
def weights_file(tmp_path, monkeypatch):
    path = tmp_path / "weights.json"
    monkeypatch.setattr(evaluation, "WEIGHTS_FILE", path)
    evaluation._fitted.cache_clear()
    yield path
    evaluation._fitted.cache_clear()


def test_fitted_weights_from_the_data_file_replace_the_derived_ones(weights_file):
    weights_file.write_text(json.dumps({"english": {"king": 177, "tempo": 9, "retired": 1}}))
    english, russian = get_rules("english"), get_rules("russian")
    fitted = weights_for(english)
    assert (fitted.king, fitted.tempo) == (177, 9)
    assert fitted.guard == derived_weights(english).guard  # not in the file: derived
    assert Evaluator(english).king_value == 177
    assert weights_for(russian) == derived_weights(russian)  # no entry: derived


def test_without_a_data_file_the_weights_are_derived(weights_file):
    rules = get_rules("international")
    assert not weights_file.exists()
    assert weights_for(rules) == derived_weights(rules)
