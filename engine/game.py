"""A game: start position, moves, and the rules that end it.

No pieces or no legal move loses; threefold repetition draws; each rule set's
no-progress rules draw. Results and reasons are enum values, never bare strings.
"""

from __future__ import annotations

import enum

from .draws import MATERIAL_CONDITIONS
from .errors import GameOverError, IllegalMoveError, InvalidMoveError
from .move import Move
from .position import Position
from .rules import Color, Rules


class Status(enum.StrEnum):
    ONGOING = "ongoing"
    FINISHED = "finished"


class Result(enum.StrEnum):
    WHITE_WINS = "white"
    BLACK_WINS = "black"
    DRAW = "draw"

    @classmethod
    def win_for(cls, color: Color) -> Result:
        return cls.WHITE_WINS if color is Color.WHITE else cls.BLACK_WINS

    @property
    def pdn(self) -> str:
        return {"white": "1-0", "black": "0-1", "draw": "1/2-1/2"}[self.value]


class Reason(enum.StrEnum):
    # Decided on the board.
    NO_PIECES = "no_pieces"
    NO_MOVES = "no_moves"
    THREEFOLD = "threefold"
    NO_PROGRESS_50 = "no_progress_50"
    FMJD_25 = "fmjd_25"
    FMJD_16 = "fmjd_16"
    FMJD_5 = "fmjd_5"
    FMJD64_KINGS_ONLY_15 = "fmjd64_kings_only_15"
    FMJD64_THREE_KINGS_15 = "fmjd64_three_kings_15"
    FMJD64_ENDGAME_30 = "fmjd64_endgame_30"
    FMJD64_ENDGAME_60 = "fmjd64_endgame_60"
    FMJD64_LONG_DIAGONAL_5 = "fmjd64_long_diagonal_5"
    FMJD64_LONE_KING_5 = "fmjd64_lone_king_5"
    # Decided by the players or the clock (set by the server through ``Game.finish``).
    RESIGN = "resign"
    TIMEOUT = "timeout"
    AGREEMENT = "agreement"
    ABORTED = "aborted"
    ABANDONED = "abandoned"
    WITHDRAWN = "withdrawn"  # an open game nobody joined while its creator was away
    NO_FIRST_MOVE = "no_first_move"  # aborted: a side did not make its first move in time
    RECORDED = "recorded"  # a PDN's Result tag, the reason not written down


