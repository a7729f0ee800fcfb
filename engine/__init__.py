"""Kondavo's rules engine: seven rule sets as data, bitboard positions, notation,
FEN and PDN, and the game's termination and draw rules. Pure Python, no I/O."""

from .errors import (
    AmbiguousMoveError,
    EngineError,
    GameOverError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidPdnError,
    InvalidSquareError,
    PdnAmbiguousMoveError,
    PdnMoveError,
    PdnSyntaxError,
    PdnTagError,
    UnknownVariantError,
)
from .game import Game, Reason, Result, Status
from .move import Move
from .position import Position
from .rules import Color, CrowningInCapture, DrawRule, Rules
from .variants import DEFAULT_VARIANT, VARIANTS, get_rules

__all__ = [
    "DEFAULT_VARIANT",
    "AmbiguousMoveError",
    "Color",
    "CrowningInCapture",
    "DrawRule",
    "EngineError",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidPdnError",
    "InvalidSquareError",
    "Move",
    "PdnAmbiguousMoveError",
    "PdnMoveError",
    "PdnSyntaxError",
    "PdnTagError",
    "Position",
    "Reason",
    "Result",
    "Rules",
    "Status",
    "UnknownVariantError",
    "VARIANTS",
    "get_rules",
]
