"""The compiled move generator (engine/_accel) against the pure-Python reference.

It must be built wherever the tests run with a C compiler (CI has gcc): a missing build
fails here rather than being skipped. Only ``KONDAVO_ENGINE=python`` on a machine
without the build opts out, and then these tests have nothing to compare.
"""

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import VARIANTS, Position, accel, get_rules
from engine.perft import perft

from .test_perft import CASES, _id

pytestmark = pytest.mark.skipif(
    not accel.built() and os.environ.get("KONDAVO_ENGINE", "").strip() == "python",
    reason="KONDAVO_ENGINE=python and engine._accel not built: pure-Python run asked for",
)

# Deep counts take a second or more even in C: kept for the slow run.
QUICK = [c for c in CASES if c[2] <= 2_000_000]
DEEP = [c for c in CASES if c[2] > 2_000_000]


def test_accelerator_is_built_unless_turned_off():
    if os.environ.get("KONDAVO_ENGINE", "").strip() == "python":
        assert not accel.available()
    else:
        assert accel.available(), (
            "engine._accel is not built: pip install -e . needs a C compiler (gcc or clang)"
        )


def test_the_module_is_built_from_the_sources_beside_it(tmp_path):
    from engine import _accel

    sources = Path(accel.__file__).parent / "_accel"
    assert accel.sources_fingerprint(sources) == _accel.SOURCES
    # Any change to a source gives another digest: a stale build is told apart.
    for path in sources.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    assert accel.sources_fingerprint(tmp_path) == _accel.SOURCES
    with (tmp_path / "movegen.c").open("a") as f:
        f.write("\n")
    assert accel.sources_fingerprint(tmp_path) != _accel.SOURCES


def test_the_environment_variable_turns_the_accelerator_off(monkeypatch):
    monkeypatch.setenv("KONDAVO_ENGINE", "python")
    assert not accel.available()
    monkeypatch.setenv("KONDAVO_ENGINE", "")
    assert accel.available() == accel.built()


# Every node visited (0), or through a small transposition table (2**12 entries: full of
# collisions, so replacement and the whole-position key are exercised).
@pytest.mark.parametrize("table_bits", [0, 12])
@pytest.mark.parametrize("case", QUICK, ids=_id)
def test_c_perft_matches_published_count(case, table_bits):
    variant, depth, nodes, keep = case
    assert accel.perft(Position.start(get_rules(variant)), depth, keep, table_bits) == nodes


@pytest.mark.slow
@pytest.mark.parametrize("table_bits", [0, 16])
@pytest.mark.parametrize("case", DEEP, ids=_id)
def test_deep_c_perft_matches_published_count(case, table_bits):
    variant, depth, nodes, keep = case
    assert accel.perft(Position.start(get_rules(variant)), depth, keep, table_bits) == nodes


def _data(moves):
    return [(m.path, m.captured, m.capmask, m.promotes) for m in moves]


def assert_same_moves(pos: Position) -> None:
    """Every move's path, captured order, captured set and crowning, in the same order,
    with and without duplicates kept; and the counts and the capture test."""
    assert _data(accel.legal_moves(pos)) == _data(pos.legal_moves()), pos.fen()
    assert _data(accel.legal_moves(pos, keep_duplicates=True)) == _data(
        pos.legal_moves_keeping_duplicates()
    ), pos.fen()
    assert accel.count_legal_moves(pos) == pos.count_legal_moves(), pos.fen()
    assert accel.count_legal_moves(pos, True) == pos.count_legal_moves(True), pos.fen()
    assert accel.has_capture(pos) == pos.has_capture(), pos.fen()


def random_position(variant: str, rng: random.Random) -> Position:
    """Pieces scattered at random, kings among them (men never on their crowning row)."""
    rules = get_rules(variant)
    board = rules.board
    crown_white = rules.board.row_mask(0)
    crown_black = rules.board.row_mask(board.rows - 1)
    density = rng.uniform(0.1, 0.6)
    king_share = rng.choice([0.0, 0.2, 0.5, 1.0])
    white = black = kings = 0
    for sq in board.squares:
        if rng.random() > density:
            continue
        bit = 1 << sq
        is_white = rng.random() < 0.5
        is_king = rng.random() < king_share or bool(
            bit & (crown_white if is_white else crown_black)
        )
        if is_white:
            white |= bit
        else:
            black |= bit
        if is_king:
            kings |= bit
    return Position(rules, white, black, kings, rng.randrange(2))


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(variant=st.sampled_from(list(VARIANTS)), rng=st.randoms(use_true_random=False))
def test_c_moves_equal_python_moves_along_random_games(variant, rng):
    pos = Position.start(get_rules(variant))
    for _ in range(rng.randint(0, 120)):
        assert_same_moves(pos)
        moves = pos.legal_moves()
        if not moves:
            break
        pos = pos.play(rng.choice(moves))


@PROPERTY
@given(variant=st.sampled_from(list(VARIANTS)), rng=st.randoms(use_true_random=False))
def test_c_moves_equal_python_moves_from_random_positions_with_kings(variant, rng):
    pos = random_position(variant, rng)
    assert_same_moves(pos)
    # And a few plies on, so positions the random one leads to are checked too.
    for _ in range(rng.randint(0, 6)):
        moves = pos.legal_moves()
        if not moves:
            break
        pos = pos.play(rng.choice(moves))
        assert_same_moves(pos)


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(list(VARIANTS)), rng=st.randoms(use_true_random=False))
def test_c_perft_equals_python_perft_from_random_positions(variant, rng):
    pos = random_position(variant, rng)
    for keep in (False, True):
        expected = perft(pos, 3, keep)
        assert accel.perft(pos, 3, keep) == expected, pos.fen()
        assert accel.perft(pos, 3, keep, table_bits=4) == expected, pos.fen()
