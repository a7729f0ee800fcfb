"""Levels, the server's entry points, and engine matches."""

from __future__ import annotations

import argparse

import pytest

from engine import Position, get_rules
from engine.game import Game, Result
from engine.levels import (
    LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    choose_move_fen,
    choose_move_game,
    game_history,
    get_level,
    think_time,
)
from engine.match import (
    Score,
    add_subcommands,
    balanced_openings,
    elo_difference,
    play_game,
    play_terminal,
    run_match,
)

# Every test here runs against the pure-Python search and the compiled one.
pytestmark = pytest.mark.usefixtures("search_backend")


def test_there_are_eight_levels_each_looking_further_and_erring_less():
    assert (MIN_LEVEL, MAX_LEVEL) == (1, 8)
    levels = [LEVELS[n] for n in range(1, 9)]
    for lower, higher in zip(levels, levels[1:], strict=False):
        assert higher.max_depth >= lower.max_depth
        assert higher.think_time >= lower.think_time
        assert higher.noise <= lower.noise
        assert higher.rating > lower.rating
        assert (higher.max_depth, higher.think_time, -higher.noise) != (
            lower.max_depth,
            lower.think_time,
            -lower.noise,
        )
    assert levels[0].max_depth == 1 and levels[0].noise > 100
    assert levels[-1].noise == 0 and levels[-1].max_depth >= 40


def test_only_the_two_strongest_levels_prune_forward():
    assert [get_level(n).params().forward_pruning for n in range(1, 9)] == [False] * 6 + [True] * 2


@pytest.mark.parametrize("level", [0, 9, "x", None])
def test_an_unknown_level_is_refused_naming_the_range(level):
    with pytest.raises(ValueError, match="choose 1 to 8"):
        get_level(level)


def test_a_time_limit_only_shortens_the_levels_budget():
    assert get_level(8).params(time_limit=0.1).time_limit == 0.1
    assert get_level(1).params(time_limit=100).time_limit == think_time(1)


def test_choose_move_fen_returns_a_full_path_the_position_reads_back():
    rules = get_rules("italian")
    fen = "W:W17,24,25,26,27,28,29,30,31:B1,2,3,4,5,7,9,10,11,22"
    text = choose_move_fen("italian", fen, 6, seed=3, time_limit=0.5)
    assert text == "27x18"
    assert str(Position.from_fen(rules, fen).parse_move(text)) == text


def test_choose_move_game_replays_the_moves_and_plays_on():
    moves = ["c3-d4", "f6-g5", "g3-f4"]
    text = choose_move_game("russian", None, moves, 2, seed=1, time_limit=0.3)
    game = Game.replay(get_rules("russian"), None, moves)
    game.play(text)  # legal, or this raises


def test_choose_move_game_refuses_a_finished_game():
    with pytest.raises(ValueError, match="over"):
        choose_move_game("english", "B:W26:B22", ["22x31"], 3)  # took the last piece


def test_game_history_keeps_only_positions_since_the_last_irreversible_move():
    rules = get_rules("english")
    game = Game(rules, "W:WK32:BK1")
    for text in ("32-28", "1-5", "28-32"):
        game.play(text)
    history = game_history(game)
    assert history[0] == game.start_position.key() and len(history) == 3
    game.play("5-9")
    game2 = Game(rules, "W:WK32,21:BK1")
    game2.play("21-17")  # a man move: nothing before it can recur
    assert game_history(game2) == []


def test_game_history_keeps_positions_across_a_turkish_sideways_man_step():
    # A Turkish man's sideways step can be undone, so the positions before it can recur:
    # the search must still see them as repetitions.
    rules = get_rules("turkish")
    game = Game(rules, "W:Wa3,h2:Bb6,g7")
    game.play("a3-b3")
    assert game_history(game) == [game.start_position.key()]
    game.play("b6-c6")
    game.play("b3-b4")  # a step forward: nothing before it can recur
    assert game_history(game) == []


def test_balanced_openings_are_distinct_and_playable():
    rules = get_rules("brazilian")
    openings = balanced_openings(rules, 4, seed=2)
    assert len(openings) == 4
    fens = set()
    for line in openings:
        game = Game.replay(rules, None, line)
        assert not game.is_over
        fens.add(game.fen())
    assert len(fens) == 4


