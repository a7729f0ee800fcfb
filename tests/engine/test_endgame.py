"""Endgame tables: built by retrograde analysis from our own move generator, checked
against the search itself, saved and loaded, built in the background on first use,
and probed by level 8 to play a won ending out."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

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


@pytest.mark.usefixtures("search_backend")
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


@pytest.mark.usefixtures("search_backend")
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_two_piece_tables_of_every_rule_set_agree_with_the_search(variant):
    table = endgame.build(get_rules(variant), 2)
    # The shipped table holds the same results for these positions.
    shipped = endgame.table_for(table.rules)
    assert shipped is not None
    for m, values in table.values.items():
        assert shipped.values[m] == values
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


@pytest.mark.usefixtures("search_backend")
def test_level_8_plays_a_won_ending_out_with_the_table(english3, monkeypatch):
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "3")
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


class _BuildStarted:
    """Stands in for the build's process: it records the command and never finishes,
    so a search that waited for it would fail here rather than run slowly."""

    started: list[list[str]] = []

    def __init__(self, argv, **kwargs):
        self.started.append(list(argv))

    def wait(self, *args, **kwargs):
        raise AssertionError("the search waited for the table's build")

    communicate = poll = wait


@pytest.mark.usefixtures("search_backend")
def test_a_missing_table_is_built_in_the_background_while_the_search_plays_on(monkeypatch):
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "2")  # a small table: built in a second
    monkeypatch.setattr(_BuildStarted, "started", [])
    real_popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", _BuildStarted)  # the module endgame calls
    rules = get_rules("russian")
    pos = Position.from_fen(rules, "W:WK5:BK28")
    result = search_move(pos, 8, seed=1, time_limit=0.05)
    assert result.move in pos.legal_moves()
    # The search started the build and played on without the table.
    (argv,) = _BuildStarted.started
    assert argv[1:] == ["-m", "engine.endgame", "build", "russian", "--pieces", "2"]
    path = endgame.table_path(rules, 2)
    assert path.with_suffix(".building").exists() and not path.exists()
    # That command, run to its end, leaves the table where the next look finds it.
    monkeypatch.setattr(subprocess, "Popen", real_popen)
    subprocess.run(
        argv, cwd=Path(endgame.__file__).resolve().parent.parent, check=True, timeout=600
    )
    assert path.exists()
    assert not path.with_suffix(".building").exists()
    endgame._NEXT_LOOK.clear()
    assert endgame.table_for(rules) is not None


def test_tables_are_off_with_size_zero(monkeypatch):
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "0")
    assert endgame.table_for(get_rules("english")) is None


@pytest.mark.usefixtures("search_backend")
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


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_black_to_move_is_white_to_move_turned_round_in_every_rule_set(variant):
    # The tables keep White to move only: a position with Black to move is read as the
    # same position turned half round, colours swapped. Its moves must be the same.
    rules = get_rules(variant)
    layout = endgame.Layout(rules, 3)
    turn = layout.turn
    rng = random.Random(7)
    squares = list(rules.board.squares)
    promo_w, promo_b = Position.start(rules)._t.promotion
    checked = 0
    while checked < 150:
        chosen = rng.sample(squares, rng.randrange(2, 6))
        split = rng.randrange(1, len(chosen))
        white = sum(1 << sq for sq in chosen[:split])
        black = sum(1 << sq for sq in chosen[split:])
        kings = sum(1 << sq for sq in chosen if rng.random() < 0.4)
        kings |= (white & promo_w) | (black & promo_b)
        pos = Position(rules, white, black, kings, 1)
        turned = Position(rules, turn(black), turn(white), turn(kings), 0)
        moves = {(turn(m.from_bit), turn(m.to_bit), turn(m.capmask)) for m in pos.legal_moves()}
        assert moves == {(m.from_bit, m.to_bit, m.capmask) for m in turned.legal_moves()}
        checked += 1


@pytest.fixture(scope="module")
def four_piece_parts():
    """Parts of 4-piece tables a test can build in seconds: every position of two kings
    against two, short kings (English) and flying kings with the FMJD draw counts
    (Russian), with the smaller materials play from them reaches."""
    return [
        endgame.build(get_rules("english"), 4, only=(0, 2, 0, 2)),
        endgame.build(get_rules("russian"), 4, only=(0, 2, 0, 2)),
    ]


def _sample_of(table: endgame.EndgameTable, m, count: int, seed: int):
    rng = random.Random(seed)
    values = table.values[m]
    found = 0
    while found < count:
        white, black, kings = table.layout.decode(m, rng.randrange(len(values)))
        if white & black or (white | black).bit_count() != sum(m):
            continue  # a number where two groups share a square: no position
        found += 1
        if rng.randrange(2):
            yield Position(table.rules, white, black, kings, 0)
        else:
            turn = table.layout.turn
            yield Position(table.rules, turn(black), turn(white), turn(kings), 1)


def test_four_piece_results_agree_with_a_plain_minimax_and_with_their_children(
    four_piece_parts,
):
    short = 0
    # Flying kings have many more moves: their minimax looks less far.
    for table, depth in zip(four_piece_parts, (6, 3), strict=True):
        for pos in _sample_of(table, (0, 2, 0, 2), 150, seed=11):
            v = table.probe(pos.white, pos.black, pos.kings, pos.turn)
            # Every entry follows from its children's, draw counts included.
            assert endgame.from_children(table, pos) == v, pos.fen()
            within = 0 < v <= depth or (v < 0 and -v - 1 <= depth)
            short += within
            assert endgame.search_distance(pos, depth) == (v if within else None), pos.fen()
    assert short >= 10


def test_the_draw_counts_shape_a_table(four_piece_parts):
    # Two kings against a lone king: Russian draws it after 5 moves each of that
    # material (10 plies), so no win its table keeps takes longer; English has no
    # such count and keeps longer wins. Every entry of the material follows from its
    # children's under those counts.
    english, russian = four_piece_parts
    m = (0, 2, 0, 1)
    assert max(russian.values[m]) <= 10 < max(english.values[m])
    for table in four_piece_parts:
        count = 0
        for white, black, kings in endgame.positions(table.rules, 3):
            if (white & ~kings) or (black & ~kings) or (white & kings).bit_count() != 2:
                continue
            pos = Position(table.rules, white, black, kings, 0)
            assert endgame.from_children(table, pos) == table.probe(white, black, kings, 0)
            count += 1
        assert count == len(table.rules.board.squares) * 31 * 30 // 2


def test_a_part_of_a_table_reads_back_from_its_file(four_piece_parts):
    table = four_piece_parts[0]
    again = endgame.EndgameTable.from_bytes(table.rules, table.to_bytes())
    assert again.values.keys() == table.values.keys()
    for m, v in table.values.items():
        assert again.values[m] == v


@pytest.mark.usefixtures("search_backend")
def test_level_8_probes_four_piece_tables_by_default(four_piece_parts):
    table = four_piece_parts[0]
    rules = table.rules
    assert endgame.default_pieces(rules) == 4
    endgame._LOADED[(rules.id, 4)] = table
    game = Game(rules, "W:WK3,K9:BK8,K11")
    distance = table.probe(
        game.position.white, game.position.black, game.position.kings, game.position.turn
    )
    assert distance > 0
    while not game.is_over:
        game.play(search_move(game.position, 8, seed=1, time_limit=0.05).move)
    assert game.result is not None and game.result.value == "white"
    assert len(game.moves) == distance


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_rule_set_plays_with_its_shipped_table_at_once(variant, tmp_path):
    rules = get_rules(variant)
    table = endgame.table_for(rules)  # the first call: no build, no wait
    assert table is not None and table.pieces == endgame.default_pieces(rules)
    assert table.pieces == (4 if len(rules.board.squares) <= 32 else 3)
    assert not list(tmp_path.iterdir())  # nothing built in the cache folder
    assert endgame.shipped_path(rules, table.pieces).stat().st_size < 1_300_000


def test_the_shipped_four_piece_tables_are_what_the_builder_builds(four_piece_parts):
    for part in four_piece_parts:
        shipped = endgame.table_for(part.rules)
        assert shipped is not None and shipped.pieces == 4
        for m, values in part.values.items():
            assert shipped.values[m] == values, m


def test_a_table_built_for_other_rules_is_not_read():
    english = get_rules("english")
    data = endgame.shipped_path(english, 4).read_bytes()
    head, _, rest = data.partition(b"\n")
    other = head.rsplit(b" ", 1)[0] + b" 0123456789abcdef\n" + rest
    with pytest.raises(ValueError, match="other english rules"):
        endgame.EndgameTable.from_bytes(english, other)


def test_the_table_size_can_be_set_per_rule_set(monkeypatch):
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "international=4, turkish=2")
    assert endgame.default_pieces(get_rules("international")) == 4
    assert endgame.default_pieces(get_rules("turkish")) == 2
    assert endgame.default_pieces(get_rules("russian")) == 4
    monkeypatch.setenv("KONDAVO_ENDGAME_PIECES", "3")
    assert endgame.default_pieces(get_rules("russian")) == 3
