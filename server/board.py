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
from protocol import messages as m

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


def pieces(game: Game) -> m.Packed:
    """[label, colour, king] of every piece, in square order (``Position.pieces``), built
    straight from the bitboards, with its msgpack bytes: it is sent with every move."""
    pos = game.position
    rows = _piece_lists(pos.rules.id)
    size = len(rows)
    out, packed = [], []
    # A byte of each bitboard at a time: the bitboards are beyond 2**30, so each step of
    # bit tricks on them made a new integer object, where a byte's bits are small
    # integers, which Python never allocates (a third of the cost of ``pieces``).
    for row, occupied, white, kings in zip(
        rows,
        (pos.white | pos.black).to_bytes(size, "little"),
        pos.white.to_bytes(size, "little"),
        pos.kings.to_bytes(size, "little"),
        strict=False,
    ):
        for bit in _SET_BITS[occupied]:
            piece, piece_packed = row[bit][(white >> bit & 1) << 1 | kings >> bit & 1]
            out.append(piece)
            packed.append(piece_packed)
    return m.packed(out, packed)


# The set bits of each byte value, lowest first.
_SET_BITS = tuple(tuple(bit for bit in range(8) if value >> bit & 1) for value in range(256))


@cache
def _piece_lists(variant: str) -> list[list[tuple[tuple[list[Any], bytes], ...]]]:
    """For each byte of a bitboard, for each of its bits, the square's four wire pieces
    (black man, black king, white man, white king), each with its msgpack bytes; none for
    a square that does not exist.

    Shared by every board sent, so nothing may change one: building three-item lists
    afresh for every piece of every move was half the cost of ``pieces``."""
    names = get_rules(variant).square_names
    rows: list[list[tuple[tuple[list[Any], bytes], ...]]] = [
        [() for _ in range(8)] for _ in range(max(names) // 8 + 1)
    ]
    pack = m.packer().pack
    for sq, name in names.items():
        rows[sq // 8][sq % 8] = tuple(
            (piece, pack(piece))
            for piece in (
                [name, colour, king] for colour in ("black", "white") for king in (False, True)
            )
        )
    return rows


# The wire form of a legal move and its msgpack bytes, by its rules and squares. The
# same steps and captures recur in every game, and every move's event lists the legal
# moves that follow: writing their labels afresh cost about 7 us an event (nine legal
# moves). The dicts are shared, so nothing may change one. Cleared when full rather than
# kept in order: refilling costs what the cache saves on one event per entry. An entry
# is about 0.85 KiB, so a full cache is about 17 MiB (900 random games of three rule
# sets filled 5,740).
_WIRE_MOVES: dict[tuple[Any, ...], tuple[dict[str, Any], bytes]] = {}
_WIRE_MOVES_MAX = 20_000


def legal(game: Game) -> m.Packed:
    """The wire form of each legal move, with its msgpack bytes."""
    wire, out, packed = _WIRE_MOVES, [], []
    for move in game.legal_moves():
        # By the rules' id: a tuple holding the Rules itself would call its __hash__.
        key = (move.rules.id, move.path, move.captured)
        known = wire.get(key)
        if known is None:
            if len(wire) >= _WIRE_MOVES_MAX:
                wire.clear()
            as_dict = move.to_dict()
            known = wire[key] = (as_dict, m.packer().pack(as_dict))
        out.append(known[0])
        packed.append(known[1])
    return m.packed(out, packed)


def labels(variant: str, squares: tuple[int, ...]) -> list[str]:
    names = get_rules(variant).square_names
    return [names[sq] for sq in squares]
