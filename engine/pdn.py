"""PDN games: read every game of a file and replay it as played; write a game back.

Reading: ``read_pdn_games(text)`` yields each game of a file in order with only its
own tags, replayed move by move, or refused with the reason and its line (the other
games are still read). Grammar: ``engine.pdn_syntax``. A record is replayed as it was
played: where one of our automatic draw rules would have ended it, the game goes on
and ``draws_passed`` says where (real games continue past an unclaimed repetition).

Results: the first number is the first player's score (PDN 3.0, and the checkers PDN
convention where the first player is Black). Both the 2-0 / 1-1 / 0-2 and the
1-0 / 1/2-1/2 / 0-1 forms are read in every rule set; the writer uses the rule set's
own (``Rules.pdn_win_points``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import (
    AmbiguousMoveError,
    EngineError,
    InvalidFenError,
    InvalidPdnError,
    PdnAmbiguousMoveError,
    PdnMoveError,
    PdnTagError,
)
from .game import Game, Reason, Result
from .move import Move
from .notation import parse_path
from .pdn_syntax import GameText, Token, split_games
from .position import Position
from .rules import Color, Rules
from .variants import VARIANTS

_MAX_LEN = 10_000_000
_TAG_ORDER = (
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "GameType",
    "SetUp",
    "FEN",
)
# Tags the writer sets from the game itself; a tag of the same name passed in is replaced.
_WRITTEN_FROM_GAME = ("Result", "GameType", "SetUp", "FEN")
# The Italian federation's files name their result tag in Italian.
_RESULT_TAGS = ("Result", "Risultato")
_DRAW_MARKS = ("1/2-1/2", "½-½", "1-1")
# "0-0" (PDN 3.0: lost for both players) has no Kondavo result: read as unknown.
_UNKNOWN_MARKS = ("*", "", "?", "0-0")


@dataclass
class PdnGame:
    """One game of a PDN file: its tags, and the game replayed or why it was refused."""

    index: int  # 0 for the file's first game
    line: int  # the line the game starts on
    tags: dict[str, str]
    game: Game | None
    error: InvalidPdnError | None
    notes: list[str] = field(default_factory=list)  # what was read leniently, with its line

    @property
    def plies(self) -> int:
        return len(self.game.moves) if self.game is not None else 0

    @property
    def draws_passed(self) -> list[tuple[int, Reason]]:
        """(ply, reason) where our automatic draw rules would have ended the game."""
        return self.game.draws_passed if self.game is not None else []


# --- reading ---------------------------------------------------------------------------


def read_pdn_games(text: str, rules: Rules | None = None) -> Iterator[PdnGame]:
    """Every game of ``text`` in order. ``rules`` serves the games without a GameType tag
    (else International, PDN's default GameType 20). A game that cannot be read comes
    with its ``error`` and no ``game``; the games after it are still read."""
    _check_text(text)
    for written in split_games(text):
        if written.error is not None:
            yield PdnGame(
                written.index,
                written.line,
                written.tags,
                None,
                _root_cause(written, rules) or written.error,
            )
            continue
        notes: list[str] = []
        try:
            game = replay(written, rules, notes, only_default=True)
        except InvalidPdnError as e:
            yield PdnGame(written.index, written.line, written.tags, None, e, notes)
        else:
            yield PdnGame(written.index, written.line, written.tags, game, None, notes)


def _root_cause(written: GameText, rules: Rules | None) -> PdnTagError | None:
    """A Result tag that is no PDN result ("4-6", a ten-point score) also ends the moves
    with a word the lexer took for a move: the tag is what to fix, so it is named."""
    try:
        _recorded_result(written, rules or VARIANTS["international"], [])
    except PdnTagError as e:
        return e
    return None


def read_pdn(text: str, rules: Rules | None = None) -> Game:
    """The first game in ``text``, with its tags as ``game.tags``; raises its error."""
    _check_text(text)
    for written in split_games(text):
        if written.error is not None:
            raise written.error
        return replay(written, rules)
    return replay(GameText(0, 1), rules)  # no game at all: an empty one


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise InvalidPdnError("a PDN game must be text")
    if len(text) > _MAX_LEN:
        raise InvalidPdnError(f"PDN of {len(text)} characters is too long")


def rules_for_gametype(value: str) -> Rules:
    """The rule set of a PDN GameType tag (``20`` or ``20,W,10,10,N2,0``)."""
    number = value.split(",")[0].strip()
    for rules in VARIANTS.values():
        if rules.gametype.split(",")[0] == number:
            return rules
    known = ", ".join(f"{r.gametype.split(',')[0]} ({r.id})" for r in VARIANTS.values())
    raise PdnTagError(f"GameType {value!r} is not one Kondavo plays: known types are {known}")


def result_from_pdn(text: str, rules: Rules) -> Result | None:
    """A PDN result in either convention; None for ``*`` (unfinished or unknown) and
    ``0-0`` (lost for both).

    The first number is the first player's score: White's in International ("2-0"),
    Black's in English checkers ("1-0" is a Black win).
    """
    mark = text.strip()
    if mark in _UNKNOWN_MARKS:
        return None
    if mark in _DRAW_MARKS:
        return Result.DRAW
    first, second = rules.first_to_move, rules.first_to_move.opponent
    if mark in ("1-0", "2-0"):
        return Result.win_for(first)
    if mark in ("0-1", "0-2"):
        return Result.win_for(second)
    raise PdnTagError(
        f"{text!r} is not a PDN result: write 2-0, 1-1 or 0-2 (or 1-0, "
        "1/2-1/2 or 0-1), the first player's score first, 0-0 when both "
        "lost, or * when unknown"
    )


def result_to_pdn(result: Result | None, rules: Rules) -> str:
    """``result`` in the rule set's own convention (see ``Rules.pdn_win_points``)."""
    if result is None:
        return "*"
    win = rules.pdn_win_points
    if result is Result.DRAW:
        return "1-1" if win == 2 else "1/2-1/2"
    return f"{win}-0" if result is Result.win_for(rules.first_to_move) else f"0-{win}"


def replay(
    written: GameText,
    rules: Rules | None = None,
    notes: list[str] | None = None,
    *,
    only_default: bool = False,
) -> Game:
    """Replay one game's moves (automatic draws noted, not applied); ``game.tags`` holds
    its tags. Raises a narrow ``InvalidPdnError`` naming the line. What was read
    leniently is added to ``notes``. A GameType tag naming other rules than ``rules``
    is refused, unless ``only_default`` (``rules`` then serves games without one)."""
    tags, lines = written.tags, written.tag_lines
    if "GameType" in tags:
        try:
            found = rules_for_gametype(tags["GameType"])
        except PdnTagError as e:
            raise PdnTagError(e.reason, lines["GameType"]) from None
        if rules is not None and found != rules and not only_default:
            raise PdnTagError(
                f"GameType {tags['GameType']!r} is {found.name_en}, not {rules.name_en}",
                lines["GameType"],
            )
        rules = found
    elif rules is None:
        rules = VARIANTS["international"]  # PDN's default GameType is 20
    notes = notes if notes is not None else []
    recorded = _recorded_result(written, rules, notes)
    moves = [t for t in written.tokens if t.kind == "move"]
    game = _start(written, rules, moves, notes)
    for i, token in enumerate(moves):
        if game.is_over:
            raise PdnMoveError(
                f"move {_label(game)} {token.written!r} comes after the game "
                f"ended ({game.reason.value if game.reason else ''})",
                token.line,
            )
        try:
            game.play(token.text)
        except AmbiguousMoveError:
            game.play(_choose_capture(game, token, moves[i + 1 :], recorded))
        except EngineError as e:
            raise PdnMoveError(f"move {_label(game)} {token.written!r}: {e}", token.line) from None
    if recorded is not None and not game.is_over:
        reason = Reason.RECORDED
        last = game.draws_passed[-1] if game.draws_passed else None
        if recorded is Result.DRAW and last is not None and last[0] == len(game.moves):
            reason = last[1]  # the record stops where our rule draws: that is the reason
        game.finish(recorded, reason)
    game.tags = dict(tags)  # type: ignore[attr-defined]
    return game


def _recorded_result(written: GameText, rules: Rules, notes: list[str]) -> Result | None:
    """The game termination marker, else the Result tag; a tag that is no PDN result
    is refused even when the movetext ends with one (it says the file is not PDN)."""
    tag_result, tag_name = None, None
    for name in _RESULT_TAGS:
        if name in written.tags:
            try:
                tag_result = result_from_pdn(written.tags[name], rules)
            except PdnTagError as e:
                raise PdnTagError(f"the {name} tag: {e.reason}", written.tag_lines[name]) from None
            tag_name = name
            break
    marks = [t for t in written.tokens if t.kind == "result"]
    if marks and marks[-1].text != "*":
        mark = result_from_pdn(marks[-1].text, rules)
        if tag_name is not None and mark is not tag_result:
            notes.append(
                f"line {marks[-1].line}: the {tag_name} tag says "
                f"{written.tags[tag_name]!r}, the moves end with {marks[-1].text!r}: "
                "read as the moves say"
            )
        return mark
    return tag_result


def _start(written: GameText, rules: Rules, moves: list[Token], notes: list[str]) -> Game:
    """The game at the record's start: its FEN tag (with a known or a guessed side to
    move), else the rule set's start position."""
    fen = written.tags.get("FEN", "").strip().strip('"').strip()
    line = written.tag_lines.get("FEN")
    if not fen:
        return Game(rules, automatic_draws=False)
    if fen[:1] == "?":
        # The side to move is not known ("?"): the one whose move comes first; numbering
        # ("1. ..." / "1...") says which player that is when the move fits both.
        first = "W" if rules.first_to_move is Color.WHITE else "B"
        second = "B" if first == "W" else "W"
        sides = [second, first] if _starts_with_second_player(written.tokens) else [first, second]
        fen = fen[1:]
    elif fen[:1].upper() in ("W", "B"):
        sides, fen = [fen[0].upper()], fen[1:]
    else:
        sides = [""]
    for side in sides:
        game = _game_from_fen(rules, side + fen, line, notes)
        if len(sides) == 1 or not moves:
            return game
        try:
            game.position.parse_move(moves[0].text)
            return game
        except AmbiguousMoveError:
            return game
        except EngineError:
            continue
    return _game_from_fen(rules, sides[0] + fen, line, [])


def _game_from_fen(rules: Rules, fen: str, line: int | None, notes: list[str]) -> Game:
    try:
        return Game(rules, fen, automatic_draws=False)
    except InvalidFenError as e:
        error = e
    # Problem collections (CheckerBoard files) sometimes list a man on its own crowning
    # row: a man there would have been crowned on arrival, so it is read as a king.
    crowned, stranded = _crown_stranded_men(rules, fen)
    if stranded:
        try:
            game = Game(rules, crowned, automatic_draws=False)
        except EngineError:
            pass
        else:
            kings = "a king" if len(stranded) == 1 else "kings"
            notes.append(
                f"line {line}: the FEN tag lists a man on its crowning row "
                f"({', '.join(stranded)}): read as {kings}"
            )
            return game
    raise PdnTagError(f"the FEN tag is wrong: {error}", line) from None


def _crown_stranded_men(rules: Rules, fen: str) -> tuple[str, list[str]]:
    fields = fen.strip().rstrip(".").split(":")
    stranded: list[str] = []
    for i, listed in enumerate(fields[1:], start=1):
        colour = {"W": Color.WHITE, "B": Color.BLACK}.get(listed.strip()[:1].upper())
        if colour is None:
            continue
        last_row = rules.promotion_mask(colour)
        items = listed.strip()[1:].split(",")
        for j, item in enumerate(items):
            label = item.strip()
            if not label or label[0] in "Kk":
                continue
            try:
                sq = rules.parse_square(label, allow_numbers=rules.fen_accepts_numbers)
            except EngineError:
                continue  # a range, or a bad label the FEN reader names itself
            if last_row >> sq & 1:
                items[j] = "K" + label
                stranded.append(f"{'white' if colour is Color.WHITE else 'black'} {label}")
        fields[i] = listed.strip()[:1] + ",".join(items)
    return ":".join(fields), stranded


def _starts_with_second_player(tokens: list[Token]) -> bool:
    for token in tokens:
        if token.kind == "move":
            return False
        if token.kind == "ellipsis" or (token.kind == "number" and token.text.endswith("..")):
            return True
    return False


def _label(game: Game) -> str:
    """The PDN number of the next move: ``12.`` for the first player, ``12...`` else."""
    offset = 0 if game.start_position.side_to_move is game.rules.first_to_move else 1
    ply = len(game.moves) + offset
    return f"{ply // 2 + 1}{'.' if ply % 2 == 0 else '...'}"


def _choose_capture(game: Game, token: Token, rest: list[Token], recorded: Result | None) -> Move:
    """A short capture naming several captures that take different pieces: the one the
    rest of the record fits (its next moves, then its result), when only one does."""
    pos = game.position
    candidates = _captures_named(pos, token.text)
    after = {id(m): _replay_rest(game, m, rest) for m in candidates}
    fitting = [m for m in candidates if after[id(m)] is not None]
    if len(fitting) == 1:
        return fitting[0]
    if len(fitting) > 1 and recorded is not None:
        # The moves fit both: the one that ends the game on the board as recorded.
        ending = [m for m in fitting if _ends_as(after[id(m)], recorded)]
        if len(ending) == 1:
            return ending[0]
    names = " and ".join(
        f"{m} (taking {', '.join(pos.rules.square_name(s) for s in m.captured)})"
        for m in (fitting or candidates)
    )
    if not rest:
        why = "no move follows, and the result does not tell which"
    else:
        fit = "both" if fitting else "neither"
        why = f"the moves after it, from {rest[0].written!r}, fit {fit}"
    raise PdnAmbiguousMoveError(
        f"move {_label(game)} {token.written!r} matches {names}; {why}: write the full path",
        token.line,
    )


def _captures_named(pos: Position, text: str) -> list[Move]:
    """The legal moves whose path runs through the squares ``text`` names, in order."""
    path, _ = parse_path(pos, text)
    found: list[Move] = []
    for m in pos.legal_moves():
        same_ends = m.path[0] == path[0] and m.path[-1] == path[-1]
        if same_ends and _in_order(path, m.path) and m not in found:
            found.append(m)
    return found


def _replay_rest(game: Game, move: Move, rest: list[Token], depth: int = 0) -> Game | None:
    """The game after ``move`` and the moves of ``rest``; None if one of them is illegal.
    A later short capture that is ambiguous too is tried each way (a few levels deep):
    the wrong first choice often shows only there."""
    trial = game.copy()
    trial.play(move)
    for i, token in enumerate(rest):
        if trial.is_over:
            return None
        try:
            trial.play(token.text)
        except AmbiguousMoveError:
            if depth >= 3:
                return trial  # legal so far; that capture is resolved in its turn
            for inner in _captures_named(trial.position, token.text):
                ended = _replay_rest(trial, inner, rest[i + 1 :], depth + 1)
                if ended is not None:
                    return ended
            return None
        except EngineError:
            return None
    return trial


def _ends_as(game: Game | None, recorded: Result) -> bool:
    return game is not None and game.is_over and game.result is recorded


def _in_order(short: list[int], long: tuple[int, ...]) -> bool:
    it = iter(long)
    return all(s in it for s in short)


# --- writing ---------------------------------------------------------------------------


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def write_pdn(game: Game, tags: dict[str, str] | None = None) -> str:
    """One game as PDN: the tags given (Result, GameType, SetUp and FEN from the game)
    and the moves numbered from the first player, with the rule set's result form."""
    rules = game.rules
    result = result_to_pdn(game.result, rules)
    merged = {"Event": "Kondavo game", "White": "?", "Black": "?"}  # see _kept
    merged.update({k: v for k, v in (tags or {}).items() if k not in _WRITTEN_FROM_GAME})
    merged["Result"] = result
    merged["GameType"] = rules.gametype
    if game.start_position != Position.start(rules):
        merged["SetUp"] = "1"  # PDN: a FEN tag comes with SetUp "1"
        merged["FEN"] = game.start_fen
    ordered = [k for k in _TAG_ORDER if k in merged] + [k for k in merged if k not in _TAG_ORDER]
    lines = [f'[{k} "{_escape(str(merged[k]))}"]' for k in ordered]
    offset = 0 if game.start_position.side_to_move is rules.first_to_move else 1
    words = []
    for i, text in enumerate(game.notation):
        ply = i + offset
        if ply % 2 == 0:
            words.append(f"{ply // 2 + 1}.")
        elif i == 0:
            words.append(f"{ply // 2 + 1}...")
        words.append(text)
    words.append(result)
    return "\n".join(lines) + "\n\n" + textwrap.fill(" ".join(words), 79) + "\n"


def write_pdn_games(games: list[Game]) -> str:
    """Several games as one PDN file, each with its own ``tags`` (as read), a blank line apart."""
    return "\n".join(write_pdn(g, getattr(g, "tags", {})) for g in games)


def round_trips(game: Game) -> bool:
    """Written and read again, ``game`` comes back equal: rule set, start, moves, result,
    tags (those the writer sets from the game apart) and the draws our rules noted."""
    tags = getattr(game, "tags", {})
    try:
        again = read_pdn(write_pdn(game, tags), game.rules)
    except InvalidPdnError:
        return False
    return (
        again.rules == game.rules
        and again.start_fen == game.start_fen
        and again.notation == game.notation
        and again.result == game.result
        and again.draws_passed == game.draws_passed
        and _kept(again.tags) == _kept(tags)  # type: ignore[attr-defined]
    )


def _kept(tags: dict[str, str]) -> dict[str, str]:
    defaults = {"Event": "Kondavo game", "White": "?", "Black": "?"}
    return {k: v for k, v in {**defaults, **tags}.items() if k not in _WRITTEN_FROM_GAME}
