"""Every message of the Kondavo wire protocol, both directions, in one place.

A message is a msgpack map in one binary WebSocket frame (subprotocol
``kondavo.v1``), tagged by its ``t`` field. Each message is a frozen dataclass
below; its annotations are the schema. Decoding validates a frame against it and
fails only with ``ProtocolError`` (a code and a sentence for a person), never
with a library's exception, so nothing unexpected reaches a peer.

>>> decode_client(encode(Ping(n=7)))
Ping(n=7)
>>> decode_client(b"\\x93")
Traceback (most recent call last):
...
protocol.messages.ProtocolError: [frame/not_msgpack] The frame is not valid msgpack.

Model: lila-ws ``ClientOut.scala`` / ``ClientIn.scala``; websockets ``Protocol.parse``.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import operator
import threading
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import msgpack

PROTOCOL_VERSION = 1
SUBPROTOCOL = "kondavo.v1"
# Largest frame a client may send; the longest honest one (a chat line) is far smaller.
MAX_FRAME_BYTES = 8 * 1024
CHAT_MAX_CHARS = 140
NAME_MAX_CHARS = 30
# A name as sent may be longer: invisible characters are removed before it is measured
# (server/core/names.py), and a name refused there must not cost the socket its hello.
NAME_MAX_SENT = 200
# Integers must survive a JavaScript client, whose numbers are doubles.
_MAX_SAFE_INT = 2**53 - 1

Side = Literal["white", "black"]


class ErrorCode(enum.StrEnum):
    """Why a frame, a command or a request was refused. ``area/what`` like lila-ws."""

    # the frame itself
    FRAME_NOT_BINARY = "frame/not_binary"
    FRAME_NOT_MSGPACK = "frame/not_msgpack"
    FRAME_NOT_MAP = "frame/not_map"
    FRAME_TOO_LARGE = "frame/too_large"
    # the message inside it
    MSG_UNKNOWN_TYPE = "msg/unknown_type"
    MSG_MISSING_FIELD = "msg/missing_field"
    MSG_BAD_FIELD = "msg/bad_field"
    MSG_HELLO_FIRST = "msg/hello_first"
    MSG_HELLO_TWICE = "msg/hello_twice"
    PROTO_VERSION = "proto/version"
    RATE_LIMITED = "rate/limited"
    # moves
    MOVE_ILLEGAL = "move/illegal"
    MOVE_INVALID = "move/invalid"
    MOVE_AMBIGUOUS = "move/ambiguous"
    MOVE_NOT_YOUR_TURN = "move/not_your_turn"
    MOVE_STALE = "move/stale"
    MOVE_NO_OPPONENT = "move/no_opponent"
    GAME_BAD_VERSION = "game/bad_version"
    # seats and rooms
    SEAT_SPECTATOR = "seat/spectator"
    SEAT_BAD_TOKEN = "seat/bad_token"
    SEAT_TAKEN = "seat/taken"
    SEAT_BAD_INVITE = "seat/bad_invite"
    ROOM_NOT_FOUND = "room/not_found"
    # the game's course
    GAME_OVER = "game/over"
    GAME_NOT_OVER = "game/not_over"
    DRAW_ALREADY_OFFERED = "draw/already_offered"
    DRAW_NO_OFFER = "draw/no_offer"
    DRAW_TOO_SOON = "draw/too_soon"
    REMATCH_ALREADY_OFFERED = "rematch/already_offered"
    REMATCH_NO_OFFER = "rematch/no_offer"
    REMATCH_DONE = "rematch/done"
    REMATCH_NO_OPPONENT = "rematch/no_opponent"
    ABORT_TOO_LATE = "abort/too_late"
    CLAIM_OPPONENT_PRESENT = "claim/opponent_present"
    CLAIM_TOO_EARLY = "claim/too_early"
    CLAIM_NO_CLOCK = "claim/no_clock"
    CLAIM_NOT_STARTED = "claim/not_started"
    CHAT_EMPTY = "chat/empty"
    CHAT_TOO_LONG = "chat/too_long"
    CHAT_DUPLICATE = "chat/duplicate"
    RATED_NO_PLAYER = "rated/no_player"
    RATED_SAME_PLAYER = "rated/same_player"
    NAME_EMPTY = "name/empty"
    TAKEBACK_RATED = "takeback/rated"
    TAKEBACK_NOTHING = "takeback/nothing"
    TAKEBACK_ALREADY_ASKED = "takeback/already_asked"
    TAKEBACK_PENDING = "takeback/pending"
    TAKEBACK_NO_OFFER = "takeback/no_offer"
    TAKEBACK_TOO_SOON = "takeback/too_soon"
    NAME_TOO_LONG = "name/too_long"
    # HTTP API
    API_BAD_JSON = "api/bad_json"
    API_BAD_FIELD = "api/bad_field"
    API_BAD_VARIANT = "api/bad_variant"
    API_BAD_CLOCK = "api/bad_clock"
    API_BAD_FEN = "api/bad_fen"
    API_TOO_LARGE = "api/too_large"
    API_NOT_FOUND = "api/not_found"
    API_METHOD = "api/method"
    # a game of an imported PDN file that the reader refused (``POST /api/import``)
    PDN_SYNTAX = "pdn/syntax"
    PDN_TAG = "pdn/tag"
    PDN_MOVE = "pdn/move"
    PDN_AMBIGUOUS_MOVE = "pdn/ambiguous_move"
    PDN_INVALID = "pdn/invalid"
    COMPUTER_UNAVAILABLE = "computer/unavailable"
    ANALYSIS_GAME_IN_PLAY = "analysis/game_in_play"
    ANALYSIS_LIMITED = "analysis/limited"
    # the server's own trouble; the sentence never carries exception text
    SERVER_BUSY = "server/busy"
    SERVER_ERROR = "server/error"


# What a refusal says in words: one sentence per code, written here and nowhere else
# (the code is for programs, the sentence for people; the client may translate it).
# Where the words must come from the refusing site (the engine explaining a move, the
# field a request got wrong, a limit) the sentence has a named slot: ``sentence()``.
SENTENCES: dict[ErrorCode, str] = {
    ErrorCode.FRAME_NOT_BINARY: "Frames must be binary msgpack, not text.",
    ErrorCode.FRAME_NOT_MSGPACK: "The frame is not valid msgpack.",
    ErrorCode.FRAME_NOT_MAP: "A message must be a map with a 't' field.",
    ErrorCode.FRAME_TOO_LARGE: "The frame is larger than {limit} bytes.",
    ErrorCode.MSG_UNKNOWN_TYPE: "Unknown message type {type}.",
    ErrorCode.MSG_MISSING_FIELD: "Message '{type}' needs the field '{field}'.",
    ErrorCode.MSG_BAD_FIELD: "Field '{field}' of '{type}' must be {expected}.",
    ErrorCode.MSG_HELLO_FIRST: "Say hello first.",
    ErrorCode.MSG_HELLO_TWICE: "You already said hello.",
    ErrorCode.PROTO_VERSION: "This server speaks protocol {ours}, not {theirs}.",
    ErrorCode.RATE_LIMITED: "Too many {what}; try again a little later.",
    ErrorCode.MOVE_ILLEGAL: "Not a legal move: {why}.",
    ErrorCode.MOVE_INVALID: "Not a move: {why}.",
    ErrorCode.MOVE_AMBIGUOUS: "Not one move: {why}.",
    ErrorCode.MOVE_NOT_YOUR_TURN: "It is not your turn.",
    ErrorCode.MOVE_STALE: (
        "The board changed since you chose that move; here is the current position."
    ),
    ErrorCode.MOVE_NO_OPPONENT: "Nobody has taken the other seat yet.",
    ErrorCode.GAME_BAD_VERSION: (
        "This game has not reached version {v}; here is its current state."
    ),
    ErrorCode.SEAT_SPECTATOR: "Spectators can watch and chat, not play.",
    ErrorCode.SEAT_BAD_TOKEN: "This seat token is not valid here; you are watching.",
    ErrorCode.SEAT_TAKEN: "Both seats are taken; you can still watch.",
    ErrorCode.SEAT_BAD_INVITE: "This invitation is not valid for this game.",
    ErrorCode.ROOM_NOT_FOUND: "There is no game with this id.",
    ErrorCode.GAME_OVER: "The game is over.",
    ErrorCode.GAME_NOT_OVER: "A rematch can be offered once the game is over.",
    ErrorCode.DRAW_ALREADY_OFFERED: "You have already offered a draw.",
    ErrorCode.DRAW_NO_OFFER: "Your opponent has not offered a draw.",
    ErrorCode.DRAW_TOO_SOON: "Your offer was just declined; make a move before offering again.",
    ErrorCode.REMATCH_ALREADY_OFFERED: "You have already offered a rematch.",
    ErrorCode.REMATCH_NO_OFFER: "Your opponent has not offered a rematch.",
    ErrorCode.REMATCH_DONE: "The rematch has already started.",
    ErrorCode.REMATCH_NO_OPPONENT: "Nobody took the other seat.",
    ErrorCode.ABORT_TOO_LATE: "Both sides have moved; the game can no longer be aborted.",
    ErrorCode.CLAIM_OPPONENT_PRESENT: "Your opponent is still connected.",
    ErrorCode.CLAIM_TOO_EARLY: "You may claim in {seconds} seconds.",
    ErrorCode.CLAIM_NO_CLOCK: "Games without a clock cannot be claimed.",
    ErrorCode.CLAIM_NOT_STARTED: "Nobody can claim a game before both sides have moved.",
    ErrorCode.CHAT_EMPTY: "The message is empty.",
    ErrorCode.CHAT_TOO_LONG: "Chat lines are at most {limit} characters.",
    ErrorCode.CHAT_DUPLICATE: "You just said that.",
    ErrorCode.RATED_NO_PLAYER: "This game is rated: it needs your player id ('player').",
    ErrorCode.RATED_SAME_PLAYER: "You cannot play a rated game against yourself.",
    ErrorCode.NAME_EMPTY: "A name needs at least one visible character.",
    ErrorCode.NAME_TOO_LONG: "A name is at most {limit} characters.",
    ErrorCode.TAKEBACK_RATED: "Moves cannot be taken back in a rated game.",
    ErrorCode.TAKEBACK_NOTHING: "You have not made a move to take back.",
    ErrorCode.TAKEBACK_ALREADY_ASKED: "You have already asked; wait for the answer.",
    ErrorCode.TAKEBACK_PENDING: (
        "Your opponent has asked for a takeback: accept or decline it first."
    ),
    ErrorCode.TAKEBACK_NO_OFFER: "Your opponent has not asked for a takeback.",
    ErrorCode.TAKEBACK_TOO_SOON: (
        "Your last request was declined; you may ask again in {seconds} seconds."
    ),
    ErrorCode.API_BAD_JSON: "The request body must be a JSON object of at most {limit} bytes.",
    ErrorCode.API_BAD_FIELD: "'{field}' must be {expected}.",
    ErrorCode.API_BAD_VARIANT: "Unknown variant {variant}; choose one of {known}.",
    ErrorCode.API_BAD_CLOCK: "'{field}' must be {expected}.",
    ErrorCode.API_BAD_FEN: "Not a position to start from: {why}.",
    ErrorCode.API_TOO_LARGE: "The request body is larger than {limit} KiB; send less at a time.",
    ErrorCode.API_NOT_FOUND: "There is nothing at {path}.",
    ErrorCode.API_METHOD: "{path} does not take {method}; it takes {allowed}.",
    # An imported game the PDN reader refused carries the reader's own sentence; these
    # say the same in general, {why} being that sentence.
    ErrorCode.PDN_SYNTAX: "Not PDN as written: {why}.",
    ErrorCode.PDN_TAG: "A tag cannot be read: {why}.",
    ErrorCode.PDN_MOVE: "A move cannot be played: {why}.",
    ErrorCode.PDN_AMBIGUOUS_MOVE: "A move names more than one move: {why}.",
    ErrorCode.PDN_INVALID: "Not a PDN text: {why}.",
    ErrorCode.COMPUTER_UNAVAILABLE: "The computer is not available on this server.",
    ErrorCode.ANALYSIS_GAME_IN_PLAY: (
        "This game is still being played; it can be analysed once it is over."
    ),
    ErrorCode.ANALYSIS_LIMITED: (
        "You have asked for many analyses in a short time; try again in a few minutes."
    ),
    ErrorCode.SERVER_BUSY: "The game store is busy or cannot be reached; nothing was done. "
    "Try again shortly.",
    ErrorCode.SERVER_ERROR: "The server could not do this; nothing was changed.",
}


def sentence(code: ErrorCode, **slots: object) -> str:
    """The refusal's sentence for ``code``, its slots filled:
    ``sentence(ErrorCode.CHAT_TOO_LONG, limit=280)``."""
    return SENTENCES[code].format_map(slots) if slots else SENTENCES[code]


class CloseCode(enum.IntEnum):
    """WebSocket close codes the server uses (RFC 6455 7.4; 4000-4999 are ours)."""

    NORMAL = 1000
    GOING_AWAY = 1001  # the server is shutting down
    POLICY = 1008  # more messages than the socket's budget allows
    TOO_LARGE = 1009  # a frame beyond MAX_FRAME_BYTES
    SERVER_ERROR = 1011
    NO_HELLO = 4001  # the first message was not a hello, or none came in time
    UNSUPPORTED_VERSION = 4002
    ROOM_NOT_FOUND = 4004
    TOO_SLOW = 4008  # the client did not read its messages and its send queue filled up
    TOO_MANY_ERRORS = 4029  # kept sending bad frames or too many messages


class ProtocolError(ValueError):
    """A frame or message that breaks the protocol; ``code`` says how, ``str`` says it in words."""

    def __init__(self, code: ErrorCode, **slots: object):
        self.code = code
        self.ack: int | None = None  # the failed frame's ack, when it had one
        self.sentence = sentence(code, **slots)
        super().__init__(f"[{code}] {self.sentence}")


# Field metadata: the field must be in the frame, though the Python class has a default
# (so the server's own code may leave it out: ``Hello()`` is protocol version 1).
_REQUIRED = {"required": True}


def _required(f: dataclasses.Field[Any]) -> bool:
    """Whether a frame must carry field ``f`` (``msg/missing_field`` otherwise)."""
    no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    return no_default or bool(f.metadata.get("required"))


def _limit(**limits: Any) -> dict[str, Any]:
    """Field metadata: ``max_len`` (strings, lists), ``min``/``max`` (numbers)."""
    return {"limits": limits}


@dataclass(frozen=True, slots=True)
class Message:
    """Base of every message; ``t`` is the tag on the wire."""

    t: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"t": self.t}
        for name in _names(type(self)):
            body[name] = getattr(self, name)
        return body


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type[Message]) -> tuple[str, ...]:
    """A message type's field names, looked up once: every frame sent asks for them."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


