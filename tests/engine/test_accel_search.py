"""The compiled search (engine/_accel/search.c) against the pure-Python one.

The search tests themselves run against both backends (``search_backend`` in
conftest.py); these compare the two on the same positions: at a fixed depth, with
fresh searchers, both find the same score (the tree's value does not depend on which
engine walks it) and the C search's move is one of the position's legal moves."""

from __future__ import annotations

import dataclasses
import os
import random

import pytest

from engine import VARIANTS, Position, accel, get_rules
from engine.evaluation import Evaluator, weights_for
from engine.patterns import regions_for
from engine.search import Searcher, SearchParams

pytestmark = pytest.mark.skipif(
    not accel.built() and os.environ.get("KONDAVO_ENGINE", "").strip() == "python",
    reason="KONDAVO_ENGINE=python and engine._accel not built: pure-Python run asked for",
)


def _positions(variant: str, count: int, seed: int) -> list[Position]:
    """Positions of random playouts, from the opening to endings with kings, each with
    a choice of moves."""
    rng = random.Random(seed)
    rules = get_rules(variant)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start(rules)
        for _ in range(rng.randrange(4, 100)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        if len(pos.legal_moves()) > 1:
            out.append(pos)
    return out


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_compiled_search_scores_as_the_python_one_at_a_fixed_depth(variant, monkeypatch):
    params = SearchParams(max_depth=4, seed=1)
    for pos in _positions(variant, 8, seed=len(variant)):
        found = {}
        for engine in ("python", "c"):
            monkeypatch.setenv("KONDAVO_ENGINE", engine)
            result = Searcher(pos.rules, params).search(pos)
            assert result.move in pos.legal_moves()
            assert result.pv[0] == result.move
            # (A forced win or loss found stops the deepening early, in both.)
            found[engine] = (result.score, result.depth, result.nodes)
        assert found["c"] == found["python"], pos.fen()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_compiled_search_scores_as_the_python_one_with_random_pattern_tables(
    variant, monkeypatch
):
    # Random tables make any pattern index read wrongly in C (a man on a square of
    # another region, a 16-bit entry cut short) change the score or the tree.
    rules = get_rules(variant)
    regions = regions_for(rules.board)
    rng = random.Random(len(variant))
    tables = tuple(
        tuple(rng.randint(-60, 60) for _ in range(regions.size)) for _ in range(regions.count)
    )
    weights = dataclasses.replace(weights_for(rules), patterns=tables)
    params = SearchParams(max_depth=4, seed=1)
    for pos in _positions(variant, 6, seed=7 + len(variant)):
        found = {}
        for engine in ("python", "c"):
            monkeypatch.setenv("KONDAVO_ENGINE", engine)
            result = Searcher(rules, params, evaluator=Evaluator(rules, weights)).search(pos)
            found[engine] = (result.score, result.depth, result.nodes)
        assert found["c"] == found["python"], pos.fen()


def test_the_compiled_search_follows_its_line_with_legal_moves(monkeypatch):
    monkeypatch.setenv("KONDAVO_ENGINE", "c")
    for variant in VARIANTS:
        for pos in _positions(variant, 3, seed=11):
            result = Searcher(pos.rules, SearchParams(max_depth=6, seed=2)).search(pos)
            for move in result.pv:
                assert move in pos.legal_moves()
                pos = pos.play(move)


def test_the_compiled_search_refuses_a_root_order_that_is_not_its_moves():
    rules = get_rules("english")
    pos = Position.start(rules)
    compiled = accel.search(rules, Evaluator(rules), 1024)
    n = len(pos.legal_moves())
    args = (pos.white, pos.black, pos.kings, pos.turn, [])
    budget = (4, -1.0, -1.0, 0, 0, True, True, None, 0)
    with pytest.raises(ValueError, match="order has 3 entries for 7 root moves"):
        compiled.search(*args, [0, 1, 2], None, *budget)
    with pytest.raises(ValueError, match="not a permutation"):
        compiled.search(*args, [n] * n, None, *budget)
    found = compiled.search(*args, list(range(n)), None, *budget)
    assert found[0] in range(n) and found[2] == 4
