"""PDN games: GameType per rule set, tags, results, and bad input."""

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import VARIANTS, Color, GameOverError, InvalidPdnError, get_rules
from engine.errors import (
    PdnAmbiguousMoveError,
    PdnMoveError,
    PdnSyntaxError,
    PdnTagError,
)
from engine.game import Game, Reason, Result
from engine.pdn import (
    read_pdn_games,
    result_from_pdn,
    result_to_pdn,
    round_trips,
    write_pdn_games,
)

from .test_properties import random_games


def run_engine(*args):
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pdn_carries_the_gametype_of_its_rule_set(variant):
    game = Game(get_rules(variant))
    game.play(game.legal_moves()[0])
    text = game.pdn()
    assert f'[GameType "{get_rules(variant).gametype}"]' in text
    assert Game.from_pdn(text).rules.id == variant


def test_english_pdn_numbers_moves_from_black():
    game = Game(get_rules("english"))
    game.play("11-15")
    game.play("23-19")
    game.play("8-11")
    assert "1. 11-15 23-19 2. 8-11 *" in game.pdn()


def test_pdn_from_a_fen_starts_there_and_numbers_the_second_player_with_dots():
    game = Game(get_rules("english"), "W:W18:B14,5")
    game.play("18x9")
    text = game.pdn()
    assert '[FEN "W:W18:B5,14"]' in text and "1... 18x9" in text


def test_pdn_reads_comments_variations_nags_and_draughts_result_forms():
    text = """[GameType "20"]
[Result "2-0"]
1. 32-28 {a comment} 19-23 (1... 18-23 2. 28x19) 2. 28x19 $1 14x23 2-0"""
    game = Game.from_pdn(text)
    assert game.notation == ["32-28", "19-23", "28x19", "14x23"]
    assert game.result is Result.WHITE_WINS and game.reason is Reason.RECORDED


def test_pdn_without_gametype_uses_the_given_rules():
    game = Game.from_pdn("1. c3-d4 f6-g5 *", get_rules("russian"))
    assert game.rules.id == "russian" and len(game.moves) == 2


@pytest.mark.parametrize(
    "text, says",
    [
        ('[GameType "99"]\n1. 32-28', "not one Kondavo plays"),
        ('[GameType "20"\n', "not a PDN tag"),
        ('[GameType "20"]\n1. 32-26', "move 1"),
        ('[GameType "20"]\n1. 99-98', "move 1"),
        ('[GameType "20"]\n[FEN "nonsense"]\n', "FEN tag"),
        ('[GameType "21"]\n[FEN "B:W18:B14"]\n1. 14x23 26-22', "after the game ended"),
    ],
)
def test_bad_pdn_raises_invalid_pdn_error(text, says):
    with pytest.raises(InvalidPdnError, match=says):
        Game.from_pdn(text)


def test_pdn_gametype_must_match_the_rules_asked_for():
    with pytest.raises(InvalidPdnError, match="International"):
        Game.from_pdn('[GameType "20"]\n*', get_rules("english"))


# --- files of many games, as real files write them (data/*.pdn, written for these tests) ---

DATA = Path(__file__).parent / "data"


def games_of(name, rules=None):
    return list(read_pdn_games((DATA / name).read_text(encoding="utf-8"), rules))


def test_a_file_of_many_games_gives_each_game_only_its_own_tags():
    first, second, third = games_of("dutch_multi.pdn")
    assert [g.index for g in (first, second, third)] == [0, 1, 2]
    assert first.tags["White"] == "Anna" and "Date" not in first.tags
    assert second.tags["Date"] == "2026.01.02" and second.tags["White"] == "Carla"
    assert third.tags == {"Event": "Third game", "White": "Eva", "Black": "Frans", "Result": "2-0"}
    assert [g.game.result for g in (first, second, third)] == [
        Result.DRAW,
        Result.BLACK_WINS,
        Result.WHITE_WINS,
    ]
    assert [g.plies for g in (first, second, third)] == [24, 26, 28]


def test_the_first_game_no_longer_takes_the_last_games_fen_and_result():
    text = (
        '[Event "a"]\n[Result "2-0"]\n1. 32-28 2-0\n\n'
        '[Event "b"]\n[FEN "B:W28:B23"]\n[Result "0-2"]\n1... 23x32 0-2\n'
    )
    game = Game.from_pdn(text)
    assert game.start_fen == get_rules("international").start_fen
    assert game.notation == ["32-28"] and game.result is Result.WHITE_WINS
    assert game.tags == {"Event": "a", "Result": "2-0"}


