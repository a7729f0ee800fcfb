"""Worked examples for the rules pages, as boards a client draws without a rule: each
position's pieces before and after the move shown, and the move's path and captures.

The examples are data (``rule_examples.json``: a FEN, the move, and a move the rule set
refuses or also allows there); the engine plays each one, so an example that stopped
being true would fail ``tests/server/test_rule_examples.py`` rather than mislead.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from engine import Game, get_rules
from server.core import wire

_DATA = Path(__file__).with_name("rule_examples.json")


@cache
def _all() -> dict[str, list[dict[str, str]]]:
    data: dict[str, list[dict[str, str]]] = json.loads(_DATA.read_text(encoding="utf-8"))
    data.pop("_about", None)
    return data


def _board(game: Game) -> list[list[Any]]:
    return list(wire.pieces(game))


@cache
def examples(variant: str) -> dict[str, Any]:
    """The start position and the worked examples of one rule set (``get_rules`` raises
    ``UnknownVariantError`` for an unknown id)."""
    rules = get_rules(variant)
    shown = []
    for example in _all().get(rules.id, []):
        game = Game(rules, example["fen"])
        before = _board(game)
        side = game.position.side_to_move.value
        move = game.play(example["move"])
        shown.append(
            {
                "id": example["id"],
                "fen": example["fen"],
                "side_to_move": side,
                "pieces": before,
                "move": {
                    "notation": game.notation[-1],
                    "path": wire.labels(rules.id, move.path),
                    "captured": wire.labels(rules.id, move.captured),
                },
                "after": _board(game),
                "refused": example.get("refused"),
                "also_legal": example.get("also_legal"),
            }
        )
    return {
        "variant": rules.id,
        "board": wire.layout(rules.id),
        "start": _board(Game(rules)),
        "examples": shown,
    }