# --------------------------------------------------------------------------------------
# client -> server
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClientMessage(Message):
    pass


@dataclass(frozen=True, slots=True)
class Hello(ClientMessage):
    """First message on every socket: who I am (seat token or none) and what I have seen."""

    t: ClassVar[str] = "hello"
    proto: int = field(default=PROTOCOL_VERSION, metadata={**_limit(min=0), **_REQUIRED})
    token: str | None = field(default=None, metadata=_limit(max_len=200))
    # Last event version this client has seen; the server sends what came after it.
    since: int | None = field(default=None, metadata=_limit(min=0))
    # The name to show for this player (a seat's name, a spectator's chat name);
    # cleaned by the server, and refused with ``name/*`` without closing the socket.
    name: str | None = field(default=None, metadata=_limit(max_len=NAME_MAX_SENT))


@dataclass(frozen=True, slots=True)
class Command(ClientMessage):
    """A command for the room; ``ack`` (optional) is echoed by ``ack`` or ``error``.

    ``v``: the game's version the client had seen when it chose the command. With it, a
    command is safe to send again (after a lost ``ack``, a reconnect, on any node): its
    identity is the seat, its type, ``v`` and its other fields, and a command the room
    has already applied is answered with its first ``ack`` again instead of being judged
    anew. ``ack`` is only the client's label for the answer, never the identity.
    """

    ack: int | None = field(default=None, kw_only=True, metadata=_limit(min=0))
    v: int | None = field(default=None, kw_only=True, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class MakeMove(Command):
    """Play a move: ``path`` of square labels, or ``notation`` text; ``v`` it was made against.

    ``lag``: the client's measure of its network's round trip (ms), credited to its clock
    within the seat's lag quota (``server.core.lag``).
    """

    t: ClassVar[str] = "move"
    path: list[str] | None = field(default=None, metadata=_limit(max_len=64))
    notation: str | None = field(default=None, metadata=_limit(max_len=400))
    lag: int | None = field(default=None, kw_only=True, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class OfferDraw(Command):
    t: ClassVar[str] = "draw_offer"


@dataclass(frozen=True, slots=True)
class AcceptDraw(Command):
    t: ClassVar[str] = "draw_accept"


@dataclass(frozen=True, slots=True)
class DeclineDraw(Command):
    t: ClassVar[str] = "draw_decline"


@dataclass(frozen=True, slots=True)
class Resign(Command):
    t: ClassVar[str] = "resign"


@dataclass(frozen=True, slots=True)
class Abort(Command):
    t: ClassVar[str] = "abort"


@dataclass(frozen=True, slots=True)
class AskTakeback(Command):
    """Take back my last move, or my last full move if the opponent has replied."""

    t: ClassVar[str] = "takeback_ask"


@dataclass(frozen=True, slots=True)
class AcceptTakeback(Command):
    t: ClassVar[str] = "takeback_accept"


@dataclass(frozen=True, slots=True)
class DeclineTakeback(Command):
    t: ClassVar[str] = "takeback_decline"


@dataclass(frozen=True, slots=True)
class OfferRematch(Command):
    t: ClassVar[str] = "rematch_offer"


@dataclass(frozen=True, slots=True)
class AcceptRematch(Command):
    t: ClassVar[str] = "rematch_accept"


@dataclass(frozen=True, slots=True)
class DeclineRematch(Command):
    t: ClassVar[str] = "rematch_decline"


@dataclass(frozen=True, slots=True)
class ClaimVictory(Command):
    """The opponent has been gone long enough: end the game as a win."""

    t: ClassVar[str] = "claim_victory"


@dataclass(frozen=True, slots=True)
class ClaimDraw(Command):
    """The opponent has been gone long enough: end the game as a draw."""

    t: ClassVar[str] = "claim_draw"


@dataclass(frozen=True, slots=True)
class SendChat(Command):
    """A chat line: players talk to players, spectators to spectators."""

    t: ClassVar[str] = "chat"
    # 1,000 characters as sent; at most CHAT_MAX_CHARS once cleaned (chat/too_long).
    text: str = field(default="", metadata={**_limit(max_len=1000), **_REQUIRED})


@dataclass(frozen=True, slots=True)
class Ping(ClientMessage):
    t: ClassVar[str] = "ping"
    n: int | None = field(default=None, metadata=_limit(min=0))


# --------------------------------------------------------------------------------------
# server -> client
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerMessage(Message):
    pass


@dataclass(frozen=True, slots=True)
class Event(ServerMessage):
    """A room event: ``v`` is the game's version after it; versions have no gaps.

    ``may``: per seated side, the commands it may send now (``server/core/permissions``),
    on the last event of a change that altered them; None when they stayed the same.
    """

    v: int = field(default=0, kw_only=True, metadata=_limit(min=0))
    may: dict[str, list[str]] | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class State(Event):
    """The whole game as this recipient may see it; replaces anything the client held.

    ``board``: ``{"cols", "rows", "notation", "squares": [[label, col, row], ...]}``
    (col 0 = left, row 0 = top as White sees it). ``pieces``: ``[[label, side, is_king]]``.
    ``legal``: the moves of ``you`` when it is your turn, each
    ``{"notation", "path": [label...], "captured": [label...]}``; else empty.
    """

    t: ClassVar[str] = "state"
    game: str = ""
    variant: str = ""
    variant_name: dict[str, str] = field(default_factory=dict)
    board: dict[str, Any] = field(default_factory=dict)
    you: Side | None = None
    status: Literal["waiting", "playing", "finished", "aborted"] = "waiting"
    players: dict[str, Any] = field(default_factory=dict)
    start_fen: str = ""
    # The first move is the rule set's second player's (set up with that side to move):
    # a move list numbers it "1..." as PDN does.
    starts_second: bool = False
    fen: str = ""
    side_to_move: Side = "white"
    pieces: list[list[Any]] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    legal: list[dict[str, Any]] = field(default_factory=list)
    clock: dict[str, Any] | None = None
    clocks: dict[str, Any] | None = None
    result: Literal["white", "black", "draw"] | None = None
    reason: str | None = None
    draw_offer: Side | None = None
    rematch_offer: Side | None = None
    rematch: str | None = None
    claimable: bool = False
    spectators: int = field(default=0, metadata=_limit(min=0))
    chat: list[dict[str, Any]] = field(default_factory=list)
    now: int = field(default=0, metadata=_limit(min=0))
    proto: int = field(default=PROTOCOL_VERSION, metadata=_limit(min=0))
    # The last move played, to highlight it: {"path": [label...], "captured": [label...]}.
    last: dict[str, Any] | None = None
    rated: bool = False  # the result changes both players' ratings (GET /api/ratings/...)
    takeback_offer: Side | None = None  # who asked to take back and waits for an answer
    # Server time at which the game is aborted if the side to move has still not made
    # its first move (None: no such deadline now).
    abort_at: int | None = field(default=None, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """A move was played. ``legal`` lists the moves of the side now to move."""

    t: ClassVar[str] = "moved"
    ply: int = field(default=0, metadata=_limit(min=0))
    by: Side = "white"
    notation: str = ""
    path: list[str] = field(default_factory=list)
    captured: list[str] = field(default_factory=list)
    fen: str = ""
    side_to_move: Side = "white"
    pieces: list[list[Any]] = field(default_factory=list)
    legal: list[dict[str, Any]] = field(default_factory=list)
    clocks: dict[str, Any] | None = None
    # See State.abort_at: the side now to move's first move
    abort_at: int | None = field(default=None, metadata=_limit(min=0))
    # The server's time (epoch ms) at which ``clocks`` were read
    now: int = field(default=0, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class Joined(Event):
    """The second seat was taken; the game starts. ``legal``: the side to move's moves."""

    t: ClassVar[str] = "joined"
    side: Side = "white"
    name: str | None = None
    side_to_move: Side = "white"
    legal: list[dict[str, Any]] = field(default_factory=list)
    rating: int | None = None  # the joiner's rating in this rule set when it sat down
    provisional: bool = False  # that rating rests on too few games to trust
    abort_at: int | None = field(default=None, metadata=_limit(min=0))  # see State.abort_at


@dataclass(frozen=True, slots=True)
class Presence(Event):
    """A player's socket came or went."""

    t: ClassVar[str] = "presence"
    side: Side = "white"
    present: bool = True
    # When the opponent may claim (server epoch ms) if this player stays away; None when
    # no claim applies (present, a game without a clock, a game not in play).
    claim_at: int | None = field(default=None, metadata=_limit(min=0))
    name: str | None = None  # the player's new name, when it came with a new one


@dataclass(frozen=True, slots=True)
class Claimable(Event):
    """``by`` may now claim the game: the other player has been gone long enough."""

    t: ClassVar[str] = "claimable"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class DrawOffered(Event):
    t: ClassVar[str] = "draw_offered"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class DrawDeclined(Event):
    t: ClassVar[str] = "draw_declined"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class DrawLapsed(Event):
    """The offer by ``by`` lapsed: the other side moved instead of answering."""

    t: ClassVar[str] = "draw_lapsed"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class TakebackOffered(Event):
    """``by`` asks to take back its last move (its last full move if answered already)."""

    t: ClassVar[str] = "takeback_offered"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class TakebackDeclined(Event):
    """``by`` declined the other side's request; that side may ask again at ``retry_at``
    (server time), later after each decline."""

    t: ClassVar[str] = "takeback_declined"
    by: Side = "white"
    retry_at: int = field(default=0, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class TakebackLapsed(Event):
    """The request of ``by`` lapsed: a move was played instead of an answer."""

    t: ClassVar[str] = "takeback_lapsed"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class TakenBack(Event):
    """``plies`` moves were taken back at the request of ``by``: the game is at ply
    ``ply`` again, with this board, these legal moves and the clocks as they were
    then. Any draw offer is void."""

    t: ClassVar[str] = "taken_back"
    by: Side = "white"
    plies: int = field(default=1, metadata=_limit(min=0))
    ply: int = field(default=0, metadata=_limit(min=0))
    fen: str = ""
    side_to_move: Side = "white"
    pieces: list[list[Any]] = field(default_factory=list)
    legal: list[dict[str, Any]] = field(default_factory=list)
    clocks: dict[str, Any] | None = None
    last: dict[str, Any] | None = None  # the move now last, to highlight it
    abort_at: int | None = field(default=None, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class RematchOffered(Event):
    t: ClassVar[str] = "rematch_offered"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class RematchDeclined(Event):
    t: ClassVar[str] = "rematch_declined"
    by: Side = "white"


@dataclass(frozen=True, slots=True)
class Rematch(Event):
    """The rematch is agreed: game ``game`` starts with colours swapped."""

    t: ClassVar[str] = "rematch"
    game: str = ""


@dataclass(frozen=True, slots=True)
class Over(Event):
    """The game ended. ``result`` None means aborted; ``reason`` is a code, not prose: a
    value of ``engine.Reason`` (protocol/README.md lists them)."""

    t: ClassVar[str] = "over"
    result: Literal["white", "black", "draw"] | None = None
    reason: str = ""
    clocks: dict[str, Any] | None = None
    # The server's time (epoch ms) at which ``clocks`` were read
    now: int = field(default=0, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class Rated(Event):
    """A rated game's result has been applied to both ratings (once).

    ``ratings``: per side ``{"before", "after", "diff", "provisional"}`` (whole points).
    """

    t: ClassVar[str] = "rated"
    ratings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChatLine(Event):
    """A chat line. ``channel`` is "players" or "spectators"; ``by`` a side or "spectator"."""

    t: ClassVar[str] = "chat"
    channel: Literal["players", "spectators"] = "players"
    by: Literal["white", "black", "spectator"] = "spectator"
    name: str | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Skip(Event):
    """An event this recipient may not see; it still advances the version."""

    t: ClassVar[str] = "skip"


@dataclass(frozen=True, slots=True)
class Ack(ServerMessage):
    """Command ``ack`` was applied (or was a resend of one already applied)."""

    t: ClassVar[str] = "ack"
    ack: int = field(default=0, metadata=_limit(min=0))
    v: int = field(default=0, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class Error(ServerMessage):
    """A refusal: ``code`` for programs, ``message`` for people; nothing changed."""

    t: ClassVar[str] = "error"
    code: str = ""
    message: str = ""
    ack: int | None = field(default=None, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class Spectators(ServerMessage):
    t: ClassVar[str] = "spectators"
    n: int = field(default=0, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class Seat(ServerMessage):
    """Sent privately to one player's own socket: its seat in game ``game`` (a rematch)."""

    t: ClassVar[str] = "seat"
    game: str = ""
    side: Side = "white"
    token: str = ""


@dataclass(frozen=True, slots=True)
class Pong(ServerMessage):
    t: ClassVar[str] = "pong"
    n: int | None = field(default=None, metadata=_limit(min=0))
    now: int = field(default=0, metadata=_limit(min=0))


@dataclass(frozen=True, slots=True)
class Lobby(ServerMessage):
    """The lobby socket's whole listing at lobby version ``v``: ``open``, games waiting
    for an opponent; ``live``, games being played; each newest first (``created_at``,
    then the greater ``id``). Replaces whatever the client held."""

    t: ClassVar[str] = "lobby"
    v: int = field(default=0, metadata=_limit(min=0))
    open: list[dict[str, Any]] = field(default_factory=list)
    live: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class LobbyChanges(ServerMessage):
    """What changed in the lobby between two reads of it, in one frame; the lobby is now
    at version ``v`` (one more than the message before). Each part has a list per
    lobby list (``open``, ``live``): ``removed`` the ids of games that left it,
    ``changed`` the lines of games still listed that changed (each replaces the line of
    its ``id``), ``added`` the lines of games that entered it; applied in that order,
    each list kept newest first."""

    t: ClassVar[str] = "changes"
    v: int = field(default=0, metadata=_limit(min=0))
    removed: dict[str, list[str]] = field(default_factory=dict)
    changed: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    added: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


# What the lobby socket sends after its listing, one lobby version each.
LobbyChange = LobbyChanges


# --------------------------------------------------------------------------------------
# the schema, read from the classes above
# --------------------------------------------------------------------------------------


# A message class of one direction: the registries and ``from_dict`` keep it.
_M = typing.TypeVar("_M", bound=Message)


def _concrete(base: type[_M]) -> dict[str, type[_M]]:
    # From the module's names, not ``__subclasses__``: ``slots=True`` replaces each
    # class, and the discarded originals would still be listed as subclasses.
    found: dict[str, type[_M]] = {}
    for value in list(globals().values()):
        if isinstance(value, type) and issubclass(value, base) and "t" in value.__dict__:
            found[value.__dict__["t"]] = value
    return dict(sorted(found.items()))


CLIENT_MESSAGES: dict[str, type[ClientMessage]] = _concrete(ClientMessage)
SERVER_MESSAGES: dict[str, type[ServerMessage]] = _concrete(ServerMessage)
_FIELDS: dict[type, list[tuple[dataclasses.Field[Any], Any]]] = {}


def _fields(cls: type[Message]) -> list[tuple[dataclasses.Field[Any], Any]]:
    if cls not in _FIELDS:
        hints = typing.get_type_hints(cls)
        _FIELDS[cls] = [(f, hints[f.name]) for f in dataclasses.fields(cls)]
    return _FIELDS[cls]


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args)
    if origin is Literal:
        return " or ".join(repr(a) for a in args)
    if origin is list:
        (item,) = args or (Any,)
        plural = {str: "strings", int: "integers", bool: "booleans", float: "numbers"}
        return f"a list of {plural[item]}" if item in plural else "a list"
    if origin is dict:
        return "a map"
    if tp is type(None):
        return "nil"
    if tp is Any:
        return "anything"
    return {str: "a string", int: "an integer", bool: "true or false", float: "a number"}[tp]


_CHECKERS: dict[Any, typing.Callable[[Any], bool]] = {}


def _checker(tp: Any) -> typing.Callable[[Any], bool]:
    """A test of whether a decoded value has type ``tp``, made once per type: every
    frame a client sends is checked field by field (``from_dict``)."""
    try:
        return _CHECKERS[tp]
    except KeyError:
        check = _CHECKERS[tp] = _make_checker(tp)
        return check


def _make_checker(tp: Any) -> typing.Callable[[Any], bool]:
    origin = typing.get_origin(tp)
    if tp is Any:
        return lambda value: True
    if tp is type(None):
        return lambda value: value is None
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if type(None) in args:
            # Optional: None passes at once, anything else must pass the rest.
            others = [a for a in args if a is not type(None)]
            rest = _checker(functools.reduce(operator.or_, others))
            return lambda value: value is None or rest(value)
        options = tuple(_checker(a) for a in args)

        def check_any(value: Any) -> bool:
            # A loop, not any() over a generator: this runs for fields of every frame.
            for check in options:  # noqa: SIM110
                if check(value):
                    return True
            return False

        return check_any
    if origin is Literal:
        literals = typing.get_args(tp)
        return lambda value: any(type(value) is type(a) and value == a for a in literals)
    if origin is list:
        (item,) = typing.get_args(tp) or (Any,)
        each = _checker(item)
        return lambda value: type(value) is list and all(map(each, value))
    if origin is dict:
        _, item = typing.get_args(tp) or (str, Any)
        each = _checker(item)
        return lambda value: (
            type(value) is dict
            and all(type(k) is str for k in value)
            and all(map(each, value.values()))
        )
    if tp is int:
        # bool is an int in Python but not on the wire: true is not 1.
        return lambda value: type(value) is int and -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT
    if tp is float:
        return lambda value: type(value) in (int, float)
    return lambda value: type(value) is tp


class _FieldCheck(typing.NamedTuple):
    name: str
    required: bool
    check: typing.Callable[[Any], bool]
    max_len: int | None
    min: int | float | None
    tp: Any


_PLANS: dict[type, tuple[_FieldCheck, ...]] = {}


def _plan(cls: type[Message]) -> tuple[_FieldCheck, ...]:
    """How to check each field of ``cls``, worked out once: every frame a client
    sends is checked field by field, and working it out cost most of a move's
    decoding (bench/relay.py)."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = tuple(
            _FieldCheck(
                name=f.name,
                required=_required(f),
                check=_checker(tp),
                max_len=f.metadata.get("limits", {}).get("max_len"),
                min=f.metadata.get("limits", {}).get("min"),
                tp=tp,
            )
            for f, tp in _fields(cls)
        )
    return plan


def _check_limits(cls: type[Message], f: _FieldCheck, value: Any) -> None:
    if value is None:
        return
    if f.max_len is not None and len(value) > f.max_len:
        raise ProtocolError(
            ErrorCode.MSG_BAD_FIELD, field=f.name, type=cls.t, expected=f"at most {f.max_len} long"
        )
    if f.min is not None and value < f.min:
        raise ProtocolError(
            ErrorCode.MSG_BAD_FIELD,
            field=f.name,
            type=cls.t,
            expected=f"at least {f.min}",
        )


def from_dict(body: Any, registry: Mapping[str, type[_M]]) -> _M:
    """Build and validate one message from a decoded map; unknown extra fields are ignored."""
    if type(body) is not dict:
        raise ProtocolError(ErrorCode.FRAME_NOT_MAP)
    tag = body.get("t")
    if type(tag) is not str:
        raise ProtocolError(ErrorCode.MSG_UNKNOWN_TYPE, type="(no 't' field)")
    cls = registry.get(tag)
    if cls is None:
        shown = tag if len(tag) <= 40 else tag[:40] + "..."
        raise ProtocolError(ErrorCode.MSG_UNKNOWN_TYPE, type=f"'{shown}'")
    values: dict[str, Any] = {}
    for f in _plan(cls):
        name = f.name
        if name not in body:
            if f.required:
                raise ProtocolError(ErrorCode.MSG_MISSING_FIELD, type=tag, field=name)
            continue
        value = body[name]
        if not f.check(value):
            raise ProtocolError(
                ErrorCode.MSG_BAD_FIELD, field=name, type=tag, expected=_type_name(f.tp)
            )
        if value is not None and (f.max_len is not None or f.min is not None):
            _check_limits(cls, f, value)
        values[name] = value
    return cls(**values)


# Speed work (the encoding below, down to ``encode``), kept by bench/relay.py: a move's
# event is encoded on every move, so its encoding is done the fewest ways it can be.
#
# A packer per thread, reused: msgpack.packb makes a packer and its buffer for every
# call, a sixth of encoding a move's event (which every move sends). A packer keeps
# its buffer between calls, so threads must not share one: msgpack's C packer holds the
# GIL through a whole call, but its pure-Python one (used where the C extension is
# missing) does not, and frames from two threads would mix.
_packers = threading.local()


def packer() -> msgpack.Packer:
    """This thread's msgpack packer (binary as bin, strings as str): ``packer().pack(x)``
    is ``msgpack.packb(x, use_bin_type=True)``."""
    try:
        mine: msgpack.Packer = _packers.packer
    except AttributeError:
        mine = _packers.packer = msgpack.Packer(use_bin_type=True)
    return mine


class Packed(list[Any]):
    """A list that carries its own msgpack encoding (``packed``), equal to the plain list;
    made by ``packed``.

    The board's pieces and the legal moves are lists of items the server builds once and
    shares (``server/core/wire.py``), and every move's event sends both: ``encode`` writes
    their items' bytes, encoded once too, instead of packing them again. Its bytes would
    not follow a change, so every method that would change it raises ``TypeError``
    (the items themselves are shared too, and must be left alone).
    """

    __slots__ = ("packed",)
    packed: bytes

    def _refuse(self, *args: Any, **kwargs: Any) -> typing.NoReturn:
        raise TypeError("A Packed list is read-only: its msgpack bytes would not follow.")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse


def packed(items: list[Any], packed_items: list[bytes]) -> Packed:
    """``items`` as a ``Packed`` list, given each item's msgpack bytes."""
    # Not an __init__: calling a class whose __init__ is Python code costs several
    # times what list's own does.
    out = Packed(items)
    n = len(items)
    head = _FIXARRAYS[n] if n < 16 else packer().pack_array_header(n)
    out.packed = head + b"".join(packed_items)
    return out


# msgpack's headers of arrays of 0 to 15 items (fixarray): those of most lists sent.
_FIXARRAYS = tuple(bytes((0x90 | n,)) for n in range(16))


# Per message type with a list field (one that may be ``Packed``): the frame's head (map
# header, "t" and the tag), each field's packed name, and a getter of all field values.
# None for the others, which are packed whole.
_Layout = tuple[bytes, tuple[bytes, ...], typing.Callable[[Any], tuple[Any, ...]]]
_LAYOUTS: dict[type, _Layout | None] = {}


def _layout(cls: type[Message]) -> _Layout | None:
    names = _names(cls)
    hints = typing.get_type_hints(cls)
    if len(names) < 2 or not any(typing.get_origin(hints[n]) is list for n in names):
        return None
    pack = packer().pack
    head = packer().pack_map_header(1 + len(names)) + pack("t") + pack(cls.t)
    return head, tuple(pack(n) for n in names), operator.attrgetter(*names)


def encode(message: Message) -> bytes:
    """One message as the bytes of a binary frame."""
    cls = type(message)
    try:
        layout = _LAYOUTS[cls]
    except KeyError:
        layout = _LAYOUTS[cls] = _layout(cls)
    if layout is None:
        frame: bytes = packer().pack(message.to_dict())
        return frame
    # The same bytes as packing ``to_dict()`` (a map is its header, then each key and
    # value in order), with a ``Packed`` value's bytes written as they are.
    head, keys, values_of = layout
    pack = packer().pack
    parts = [head]
    for key, value in zip(keys, values_of(message), strict=False):
        parts.append(key)
        parts.append(value.packed if type(value) is Packed else pack(value))
    return b"".join(parts)


def _unpack(frame: Any, max_bytes: int | None) -> Any:
    if type(frame) is not bytes:  # what every socket hands over: no more checks for it
        if isinstance(frame, str):
            raise ProtocolError(ErrorCode.FRAME_NOT_BINARY)
        if not isinstance(frame, bytes | bytearray | memoryview):
            raise ProtocolError(ErrorCode.FRAME_NOT_MSGPACK)
    if max_bytes is not None and len(frame) > max_bytes:
        raise ProtocolError(ErrorCode.FRAME_TOO_LARGE, limit=max_bytes)
    try:
        return msgpack.unpackb(frame, raw=False, strict_map_key=True, use_list=True)
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise ProtocolError(ErrorCode.FRAME_NOT_MSGPACK) from exc


def decode_client(frame: Any, max_bytes: int | None = MAX_FRAME_BYTES) -> ClientMessage:
    """Decode and validate a frame a client sent; raises only ``ProtocolError``, whose
    ``ack`` is the frame's own ``ack`` when it had a valid one (the answer echoes it)."""
    body = _unpack(frame, max_bytes)
    try:
        return from_dict(body, CLIENT_MESSAGES)
    except ProtocolError as exc:
        exc.ack = _ack_of(body)
        raise


def _ack_of(body: Any) -> int | None:
    """The ``ack`` of a map that failed to decode, if it is a valid one."""
    ack = body.get("ack") if type(body) is dict else None
    return ack if type(ack) is int and 0 <= ack <= _MAX_SAFE_INT else None


def decode_server(frame: Any, max_bytes: int | None = None) -> ServerMessage:
    """Decode and validate a frame the server sent; raises only ``ProtocolError``."""
    return from_dict(_unpack(frame, max_bytes), SERVER_MESSAGES)


def schema() -> dict[str, Any]:
    """The message set as plain data, for clients in other languages to check against."""

    def describe(registry: Mapping[str, type[Message]], sent_whole: bool) -> dict[str, Any]:
        # ``sent_whole``: the server writes every field of its messages (nil when it has
        # no value), so each is always there; a client must send those marked required.
        return {
            tag: {
                f.name: {
                    "type": _type_name(tp),
                    "required": sent_whole or _required(f),
                    **f.metadata.get("limits", {}),
                }
                for f, tp in _fields(cls)
            }
            for tag, cls in registry.items()
        }

    return {
        "protocol": PROTOCOL_VERSION,
        "subprotocol": SUBPROTOCOL,
        "max_frame_bytes": MAX_FRAME_BYTES,
        "client_to_server": describe(CLIENT_MESSAGES, sent_whole=False),
        "server_to_client": describe(SERVER_MESSAGES, sent_whole=True),
        "error_codes": [c.value for c in ErrorCode],
        "close_codes": {c.name: c.value for c in CloseCode},
    }
