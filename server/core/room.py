"""The room: a game's state machine, with no I/O.

``handle(record, command, now)`` returns an ``Outcome``: the new record, the events
to publish (each with its version and audience), and, when the command itself was
refused, a ``Refusal`` for the sender. Time only moves by ``now``; nothing here
reads a clock, opens a socket or draws a random number, so every rule of play is
testable in microseconds.

Model: python-websockets ``protocol.py`` (no socket inside).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from engine import (
    AmbiguousMoveError,
    EngineError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Reason,
    get_rules,
)
from engine.levels import think_time
from protocol import messages as m
from protocol.messages import CHAT_MAX_CHARS, ErrorCode
from server.core import lag, permissions, replay, wire
from server.core.commands import (
    Command,
    Connect,
    Disconnect,
    Fresh,
    Join,
    MarkRated,
    Sent,
    Tick,
)
from server.core.events import Audience, RoomEvent
from server.core.record import CHAT_KEPT, SIDES, GameRecord, SeatRecord, Side, other

# A computer's turn that has waited this long beyond its level's think time is
# picked up by whichever node's timekeeper sees the deadline (its node may be gone).
BOT_OVERDUE_MS = 5_000
# A finished rated game whose result has not reached the ratings yet is retried
# after this long (the node that finished it may have died in between).
RATING_RETRY_MS = 5_000
# An open game in the lobby whose creator has had no socket for this long is withdrawn
# (aborted, ``Reason.WITHDRAWN``), so a stranger never joins a game nobody will play.
# A grace and not at once: a reload or a phone changing networks keeps the seek.
SEEK_GRACE_MS = 60_000
# A clocked game whose side to move has not made its first move within this long of its
# turn's start is aborted, with no result (lichess: 30 s in its faster games). The
# node's setting (KONDAVO_FIRST_MOVE_S) goes into each new record; this is its default.
FIRST_MOVE_MS = 30_000
# After a declined takeback the asker waits this long before asking again, doubled
# with each further decline (15 s, 30 s, 1 min, ...) up to TAKEBACK_PAUSE_MAX_MS.
TAKEBACK_PAUSE_MS = 15_000
TAKEBACK_PAUSE_MAX_MS = 8 * 60_000


@dataclass(frozen=True)
class Refusal:
    code: ErrorCode
    sentence: str
    resync: bool = False  # the sender's view is out of date: send it the full state


@dataclass
class Outcome:
    record: GameRecord
    events: list[RoomEvent] = field(default_factory=list)
    refusal: Refusal | None = None
    acked: bool = False  # the command took effect (or repeated one that had)
    spawn: GameRecord | None = None  # a new game to create first (a rematch)
    # The game's version the command's ack names: the version after the command, or,
    # for a resend of one already applied, the version after it was applied.
    acked_v: int | None = None


class _Refused(Exception):
    """A refusal: its code, and the slots of the code's sentence (``m.SENTENCES``)."""

    def __init__(self, code: ErrorCode, *, resync: bool = False, **slots: object):
        self.refusal = Refusal(code, m.sentence(code, **slots), resync)


# --------------------------------------------------------------------------------------
# creating a game
# --------------------------------------------------------------------------------------


def new_game(
    *,
    game_id: str,
    variant: str,
    now: int,
    creator: Side,
    creator_token: str,
    creator_name: str | None = None,
    invite: str | None = None,
    opponent: Literal["friend", "open", "computer"] = "friend",
    initial_ms: int | None = 300_000,
    increment_ms: int = 3_000,
    start_fen: str | None = None,
    claim_after_ms: int = 30_000,
    first_move_ms: int = FIRST_MOVE_MS,
    level: int | None = None,
    rated: bool = False,
    creator_player: str | None = None,
    creator_rating: int | None = None,
    creator_provisional: bool = False,
) -> GameRecord:
    """A fresh record with the creator seated; raises the engine's errors for a bad FEN."""
    game = replay.replay(variant, start_fen, [])
    seats: dict[str, SeatRecord | None] = {"white": None, "black": None}
    seats[creator] = SeatRecord(
        token=creator_token,
        name=creator_name,
        gone_since=now,
        player=creator_player,
        rating=creator_rating,
        provisional=creator_provisional,
    )
    return GameRecord(
        id=game_id,
        variant=get_rules(variant).id,
        created_at=now,
        start_fen=start_fen,
        fen=game.position.fen(),
        side_to_move=game.position.side_to_move.value,
        opponent=opponent,
        level=level,
        rated=rated,
        invite=invite,
        seats=seats,
        initial_ms=initial_ms,
        increment_ms=increment_ms if initial_ms is not None else 0,
        remaining_ms={"white": initial_ms, "black": initial_ms} if initial_ms is not None else {},
        claim_after_ms=claim_after_ms,
        first_move_ms=first_move_ms if initial_ms is not None else 0,
        turn_since=now,
    )