def test_dutch_spacing_inside_moves_and_short_captures_are_read():
    game = games_of("dutch_multi.pdn")[0].game
    assert "1-7" in game.notation and "37x28x19" in game.notation
    fen_game = games_of("fen_forms.pdn")[1].game
    assert fen_game.notation[0] == "15x4"  # written "15x 4"


def test_comments_clocks_nags_variations_and_escape_lines_are_skipped():
    game = games_of("dutch_multi.pdn")[1].game
    assert game.notation[12:14] == ["39-34", "7-11"]  # the variation's 29-24 is not played
    assert game.notation[-1] == "6-11"


def test_moves_written_without_spaces_and_with_move_strength_are_read():
    game = games_of("dutch_multi.pdn")[2].game
    assert game.notation[:2] == ["34-29", "18-23"] and "50-44" in game.notation


def test_a_broken_game_is_reported_with_its_index_line_and_reason_and_the_rest_is_read():
    games = games_of("broken.pdn")
    assert [g.error is None for g in games] == [True, False, True, False, False, True]
    assert [g.tags.get("Event") for g in games] == ["one", "two", "three", "four", "five", "six"]
    tag, move, unfinished = games[1].error, games[3].error, games[4].error
    assert isinstance(tag, PdnSyntaxError) and tag.line == 7 and "not a PDN tag" in str(tag)
    assert isinstance(move, PdnMoveError) and move.line == 15 and "'28-22'" in str(move)
    assert "compulsory" in str(move) and str(move).startswith("line 15: move 2.")
    assert isinstance(unfinished, PdnSyntaxError) and "no result at its end" in str(unfinished)
    assert games[2].tags == {"Event": "three", "White": "Olga"}
    assert games[5].game.notation == ["31-26", "16-21"]  # the last game may leave it out


def test_english_results_give_the_first_number_to_black_the_first_player():
    games = [g.game for g in games_of("english_results.pdn")]
    assert [g.result for g in games] == [
        Result.BLACK_WINS,
        Result.WHITE_WINS,
        Result.DRAW,
        Result.BLACK_WINS,
    ]
    assert games[0].reason is Reason.RECORDED and games[3].reason is Reason.NO_PIECES
    assert '[Result "1-0"]' in games[0].pdn() and games[0].pdn().rstrip().endswith("1-0")


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_writer_uses_each_rule_sets_result_convention(variant):
    rules = get_rules(variant)
    first, second = rules.first_to_move, rules.first_to_move.opponent
    written = {
        result: result_to_pdn(result, rules)
        for result in (Result.win_for(first), Result.DRAW, Result.win_for(second))
    }
    if variant in ("international", "russian", "brazilian"):
        # PDN 3.0's International result type, as lidraughts writes it for these
        assert list(written.values()) == ["2-0", "1-1", "0-2"]
    else:  # PDN 3.0's Default type; in English checkers 1-0 is a win for Black
        assert list(written.values()) == ["1-0", "1/2-1/2", "0-1"]
        assert variant != "english" or written[Result.BLACK_WINS] == "1-0"
    for result, text in written.items():
        assert result_from_pdn(text, rules) is result


@pytest.mark.parametrize(
    "text, result",
    [
        ("1-0", Result.WHITE_WINS),
        ("2-0", Result.WHITE_WINS),
        ("0-1", Result.BLACK_WINS),
        ("0-2", Result.BLACK_WINS),
        ("1/2-1/2", Result.DRAW),
        ("1-1", Result.DRAW),
        ("*", None),
        ("0-0", None),
    ],
)
def test_the_reader_accepts_both_result_forms_and_the_unfinished_mark(text, result):
    assert result_from_pdn(text, get_rules("international")) is result


def test_a_result_tag_that_is_no_pdn_result_is_refused_with_its_line():
    with pytest.raises(PdnTagError, match="'4-6' is not a PDN result") as e:
        Game.from_pdn('[Event "ten-point scores"]\n[Result "4-6"]\n1. 32-28 *')
    assert e.value.line == 2


def test_italian_files_are_read_with_their_italian_tags_and_the_rule_set_given():
    first, second = games_of("italian_tags.pdn", get_rules("italian"))
    assert first.game.rules.id == "italian" and first.plies == 20 == second.plies
    assert first.game.result is Result.WHITE_WINS and second.game.result is Result.DRAW
    assert first.tags["Bianco"] == "Marco" and first.tags["Dati"].endswith("1° turno")


