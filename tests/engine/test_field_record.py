"""bench/field.py --pdn writes each match game as PDN that reads back as played: the
moves, who had which colour, and the match's verdict where the board gave none."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from engine import Game, get_rules
from engine.pdn import read_pdn_games

_spec = importlib.util.spec_from_file_location(
    "field", Path(__file__).resolve().parents[2] / "bench" / "field.py"
)
assert _spec is not None and _spec.loader is not None
field = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(field)

MOVES = ["34-30", "16-21", "31-27", "18-23", "27x16", "12-18"]


def _outcome(**changes):
    outcome = field.GameOutcome("international", 0.1, False, 0.0, "adjudicated", len(MOVES))
    outcome.notation = list(MOVES)
    for name, value in changes.items():
        setattr(outcome, name, value)
    return outcome


def test_an_adjudicated_game_reads_back_with_its_moves_colours_and_verdict():
    [read] = read_pdn_games(field.game_record(_outcome(), "scan", 7), get_rules("international"))
    assert read.error is None and read.game is not None
    assert read.game.notation == MOVES
    assert read.tags["White"] == "scan" and read.tags["Black"] == "Kondavo level 8"
    assert read.tags["Result"] == "*"  # not over on the board
    assert read.tags["Termination"] == "adjudicated, 0 for level 8"
    assert read.tags["Round"] == "7"


def test_a_game_cut_short_by_an_error_says_so():
    outcome = _outcome(points=None, reason="", error="RuntimeError: the engine exited")
    [read] = read_pdn_games(field.game_record(outcome, "scan", 1), get_rules("international"))
    assert read.game is not None and read.game.notation == MOVES
    assert read.tags["Termination"] == "RuntimeError: the engine exited"


def _game_to_first_king():
    """Moves from the start, each side always playing its first legal move, up to the
    game's first crowning: (notation, the crowned king's colour is white, pieces then)."""
    game = Game(get_rules("international"))
    while not game.position.kings:
        game.play(game.legal_moves()[0])
    position = game.position
    return (
        game.notation,
        bool(position.white & position.kings),
        (position.white | position.black).bit_count(),
    )


def test_the_first_king_is_credited_to_the_side_that_crowned_it_with_the_pieces_then():
    notation, white_crowned, pieces = _game_to_first_king()
    as_white = _outcome(ours_white=True, notation=notation)
    as_black = _outcome(ours_white=False, notation=notation)
    assert field.first_king(as_white) == ("ours" if white_crowned else "theirs", pieces)
    assert field.first_king(as_black) == ("theirs" if white_crowned else "ours", pieces)
    assert field.first_king(_outcome()) is None  # six moves: no king yet


def test_the_first_king_line_counts_losses_draws_and_wins_apart():
    notation, white_crowned, pieces = _game_to_first_king()
    lost = _outcome(ours_white=not white_crowned, notation=notation, points=0.0)
    drawn = _outcome(points=0.5)
    line = field.first_king_line([lost, lost, drawn], "scan")
    assert f"2 lost: scan 2 (median {pieces} pieces)" in line
    assert "1 drawn: no king 1" in line
    assert "won" not in line


MATERIAL_HUB = f"{sys.executable} {Path(__file__).with_name('data') / 'material_hub.py'}"


def _material(position, white: bool) -> int:
    """A man 100, a king 300: one side's lead (the stand-in engine's score)."""

    def worth(pieces: int) -> int:
        return (
            100 * (pieces & ~position.kings).bit_count()
            + 300 * (pieces & position.kings).bit_count()
        )

    lead = worth(position.white) - worth(position.black)
    return lead if white else -lead


def test_the_judge_scores_level_8s_positions_every_fourth_ply_from_its_side():
    notation, _, _ = _game_to_first_king()
    for ours_white in (True, False):
        view = field.judge_game(notation, ours_white, MATERIAL_HUB, "", 10)
        game = Game.replay(get_rules("international"), None, notation)
        positions = [game.start_position]
        for move in game.moves:
            positions.append(positions[-1].play(move))
        expected = []
        for ply in range(8, len(notation)):
            position = positions[ply]
            if ply % 4 < 2 and position.side_to_move.name == ("WHITE" if ours_white else "BLACK"):
                score = _material(position, ours_white)
                pieces = (position.white | position.black).bit_count()
                expected.append((ply, pieces, score))
                if score < -200:
                    break
        assert view == expected
        assert view and all(ply % 4 < 2 for ply, _, _ in view)


def test_the_judge_line_gives_where_the_lost_games_first_fell_below_each_threshold():
    views = [
        [(8, 40, 0), (12, 40, -120), (16, 38, -250)],  # lost in the opening
        [(8, 40, 0), (20, 36, -60), (40, 30, -110), (60, 24, -210)],
        [(8, 40, 10), (24, 34, -40)],  # never below -50
    ]
    line = field.judge_line(views, "scan", 250)
    assert "3 lost games" in line and "250 ms" in line
    assert "below -50 in 2, at ply 16 (38 pieces)" in line
    assert "below -100 in 2, at ply 26 (35 pieces)" in line
    assert "below -200 in 2, at ply 38 (31 pieces)" in line
    assert "1 below -100 by ply 12" in line
