"""PDN text cut into game records: each game's own tags and its movetext tokens, with lines.

Reads the grammar of PDN 3.0 (the FMJD standard) and what real files add to it:
Dutch databases pad squares inside a move (``1- 6``, ``35x 4``), ``1. ... 35-40``
puts the dots apart, ``%`` starts an escape line, moves may follow a tag on its line,
a result may touch the next tag (``0-1[Event``). Comments (``{...}``, ``; ...``),
NAGs (``$3``), move strength (``!?``) and variations (``(...)``) are read and skipped.

This module knows no rules: ``engine.pdn`` replays the moves it finds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import InvalidPdnError, PdnSyntaxError

# Game termination markers: PDN 3.0's International type (2-0, 1-1, 0-2), its Default
# type (1-0, 1/2-1/2, 0-1), 0-0 (lost for both) and "*" (unfinished or unknown). Not
# followed by a digit, so "1-10" stays a move.
RESULT = r"(?:1/2-1/2|½-½|1-0|0-1|2-0|0-2|1-1|0-0|\*)(?![\w/-])"
_SQUARE = r"(?:\d+|[a-zA-Z]\d+)"
_TOKEN = re.compile(
    rf"""
    (?P<newline>\n)
  | (?P<space>[ \t\r\f\v\ufeff]+)
  | (?P<escape>%[^\n]*)
  | (?P<line_comment>;[^\n]*)
  | (?P<comment>\{{[^}}]*\}})
  | (?P<tag>\[\s*(?P<name>\w+)\s*"(?P<value>(?:[^"\\\n]|\\.)*)"\s*\])
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<result>{RESULT})
  | (?P<number>\d+[ \t]*\.+)
  | (?P<ellipsis>\.{{2,}}|…)
  | (?P<move>{_SQUARE}(?:[ \t]*[-xX:×][ \t]*{_SQUARE})+|[a-zA-Z]\d+(?:[a-zA-Z]\d+)+)[!?]*
  | (?P<strength>[!?]+)
  | (?P<word>[^\s\[\]{{}}()]+|.)
    """,
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(.)")
_SPACES = re.compile(r"\s+")
_SEPARATOR = re.compile(r"[-xX:×]")


@dataclass
class Token:
    """One word of movetext that matters for replay."""

    kind: str  # "move", "number", "ellipsis" or "result"
    text: str  # a move without its inner spaces and strength marks: "35x4"
    line: int
    written: str = ""  # as the file wrote it, for messages: "35x 4!"


@dataclass
class GameText:
    """One game as written: its tags and its movetext, before any rule is applied."""

    index: int  # 0 for the first game of the file
    line: int  # the line it starts on
    tags: dict[str, str] = field(default_factory=dict)
    tag_lines: dict[str, int] = field(default_factory=dict)
    tokens: list[Token] = field(default_factory=list)
    error: InvalidPdnError | None = None  # set when the text itself cannot be read

    @property
    def first_tag(self) -> str | None:
        return next(iter(self.tags), None)


def split_games(text: str) -> Iterator[GameText]:
    """Every game of ``text`` in order. A game whose text is broken comes with its
    ``error`` set, and reading goes on at the next game's first tag."""
    pos, line, end = 0, 1, len(text)
    index = 0
    game: GameText | None = None
    depth, depth_line = 0, 0  # variations open, and where the outermost opened

    def new_game(at_line: int) -> GameText:
        nonlocal index
        index += 1
        return GameText(index - 1, at_line)

    while pos < end:
        m = _TOKEN.match(text, pos)
        assert m is not None  # the last alternative matches any character
        kind, word = m.lastgroup or "word", m.group()
        start_line = line
        try:
            if kind == "newline":
                line += 1
            elif kind in ("space", "comment", "line_comment", "nag", "strength"):
                line += word.count("\n")
            elif kind == "escape":
                if text[text.rfind("\n", 0, pos) + 1 : pos].strip():
                    raise PdnSyntaxError(
                        f"{_quote(text, pos)}: '%' starts an escape line only "
                        "at the start of a line",
                        line,
                    )
            elif kind == "tag":
                line += word.count("\n")
                if depth:
                    raise PdnSyntaxError(
                        f"the variation opened on line {depth_line} is never "
                        "closed (a tag comes before its ')')",
                        depth_line,
                    )
                name, value = m.group("name"), _ESCAPE.sub(r"\1", m.group("value"))
                if game is not None and (game.tokens or name in game.tags):
                    # PDN 3.0: every game ends with its termination marker; only the
                    # last game of a file may leave it out.
                    game.error = game.error or PdnSyntaxError(
                        f"the game that starts on line {game.line} has no result at its end "
                        "(2-0, 1-1, 0-2, 1-0, 0-1, 1/2-1/2 or *) before the next game's "
                        "tags",
                        start_line,
                    )
                    yield game
                    game = None
                if game is None:
                    game = new_game(start_line)
                game.tags[name] = value
                game.tag_lines[name] = start_line
            elif kind == "open":
                if depth == 0:
                    depth_line = line
                depth += 1
            elif kind == "close":
                if depth == 0:
                    raise PdnSyntaxError("')' closes no variation", line)
                depth -= 1
            elif kind == "word":
                raise PdnSyntaxError(_word_error(text, pos, word), line)
            elif depth == 0:  # move, number, ellipsis, result of the main line
                if game is None:
                    game = new_game(start_line)
                written = word
                if kind == "move":
                    word = _SPACES.sub("", word).rstrip("!?")
                    if not _SEPARATOR.search(word):  # "a3b4": algebraic squares run together
                        word = "-".join(re.findall(r"[a-zA-Z]\d+", word))
                game.tokens.append(Token(kind, word, start_line, written))
                if kind == "result":
                    yield game
                    game = None
        except InvalidPdnError as e:
            if game is None:
                game = new_game(start_line)
            game.error = e
            pos = _next_game(text, m.end(), game.first_tag)
            line = 1 + text.count("\n", 0, pos)
            yield game
            game, depth = None, 0
            continue
        pos = m.end()
    if game is not None:
        if depth:
            game.error = PdnSyntaxError(
                f"the variation opened on line {depth_line} is never closed", depth_line
            )
        yield game


def _next_game(text: str, pos: int, first_tag: str | None) -> int:
    """Where the game after a broken one starts: the next line opening with the tag
    its games start with (``[Event`` mostly), else the end of the text."""
    name = re.escape(first_tag) if first_tag else r"\w+"
    m = re.compile(rf"\n[ \t]*\[\s*{name}\b").search(text, pos)
    return m.start() + 1 if m else len(text)


def _quote(text: str, pos: int) -> str:
    eol = text.find("\n", pos)
    rest = text[pos : eol if eol >= 0 else len(text)].strip()
    return repr(rest[:60] + ("..." if len(rest) > 60 else ""))


def _word_error(text: str, pos: int, word: str) -> str:
    if word == "[":
        return (
            f'{_quote(text, pos)} is not a PDN tag: write [Name "value"] with the value '
            "in double quotes, on one line"
        )
    if word == "}":
        return "'}' closes no comment (PDN comments do not nest)"
    if word == "{":
        return "a comment '{' is never closed with '}'"
    if word == "]":
        return "']' closes no tag"
    if word == ".":
        return "a lone '.' is neither a move number nor '...'"
    return f"{word!r} is neither a move, a move number, a result, a comment nor a tag"