def test_fen_tags_in_the_forms_lidraughts_and_checkerboard_write():
    lidraughts, _, _, checkerboard, crowned = games_of("fen_forms.pdn")
    assert lidraughts.game.start_fen == get_rules("international").start_fen
    assert checkerboard.game.rules.id == "english"
    assert checkerboard.game.start_fen == "B:WK10,K15,18,24,27,28:B12,16,20,K22,K25,K29"
    # A man on its own crowning row would have been crowned: read as a king, and said so.
    assert crowned.game.start_fen == "W:WK1,18:B2,K26"
    assert crowned.notes == [
        "line 28: the FEN tag lists a man on its crowning row (white 1): read as a king"
    ]


def test_a_question_mark_side_to_move_is_taken_from_the_first_move_and_its_number():
    _, white_moves, black_moves, _, _ = games_of("fen_forms.pdn")
    assert white_moves.game.start_position.side_to_move is Color.WHITE
    assert black_moves.game.start_position.side_to_move is Color.BLACK
    assert black_moves.game.notation == ["20-25"]


def test_a_record_is_replayed_past_an_unclaimed_repetition_and_says_where_we_would_draw():
    (record,) = games_of("repetition.pdn")
    assert record.plies == 10 and not record.game.is_over
    assert record.draws_passed == [(8, Reason.THREEFOLD)]


def test_a_live_game_still_ends_by_itself_on_threefold_repetition():
    game = Game(get_rules("international"), "W:W49,K36:B2,K15")
    for move in ["36-31", "15-20", "31-36", "20-15"] * 2:
        game.play(move)
    assert game.is_over and game.reason is Reason.THREEFOLD and game.draws_passed == []
    with pytest.raises(GameOverError):
        game.play("49-44")


def test_a_record_that_stops_with_a_draw_where_our_rule_fires_gets_that_reason():
    text = (
        '[GameType "20"]\n[FEN "W:W49,K36:B2,K15"]\n'
        "1. 36-31 15-20 2. 31-36 20-15 3. 36-31 15-20 4. 31-36 20-15 1-1"
    )
    game = Game.from_pdn(text)
    assert game.result is Result.DRAW and game.reason is Reason.THREEFOLD


def test_an_ambiguous_short_capture_is_resolved_by_the_next_move():
    record = games_of("ambiguous.pdn")[0]
    assert record.game.notation == ["10x17x26", "23-19"]


@pytest.mark.parametrize(
    "index, line, why",
    [
        (1, 11, "the moves after it, from '32-28', fit both"),
        (2, 16, "no move follows"),
    ],
)
def test_an_ambiguous_short_capture_the_record_cannot_resolve_names_both(index, line, why):
    error = games_of("ambiguous.pdn")[index].error
    assert isinstance(error, PdnAmbiguousMoveError) and error.line == line
    assert "10x17x26 (taking 14, 22) and 10x19x26 (taking 15, 23)" in str(error)
    assert why in str(error)


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.pdn")))
def test_every_game_of_each_file_round_trips(name):
    rules = get_rules("italian") if name.startswith("italian") else None
    read = [g.game for g in games_of(name, rules) if g.game is not None]
    assert read and all(round_trips(game) for game in read)
    again = list(read_pdn_games(write_pdn_games(read), rules))
    assert [g.game.notation for g in again] == [g.notation for g in read]
    assert [g.game.start_fen for g in again] == [g.start_fen for g in read]
    assert [g.game.result for g in again] == [g.result for g in read]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(random_games(max_plies=60), min_size=1, max_size=4),
    st.lists(st.sampled_from([None, *Result]), min_size=4, max_size=4),
)
def test_random_games_written_as_one_file_read_back_equal(games, results):
    for game, result in zip(games, results, strict=False):
        if result is not None and not game.is_over:
            game.finish(result, Reason.RESIGN)
        game.tags = {"White": 'Jan "de" Vries', "Black": "B\\C"}
    again = list(read_pdn_games(write_pdn_games(games)))
    assert [g.error for g in again] == [None] * len(games)
    for record, game in zip(again, games, strict=True):
        assert record.game.rules == game.rules and record.game.notation == game.notation
        assert record.game.result == game.result and record.tags["White"] == 'Jan "de" Vries'
        assert record.tags["Black"] == "B\\C" and round_trips(record.game)


