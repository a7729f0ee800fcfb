"""An immutable position: bitboards of white, black and kings plus the side to move."""

from __future__ import annotations

from .fen import parse_fen, write_fen
from .move import Move
from .movegen import (
    apply_precedence,
    capture_sequences,
    count_legal_moves,
    has_capture,
    legal_moves,
)
from .notation import parse_move
from .rules import Color, Rules
from .tables import tables_for

WHITE, BLACK = 0, 1
_new = object.__new__


class Position:
    # ``_moves`` caches the legal moves; it is left unset until asked for (cheaper play()).
    __slots__ = ("white", "black", "kings", "turn", "_moves", "_t")
    _moves: list[Move]

    def __init__(self, rules: Rules, white: int, black: int, kings: int, turn: int) -> None:
        self.white = white
        self.black = black
        self.kings = kings
        self.turn = turn  # 0: White to move, 1: Black to move
        self._t = tables_for(rules)

    @property
    def rules(self) -> Rules:
        return self._t.rules

    # --- construction --------------------------------------------------------------

    @classmethod
    def start(cls, rules: Rules) -> Position:
        board = rules.board
        white = black = 0
        for sq, (_, row) in board.coords.items():
            if board.rows - 1 - row in rules.start_rows:
                white |= 1 << sq
            elif row in rules.start_rows:
                black |= 1 << sq
        return cls(rules, white, black, 0, rules.first_to_move.turn)

    @classmethod
    def from_fen(cls, rules: Rules, fen: str) -> Position:
        return parse_fen(rules, fen)

    def fen(self) -> str:
        return write_fen(self)

    # --- reading -------------------------------------------------------------------

    @property
    def side_to_move(self) -> Color:
        return Color.WHITE if self.turn == WHITE else Color.BLACK

    @property
    def own(self) -> int:
        return self.white if self.turn == WHITE else self.black

    @property
    def opponent(self) -> int:
        return self.black if self.turn == WHITE else self.white

    def pieces(self) -> list[tuple[str, Color, bool]]:
        """(label, colour, is_king) of every piece, in square order."""
        out = []
        name = self.rules.square_names.__getitem__
        white, kings = self.white, self.kings
        occupied = white | self.black
        # Square order is bit order (Board.squares is ascending): walk the set bits only.
        while occupied:
            low = occupied & -occupied
            sq = low.bit_length() - 1
            out.append((name(sq), Color.WHITE if white & low else Color.BLACK, bool(kings & low)))
            occupied ^= low
        return out

    def piece_at(self, sq: int) -> tuple[Color, bool] | None:
        b = 1 << sq
        if self.white & b:
            return Color.WHITE, bool(self.kings & b)
        if self.black & b:
            return Color.BLACK, bool(self.kings & b)
        return None

    def material(self) -> tuple[int, int, int, int]:
        """(white men, white kings, black men, black kings)."""
        k = self.kings
        return (
            (self.white & ~k).bit_count(),
            (self.white & k).bit_count(),
            (self.black & ~k).bit_count(),
            (self.black & k).bit_count(),
        )

    # --- moves ---------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        try:
            return self._moves
        except AttributeError:
            pass
        if self.turn == WHITE:
            moves = legal_moves(self._t, self.white, self.black, self.kings, 0)
        else:
            moves = legal_moves(self._t, self.black, self.white, self.kings, 1)
        self._moves = moves
        return moves

    def legal_moves_keeping_duplicates(self) -> list[Move]:
        """One move per start, end and captured pieces in capture order (perft "keep")."""
        if self.turn == WHITE:
            return legal_moves(self._t, self.white, self.black, self.kings, 0, True)
        return legal_moves(self._t, self.black, self.white, self.kings, 1, True)

    def count_legal_moves(self, keep_duplicates: bool = False) -> int:
        if self.turn == WHITE:
            return count_legal_moves(
                self._t, self.white, self.black, self.kings, 0, keep_duplicates
            )
        return count_legal_moves(self._t, self.black, self.white, self.kings, 1, keep_duplicates)

    def has_capture(self) -> bool:
        return has_capture(self._t, self.own, self.opponent, self.kings, self.turn)

    def is_irreversible(self, move: Move) -> bool:
        """Whether no position before ``move`` can come back after it: a capture, a
        crowning, or a man stepping to another row (men never step back; a Turkish
        man's sideways step can be undone)."""
        if move.captured or move.promotes:
            return True
        if (self.kings >> move.start) & 1:
            return False
        coords = self._t.rules.board.coords
        return coords[move.start][1] != coords[move.end][1]

    def play(self, move: Move) -> Position:
        """The position after ``move``; the move is trusted to be legal here."""
        fb = move.from_bit
        tb = move.to_bit
        cap = move.capmask
        kings = self.kings & ~cap if cap else self.kings
        if kings & fb:
            kings = (kings ^ fb) | tb
        elif move.promotes:
            kings |= tb
        after = _new(Position)
        after._t = self._t
        after.kings = kings
        if self.turn == WHITE:
            after.white = (self.white ^ fb) | tb
            after.black = self.black & ~cap if cap else self.black
            after.turn = BLACK
        else:
            after.black = (self.black ^ fb) | tb
            after.white = self.white & ~cap if cap else self.white
            after.turn = WHITE
        return after

    def is_legal(self, move: Move) -> bool:
        return move.rules == self.rules and move in self.legal_moves()

    def parse_move(self, text: str) -> Move:
        """The legal move ``text`` names: a full path, or start and end when unambiguous."""
        return parse_move(self, text)

    def capture_rule(self) -> tuple[str, int] | None:
        """Why only some pieces may move now, as data a client can put in words: None when
        no capture is possible, else ``(code, pieces)`` with ``pieces`` the most a capture
        takes and ``code`` the first rule that narrows the choice: "capture" (any capture,
        but one is compulsory), "most_pieces" (only those taking the most pieces),
        "with_king" (a capture with a king goes first), "most_kings" (the most kings),
        "earliest_king" (the one meeting a king first)."""
        t = self._t
        every = capture_sequences(t, self.own, self.opponent, self.kings, self.turn)
        if not every:
            return None
        most = max(len(s[1]) for s in every)
        kept = apply_precedence(t, every, self.kings)
        if len(kept) == len(every):
            return ("capture", most)
        if any(len(s[1]) < most for s in every) and "pieces" in t.precedence:
            return ("most_pieces", most)
        if "with_king" in t.precedence and any(s[3] for s in kept) and not all(s[3] for s in every):
            return ("with_king", most)
        if "kings" in t.precedence:
            return ("most_kings", most)
        return ("earliest_king", most)

    def explain_illegal(self, path: list[int]) -> str:
        """Why the move along ``path`` is not legal here, as a sentence without the move."""
        return _explain(self, path)

    # --- identity ------------------------------------------------------------------

    def key(self) -> tuple[int, int, int, int]:
        return (self.white, self.black, self.kings, self.turn)

    def __hash__(self) -> int:
        return hash((self.white, self.black, self.kings, self.turn))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.rules == other.rules
            and self.white == other.white
            and self.black == other.black
            and self.kings == other.kings
            and self.turn == other.turn
        )

    def __repr__(self) -> str:
        return f"<Position {self.rules.id} {self.fen()}>"

    def __str__(self) -> str:
        """A text diagram, White at the bottom: w/b men, W/B kings."""
        board = self.rules.board
        lines = []
        for row in range(board.rows):
            cells = []
            for col in range(board.cols):
                sq = board.square_at.get((col, row))
                if sq is None:
                    cells.append(" ")
                    continue
                piece = self.piece_at(sq)
                if piece is None:
                    cells.append(".")
                else:
                    c = "w" if piece[0] is Color.WHITE else "b"
                    cells.append(c.upper() if piece[1] else c)
            lines.append(f"{board.rows - row:>2} " + " ".join(cells))
        lines.append("   " + " ".join("abcdefghij"[: board.cols]))
        return "\n".join(lines)