def seat_of(record: GameRecord, token: str | None) -> Side | None:
    """The side whose secret ``token`` is, or None; constant-time on every seat."""
    found: Side | None = None
    if not token:
        return None
    given = token.encode()
    for side in SIDES:
        seat = record.seat(side)
        if seat is not None and hmac.compare_digest(seat.token.encode(), given):
            found = side
    return found


# --------------------------------------------------------------------------------------
# handling a command
# --------------------------------------------------------------------------------------


def handle(record: GameRecord, command: Command, now: int) -> Outcome:
    """Apply ``command`` at time ``now``; ``record`` itself is never modified."""
    rec = record.copy()
    events: list[RoomEvent] = []
    # Time passes before anything else: a flag that fell counts even if the
    # command that noticed it is then refused (a move after the flag does not count).
    _settle_time(rec, now, events)
    outcome = Outcome(record=rec, events=events)
    try:
        if type(command) is Sent:
            _sent(rec, command, now, outcome)
        else:
            _HANDLERS[type(command)](rec, command, now, outcome)
            outcome.acked_v = rec.version
    except _Refused as refused:
        outcome.refusal = refused.refusal
        outcome.acked = False
    if events:
        _announce_permissions(record, rec, events)
    return outcome


def _sent(rec: GameRecord, sent: Sent, now: int, out: Outcome) -> None:
    """A command a client sent: a resend of one already applied is acked again with its
    first version and applies nothing; any other is judged by its handler."""
    message = sent.message
    v = message.v
    seat = rec.seat(sent.by) if sent.by is not None and v is not None else None
    said = ""
    if seat is not None:
        said = f"{v} {_identity(message)} "
        done = seat.done.get(message.t)
        if done is not None and done.startswith(said):
            out.acked = True
            out.acked_v = int(done[len(said) :])
            return
    if v is not None and v > rec.version:
        # Not from this game's past: a client that mixed up its games, or made it up.
        raise _Refused(ErrorCode.GAME_BAD_VERSION, resync=True, v=v)
    _SENT_HANDLERS[type(message)](rec, sent, now, out)
    out.acked_v = rec.version
    if seat is not None and out.acked:
        seat.done[message.t] = f"{said}{rec.version}"


def _identity(message: m.Command) -> str:
    """What a command says besides its labels (``ack``, ``v``) and the lag it reported:
    a resend says the same. A short digest, as it is kept in the record."""
    said = [getattr(message, name) for name in _said_fields(type(message))]
    return hashlib.blake2b(repr(said).encode(), digest_size=8).hexdigest()


_SAID: dict[type, tuple[str, ...]] = {}


def _said_fields(cls: type[m.Command]) -> tuple[str, ...]:
    names = _SAID.get(cls)
    if names is None:
        names = _SAID[cls] = tuple(
            f.name for f in dataclasses.fields(cls) if f.name not in ("ack", "v", "lag")
        )
    return names


def _announce_permissions(before: GameRecord, after: GameRecord, events: list[RoomEvent]) -> None:
    """Put what each seat may send now on the last event the players see, when it changed."""
    allowed = permissions.may(after)
    if allowed == permissions.may(before):
        return
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if event.audience in ("all", "players"):
            events[i] = RoomEvent(dataclasses.replace(event.message, may=allowed), event.audience)
            return


def _absent(seat: SeatRecord | None) -> bool:
    """A human seat with no socket, whose absence has not been announced yet."""
    return (
        seat is not None
        and not seat.bot
        and seat.sockets == 0
        and seat.gone_since is not None
        and not seat.claim_announced
    )


def _claims_open(record: GameRecord) -> bool:
    """A game an absent player may lose by a claim: clocked, in play, started. Before
    both sides have moved, the first-move deadline aborts it instead."""
    return record.status == "playing" and record.clocked and record.started


def bot_to_move(record: GameRecord) -> bool:
    """The game is on and the computer's seat is the one to move."""
    seat = record.seat(record.side_to_move)
    return record.status == "playing" and seat is not None and seat.bot


def needs_rating(record: GameRecord) -> bool:
    """A rated game ended with a result that has not reached the ratings yet."""
    return record.status == "finished" and record.rated and not record.rated_applied


def _seek_creator_gone_since(record: GameRecord) -> int | None:
    """For an open game still waiting for an opponent whose creator has no socket: since
    when (the creation if the creator never connected). None otherwise."""
    if record.status != "waiting" or record.opponent != "open":
        return None
    for side in SIDES:
        seat = record.seat(side)
        if seat is not None and not seat.bot and seat.sockets == 0:
            return seat.gone_since if seat.gone_since is not None else record.created_at
    return None


