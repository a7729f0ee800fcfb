"""PDN games: tags (with each rule set's ``GameType``), movetext, result."""

from __future__ import annotations

import re
import textwrap

from .errors import EngineError, InvalidPdnError
from .game import Game, Reason, Result
from .position import Position
from .rules import Rules
from .variants import VARIANTS

_MAX_LEN = 1_000_000
_TAG = re.compile(r'^\s*\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_RESULTS = {
    "1-0": Result.WHITE_WINS, "2-0": Result.WHITE_WINS,
    "0-1": Result.BLACK_WINS, "0-2": Result.BLACK_WINS,
    "1/2-1/2": Result.DRAW, "1-1": Result.DRAW,
    "*": None,
}
_MOVE_NUMBER = re.compile(r"^\d+\.+$|^\d+\.+(?=\S)")
_NAG = re.compile(r"^\$\d+$")
_TAG_ORDER = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "GameType", "FEN")


def _rules_for_gametype(value: str) -> Rules:
    number = value.split(",")[0].strip()
    for rules in VARIANTS.values():
        if rules.gametype.split(",")[0] == number:
            return rules
    known = ", ".join(f"{r.gametype.split(',')[0]} ({r.id})" for r in VARIANTS.values())
    raise InvalidPdnError(f"GameType {value!r} is not one Kondavo plays: known types are {known}")


def _strip_nested(text: str, open_: str, close: str) -> str:
    out, depth = [], 0
    for ch in text:
        if ch == open_:
            depth += 1
        elif ch == close and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def read_pdn(text: str, rules: Rules | None = None) -> Game:
    """The first game in ``text``. ``rules`` is used when there is no GameType tag."""
    if not isinstance(text, str):
        raise InvalidPdnError("a PDN game must be text")
    if len(text) > _MAX_LEN:
        raise InvalidPdnError(f"PDN of {len(text)} characters is too long")
    tags: dict[str, str] = {}
    body: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            m = _TAG.match(line)
            if not m:
                raise InvalidPdnError(f"{line.strip()!r} is not a PDN tag: write [Name \"value\"]")
            tags[m.group(1)] = m.group(2)
        else:
            body.append(line)
    if "GameType" in tags:
        found = _rules_for_gametype(tags["GameType"])
        if rules is not None and found != rules:
            raise InvalidPdnError(
                f"GameType {tags['GameType']!r} is {found.name_en}, not {rules.name_en}"
            )
        rules = found
    elif rules is None:
        rules = VARIANTS["international"]  # PDN's default GameType is 20
    movetext = _strip_nested(_strip_nested("\n".join(body), "{", "}"), "(", ")")
    movetext = re.sub(r";[^\n]*", " ", movetext)  # rest-of-line comments
    try:
        game = Game(rules, tags.get("FEN") or None)
    except EngineError as e:
        raise InvalidPdnError(f"the FEN tag is wrong: {e}") from None
    recorded: Result | None = _RESULTS.get(tags.get("Result", "*"))
    for raw in movetext.split():
        token = _MOVE_NUMBER.sub("", raw)
        if not token or _NAG.match(token):
            continue
        if token in _RESULTS:
            recorded = _RESULTS[token]
            break
        if game.is_over:
            raise InvalidPdnError(f"move {token!r} comes after the game ended "
                                  f"({game.reason.value if game.reason else ''})")
        try:
            game.play(token.rstrip("!?"))
        except EngineError as e:
            n = len(game.moves) + 1
            raise InvalidPdnError(f"move {n} ({token!r}): {e}") from None
    if recorded is not None and not game.is_over:
        game.finish(recorded, Reason.RECORDED)
    game.tags = tags  # type: ignore[attr-defined]
    return game


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def write_pdn(game: Game, tags: dict[str, str]) -> str:
    rules = game.rules
    result = game.result.pdn if game.result else "*"
    merged = {"Event": "Kondavo game", "White": "?", "Black": "?", **tags}
    merged["Result"] = result
    merged["GameType"] = rules.gametype
    if game.start_position != Position.start(rules):
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
