"""Pattern tables: regions of eight squares, read from both sides, summed into the score."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from engine import VARIANTS, Position, get_rules, patterns
from engine.evaluation import Evaluator, weights_for
from engine.patterns import entries_of, indexes, regions_for, tables_from_entries


def _random_tables(regions, seed: int):
    rng = random.Random(seed)
    return tuple(
        tuple(rng.randint(-50, 50) for _ in range(regions.size)) for _ in range(regions.count)
    )


def _men_positions(rules, count: int, seed: int) -> list[tuple[int, int, int]]:
    """Random men of both colours (no kings, so no score is damped), either side to move."""
    rng = random.Random(seed)
    squares = list(rules.board.squares)
    out = []
    for _ in range(count):
        picked = rng.sample(squares, rng.randrange(2, len(squares) * 3 // 4))
        half = len(picked) // 2
        out.append(
            (
                sum(1 << s for s in picked[:half]),
                sum(1 << s for s in picked[half:]),
                rng.randrange(2),
            )
        )
    return out


def _turned(rules, bits: int) -> int:
    board = rules.board
    out = 0
    for sq, (col, row) in board.coords.items():
        if bits >> sq & 1:
            out |= 1 << board.square_at[(board.cols - 1 - col, board.rows - 1 - row)]
    return out


@pytest.mark.parametrize(
    ("variant", "count"),
    [("english", 9), ("international", 16), ("russian", 9), ("turkish", 12)],
)
def test_the_board_is_covered_by_overlapping_regions_of_eight_squares(variant, count):
    regions = regions_for(get_rules(variant).board)
    assert regions.count == count
    assert regions.size == 3**8
    assert all(len(r) == 8 for r in regions.white + regions.black)
    covered = {sq for region in regions.white for sq in region}
    assert covered == set(get_rules(variant).board.squares)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_regions_index_from_blacks_side_is_its_index_from_whites_in_the_turned_position(
    variant,
):
    rules = get_rules(variant)
    regions = regions_for(rules.board)
    for white, black, _ in _men_positions(rules, 50, seed=1):
        from_white, from_black = indexes(regions, white, black)
        turned_white, turned_black = indexes(regions, _turned(rules, black), _turned(rules, white))
        assert from_black == turned_white
        assert from_white == turned_black


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_evaluation_adds_each_regions_entry_from_white_and_takes_blacks_away(variant):
    rules = get_rules(variant)
    regions = regions_for(rules.board)
    tables = _random_tables(regions, seed=2)
    plain = Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=None))
    with_patterns = Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=tables))
    for white, black, turn in _men_positions(rules, 300, seed=3):
        from_white, from_black = indexes(regions, white, black)
        expected = sum(tables[r][i] for r, i in enumerate(from_white)) - sum(
            tables[r][i] for r, i in enumerate(from_black)
        )
        gained = with_patterns.score(white, black, 0, turn) - plain.score(white, black, 0, turn)
        assert gained == (expected if turn == 0 else -expected)


@pytest.mark.parametrize("variant", VARIANTS)
def test_what_pattern_tables_add_is_the_same_for_either_colour_in_the_turned_position(
    variant,
):
    rules = get_rules(variant)
    tables = _random_tables(regions_for(rules.board), seed=4)
    plain = Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=None))
    evaluator = Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=tables))

    def gained(*args):
        return evaluator.score(*args) - plain.score(*args)

    for white, black, turn in _men_positions(rules, 200, seed=5):
        mirrored = (_turned(rules, black), _turned(rules, white), 0, 1 - turn)
        assert gained(white, black, 0, turn) == gained(*mirrored)


def test_kings_are_not_part_of_any_pattern():
    rules = get_rules("english")
    regions = regions_for(rules.board)
    tables = _random_tables(regions, seed=6)
    with_patterns = Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=tables))
    plain = Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=None))
    pos = Position.from_fen(rules, "W:WK1,K2,18:BK30,K31,14")
    men_white, men_black = 1 << rules.board.squares[17], 1 << rules.board.squares[13]
    from_white, from_black = indexes(regions, men_white, men_black)
    expected = sum(tables[r][i] for r, i in enumerate(from_white)) - sum(
        tables[r][i] for r, i in enumerate(from_black)
    )
    args = (pos.white, pos.black, pos.kings, 0)
    assert with_patterns.score(*args) - plain.score(*args) == expected


def test_tables_are_stored_as_their_entries_that_are_not_zero():
    regions = regions_for(get_rules("english").board)
    tables = tuple(tuple(0 for _ in range(regions.size)) for _ in range(regions.count))
    tables = (tables[0][:5] + (7,) + tables[0][6:],) + tables[1:]
    assert entries_of(tables) == [[0, 5, 7]]
    assert tables_from_entries(regions, entries_of(tables)) == tables


def test_an_entry_outside_the_boards_regions_is_refused():
    regions = regions_for(get_rules("english").board)
    with pytest.raises(ValueError, match="outside the board's regions"):
        tables_from_entries(regions, [[9, 0, 1]])
    with pytest.raises(ValueError, match="outside the board's regions"):
        tables_from_entries(regions, [[0, 6561, 1]])


def test_an_entry_beyond_what_the_compiled_tables_hold_is_refused():
    regions = regions_for(get_rules("english").board)
    with pytest.raises(ValueError, match="is 40000, beyond ±32767"):
        tables_from_entries(regions, [[0, 5, 40000]], "english")
    assert tables_from_entries(regions, [[0, 5, -32767]])[0][5] == -32767


def test_tables_that_do_not_fit_the_board_are_refused():
    rules = get_rules("international")
    english_tables = _random_tables(regions_for(get_rules("english").board), seed=7)
    with pytest.raises(ValueError, match="pattern tables do not fit"):
        Evaluator(rules, dataclasses.replace(weights_for(rules), patterns=english_tables))


def test_each_rule_set_plays_the_tables_it_ships():
    for variant in VARIANTS:
        rules = get_rules(variant)
        stored = json.loads((patterns.PATTERNS_DIR / f"{rules.id}.json").read_text())
        assert stored["regions"] == regions_for(rules.board).count
        assert stored["fitted"].startswith("tools/texel.py patterns")
        assert weights_for(rules).patterns == patterns.load_tables(rules)
        assert Evaluator(rules).pattern_tables is not None


def test_a_rule_set_without_a_tables_file_plays_without_patterns(data_dir):
    # Every rule set ships one today; a new rule set starts without, and so does a
    # checkout whose tables were removed to measure what they are worth.
    for variant in VARIANTS:
        rules = get_rules(variant)
        assert patterns.load_tables(rules) is None
        assert weights_for(rules).patterns is None
        assert Evaluator(rules).pattern_tables is None