def seek_withdrawn_at(record: GameRecord) -> int | None:
    """When an open game still waiting for an opponent is withdrawn because its creator
    has no socket (counted from the creation if the creator never connected); None
    while the creator is there, or for any other game."""
    since = _seek_creator_gone_since(record)
    return None if since is None else since + SEEK_GRACE_MS


def seek_listed(record: GameRecord) -> bool:
    """Whether the lobby shows this game: an open game waiting for an opponent, unless
    its creator came and went. A stranger who joined then would wait for someone who
    may never be back; the game itself stays open through the grace, so a reload puts
    it back in the lobby. A creator who never connected (a seek made over the API, a
    page still loading) is shown until the withdrawal: nothing says they left."""
    if record.status != "waiting" or record.opponent != "open":
        return False
    # A seat's ``gone_since`` starts at the creation and moves only when its last socket
    # closes: past the creation, the creator was here and left.
    since = _seek_creator_gone_since(record)
    return since is None or since <= record.created_at


def abort_at(record: GameRecord) -> int | None:
    """When the game is aborted because the side to move has still not made its first
    move: clocked games being played, a person to move (the computer always moves)."""
    if record.status != "playing" or not record.first_move_ms:
        return None
    side = record.side_to_move
    seat = record.seat(side)
    if seat is None or seat.bot or record.moves_made_by(side) > 0:
        return None
    since = record.turn_since if record.turn_since is not None else record.created_at
    return since + record.first_move_ms


def deadline(record: GameRecord) -> int | None:
    """When this game next needs a ``Tick``: a flag falls, a claim opens, the computer's
    move is overdue, a rated result still waits to reach the ratings, an open game's
    absent creator's seek is withdrawn, or a first move was not made in time."""
    times = []
    first_move = abort_at(record)
    if first_move is not None:
        times.append(first_move)
    # Only a game still waiting can be withdrawn: no calls for the others (every command).
    withdrawn = seek_withdrawn_at(record) if record.status == "waiting" else None
    if withdrawn is not None:
        times.append(withdrawn)
    flag = flag_falls_at(record)
    if flag is not None:
        times.append(flag)
    if bot_to_move(record):
        since = record.turn_since if record.turn_since is not None else record.created_at
        times.append(since + round(think_time(record.level or 1) * 1000) + BOT_OVERDUE_MS)
    if needs_rating(record):
        ended = record.ended_at if record.ended_at is not None else record.created_at
        times.append(ended + RATING_RETRY_MS)
    if _claims_open(record):
        for side in SIDES:
            seat = record.seat(side)
            if seat is not None and _absent(seat) and seat.gone_since is not None:
                times.append(seat.gone_since + record.claim_after_ms)
    return min(times) if times else None


def flag_falls_at(record: GameRecord) -> int | None:
    """When the running clock's flag falls: its zero, plus the lag credit its seat's
    next move could still be given (``lag.grace_ms``): until then a move that was sent
    in time but delayed by the network may arrive, and is played if its credit covers
    the overrun (``_play_move``). The computer reports no lag: no grace."""
    flag = record.flag_time()
    side = record.running_clock()
    seat = record.seat(side) if side is not None else None
    if flag is None or seat is None or seat.bot or record.initial_ms is None:
        return flag
    gain = lag.gain_ms(record.initial_ms, record.increment_ms)
    return flag + lag.grace_ms(seat.lag_quota_ms, gain)


_E = TypeVar("_E", bound=m.Event)


def _emit(
    rec: GameRecord,
    events: list[RoomEvent],
    message: type[_E],
    audience: Audience = "all",
    **fields: Any,
) -> _E:
    rec.version += 1
    event = message(v=rec.version, **fields)
    events.append(RoomEvent(event, audience))
    return event


def _settle_time(rec: GameRecord, now: int, events: list[RoomEvent]) -> None:
    withdrawn = seek_withdrawn_at(rec) if rec.status == "waiting" else None
    if withdrawn is not None and now >= withdrawn:
        _finish(rec, now, events, None, Reason.WITHDRAWN)
    first_move = abort_at(rec)
    if first_move is not None and now >= first_move:
        # Nobody loses a game that never started: no result, no rating change.
        _finish(rec, now, events, None, Reason.NO_FIRST_MOVE)
    flag = flag_falls_at(rec)
    if flag is not None and now >= flag:
        loser = rec.side_to_move
        _finish(rec, now, events, other(loser), Reason.TIMEOUT)
    _open_claims(rec, now, events)


def _open_claims(rec: GameRecord, now: int, events: list[RoomEvent]) -> None:
    """Tell the opponent of a player gone long enough that it may claim the game."""
    if not _claims_open(rec):
        return
    for side in SIDES:
        seat = rec.seat(side)
        if (
            seat is not None
            and _absent(seat)
            and seat.gone_since is not None
            and now >= seat.gone_since + rec.claim_after_ms
        ):
            seat.claim_announced = True
            _emit(rec, events, m.Claimable, by=other(side))


