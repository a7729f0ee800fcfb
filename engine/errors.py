"""The engine's errors: all ``ValueError`` subclasses whose message quotes the input.

Model: python-chess (``InvalidMoveError``, ``IllegalMoveError``, ``AmbiguousMoveError``).
"""


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class UnknownVariantError(EngineError):
    """A rule set id that Kondavo does not know."""


class InvalidSquareError(EngineError):
    """A square label that does not exist or is not a playing square."""


class InvalidFenError(EngineError):
    """A FEN string that cannot be read for this rule set."""


class InvalidMoveError(EngineError):
    """Move text that is not well formed (syntax, unknown squares)."""


class IllegalMoveError(EngineError):
    """A well-formed move that is not legal in this position; the message says why."""


class AmbiguousMoveError(EngineError):
    """Move text that matches several legal moves; the message lists them."""


class InvalidPdnError(EngineError):
    """A PDN game text that cannot be read."""


class GameOverError(EngineError):
    """A move offered to a game that has already ended."""