class Game:
    def __init__(
        self, rules: Rules, fen: str | None = None, *, automatic_draws: bool = True
    ) -> None:
        """``automatic_draws=False`` replays a record as it was played (a PDN import):
        a draw rule that fires is noted in ``draws_passed`` instead of ending the game,
        since real games go on past an unclaimed repetition and federations differ.
        Losing on the board (no pieces, no move) always ends the game."""
        self.rules = rules
        self.automatic_draws = automatic_draws
        # (ply, reason): where a draw rule fired but the game went on (plies counted from
        # the start position: 3 = after the third move). Empty while automatic_draws holds.
        self.draws_passed: list[tuple[int, Reason]] = []
        self._last_passed: tuple[int, Reason] | None = None
        self.start_position = Position.from_fen(rules, fen) if fen else Position.start(rules)
        self.start_fen = self.start_position.fen()
        self.position = self.start_position
        self.moves: list[Move] = []
        self.notation: list[str] = []
        self.status = Status.ONGOING
        self.result: Result | None = None
        self.reason: Reason | None = None
        # Positions since the last irreversible move, counted for threefold repetition:
        # none before it can come back, so the count (copied with every game the server
        # keeps) stays as short as the run of reversible moves.
        # Position key -> times seen since the last irreversible move. A plain dict:
        # copied on every move the server plays, and a Counter copies slowly.
        self._seen: dict[tuple[int, int, int, int], int] = {self.position.key(): 1}
        self._no_progress = 0  # plies since the last capture or man move
        # Plies each material-based draw condition has held with unchanged material.
        self._held: dict[str, int] = {}
        self._update_held(material_changed=True)
        self._check_end()

    # --- building ------------------------------------------------------------------

    @classmethod
    def replay(cls, rules: Rules, fen: str | None, notation: list[str]) -> Game:
        game = cls(rules, fen)
        for text in notation:
            game.play(text)
        return game

    def copy(self) -> Game:
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.moves = list(self.moves)
        other.notation = list(self.notation)
        other._seen = dict(self._seen)
        other._held = dict(self._held)
        other.draws_passed = list(self.draws_passed)
        return other

    # --- playing -------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        return [] if self.status is Status.FINISHED else self.position.legal_moves()

    def play(self, move: Move | str) -> Move:
        """Play ``move`` (a Move or its text); returns the legal move played."""
        if self.status is Status.FINISHED:
            raise GameOverError(
                f"the game is over ({self.reason.value if self.reason else ''}); no more moves"
            )
        pos = self.position
        if isinstance(move, str):
            move = pos.parse_move(move)
        elif isinstance(move, Move):
            if move.rules != self.rules:
                raise InvalidMoveError(
                    f"{move!r} is a {move.rules.name_en} move, not a {self.rules.name_en} one"
                )
            legal = pos.legal_moves()
            # Usually one of these very moves (the server resolves a client's move
            # among them): found by identity, it needs no comparison by value.
            for known in legal:
                if known is move:
                    break
            else:
                try:
                    move = legal[legal.index(move)]  # one scan: found, or illegal
                except ValueError:
                    raise IllegalMoveError(
                        f"{str(move)!r} is illegal: {pos.explain_illegal(list(move.path))}"
                    ) from None
        else:
            raise InvalidMoveError(f"{move!r} is not a move")
        was_man = not (pos.kings >> move.start) & 1
        self.position = pos.play(move)
        self.moves.append(move)
        self.notation.append(str(move))
        if pos.is_irreversible(move):
            self._seen = {self.position.key(): 1}
        else:
            key = self.position.key()
            self._seen[key] = self._seen.get(key, 0) + 1
        self._no_progress = 0 if (move.captured or was_man) else self._no_progress + 1
        # Material changes only by a capture or a man crowned (counting it would cost two
        # material() calls on every move the server plays).
        self._update_held(material_changed=bool(move.captured) or (was_man and move.promotes))
        self._check_end()
        return move

    def finish(self, result: Result, reason: Reason) -> None:
        """End the game for a reason off the board: resignation, flag, agreement, abort."""
        if self.status is Status.FINISHED:
            raise GameOverError("the game is already over")
        self.status, self.result, self.reason = Status.FINISHED, result, reason

    # --- ending --------------------------------------------------------------------

    def _update_held(self, material_changed: bool) -> None:
        for rule in self.rules.draw_rules:
            condition = MATERIAL_CONDITIONS.get(rule.kind)
            if condition is None:
                continue
            if condition(self.position):
                held = self._held.get(rule.kind)
                self._held[rule.kind] = 0 if (held is None or material_changed) else held + 1
            else:
                self._held.pop(rule.kind, None)

    def _check_end(self) -> None:
        pos = self.position
        if not pos.legal_moves():
            # No pieces or no legal move: the side to move loses.
            self.status = Status.FINISHED
            self.result = Result.win_for(pos.side_to_move.opponent)
            self.reason = Reason.NO_PIECES if not pos.own else Reason.NO_MOVES
            return
        if self._seen.get(pos.key(), 0) >= 3:
            self._draw(Reason.THREEFOLD)
            return
        for rule in self.rules.draw_rules:
            count = self._no_progress if rule.kind == "no_progress" else self._held.get(rule.kind)
            if count is not None and count >= rule.plies:
                self._draw(Reason(rule.reason))
                return

    def _draw(self, reason: Reason) -> None:
        if self.automatic_draws:
            self.status, self.result, self.reason = Status.FINISHED, Result.DRAW, reason
            return
        # Replaying a record: note where the rule fired, once for each run of plies it
        # holds (a no-progress count holds on every ply after it fires).
        ply = len(self.moves)
        last, self._last_passed = self._last_passed, (ply, reason)
        if last != (ply - 1, reason):
            self.draws_passed.append((ply, reason))

    @property
    def is_over(self) -> bool:
        return self.status is Status.FINISHED

    @property
    def side_to_move(self) -> Color:
        return self.position.side_to_move

    def fen(self) -> str:
        return self.position.fen()

    def pdn(self, tags: dict[str, str] | None = None) -> str:
        from .pdn import write_pdn

        return write_pdn(self, tags or {})

    @classmethod
    def from_pdn(cls, text: str, rules: Rules | None = None) -> Game:
        from .pdn import read_pdn

        return read_pdn(text, rules)
