"""The stored game record: everything a node needs to continue a game, as plain data.

A record round-trips through ``to_dict``/``from_dict`` so any store can keep it as
msgpack; nodes hold nothing that is not in it. Times are server milliseconds.

Speed work, kept by ``bench/relay.py``: the room copies the record on every command
and the stores turn it into plain data, so ``copy`` and ``to_dict`` are written by hand
(``_plain``, ``_copied``) instead of ``copy.deepcopy`` and ``dataclasses.asdict``,
sharing the immutable leaves; the rest of the module is the record itself.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from engine import Reason

Side = Literal["white", "black"]
SIDES: tuple[Side, Side] = ("white", "black")
Status = Literal["waiting", "playing", "finished", "aborted"]
# Chat lines kept in the record, so a full snapshot can show recent conversation.
CHAT_KEPT = 50


def other(side: Side) -> Side:
    return "black" if side == "white" else "white"


@dataclass
class SeatRecord:
    """One player's seat. ``token`` is the secret that proves a socket sits here."""

    token: str
    name: str | None = None
    sockets: int = 0  # open sockets of this player, on all nodes
    gone_since: int | None = None  # when the last socket left (or the seat was taken)
    claim_announced: bool = False  # the opponent has been told it may claim
    bot: bool = False  # the computer's seat: never "gone", never claimed against
    # The player's public id (``ratings.public_id`` of the browser's secret id, or
    # ``computer-N``), and its rating in this rule set when it sat down (whole points).
    player: str | None = None
    rating: int | None = None
    provisional: bool = False
    # The last command of each type this seat had applied, by type: "<the version it was
    # chosen at> <its identity> <the version after it>". A resend of it gets the same
    # ack (``room._sent``).
    done: dict[str, str] = field(default_factory=dict)
    # What is left of the seat's lag quota (``core.lag``); None before its first timed move.
    lag_quota_ms: int | None = None

    def copy(self) -> SeatRecord:
        """A copy: every field is an immutable scalar or string but ``done``, a map of
        strings."""
        twin = object.__new__(SeatRecord)
        body = twin.__dict__ = self.__dict__.copy()
        if body["done"]:
            body["done"] = body["done"].copy()
        else:
            body["done"] = {}
        return twin


@dataclass
class GameRecord:
    id: str
    variant: str
    created_at: int
    start_fen: str | None = None  # None: the variant's start position
    moves: list[str] = field(default_factory=list)  # notation, in order
    fen: str = ""  # current position, kept for listings that must not replay
    side_to_move: Side = "white"
    status: Status = "waiting"
    result: Literal["white", "black", "draw"] | None = None
    reason: Reason | None = None  # why it ended: the engine's reasons, the server's too
    opponent: Literal["friend", "open", "computer"] = "friend"
    level: int | None = None
    rated: bool = False
    rated_applied: bool = False  # a rated result has reached both ratings (set once)
    invite: str | None = None  # the friend's invite token; None for open games
    seats: dict[str, SeatRecord | None] = field(default_factory=dict)
    # Fischer clock: None = untimed. remaining_ms holds each side's time at the start
    # of its current turn; turn_started is when the side to move's clock began to run.
    initial_ms: int | None = None
    increment_ms: int = 0
    remaining_ms: dict[str, int] = field(default_factory=dict)
    turn_started: int | None = None
    draw_offer: Side | None = None
    # Ply count at which a side's draw offer was declined: no new offer before a move.
    draw_declined_at: dict[str, int] = field(default_factory=dict)
    rematch_offer: Side | None = None
    rematch_game: str | None = None
    claim_after_ms: int = 30_000
    # A clocked game whose side to move has not made its first move this long after its
    # turn began is aborted (0: never). Set from the node's settings when it is created.
    first_move_ms: int = 0
    # Both clocks before each ply, two integers per ply (white's, black's): a takeback
    # puts them back. Plain integers, not a dict per ply: the room copies the record on
    # every command, and a list of leaves is copied without a walk.
    clocks_before: list[int] = field(default_factory=list)
    takeback_offer: Side | None = None
    # Per side: takebacks of theirs declined so far, and until when they may not ask.
    takebacks_declined: dict[str, int] = field(default_factory=dict)
    takeback_blocked_until: dict[str, int] = field(default_factory=dict)
    chat: list[dict[str, Any]] = field(default_factory=list)
    turn_since: int | None = None  # when the side to move's turn began (any clock)
    ended_at: int | None = None
    version: int = 0
    # Version of the event that produced the current position: moves made against an
    # older version were made against another board.
    position_version: int = 0

    @property
    def clocked(self) -> bool:
        return self.initial_ms is not None

    @property
    def over(self) -> bool:
        return self.status in ("finished", "aborted")

    @property
    def started(self) -> bool:
        """Both sides have moved. Before that nobody loses the game: it may be aborted
        (and is, by the first-move deadline) but not claimed against an absent player."""
        return len(self.moves) >= 2

    def seat(self, side: Side) -> SeatRecord | None:
        return self.seats.get(side)

    def moves_made_by(self, side: Side) -> int:
        """How many moves ``side`` has made (the first mover owns the even plies)."""
        first = other(self.side_to_move) if len(self.moves) % 2 else self.side_to_move
        n = len(self.moves)
        return (n + 1) // 2 if side == first else n // 2

    def running_clock(self) -> Side | None:
        """The side whose clock runs now: to move, playing, and past its own first move."""
        if not self.clocked or self.status != "playing" or self.turn_started is None:
            return None
        side = self.side_to_move
        return side if self.moves_made_by(side) >= 1 else None

    def time_left(self, side: Side, now: int) -> int:
        left = self.remaining_ms.get(side, 0)
        if self.running_clock() == side and self.turn_started is not None:
            left -= now - self.turn_started
        return max(0, left)

    def flag_time(self) -> int | None:
        """When the running clock reaches zero."""
        side = self.running_clock()
        if side is None or self.turn_started is None:
            return None
        return self.turn_started + self.remaining_ms.get(side, 0)

    def clocks(self, now: int) -> dict[str, Any] | None:
        """Clock readings at ``now`` as sent to clients."""
        if not self.clocked:
            return None
        return {
            "white": self.time_left("white", now),
            "black": self.time_left("black", now),
            "running": self.running_clock(),
        }

    def to_dict(self) -> dict[str, Any]:
        # Not dataclasses.asdict: it deep-copies every leaf, and this runs on every
        # command (the room copies the record, the store keeps one): it was the
        # largest single cost of relaying a move (bench/relay.py).
        body: dict[str, Any] = _plain(self)
        return body

    @classmethod
    def from_dict(cls, body: dict[str, Any]) -> GameRecord:
        body = dict(body)
        if body.get("reason") is not None:
            body["reason"] = Reason(body["reason"])
        body["seats"] = {
            side: _seat(seat) if seat is not None else None
            for side, seat in body.get("seats", {}).items()
        }
        return cls(**body)

    def copy(self) -> GameRecord:
        """A deep copy that shares only immutable leaves (as ``from_dict(to_dict())``)."""
        # The room copies the record on every command. Every field that can hold a
        # container has a default factory (a dataclass allows no mutable default), so
        # the others are leaves, shared by a copy of the instance's dict; only the
        # containers are copied: the moves (notation strings, by the field's type) and
        # the seats (scalars only) without a walk.
        body = self.__dict__.copy()
        body["moves"] = self.moves.copy()
        body["seats"] = {side: None if s is None else s.copy() for side, s in self.seats.items()}
        for name in _OTHER_CONTAINERS:
            value = body[name]
            # Often empty (no clock, no chat, no draw declined): no walk for those.
            body[name] = _copied(value) if value else type(value)()
        twin = object.__new__(GameRecord)
        twin.__dict__ = body
        return twin


