"""The engine as the server sees it: games rebuilt from records, and boards as wire data.

Replaying a game's moves costs a move generation per ply, so every game in play is
kept, keyed by (variant, start FEN, moves). Cached games are never mutated: a move
is played on a copy, which replaces its predecessor as the game's entry.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache
from typing import Any

from engine import Game, Move, get_rules

# Enough for every game in play on a busy node: a miss replays the whole game, and
# with fewer entries than live games every move missed (2,000 paced games spent a
# third of the server's time replaying). An entry costs about 4-10 KiB.
_CACHE_SIZE = 8192
_OPENING_PLIES = 10
# How far back ``replay`` looks for a cached position to play on from. With two nodes,
# each node's copy of a game is one ply behind when the other node's player moved (the
# node played its own move, then the other node played one): without this, every move
# on a game split across nodes replayed it from the start.
_CATCH_UP_PLIES = 4
_games: OrderedDict[tuple[str, str | None, tuple[str, ...]], Game] = OrderedDict()


def _remember(key: tuple[str, str | None, tuple[str, ...]], game: Game) -> None:
    _games[key] = game
    _games.move_to_end(key)
    while len(_games) > _CACHE_SIZE:
        _games.popitem(last=False)


def replay(variant: str, start_fen: str | None, moves: list[str]) -> Game:
    """The game after ``moves``; the caller must not mutate it (use ``played``)."""
    key = (variant, start_fen, tuple(moves))
    game = _games.get(key)
    if game is not None:
        _games.move_to_end(key)
        return game
    for behind in range(1, min(_CATCH_UP_PLIES, len(moves)) + 1):
        earlier = _games.get((variant, start_fen, key[2][:-behind]))
        if earlier is not None:
            game = earlier.copy()
            for text in moves[-behind:]:
                game.play(text)
            if len(moves) - behind >= _OPENING_PLIES:
                _games.pop((variant, start_fen, key[2][:-behind]), None)
            break
    else:
        game = Game.replay(get_rules(variant), start_fen, list(moves))
    _remember(key, game)
    return game


def played(variant: str, start_fen: str | None, moves: list[str], move: Move) -> Game:
    """A new game: ``moves`` then ``move`` (already known legal)."""
    before = (variant, start_fen, tuple(moves))
    game = replay(variant, start_fen, moves).copy()
    game.play(move)
    notation = game.notation[-1]
    # The game has moved on: its previous entry would only push live games out. Opening
    # positions are kept, as many games pass through the same ones.
    if len(moves) >= _OPENING_PLIES:
        _games.pop(before, None)
    _remember((variant, start_fen, (*before[2], notation)), game)
    return game


@cache
def layout(variant: str) -> dict[str, Any]:
    """The board geometry a client needs to draw it without knowing any rule."""
    rules = get_rules(variant)
    return {
        "cols": rules.cols,
        "rows": rules.rows,
        "notation": rules.notation,
        "squares": [[label, col, row] for label, col, row in rules.board_layout()],
    }


def pieces(game: Game) -> list[list[Any]]:
    """[label, colour, king] of every piece, in square order (``Position.pieces``), built
    straight from the bitboards: it is sent with every move."""
    pos = game.position
    table, white, kings = _piece_lists(pos.rules.id), pos.white, pos.kings
    occupied = white | pos.black
    out = []
    while occupied:
        low = occupied & -occupied
        sq = low.bit_length() - 1
        out.append(table[sq][(white >> sq & 1) << 1 | kings >> sq & 1])
        occupied ^= low
    return out


@cache
def _piece_lists(variant: str) -> dict[int, tuple[list[Any], ...]]:
    """Each square's four wire pieces (black man, black king, white man, white king).

    Shared by every board sent, so nothing may change one: building three-item lists
    afresh for every piece of every move was half the cost of ``pieces``."""
    names = get_rules(variant).square_names
    return {
        sq: tuple([name, colour, king] for colour in ("black", "white") for king in (False, True))
        for sq, name in names.items()
    }


# The wire form of a legal move, by its rules and squares. The same steps and captures
# recur in every game, and every move's event lists the legal moves that follow:
# writing their labels afresh cost about 7 us an event (nine legal moves). The dicts
# are shared, so nothing may change one. Cleared when full rather than kept in order:
# refilling costs what the cache saves on one event per entry. An entry is about
# 0.75 KiB, so a full cache is about 15 MiB (900 random games of three rule sets
# filled 5,740).
_WIRE_MOVES: dict[tuple[Any, ...], dict[str, Any]] = {}
_WIRE_MOVES_MAX = 20_000


def legal(game: Game) -> list[dict[str, Any]]:
    wire, out = _WIRE_MOVES, []
    for move in game.legal_moves():
        # By the rules' id: a tuple holding the Rules itself would call its __hash__.
        key = (move.rules.id, move.path, move.captured)
        known = wire.get(key)
        if known is None:
            if len(wire) >= _WIRE_MOVES_MAX:
                wire.clear()
            known = wire[key] = move.to_dict()
        out.append(known)
    return out


def labels(variant: str, squares: tuple[int, ...]) -> list[str]:
    names = get_rules(variant).square_names
    return [names[sq] for sq in squares]
