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
    """A PDN game text that cannot be read.

    ``line`` is the line of the text where the problem is (1 = the first), when known;
    the message names it too, so an import page can show the sentence beside that line.
    """

    kind = "pdn"  # a short name of the problem, for summaries over many games

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line
        self.reason = message  # the sentence without its line number


class PdnSyntaxError(InvalidPdnError):
    """Text that is not PDN: a broken tag, a comment or variation never closed, a word
    that is neither a move, a move number, a result nor a comment."""

    kind = "syntax"


class PdnTagError(InvalidPdnError):
    """A tag whose value Kondavo cannot use: an unknown GameType, a bad FEN, a result
    that is not a PDN result."""

    kind = "tag"


class PdnMoveError(InvalidPdnError):
    """A move of the record that cannot be replayed: unreadable, illegal, or after the end."""

    kind = "move"


class PdnAmbiguousMoveError(PdnMoveError):
    """A short capture (``10x26``) that names two captures, and the next move does not
    tell which was played; the message names both."""

    kind = "ambiguous move"


class GameOverError(EngineError):
    """A move offered to a game that has already ended."""
