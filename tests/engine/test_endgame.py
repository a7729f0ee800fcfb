"""Endgame tables: built by retrograde analysis from our own move generator, checked
against the search itself, saved and loaded, built in the background on first use,
and probed by level 8 to play a won ending out."""

from __future__ import annotations

import random
import time

import pytest

from engine import VARIANTS, Game, Position, endgame, get_rules
from engine.evaluation import WIN, WIN_BOUND
from engine.levels import search_move
from engine.search import Searcher, SearchParams


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Every test builds into its own cache folder and starts with no table loaded."""
    monkeypatch.setenv("KONDAVO_CACHE", str(tmp_path))
    monkeypatch.delenv("KONDAVO_ENDGAME_PIECES", raising=False)
    monkeypatch.setattr(endgame, "_LOADED", {})
    monkeypatch.setattr(endgame, "_NEXT_LOOK", {})


@pytest.fixture(scope="module")
def english3():
    return endgame.build(get_rules("english"), 3)


def _sample(table: endgame.EndgameTable, count: int, seed: int):
    rng = random.Random(seed)
    everything = list(endgame.positions(table.rules, table.pieces))
    for white, black, kings in rng.sample(everything, count):
        yield Position(table.rules, white, black, kings, rng.randrange(2))


def _searched(pos: Position, depth: int) -> int:
    """A full-width search's score (no tables, no pruning); a forced move, which the
    search's root plays without looking, is looked past."""
    moves = pos.legal_moves()
    if not moves:
        return -WIN
    if len(moves) == 1:
        return -_searched(pos.play(moves[0]), max(1, depth - 1))
    params = SearchParams(max_depth=depth, reductions=False, forward_pruning=False)
    return Searcher(pos.rules, params).search(pos).score


def test_two_short_kings_beat_one_and_the_side_to_move_knows_how_long_it_takes(english3):
    rules = english3.rules
    won = Position.from_fen(rules, "W:WK1,K2:BK32")
    lost = Position.from_fen(rules, "B:WK1,K2:BK32")
    assert english3.probe(won.white, won.black, won.kings, won.turn) > 0
    assert english3.probe(lost.white, lost.black, lost.kings, lost.turn) < 0


def test_every_short_result_in_the_table_is_what_a_full_search_finds(english3):
    checked = 0
    for pos in _sample(english3, 400, seed=3):
        v = english3.probe(pos.white, pos.black, pos.kings, pos.turn)
        if v > 0 and v <= 5:
            assert _searched(pos, v) > WIN_BOUND, pos.fen()
            checked += 1
        elif v < 0 and -v - 1 <= 5:
            assert _searched(pos, -v - 1 or 1) < -WIN_BOUND, pos.fen()
            checked += 1
        elif v == 0:
            # A draw: no search finds a forced result (within its depth).
            assert abs(_searched(pos, 5)) < WIN_BOUND, pos.fen()
            checked += 1
    assert checked >= 50


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_two_piece_tables_of_every_rule_set_agree_with_the_search(variant):
    table = endgame.build(get_rules(variant), 2)
    decisive = 0
    for pos in _sample(table, 60, seed=len(variant)):
        v = table.probe(pos.white, pos.black, pos.kings, pos.turn)
        if 0 < v <= 5:
            assert _searched(pos, v) > WIN_BOUND, pos.fen()
            decisive += 1
        elif v < 0 and -v - 1 <= 5:
            assert _searched(pos, -v - 1 or 1) < -WIN_BOUND, pos.fen()
            decisive += 1
        elif v == 0:
            assert abs(_searched(pos, 4)) < WIN_BOUND, pos.fen()
    assert table.decisive > 0


def test_a_table_reads_back_from_its_file_with_the_same_results(english3):
    again = endgame.EndgameTable.from_bytes(english3.rules, english3.to_bytes())
    for pos in _sample(english3, 300, seed=5):
        assert again.probe(pos.white, pos.black, pos.kings, pos.turn) == english3.probe(
            pos.white, pos.black, pos.kings, pos.turn
        )
    with pytest.raises(ValueError):
        endgame.EndgameTable.from_bytes(get_rules("russian"), english3.to_bytes())


def test_level_8_plays_a_won_ending_out_with_the_table(english3, tmp_path):
    rules = english3.rules
    endgame._LOADED[(rules.id, 3)] = english3
    game = Game(rules, "W:WK1,K2:BK32")
    distance = english3.probe(
        game.position.white, game.position.black, game.position.kings, game.position.turn
    )
    while not game.is_over:
        game.play(search_move(game.position, 8, seed=1, time_limit=0.05).move)
        assert len(game.moves) <= distance
    assert game.result is not None and game.result.value == "white"
    assert len(game.moves) == distance


def test_a_missing_table_is_built_in_the_background_while_the_search_plays_on(monkeypatch):
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "2")  # a small table: built in a second
    rules = get_rules("russian")
    pos = Position.from_fen(rules, "W:WK5:BK28")
    started = time.perf_counter()
    result = search_move(pos, 8, seed=1, time_limit=0.05)
    assert result.move in pos.legal_moves()
    assert time.perf_counter() - started < 2  # it did not wait for the table
    path = endgame.table_path(rules, 2)
    deadline = time.monotonic() + 120
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert path.exists()
    assert not path.with_suffix(".building").exists()
    endgame._NEXT_LOOK.clear()
    assert endgame.table_for(rules) is not None


def test_tables_are_off_with_size_zero(monkeypatch):
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "0")
    assert endgame.table_for(get_rules("english")) is None


def test_taking_the_last_piece_is_a_win_where_the_table_is_probed(monkeypatch):
    # The tables hold no position without a side's pieces; the search must not read
    # such a position as a draw (it did, and traded its last men away).
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "2")
    rules = get_rules("brazilian")
    endgame.build_and_save(rules, 2)
    pos = Position.from_fen(rules, "W:WKa1,Kh8:Bd4")  # either king takes the last man
    assert len(pos.legal_moves()) > 1
    result = search_move(pos, 8, seed=1, time_limit=0.2)
    assert result.score > WIN_BOUND
