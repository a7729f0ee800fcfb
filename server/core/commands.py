"""What can happen to a room besides what a player sends: seats, sockets and time.

What players and spectators send is the protocol's own command list
(``protocol.messages.Command``: a move, a draw offer, a chat line...), handed to the
room as it was decoded, inside a ``Sent`` that says who sent it. There is no second
list of those here: a new command is a message in ``protocol/messages.py`` and a
handler in ``room.py``, and nothing in between.

``by`` is the side of the seat that sent the command, or None for a spectator.
Anything random (new ids, new tokens) is made by the adapter and passed in, so the
room stays a pure function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol import messages as m
from server.core.record import Side


@dataclass(frozen=True)
class Fresh:
    """Ids and secrets for a game the room may create (a rematch)."""

    game_id: str
    white_token: str
    black_token: str


@dataclass(frozen=True, init=False)
class Sent:
    """A command a socket (or the computer) sent: the protocol message and who sent it.

    ``name``: a spectator's chosen name, for its chat lines (players' names come from
    their seats). ``fresh``: makes the ids and tokens of a new game, called only if the
    command starts a rematch (most commands never need one, and making secrets costs).
    """

    by: Side | None
    message: m.Command
    name: str | None = None
    fresh: Callable[[], Fresh] | None = None

    def __init__(
        self,
        by: Side | None,
        message: m.Command,
        name: str | None = None,
        fresh: Callable[[], Fresh] | None = None,
    ):
        # Not the frozen dataclass's own, which sets each field through
        # object.__setattr__: one is made for every move (bench/relay.py).
        self.__dict__.update(by=by, message=message, name=name, fresh=fresh)


@dataclass(frozen=True)
class Join:
    token: str  # the new seat's token, made by the adapter
    invite: str | None = None
    name: str | None = None
    player: str | None = None  # the joiner's public player id
    rating: int | None = None  # its rating in this rule set, looked up by the adapter
    provisional: bool = False


@dataclass(frozen=True)
class Connect:
    by: Side
    name: str | None = None  # the name the player's hello gave (cleaned), to show from now


@dataclass(frozen=True)
class Disconnect:
    by: Side


@dataclass(frozen=True)
class MarkRated:
    """The finished rated game's result reached both ratings: record it, and tell all.

    ``ratings``: per side ``{"before", "after", "diff", "provisional"}``.
    """

    ratings: dict[str, dict[str, object]]


@dataclass(frozen=True)
class Tick:
    """Time has passed: let flags fall and claims open."""


Command = Sent | Join | Connect | Disconnect | MarkRated | Tick