# The fields of a record that hold containers (those made by a default factory) but the
# moves and the seats, which ``copy`` copies itself.
_OTHER_CONTAINERS = tuple(
    f.name
    for f in dataclasses.fields(GameRecord)
    if f.default_factory is not dataclasses.MISSING and f.name not in ("moves", "seats")
)


# Immutable leaves: shared by copies, never walked. Checked by exact type first, as
# most of a record is strings and integers (the moves, the clocks).
_LEAVES = frozenset({str, int, float, bool, type(None), bytes, Reason})


def _plain(value: Any) -> Any:
    """A deep copy of ``value`` as plain data (dataclasses become dicts); leaves are
    immutable scalars and strings, so they are shared, not copied."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    names = _field_names(kind)
    if names is None:
        return value
    return {name: _plain(getattr(value, name)) for name in names}


def _copied(value: Any) -> Any:
    """A deep copy of ``value`` that keeps dataclasses as they are; leaves are shared."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list:  # the moves, the chat: mostly leaves, checked here without a call
        return [v if type(v) in _LEAVES else _copied(v) for v in value]
    if kind is dict:
        return {k: v if type(v) in _LEAVES else _copied(v) for k, v in value.items()}
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    names = _field_names(kind)
    if names is None:
        return value
    if kind in _PLAIN_INIT:
        # Its __init__ only assigns the fields: fill the instance's dict directly.
        twin = object.__new__(kind)
        twin.__dict__.update(
            {k: v if type(v) in _LEAVES else _copied(v) for k, v in value.__dict__.items()}
        )
        return twin
    return kind(**{name: _copied(getattr(value, name)) for name in names})


def _field_names(kind: type) -> tuple[str, ...] | None:
    """A dataclass's field names (cached), or None for any other type."""
    try:
        return _FIELD_NAMES[kind]
    except KeyError:
        names = (
            tuple(f.name for f in dataclasses.fields(kind))
            if dataclasses.is_dataclass(kind)
            else None
        )
        _FIELD_NAMES[kind] = names
        return names


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}
_SEAT_FIELDS = frozenset(f.name for f in dataclasses.fields(SeatRecord))


def _seat(body: dict[str, Any]) -> SeatRecord:
    """A seat from plain data; fields it no longer has (a record stored by an older
    version, such as ``last_move_ack``) are dropped."""
    if body.keys() <= _SEAT_FIELDS:
        return SeatRecord(**body)
    return SeatRecord(**{k: v for k, v in body.items() if k in _SEAT_FIELDS})


_PLAIN_INIT = frozenset({GameRecord, SeatRecord})