@pytest.mark.parametrize(
    "text, error, line",
    [
        ('[Event "x"]\n[GameType "20"\n1. 32-28 *', PdnSyntaxError, 2),
        ('[GameType "99"]\n1. 32-28 *', PdnTagError, 1),
        ('[Event "x"]\n[FEN "W:W99:B1"]\n1. 32-28 *', PdnTagError, 2),
        ('[Event "x"]\n\n1. 32-28 19-23\n2. 28-22 *', PdnMoveError, 4),
        ("1. 32-28 { never closed\n2. 28-22", PdnSyntaxError, 1),
        ("1. 32-28 (2. 33-29", PdnSyntaxError, 1),
        ("1. 32-28 19-23 2. 28x19 ) *", PdnSyntaxError, 1),
        ("1. 32-28 hello *", PdnSyntaxError, 1),
        ("1. 32-28\n% an escape line\n19-23 % not at the start of a line *", PdnSyntaxError, 3),
    ],
)
def test_errors_are_narrow_value_errors_that_name_the_line(text, error, line):
    with pytest.raises(error) as caught:
        Game.from_pdn(text)
    assert isinstance(caught.value, ValueError) and caught.value.line == line
    assert str(caught.value).startswith(f"line {line}: ")


def test_pdn_check_prints_each_game_and_a_summary():
    out = run_engine("pdn", "check", str(DATA / "broken.pdn"))
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines[0].endswith("game 1 (line 2) ? - ?: 2 plies replayed, 2-0")
    assert "game 2 (line 6): refused: line 7:" in lines[1]
    assert lines[-1].endswith(
        "6 games: 3 read, 6 plies replayed, 3 refused (syntax 2, move 1), "
        "3 of 3 round trips equal, 0 played on past one of our automatic "
        "draws"
    )
    out = run_engine("pdn", "check", "--variant", "italian", str(DATA / "italian_tags.pdn"))
    assert out.returncode == 0 and "Marco - Nina: 20 plies replayed, 1-0" in out.stdout


def test_pdn_convert_writes_the_games_back_normalised_and_readable(tmp_path):
    target = tmp_path / "out.pdn"
    out = run_engine("pdn", "convert", str(DATA / "dutch_multi.pdn"), "-o", str(target))
    assert out.returncode == 0
    text = target.read_text(encoding="utf-8")
    assert text.count('[GameType "20,W,10,10,N2,0"]') == 3 and '[Result "1-1"]' in text
    assert [g.plies for g in read_pdn_games(text)] == [24, 26, 28]
    out = run_engine("pdn", "convert", str(DATA / "broken.pdn"))
    assert out.returncode == 1 and out.stdout.count("[Event ") == 3
    assert "game 4 (line 14): refused" in out.stderr


def test_a_result_tag_that_disagrees_with_the_end_of_the_moves_is_noted_and_the_moves_win():
    (record,) = read_pdn_games('[Result "0-2"]\n1. 32-28 19-23 1-1')
    assert record.game.result is Result.DRAW
    assert record.notes == [
        "line 2: the Result tag says '0-2', the moves end with '1-1': read as the moves say"
    ]


def test_a_capture_written_with_a_capital_x_is_read():
    assert Game.from_pdn("1. 32-28 19-23 2. 28X19 *").notation[-1] == "28x19"


def test_a_short_capture_is_resolved_through_a_later_short_capture_that_names_two():
    record = games_of("ambiguous.pdn")[3]
    assert record.game.notation == ["15x22x31", "29-25", "5x14x21x30", "19-16"]


def test_the_rule_set_given_serves_only_the_games_without_a_gametype():
    text = '[GameType "21"]\n1. 11-15 *\n\n[Event "no GameType"]\n1. c3-d4 *'
    english, russian = read_pdn_games(text, get_rules("russian"))
    assert english.game.rules.id == "english" and russian.game.rules.id == "russian"


def test_a_ten_point_score_is_named_as_the_problem_rather_than_the_missing_result():
    text = (
        '[Event "a"]\n[Result "4-6"]\n1. 32-28 19-23 4-6\n\n'
        '[Event "b"]\n[Result "2-0"]\n1. 32-28 2-0\n'
    )
    first, second = read_pdn_games(text)
    assert isinstance(first.error, PdnTagError) and first.error.line == 2
    assert "'4-6' is not a PDN result" in str(first.error) and second.plies == 1
