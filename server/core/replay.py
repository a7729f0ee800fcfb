"""Games rebuilt from records: the engine as the room sees a game in play.

Replaying a game's moves costs a move generation per ply, so every game in play is
kept, keyed by (variant, start FEN, moves). Cached games are never mutated: a move
is played on a copy, which replaces its predecessor as the game's entry.
"""

from __future__ import annotations

from collections import OrderedDict

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
    size = len(_games)
    _games[key] = game
    if len(_games) == size:  # it was there already (a new key goes last by itself)
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


def played(
    variant: str, start_fen: str | None, moves: list[str], move: Move, game: Game | None = None
) -> Game:
    """A new game: ``moves`` then ``move`` (already known legal). ``game``: the game after
    ``moves`` if the caller has just had it from ``replay`` (saves looking it up again)."""
    before = (variant, start_fen, tuple(moves))
    game = (replay(variant, start_fen, moves) if game is None else game).copy()
    game.play(move)
    notation = game.notation[-1]
    # The game has moved on: its previous entry would only push live games out. Opening
    # positions are kept, as many games pass through the same ones.
    if len(moves) >= _OPENING_PLIES:
        _games.pop(before, None)
    _remember((variant, start_fen, (*before[2], notation)), game)
    return game