def _finish(
    rec: GameRecord,
    now: int,
    events: list[RoomEvent],
    result: Literal["white", "black", "draw"] | None,
    reason: Reason,
) -> None:
    running = rec.running_clock()
    if running is not None:
        rec.remaining_ms[running] = rec.time_left(running, now)
    clocks = rec.clocks(now)
    rec.turn_started = None
    rec.ended_at = now
    rec.status = "finished" if result is not None else "aborted"
    rec.result = result
    rec.reason = reason
    rec.draw_offer = None
    rec.takeback_offer = None
    if clocks is not None:
        clocks["running"] = None
    _emit(rec, events, m.Over, result=result, reason=reason, clocks=clocks, now=now)


def _seated(rec: GameRecord, by: Side | None) -> Side:
    if by is None or rec.seat(by) is None:
        raise _Refused(ErrorCode.SEAT_SPECTATOR)
    return by


def _playing(rec: GameRecord) -> None:
    if rec.over:
        raise _Refused(ErrorCode.GAME_OVER)
    if rec.status == "waiting":
        raise _Refused(ErrorCode.MOVE_NO_OPPONENT)


# --- seats and presence ---------------------------------------------------------------


def _join(rec: GameRecord, cmd: Join, now: int, out: Outcome) -> None:
    free = [side for side in SIDES if rec.seat(side) is None]
    if rec.over and free:
        raise _Refused(ErrorCode.GAME_OVER)
    if rec.status != "waiting" or not free:
        raise _Refused(ErrorCode.SEAT_TAKEN)
    if rec.opponent == "friend" and not (
        rec.invite and cmd.invite and hmac.compare_digest(rec.invite.encode(), cmd.invite.encode())
    ):
        raise _Refused(ErrorCode.SEAT_BAD_INVITE)
    side = free[0]
    if rec.rated:
        # Joining a rated game accepts its rating: both seats need an identity to rate.
        creator = rec.seat(other(side))
        if not cmd.player:
            raise _Refused(ErrorCode.RATED_NO_PLAYER)
        if creator is not None and creator.player == cmd.player:
            raise _Refused(ErrorCode.RATED_SAME_PLAYER)
    rec.seats[side] = SeatRecord(
        token=cmd.token,
        name=cmd.name,
        gone_since=now,
        player=cmd.player,
        rating=cmd.rating,
        provisional=cmd.provisional,
    )
    rec.status = "playing"
    rec.invite = None
    rec.turn_since = now
    # The side to move learns its moves from this event; nobody needs a fresh state.
    game = replay.replay(rec.variant, rec.start_fen, rec.moves)
    _emit(
        rec,
        out.events,
        m.Joined,
        side=side,
        name=cmd.name,
        side_to_move=rec.side_to_move,
        legal=wire.legal(game),
        rating=cmd.rating,
        provisional=cmd.provisional,
        abort_at=abort_at(rec),
    )
    out.acked = True


def _connect(rec: GameRecord, cmd: Connect, now: int, out: Outcome) -> None:
    seat = rec.seat(_seated(rec, cmd.by))
    assert seat is not None
    seat.sockets += 1
    seat.gone_since = None
    seat.claim_announced = False
    # A new name counts until the game is over: a finished game keeps the names it had.
    renamed = cmd.name is not None and cmd.name != seat.name and not rec.over
    if renamed:
        seat.name = cmd.name
    # An event even for a second socket of the seat: the count must reach the store
    # (only commits with events are written), or closing one of two tabs would
    # announce the player gone.
    _emit(
        rec, out.events, m.Presence, side=cmd.by, present=True, name=cmd.name if renamed else None
    )
    out.acked = True


def _disconnect(rec: GameRecord, cmd: Disconnect, now: int, out: Outcome) -> None:
    seat = rec.seat(_seated(rec, cmd.by))
    assert seat is not None
    if seat.sockets == 0:
        return
    seat.sockets -= 1
    if seat.sockets == 0:
        seat.gone_since = now
    claim_at = None
    if seat.sockets == 0 and rec.status == "playing" and rec.clocked:
        claim_at = now + rec.claim_after_ms
    _emit(rec, out.events, m.Presence, side=cmd.by, present=seat.sockets > 0, claim_at=claim_at)
    out.acked = True


# --- moves ----------------------------------------------------------------------------