def _explain(pos: Position, path: list[int]) -> str:
    rules = pos.rules
    name = rules.square_name
    start = path[0]
    piece = pos.piece_at(start)
    if piece is None:
        return f"there is no piece on {name(start)}"
    if piece[0] is not pos.side_to_move:
        return f"the piece on {name(start)} is not yours; it is {pos.side_to_move}'s turn"
    own, opp = pos.own, pos.opponent
    t = pos._t
    if not has_capture(t, own, opp, pos.kings, pos.turn):
        return "that piece cannot move there"
    every = capture_sequences(t, own, opp, pos.kings, pos.turn)
    allowed = apply_precedence(t, every, pos.kings)
    most = max(len(s[1]) for s in allowed)
    matching = [
        s
        for s in every
        if s[0][0] == start and s[0][-1] == path[-1] and _is_subsequence(path, s[0])
    ]
    if matching:
        seq = matching[0]
        best = allowed[0]
        if len(seq[1]) < most:
            return f"a longer capture exists; it takes {most} pieces"
        if "with_king" in t.precedence and best[3] and not seq[3]:
            return "a capture with a king takes precedence over a capture with a man"
        if "kings" in t.precedence:
            return "another capture takes more kings and must be played"
        return "another capture sequence takes precedence (it meets a king earlier)"
    if not rules.men_capture_kings and not piece[1] and len(path) >= 2:
        # A man trying to jump a king in a rule set that forbids it.
        for a, b in zip(path, path[1:], strict=False):
            ca, cb = rules.board.coords[a], rules.board.coords[b]
            mid = rules.board.square_at.get(((ca[0] + cb[0]) // 2, (ca[1] + cb[1]) // 2))
            if mid is not None and pos.kings >> mid & 1 and opp >> mid & 1:
                return f"a man may not capture a king in {rules.name_en}"
    prefixes = [s for s in every if s[0][: len(path)] == tuple(path)]
    if prefixes:
        return "the capture is not finished; it must go on as long as it can"
    return "a capture is compulsory"


def _is_subsequence(short: list[int], long: tuple[int, ...]) -> bool:
    it = iter(long)
    return all(s in it for s in short)
