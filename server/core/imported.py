"""Imported games as the import API answers them: every game of a PDN text (or one FEN)
read by the engine, with the position after every ply, so a client can replay it
without knowing any rule.

Pure: text in, JSON-ready dicts out. The reader is ``engine.pdn.read_pdn_games``; a
game it refuses comes with the reader's sentence, the line it names and that line's
text, and the games after it are still read.
"""

from __future__ import annotations

from typing import Any

from engine import EngineError, Game, Rules
from engine.errors import (
    InvalidPdnError,
    PdnAmbiguousMoveError,
    PdnMoveError,
    PdnSyntaxError,
    PdnTagError,
)
from engine.pdn import PdnGame, read_pdn_games, rules_for_gametype
from protocol.messages import ErrorCode
from server.core import wire

# Most specific first: an ambiguous move is a move error too.
_PDN_CODES: tuple[tuple[type[InvalidPdnError], ErrorCode], ...] = (
    (PdnAmbiguousMoveError, ErrorCode.PDN_AMBIGUOUS_MOVE),
    (PdnMoveError, ErrorCode.PDN_MOVE),
    (PdnTagError, ErrorCode.PDN_TAG),
    (PdnSyntaxError, ErrorCode.PDN_SYNTAX),
)


def pdn_games(text: str, rules: Rules) -> list[dict[str, Any]]:
    """Every game of ``text``; ``rules`` serves the games without a GameType tag.
    Raises ``InvalidPdnError`` only for the text as a whole (never for one game)."""
    lines = text.split("\n")  # the reader counts lines by "\n" alone
    return [_game(found, rules, lines) for found in read_pdn_games(text, rules)]


def fen_game(fen: str, rules: Rules) -> dict[str, Any]:
    """One position as a game without moves; raises ``EngineError`` for a bad FEN."""
    game = Game(rules, fen.strip(), automatic_draws=False)
    return _answer(game, rules, index=0, line=1, tags={}, notes=[])


def layouts(games: list[dict[str, Any]]) -> dict[str, Any]:
    """The board geometry of every rule set the games use, once each."""
    return {g["variant"]: wire.layout(g["variant"]) for g in games if g["variant"]}


def _game(found: PdnGame, rules: Rules, lines: list[str]) -> dict[str, Any]:
    if found.game is not None:
        return _answer(
            found.game, found.game.rules, found.index, found.line, found.tags, found.notes
        )
    assert found.error is not None
    return {
        "index": found.index,
        "line": found.line,
        "variant": _variant_of(found.tags, rules),
        "tags": found.tags,
        "notes": found.notes,
        "error": _error(found.error, lines),
    }


def _answer(
    game: Game, rules: Rules, index: int, line: int, tags: dict[str, str], notes: list[str]
) -> dict[str, Any]:
    position = game.start_position
    fens = [position.fen()]
    for move in game.moves:
        position = position.play(move)
        fens.append(position.fen())
    # Where the board itself ends the game (no piece or no move left), "play from here"
    # has nothing to play; the client learns it here rather than from a rule.
    over_at = len(game.moves) if not position.legal_moves() else None
    return {
        "index": index,
        "line": line,
        "variant": rules.id,
        "tags": tags,
        "notes": notes,
        "moves": [move.to_dict() for move in game.moves],
        "starts_second": wire.starts_second(game),
        "fens": fens,
        "over_at": over_at,
        "result": game.result.value if game.result is not None else None,
        "reason": game.reason.value if game.reason is not None else None,
        "draws_passed": [{"ply": ply, "reason": reason.value} for ply, reason in game.draws_passed],
        "error": None,
    }


def _error(error: InvalidPdnError, lines: list[str]) -> dict[str, Any]:
    code = next((c for kind, c in _PDN_CODES if isinstance(error, kind)), ErrorCode.PDN_INVALID)
    line = error.line
    shown = lines[line - 1].rstrip("\r") if line is not None and 0 < line <= len(lines) else None
    return {"code": code.value, "line": line, "message": error.reason, "line_text": shown}


def _variant_of(tags: dict[str, str], rules: Rules) -> str | None:
    """The rule set a refused game was written for, when its GameType names one."""
    if "GameType" not in tags:
        return rules.id
    try:
        return rules_for_gametype(tags["GameType"]).id
    except EngineError:
        return None