def _resolve_move(rec: GameRecord, cmd: m.MakeMove, game: Game) -> Move:
    """The legal move the client meant in ``game`` (the record's), or a refusal that
    says why in words."""
    rules = get_rules(rec.variant)
    text = cmd.notation
    if cmd.path is not None:
        path = list(cmd.path)
        if len(path) < 2:
            raise _Refused(ErrorCode.MOVE_INVALID, why="a move needs at least two squares")
        legal = game.legal_moves()
        # Compared as squares, not labels: no label is written per legal move.
        squares = rules.squares_by_name
        target = tuple(squares.get(label, -1) for label in path)
        for mv in legal:
            if mv.path == target:
                return mv
        if len(path) == 2:
            ends = [mv for mv in legal if mv.start == target[0] and mv.end == target[1]]
            if len(ends) == 1:
                return ends[0]
        # Let the engine explain what is wrong with this path.
        text = ("x" if len(path) > 2 else "-").join(path)
    if not text:
        raise _Refused(ErrorCode.MOVE_INVALID, why="a move needs a path of squares or its notation")
    try:
        move = game.position.parse_move(text)
    except AmbiguousMoveError as exc:
        raise _Refused(ErrorCode.MOVE_AMBIGUOUS, why=exc) from None
    except IllegalMoveError as exc:
        raise _Refused(ErrorCode.MOVE_ILLEGAL, why=exc) from None
    except InvalidMoveError as exc:
        raise _Refused(ErrorCode.MOVE_INVALID, why=exc) from None
    except EngineError as exc:
        raise _Refused(ErrorCode.MOVE_INVALID, why=exc) from None
    if cmd.path is not None and wire.labels(rec.variant, move.path) != list(cmd.path):
        # The engine read the squares differently (e.g. a capture written as a step).
        raise _Refused(ErrorCode.MOVE_ILLEGAL, why=f"the path {'-'.join(cmd.path)}")
    return move


def _play_move(rec: GameRecord, sent: Sent, now: int, out: Outcome) -> None:
    by = _seated(rec, sent.by)
    cmd: m.MakeMove = sent.message  # type: ignore[assignment]
    seat = rec.seat(by)
    assert seat is not None
    _playing(rec)
    if by != rec.side_to_move:
        raise _Refused(ErrorCode.MOVE_NOT_YOUR_TURN)
    if cmd.v is not None and cmd.v < rec.position_version:
        raise _Refused(ErrorCode.MOVE_STALE, resync=True)
    before = replay.replay(rec.variant, rec.start_fen, rec.moves)
    chosen = _resolve_move(rec, cmd, before)
    game = replay.played(rec.variant, rec.start_fen, rec.moves, chosen, before)
    move = game.moves[-1]
    # Clock: the mover's time runs only after its own first move (as on lichess);
    # the increment is earned by timed moves.
    timed = rec.running_clock() == by
    if timed:
        # The network's share of the turn is given back, within the seat's lag quota,
        # and only then is the flag judged: a move that arrived after the clock's zero
        # (within the grace, ``flag_falls_at``) is played if its credit covers that.
        assert rec.turn_started is not None and rec.initial_ms is not None
        gain = lag.gain_ms(rec.initial_ms, rec.increment_ms)
        # Never less than nothing: two nodes' clocks may differ by a few ms, and a move
        # handled by the node whose clock is behind must not wind the clock forward.
        spent = max(0, now - rec.turn_started)
        given, quota = lag.credit(seat.lag_quota_ms, gain, cmd.lag, spent)
        left = rec.remaining_ms.get(by, 0) - spent + given
        if left <= 0:
            _finish(rec, now, out.events, other(by), Reason.TIMEOUT)
            raise _Refused(ErrorCode.GAME_OVER)
    if rec.clocked:
        # Both clocks as they stood when this turn began: a takeback puts them back.
        rec.clocks_before += (rec.remaining_ms.get("white", 0), rec.remaining_ms.get("black", 0))
    if timed:
        seat.lag_quota_ms = quota
        rec.remaining_ms[by] = left + rec.increment_ms
    rec.moves.append(game.notation[-1])
    rec.fen = game.position.fen()
    rec.side_to_move = game.position.side_to_move.value
    rec.turn_started = now if rec.clocked else None
    rec.turn_since = now
    if rec.draw_offer is not None and rec.draw_offer != by:
        lapsed = rec.draw_offer
        rec.draw_offer = None
        _emit(rec, out.events, m.DrawLapsed, by=lapsed)
    if rec.takeback_offer is not None:
        # A move answers no takeback request: the one pending would now mean another move.
        lapsed = rec.takeback_offer
        rec.takeback_offer = None
        _emit(rec, out.events, m.TakebackLapsed, by=lapsed)
    _emit(
        rec,
        out.events,
        m.Moved,
        ply=len(rec.moves),
        by=by,
        notation=game.notation[-1],
        path=wire.labels(rec.variant, move.path),
        captured=wire.labels(rec.variant, move.captured),
        fen=rec.fen,
        side_to_move=rec.side_to_move,
        pieces=wire.pieces(game),
        legal=wire.legal(game),
        clocks=rec.clocks(now),
        abort_at=abort_at(rec),
        now=now,
    )
    rec.position_version = rec.version
    if game.result is not None:
        reason = game.reason if game.reason is not None else Reason.NO_MOVES
        _finish(rec, now, out.events, game.result.value, reason)
    # The move that starts the game opens a claim against a player gone long enough.
    _open_claims(rec, now, out.events)
    out.acked = True


