"""FEN in the PDN 3.0 form: ``<side>:<colour><squares>:<colour><squares>``.

``W:W21,22,K30:B1,2`` — squares comma-separated in the rule set's own notation,
kings prefixed ``K``, ranges like ``31-50`` allowed for numbers. The two colour
lists may come in either order; Russian and Brazilian also accept numbers
(lidraughts stores them so). Extra lidraughts fields (``H0``, ``F1``) are ignored.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .errors import InvalidFenError, InvalidSquareError
from .rules import Rules

if TYPE_CHECKING:
    from .position import Position

_MAX_LEN = 1000
_RANGE = re.compile(r"^(\d+)-(\d+)$")


def parse_fen(rules: Rules, fen: object) -> Position:
    from .position import Position

    if not isinstance(fen, str):
        raise InvalidFenError(f"a FEN must be text, not {type(fen).__name__}")
    if len(fen) > _MAX_LEN:
        raise InvalidFenError(f"FEN of {len(fen)} characters is too long")
    text = fen.strip().strip('"').strip().rstrip(".")
    fields = [f.strip() for f in text.split(":")]
    if len(fields) < 3:
        raise InvalidFenError(
            f"{fen!r} is not a FEN: expected '<side>:W<squares>:B<squares>', "
            f"e.g. {rules.start_fen!r}"
        )
    side = fields[0].upper()
    if side not in ("W", "B"):
        raise InvalidFenError(f"{fen!r}: the side to move must be 'W' or 'B', not {fields[0]!r}")
    lists: dict[str, str] = {}
    for f in fields[1:]:
        if not f:
            continue
        head = f[0].upper()
        if head in ("H", "F") and f[1:].isdigit():
            continue  # lidraughts' halfmove / fullmove counters
        if head not in ("W", "B"):
            raise InvalidFenError(f"{fen!r}: each piece list starts with 'W' or 'B', not {f!r}")
        if head in lists:
            raise InvalidFenError(
                f"{fen!r}: the {'White' if head == 'W' else 'Black'} pieces are listed twice"
            )
        lists[head] = f[1:]
    if set(lists) != {"W", "B"}:
        raise InvalidFenError(f"{fen!r}: both a White ('W') and a Black ('B') list are needed")
    board = rules.board
    placed: dict[int, str] = {}
    bits = {"W": 0, "B": 0}
    kings = 0
    for colour, body in lists.items():
        for item in (s.strip() for s in body.split(",")):
            if not item:
                continue
            is_king = item[0] in "Kk"
            label = item[1:] if is_king else item
            for sq in _squares(rules, label, fen):
                if sq in placed:
                    raise InvalidFenError(
                        f"{fen!r}: square {rules.square_name(sq)} is listed twice"
                    )
                placed[sq] = colour
                bits[colour] |= 1 << sq
                if is_king:
                    kings |= 1 << sq
    for colour, color_name, row in (("W", "white", 0), ("B", "black", board.rows - 1)):
        men_on_last_row = bits[colour] & ~kings & board.row_mask(row)
        if men_on_last_row:
            sq = (men_on_last_row & -men_on_last_row).bit_length() - 1
            raise InvalidFenError(
                f"{fen!r}: a {color_name} man cannot stand on {rules.square_name(sq)}, its "
                "crowning row"
            )
    return Position(rules, bits["W"], bits["B"], kings, 0 if side == "W" else 1)


def _squares(rules: Rules, label: str, fen: str) -> list[int]:
    m = _RANGE.match(label)
    try:
        if m and (rules.notation == "numeric" or rules.fen_accepts_numbers):
            a, b = int(m.group(1)), int(m.group(2))
            if a > b:
                raise InvalidFenError(f"{fen!r}: the range {label!r} runs backwards")
            return [rules.parse_square(str(n), allow_numbers=True) for n in range(a, b + 1)]
        return [rules.parse_square(label, allow_numbers=rules.fen_accepts_numbers)]
    except InvalidSquareError as e:
        raise InvalidFenError(f"{fen!r}: {e}") from None


def write_fen(pos: Position) -> str:
    rules = pos.rules
    name, rank, kings = rules.square_names, rules.listing_rank, pos.kings

    # The server writes a FEN for every move: only the occupied squares are walked
    # (lowest bit first), then put in listing order where that is not the bit order.
    def listing(bits: int) -> str:
        labels = []
        if rank is None:  # bit order is listing order: each label as its bit is found
            while bits:
                low = bits & -bits
                sq = low.bit_length() - 1
                labels.append("K" + name[sq] if kings & low else name[sq])
                bits ^= low
            return ",".join(labels)
        squares = []
        while bits:
            low = bits & -bits
            squares.append(low.bit_length() - 1)
            bits ^= low
        squares.sort(key=rank.__getitem__)
        return ",".join([("K" + name[sq]) if kings >> sq & 1 else name[sq] for sq in squares])

    side = "W" if pos.turn == 0 else "B"
    return f"{side}:W{listing(pos.white)}:B{listing(pos.black)}"
