"""bench/field.py --pdn writes each match game as PDN that reads back as played: the
moves, who had which colour, and the match's verdict where the board gave none."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from engine import get_rules
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