# --- draws, resignation, abort, claims ------------------------------------------------


def _offer_draw(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    by = _seated(rec, cmd.by)
    _playing(rec)
    if rec.draw_offer == other(by):
        _finish(rec, now, out.events, "draw", Reason.AGREEMENT)
    elif rec.draw_offer == by:
        raise _Refused(ErrorCode.DRAW_ALREADY_OFFERED)
    elif rec.draw_declined_at.get(by) == len(rec.moves):
        raise _Refused(ErrorCode.DRAW_TOO_SOON)
    else:
        rec.draw_offer = by
        _emit(rec, out.events, m.DrawOffered, by=by)
    out.acked = True


def _answering(rec: GameRecord, by: Side | None, offer: Side | None, none: ErrorCode) -> Side:
    """The seat that answers its opponent's offer (a draw, a takeback: ``offer`` is who
    made the one standing), in a game being played; ``none`` refuses an answer to none."""
    side = _seated(rec, by)
    _playing(rec)
    if offer != other(side):
        raise _Refused(none)
    return side


def _accept_draw(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    _answering(rec, cmd.by, rec.draw_offer, ErrorCode.DRAW_NO_OFFER)
    _finish(rec, now, out.events, "draw", Reason.AGREEMENT)
    out.acked = True


def _decline_draw(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    by = _answering(rec, cmd.by, rec.draw_offer, ErrorCode.DRAW_NO_OFFER)
    rec.draw_offer = None
    rec.draw_declined_at[other(by)] = len(rec.moves)
    _emit(rec, out.events, m.DrawDeclined, by=by)
    out.acked = True


def _resign(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    by = _seated(rec, cmd.by)
    if rec.status == "waiting":
        raise _Refused(ErrorCode.MOVE_NO_OPPONENT)
    _playing(rec)
    _finish(rec, now, out.events, other(by), Reason.RESIGN)
    out.acked = True


def _abort(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    _seated(rec, cmd.by)
    if rec.over:
        raise _Refused(ErrorCode.GAME_OVER)
    if rec.started:
        raise _Refused(ErrorCode.ABORT_TOO_LATE)
    _finish(rec, now, out.events, None, Reason.ABORTED)
    out.acked = True


def _claim_victory(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    _claim(rec, cmd.by, now, out, draw=False)


def _claim_draw(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    _claim(rec, cmd.by, now, out, draw=True)


def _claim(rec: GameRecord, by: Side | None, now: int, out: Outcome, draw: bool) -> None:
    by = _seated(rec, by)
    _playing(rec)
    if not rec.clocked:
        raise _Refused(ErrorCode.CLAIM_NO_CLOCK)
    gone = rec.seat(other(by))
    assert gone is not None
    if gone.bot or gone.sockets > 0 or gone.gone_since is None:
        raise _Refused(ErrorCode.CLAIM_OPPONENT_PRESENT)
    if not rec.started:
        raise _Refused(ErrorCode.CLAIM_NOT_STARTED)
    opens = gone.gone_since + rec.claim_after_ms
    if now < opens:
        seconds = -(-(opens - now) // 1000)
        raise _Refused(ErrorCode.CLAIM_TOO_EARLY, seconds=seconds)
    _finish(rec, now, out.events, "draw" if draw else by, Reason.ABANDONED)
    out.acked = True


# --- takebacks -------------------------------------------------------------------------


def _ask_takeback(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    by = _seated(rec, cmd.by)
    _playing(rec)
    if rec.rated:
        raise _Refused(ErrorCode.TAKEBACK_RATED)
    if rec.moves_made_by(by) == 0:
        raise _Refused(ErrorCode.TAKEBACK_NOTHING)
    if rec.takeback_offer == by:
        raise _Refused(ErrorCode.TAKEBACK_ALREADY_ASKED)
    if rec.takeback_offer == other(by):
        raise _Refused(ErrorCode.TAKEBACK_PENDING)
    blocked = rec.takeback_blocked_until.get(by)
    if blocked is not None and now < blocked:
        seconds = -(-(blocked - now) // 1000)
        raise _Refused(ErrorCode.TAKEBACK_TOO_SOON, seconds=seconds)
    opponent = rec.seat(other(by))
    if opponent is not None and opponent.bot:
        _take_back(rec, by, now, out)  # the computer grants every takeback at once
    else:
        rec.takeback_offer = by
        _emit(rec, out.events, m.TakebackOffered, by=by)
    out.acked = True


def _answered_takeback(rec: GameRecord, by: Side | None) -> Side:
    """The side that asked, checking that ``by`` may answer it."""
    return other(_answering(rec, by, rec.takeback_offer, ErrorCode.TAKEBACK_NO_OFFER))


def _accept_takeback(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    _take_back(rec, _answered_takeback(rec, cmd.by), now, out)
    out.acked = True


def _decline_takeback(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    asker = _answered_takeback(rec, cmd.by)
    rec.takeback_offer = None
    declined = rec.takebacks_declined[asker] = rec.takebacks_declined.get(asker, 0) + 1
    pause = min(TAKEBACK_PAUSE_MAX_MS, TAKEBACK_PAUSE_MS * 2 ** (declined - 1))
    rec.takeback_blocked_until[asker] = now + pause
    _emit(rec, out.events, m.TakebackDeclined, by=other(asker), retry_at=now + pause)
    out.acked = True


def _take_back(rec: GameRecord, asker: Side, now: int, out: Outcome) -> None:
    """Undo the asker's last move, and the reply after it if there is one: the board,
    the clocks and (by replaying the shorter record) the repetitions and no-progress
    counts go back to what they were before."""
    plies = 1 if rec.side_to_move != asker else 2
    ply = len(rec.moves) - plies
    del rec.moves[ply:]
    game = replay.replay(rec.variant, rec.start_fen, rec.moves)
    rec.fen = game.position.fen()
    rec.side_to_move = game.position.side_to_move.value
    if rec.clocked and len(rec.clocks_before) >= 2 * (ply + 1):
        rec.remaining_ms = {
            "white": rec.clocks_before[2 * ply],
            "black": rec.clocks_before[2 * ply + 1],
        }
        del rec.clocks_before[2 * ply :]
    rec.turn_started = now if rec.clocked else None
    rec.turn_since = now
    rec.takeback_offer = None
    rec.draw_offer = None
    # A declined draw offer bars a new one until a move: a ply taken back is no move.
    rec.draw_declined_at = {s: at for s, at in rec.draw_declined_at.items() if at <= ply}
    _emit(
        rec,
        out.events,
        m.TakenBack,
        by=asker,
        plies=plies,
        ply=ply,
        fen=rec.fen,
        side_to_move=rec.side_to_move,
        pieces=wire.pieces(game),
        legal=wire.legal(game),
        clocks=rec.clocks(now),
        last=_last_move(game),
        abort_at=abort_at(rec),
    )
    # Moves chosen on the board before this are moves on another board.
    rec.position_version = rec.version


def _last_move(game: Game) -> dict[str, Any] | None:
    if not game.moves:
        return None
    last = game.moves[-1]
    return {
        "path": wire.labels(game.rules.id, last.path),
        "captured": wire.labels(game.rules.id, last.captured),
    }


# --- rematch --------------------------------------------------------------------------


def _after_game(rec: GameRecord, by: Side | None) -> Side:
    side = _seated(rec, by)
    if not rec.over:
        raise _Refused(ErrorCode.GAME_NOT_OVER)
    if rec.seat("white") is None or rec.seat("black") is None:
        raise _Refused(ErrorCode.REMATCH_NO_OPPONENT)
    if rec.rematch_game is not None:
        raise _Refused(ErrorCode.REMATCH_DONE)
    return side


def _start_rematch(rec: GameRecord, fresh: Fresh | None, now: int, out: Outcome) -> None:
    if fresh is None:
        raise _Refused(ErrorCode.SERVER_ERROR)
    white, black = rec.seat("white"), rec.seat("black")
    assert white is not None and black is not None
    # Colours swap: the old black player becomes white.
    spawn = new_game(
        game_id=fresh.game_id,
        variant=rec.variant,
        now=now,
        creator="white",
        creator_token=fresh.white_token,
        creator_name=black.name,
        opponent=rec.opponent,
        initial_ms=rec.initial_ms,
        increment_ms=rec.increment_ms,
        start_fen=rec.start_fen,
        claim_after_ms=rec.claim_after_ms,
        first_move_ms=rec.first_move_ms,
        level=rec.level,
        rated=rec.rated,
    )
    spawn.seats["white"] = _seat_again(black, fresh.white_token, now)
    spawn.seats["black"] = _seat_again(white, fresh.black_token, now)
    spawn.status = "playing"
    out.spawn = spawn
    rec.rematch_offer = None
    rec.rematch_game = fresh.game_id
    _emit(rec, out.events, m.Rematch, game=fresh.game_id)


def _seat_again(seat: SeatRecord, token: str, now: int) -> SeatRecord:
    """The same player (or the computer) in the rematch, with a new token."""
    return SeatRecord(
        token=token,
        name=seat.name,
        gone_since=None if seat.bot else now,
        bot=seat.bot,
        player=seat.player,
        rating=seat.rating,
        provisional=seat.provisional,
    )


def _offer_rematch(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    by = _after_game(rec, cmd.by)
    opponent = rec.seat(other(by))
    if rec.rematch_offer == other(by) or (opponent is not None and opponent.bot):
        # The computer always accepts at once.
        _start_rematch(rec, cmd.fresh() if cmd.fresh is not None else None, now, out)
    elif rec.rematch_offer == by:
        raise _Refused(ErrorCode.REMATCH_ALREADY_OFFERED)
    else:
        rec.rematch_offer = by
        _emit(rec, out.events, m.RematchOffered, by=by)
    out.acked = True


def _answering_rematch(rec: GameRecord, by: Side | None) -> Side:
    """The seat that answers its opponent's rematch offer, after the game."""
    side = _after_game(rec, by)
    if rec.rematch_offer != other(side):
        raise _Refused(ErrorCode.REMATCH_NO_OFFER)
    return side


def _accept_rematch(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    _answering_rematch(rec, cmd.by)
    _start_rematch(rec, cmd.fresh() if cmd.fresh is not None else None, now, out)
    out.acked = True


def _decline_rematch(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    by = _answering_rematch(rec, cmd.by)
    rec.rematch_offer = None
    _emit(rec, out.events, m.RematchDeclined, by=by)
    out.acked = True


# --- chat and time --------------------------------------------------------------------


def clean_chat(text: str) -> str:
    """Plain text on one line: control and format characters go, spaces collapse."""
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch)[0] != "C"
    )
    return " ".join(kept.split())


def _chat(rec: GameRecord, cmd: Sent, now: int, out: Outcome) -> None:
    text = clean_chat(cmd.message.text)  # type: ignore[attr-defined]
    if not text:
        raise _Refused(ErrorCode.CHAT_EMPTY)
    if len(text) > CHAT_MAX_CHARS:
        raise _Refused(ErrorCode.CHAT_TOO_LONG, limit=CHAT_MAX_CHARS)
    seat = rec.seat(cmd.by) if cmd.by is not None else None
    by: str
    audience: Audience
    if seat is not None and cmd.by is not None:
        channel, by, name, audience = "players", cmd.by, seat.name, "players"
    else:
        # Spectators' lines never reach the players while the game runs.
        channel, by, name = "spectators", "spectator", cmd.name
        audience = "all" if rec.over else "spectators"
    line = _emit(
        rec, out.events, m.ChatLine, audience, channel=channel, by=by, name=name, text=text
    )
    rec.chat.append({**line.to_dict(), "audience": audience})
    del rec.chat[:-CHAT_KEPT]
    out.acked = True


def _mark_rated(rec: GameRecord, cmd: MarkRated, now: int, out: Outcome) -> None:
    if not needs_rating(rec):
        return  # applied already (another node, a retry): nothing happens twice
    rec.rated_applied = True
    for side in SIDES:  # a rematch starts from the new ratings
        seat, change = rec.seat(side), cmd.ratings.get(side) or {}
        after = change.get("after")
        if seat is not None and isinstance(after, int):
            seat.rating = after
            seat.provisional = bool(change.get("provisional"))
    _emit(rec, out.events, m.Rated, ratings=cmd.ratings)
    out.acked = True


def _tick(rec: GameRecord, cmd: Tick, now: int, out: Outcome) -> None:
    out.acked = True  # _settle_time has already done the work


# What each command sent by a seat or a spectator does: one entry per command of the
# protocol (``protocol.messages.Command``), the only list of them on the server.
_SENT_HANDLERS: dict[type, Callable[[GameRecord, Any, int, Outcome], None]] = {
    m.MakeMove: _play_move,
    m.OfferDraw: _offer_draw,
    m.AcceptDraw: _accept_draw,
    m.DeclineDraw: _decline_draw,
    m.Resign: _resign,
    m.Abort: _abort,
    m.AskTakeback: _ask_takeback,
    m.AcceptTakeback: _accept_takeback,
    m.DeclineTakeback: _decline_takeback,
    m.OfferRematch: _offer_rematch,
    m.AcceptRematch: _accept_rematch,
    m.DeclineRematch: _decline_rematch,
    m.ClaimVictory: _claim_victory,
    m.ClaimDraw: _claim_draw,
    m.SendChat: _chat,
}

# What happens to a room besides: seats taken, sockets, the ratings, time.
_HANDLERS: dict[type, Callable[[GameRecord, Any, int, Outcome], None]] = {
    Join: _join,
    Connect: _connect,
    Disconnect: _disconnect,
    MarkRated: _mark_rated,
    Tick: _tick,
}