def test_a_match_alternates_colours_and_counts_every_game():
    seen = []
    score = run_match(
        "english",
        3,
        1,
        4,
        node_limit=300,
        seed=1,
        progress=lambda i, record, s: seen.append(record),
    )
    assert score.games == 4
    assert [r.white_level for r in seen] == [3, 1, 3, 1]
    assert seen[0].opening == seen[1].opening


def test_level_five_beats_level_one():
    score = run_match("russian", 5, 1, 4, node_limit=3000, seed=7)
    assert score.fraction >= 0.75


def test_a_match_game_ends_with_a_result_and_a_reason():
    record = play_game("turkish", [], 2, 2, node_limit=200, seed=4)
    assert record.result in set(Result)
    assert record.reason
    assert record.plies == len(record.notation)


def test_score_and_elo_figures():
    s = Score(wins=6, draws=2, losses=2)
    assert s.points == 7 and s.fraction == 0.7
    diff, err = s.elo()
    assert diff == pytest.approx(elo_difference(0.7)) and 100 < diff < 200 and err > 0
    assert elo_difference(0.5) == 0
    assert "+6 =2 -2" in str(s)


def test_play_and_match_subcommands_register_on_a_parser():
    parser = argparse.ArgumentParser()
    add_subcommands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["match", "russian", "--a", "8", "--b", "7", "--games", "4", "--time", "0.5"]
    )
    assert (args.a, args.b, args.games, args.time) == (8, 7, 4, 0.5) and callable(args.func)
    args = parser.parse_args(["play", "turkish", "--level", "2", "--fen", "W:Wa2:Ba7"])
    assert (args.variant, args.level, args.fen) == ("turkish", 2, "W:Wa2:Ba7")
    with pytest.raises(SystemExit):
        parser.parse_args(["play", "english", "--level", "9"])


def test_terminal_play_takes_moves_answers_and_quits():
    typed = iter(["moves", "11-99", "12-16", "quit"])
    out: list[str] = []
    code = play_terminal(
        "english", level=1, color="black", seed=1, read=lambda prompt: next(typed), write=out.append
    )
    text = "\n".join(out)
    assert code == 0
    assert "9-13" in text  # the list of legal moves
    assert "computer plays" in text  # White answered 12-16
    assert "'11-99'" in text  # the refused move is quoted


def test_a_process_keeps_the_top_levels_searchers_between_moves_but_not_the_weak_ones():
    from engine.levels import KEPT_SEARCHERS, kept_searcher

    english = get_rules("english")
    first = kept_searcher(english, 8)
    assert first is not None and kept_searcher(english, 8) is first
    # Levels that err on purpose start afresh: a deeper table would lift them above
    # their level.
    assert kept_searcher(english, 3) is None and kept_searcher(english, 7) is None
    # Only a few are kept (a full table is large): the least recently used one goes.
    for variant in ("russian", "international"):
        kept_searcher(get_rules(variant), 8)
    assert KEPT_SEARCHERS == 2 and kept_searcher(english, 8) is not first


def test_a_match_adjudicates_a_lead_of_three_pieces_against_no_king_after_six_quiet_plies():
    from engine.match import Adjudicator

    rules = get_rules("international")
    ahead = Position.from_fen(rules, "W:W31,32,33,34,35:B1,2")
    judge = Adjudicator()
    assert [judge.verdict(ahead) for _ in range(6)] == [None] * 5 + [Result.WHITE_WINS]
    # The lead must hold in a row: a level position starts the count again.
    level = Position.from_fen(rules, "W:W31,32:B1,2")
    judge = Adjudicator()
    assert [judge.verdict(p) for p in [ahead] * 5 + [level] + [ahead] * 5] == [None] * 11


def test_a_lone_flying_king_is_never_adjudicated_lost():
    from engine.match import Adjudicator

    judge = Adjudicator()
    pos = Position.from_fen(get_rules("international"), "W:W31,32,33,34,35:BK1")
    assert all(judge.verdict(pos) is None for _ in range(20))


def test_level_king_endings_are_adjudicated_drawn_but_two_short_kings_against_one_are_not():
    from engine.match import DRAW_PLIES, Adjudicator

    judge = Adjudicator()
    flying = Position.from_fen(get_rules("international"), "W:WK31,32:BK1")
    verdicts = [judge.verdict(flying) for _ in range(DRAW_PLIES)]
    assert verdicts == [None] * (DRAW_PLIES - 1) + [Result.DRAW]
    judge = Adjudicator()
    short = Position.from_fen(get_rules("english"), "W:WK31,K32:BK1")
    assert all(judge.verdict(short) is None for _ in range(30))
