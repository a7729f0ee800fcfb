"""What can happen to a room: commands from players, spectators, sockets and time.

``by`` is the side of the seat that sent the command, or None for a spectator.
Anything random (new ids, new tokens) is made by the adapter and passed in, so the
room stays a pure function.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.core.record import Side


@dataclass(frozen=True)
class Fresh:
    """Ids and secrets for a game the room may create (a rematch)."""

    game_id: str
    white_token: str
    black_token: str


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


@dataclass(frozen=True, init=False)
class PlayMove:
    by: Side | None
    path: tuple[str, ...] | None = None
    notation: str | None = None
    ack: int | None = None
    v: int | None = None  # the version the move was made against

    def __init__(
        self,
        by: Side | None,
        path: tuple[str, ...] | None = None,
        notation: str | None = None,
        ack: int | None = None,
        v: int | None = None,
    ):
        # Not the frozen dataclass's own, which sets each field through
        # object.__setattr__: this is made for every move, and that was most of its cost.
        self.__dict__.update(by=by, path=path, notation=notation, ack=ack, v=v)


@dataclass(frozen=True)
class OfferDraw:
    by: Side | None


@dataclass(frozen=True)
class AcceptDraw:
    by: Side | None


@dataclass(frozen=True)
class DeclineDraw:
    by: Side | None


@dataclass(frozen=True)
class Resign:
    by: Side | None


@dataclass(frozen=True)
class Abort:
    by: Side | None


@dataclass(frozen=True)
class AskTakeback:
    """Take back my last move (and the opponent's reply, if it came already)."""

    by: Side | None


@dataclass(frozen=True)
class AcceptTakeback:
    by: Side | None


@dataclass(frozen=True)
class DeclineTakeback:
    by: Side | None


@dataclass(frozen=True)
class OfferRematch:
    by: Side | None
    fresh: Fresh | None = None  # used when the opponent had already offered


@dataclass(frozen=True)
class AcceptRematch:
    by: Side | None
    fresh: Fresh | None = None


@dataclass(frozen=True)
class DeclineRematch:
    by: Side | None


@dataclass(frozen=True)
class Claim:
    """The opponent is gone: claim the game as a win, or as a draw."""

    by: Side | None
    draw: bool = False


@dataclass(frozen=True)
class Chat:
    by: Side | None
    text: str
    name: str | None = None  # a spectator's chosen name; players' names come from seats


@dataclass(frozen=True)
class MarkRated:
    """The finished rated game's result reached both ratings: record it, and tell all.

    ``ratings``: per side ``{"before", "after", "diff", "provisional"}``.
    """

    ratings: dict[str, dict[str, object]]


@dataclass(frozen=True)
class Tick:
    """Time has passed: let flags fall and claims open."""


Command = (
    Join
    | Connect
    | Disconnect
    | PlayMove
    | OfferDraw
    | AcceptDraw
    | DeclineDraw
    | Resign
    | Abort
    | AskTakeback
    | AcceptTakeback
    | DeclineTakeback
    | OfferRematch
    | AcceptRematch
    | DeclineRematch
    | Claim
    | Chat
    | MarkRated
    | Tick
)
