"""The server's cache of engine games: every game in play stays cached, so a move
never replays its game from the start (that once cost a third of the server's time
at 2,000 paced games)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import Game, get_rules
from server.core import replay, wire


@pytest.fixture
def replays(monkeypatch):
    """Counts whole-game replays, the work the cache exists to avoid."""
    calls = []
    original = Game.replay.__func__

    def counting(cls, rules, fen, notation):
        calls.append(tuple(notation))
        return original(cls, rules, fen, notation)

    monkeypatch.setattr(Game, "replay", classmethod(counting))
    monkeypatch.setattr(replay, "_games", type(replay._games)())
    return calls


def test_three_thousand_games_moving_in_turn_are_not_replayed(replays):
    chance = random.Random(7)
    histories: list[list[str]] = [[] for _ in range(3000)]
    for _ in range(16):  # every game makes a move, in turn, sixteen times over
        for moves in histories:
            game = replay.replay("english", None, moves)
            after = replay.played("english", None, moves, chance.choice(game.legal_moves()))
            moves.append(after.notation[-1])
    # Past the opening a game's entry gives way to its successor, so only a game that
    # reached the very position another one left would rebuild it.
    prefixes = Counter(tuple(moves[:n]) for moves in histories for n in range(17))
    assert replays[0] == ()
    assert all(prefixes[replayed] >= 2 for replayed in replays[1:])
    assert len(replays) < 30


def test_a_played_move_replaces_its_games_entry(replays):
    moves: list[str] = []
    for _ in range(replay._OPENING_PLIES + 5):
        game = replay.replay("russian", None, moves)
        moves.append(replay.played("russian", None, moves, game.legal_moves()[0]).notation[-1])
    # The opening positions, which other games share, and only the latest after them.
    assert len(replay._games) == replay._OPENING_PLIES + 1
    assert tuple(moves) in {key[2] for key in replay._games}


def test_a_game_moved_on_by_another_node_is_caught_up_not_replayed(replays):
    # Two nodes share a game: this one plays its player's moves through ``played`` and
    # learns of the other player's only from the record, a ply past its cached copy.
    chance = random.Random(3)
    truth = Game(get_rules("international"))
    moves: list[str] = []
    for _ in range(replay._OPENING_PLIES + 6):
        game = replay.replay("international", None, moves)
        played = replay.played("international", None, moves, game.legal_moves()[0])
        moves.append(played.notation[-1])
        truth.play(moves[-1])
        moves.append(str(truth.play(chance.choice(truth.legal_moves()))))  # the other node
    game = replay.replay("international", None, moves)
    assert replays == [()]  # only the start position was ever built from nothing
    assert game.notation == truth.notation
    assert game.position == truth.position


def test_the_wire_forms_of_pieces_and_legal_moves_are_the_engines_own():
    chance = random.Random(11)
    for variant in ("english", "russian", "international", "turkish"):
        game = Game(get_rules(variant))
        for _ in range(40):
            if game.is_over:
                break
            assert wire.pieces(game) == [
                [label, color.value, king] for label, color, king in game.position.pieces()
            ]
            assert wire.legal(game) == [move.to_dict() for move in game.legal_moves()]
            game.play(chance.choice(game.legal_moves()))
