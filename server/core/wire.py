"""Boards as wire data: a variant's geometry, a game's pieces and legal moves, packed
once with their msgpack bytes (``protocol.messages.Packed``) because every move's event
carries them. Speed work: the piece lists are built straight from the bitboards by
table lookups, the path ``bench/relay.py`` and ``bench/load.py`` measure.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine import Game, get_rules
from protocol import messages as m


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


def starts_second(game: Game) -> bool:
    """The game's first move is its rule set's second player's (a position set up with
    that side to move): a move list numbers it "1..." as PDN does (``engine.pdn``)."""
    return game.start_position.side_to_move is not game.rules.first_to_move
