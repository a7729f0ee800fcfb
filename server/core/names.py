"""Display names: one cleaning for every path a name comes in by (HTTP and ``hello``).

A name is shown to other people beside the board, in the lobby, in PDN tags and in
the rating list, so it must not be able to reverse the text around it (bidi
overrides), hide (zero-width and other invisible characters), break a line or a
PDN tag (newlines, NUL), or pretend to be empty.

>>> clean_name("  Ada\\u202e  Lovelace\\u200b ")
'Ada Lovelace'
>>> clean_name("\\u200b\\u2800")
Traceback (most recent call last):
...
server.core.names.InvalidName: [name/empty] A name needs at least one visible character.
"""

from __future__ import annotations

import unicodedata

from protocol.messages import NAME_MAX_CHARS, ErrorCode, sentence

# Characters that are letters or symbols to Unicode but draw nothing: Hangul fillers,
# the braille blank, and the like. Kept out of a name like the format characters (Cf).
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")


class InvalidName(ValueError):
    """A name that cannot be shown; ``code`` for programs, ``sentence`` for people."""

    def __init__(self, code: ErrorCode, **slots: object):
        self.code = code
        self.sentence = sentence(code, **slots)
        super().__init__(f"[{code}] {self.sentence}")


def _kept(ch: str) -> bool:
    # C*: controls (NUL, newlines), format (bidi overrides and isolates, zero-width
    # spaces and joiners, the BOM), surrogates, private use, unassigned.
    return unicodedata.category(ch)[0] != "C" and ch not in _BLANKS


def _visible(ch: str) -> bool:
    # Spaces, and marks with nothing to sit on, show nothing by themselves.
    return unicodedata.category(ch)[0] not in ("Z", "M")


def clean_name(raw: str) -> str:
    """``raw`` as a name fit to show, or ``InvalidName``: NFC, invisible characters
    removed, any run of spaces (line breaks included) one space, trimmed, at most
    ``NAME_MAX_CHARS`` characters, at least one of them visible."""
    text = unicodedata.normalize("NFC", raw)
    text = "".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or _kept(ch))
    text = " ".join(text.split())
    if not any(_visible(ch) for ch in text):
        raise InvalidName(ErrorCode.NAME_EMPTY)
    if len(text) > NAME_MAX_CHARS:
        raise InvalidName(ErrorCode.NAME_TOO_LONG, limit=NAME_MAX_CHARS)
    return text
