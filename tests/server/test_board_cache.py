"""The server's cache of engine games: every game in play stays cached, so a move
never replays its game from the start (that once cost a third of the server's time
at 2,000 paced games)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from engine import Game, get_rules
from server.core import replay, wire

# The opening: the first plies, whose positions many games share, so the cache keeps
# them for every game (replay.py's _OPENING_PLIES).
OPENING = 10


@pytest.fixture
def replays(monkeypatch):
    """Counts whole-game replays, the work the cache exists to avoid."""
    calls = []
    original = Game.replay.__func__

    def counting(cls, rules, fen, notation):
        calls.append(tuple(notation))
        return original(cls, rules, fen, notation)

    monkeypatch.setattr(Game, "replay", classmethod(counting))
    return calls


_shuffles = itertools.count()


def unplayed_start(variant: str) -> str:
    """The rule set's start position, its pieces listed in an order no other game used:
    games are cached by their start FEN as written, so the cache holds none of these."""
    chance = random.Random(next(_shuffles))
    side, *armies = Game(get_rules(variant)).fen().split(":")
    for i, army in enumerate(armies):
        squares = army[1:].split(",")
        chance.shuffle(squares)
        armies[i] = army[0] + ",".join(squares)
    return ":".join([side, *armies])


def test_three_thousand_games_moving_in_turn_are_not_replayed(replays):
    chance = random.Random(7)
    start = unplayed_start("english")
    histories: list[list[str]] = [[] for _ in range(3000)]
    for _ in range(16):  # every game makes a move, in turn, sixteen times over
        for moves in histories:
            game = replay.replay("english", start, moves)
            after = replay.played("english", start, moves, chance.choice(game.legal_moves()))
            moves.append(after.notation[-1])
    # Past the opening a game's entry gives way to its successor, so only a game that
    # reached the very position another one left would rebuild it.
    prefixes = Counter(tuple(moves[:n]) for moves in histories for n in range(17))
    assert replays[0] == ()
    assert all(prefixes[replayed] >= 2 for replayed in replays[1:])
    assert len(replays) < 30


def test_a_played_move_replaces_its_games_entry(replays):
    start = unplayed_start("russian")
    moves: list[str] = []
    for _ in range(OPENING + 5):
        game = replay.replay("russian", start, moves)
        moves.append(replay.played("russian", start, moves, game.legal_moves()[0]).notation[-1])
    assert replays == [()]
    # Kept: the latest position, and the opening ones, which other games share.
    replay.replay("russian", start, moves)
    for plies in range(OPENING):
        replay.replay("russian", start, moves[:plies])
    assert replays == [()]
    # Past the opening, each position gave way to the next: going back a ply finds none
    # of them, so the game is built again from its start.
    replay.replay("russian", start, moves[:-1])
    assert replays == [(), tuple(moves[:-1])]


def test_a_game_moved_on_by_another_node_is_caught_up_not_replayed(replays):
    # Two nodes share a game: this one plays its player's moves through ``played`` and
    # learns of the other player's only from the record, a ply past its cached copy.
    chance = random.Random(3)
    start = unplayed_start("international")
    truth = Game(get_rules("international"), start)
    moves: list[str] = []
    for _ in range(OPENING + 6):
        game = replay.replay("international", start, moves)
        played = replay.played("international", start, moves, game.legal_moves()[0])
        moves.append(played.notation[-1])
        truth.play(moves[-1])
        moves.append(str(truth.play(chance.choice(truth.legal_moves()))))  # the other node
    game = replay.replay("international", start, moves)
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
