"""What each kind of onlooker may see of a record. No view ever contains a seat token."""

from __future__ import annotations

from typing import Any

from engine import Game, get_rules
from protocol import messages as m
from server.core import permissions, replay, wire
from server.core.events import RoomEvent
from server.core.record import SIDES, GameRecord, Side
from server.core.room import abort_at


def players(record: GameRecord) -> dict[str, Any]:
    """Names, presence and ratings per side; None for a seat nobody has taken.

    ``player`` is the public id (never the browser's secret one); ``rating`` the
    seat's rating in this rule set when it sat down.
    """
    shown: dict[str, Any] = {}
    for side in SIDES:
        seat = record.seat(side)
        if seat is None:
            shown[side] = None
            continue
        shown[side] = {
            "name": seat.name,
            "present": seat.bot or seat.sockets > 0,
            "computer": seat.bot,
            "player": seat.player,
            "rating": seat.rating,
            "provisional": seat.provisional,
        }
        if seat.bot:
            shown[side]["level"] = record.level
        if (
            not seat.bot
            and seat.sockets == 0
            and seat.gone_since is not None
            and record.status == "playing"
            and record.clocked
        ):
            # When the opponent may claim the game if this player stays away.
            shown[side]["claim_at"] = seat.gone_since + record.claim_after_ms
    return shown


def _rating(record: GameRecord, side: Side) -> dict[str, Any] | None:
    seat = record.seat(side)
    if seat is None or seat.rating is None:
        return None
    return {"rating": seat.rating, "provisional": seat.provisional}


def clock_spec(record: GameRecord) -> dict[str, int] | None:
    if not record.clocked:
        return None
    return {"initial_ms": record.initial_ms or 0, "increment_ms": record.increment_ms}


def state_for(record: GameRecord, viewer: Side | None, spectators: int, now: int) -> m.State:
    """The full state for one socket: ``viewer`` is its seat, or None for a spectator."""
    game = replay.replay(record.variant, record.start_fen, record.moves)
    rules = get_rules(record.variant)
    to_move = viewer is not None and record.status == "playing" and viewer == record.side_to_move
    claimable = False
    if viewer is not None and record.status == "playing":
        seat = record.seat("black" if viewer == "white" else "white")
        claimable = seat is not None and seat.claim_announced and seat.sockets == 0
    chat = [
        {k: v for k, v in line.items() if k not in ("audience", "t")}
        for line in record.chat
        if RoomEvent(m.Skip(v=0), line["audience"]).seen_by(viewer)
    ]
    return m.State(
        v=record.version,
        game=record.id,
        variant=record.variant,
        variant_name={"en": rules.name_en, "de": rules.name_de},
        board=wire.layout(record.variant),
        you=viewer,
        status=record.status,
        players=players(record),
        start_fen=game.start_fen,
        starts_second=wire.starts_second(game),
        fen=record.fen,
        side_to_move=record.side_to_move,
        pieces=wire.pieces(game),
        moves=list(record.moves),
        legal=wire.legal(game) if to_move else [],
        clock=clock_spec(record),
        clocks=record.clocks(now),
        result=record.result,
        reason=record.reason,
        draw_offer=record.draw_offer,
        rematch_offer=record.rematch_offer,
        rematch=record.rematch_game,
        claimable=claimable,
        spectators=spectators,
        chat=chat,
        now=now,
        last=_last_move(game),
        rated=record.rated,
        may=permissions.may(record),
        takeback_offer=record.takeback_offer,
        abort_at=abort_at(record),
    )


def _last_move(game: Game) -> dict[str, Any] | None:
    if not game.moves:
        return None
    last = game.moves[-1].to_dict()
    return {"path": last["path"], "captured": last["captured"]}


def positions(record: GameRecord, start: int = 0) -> list[dict[str, Any]]:
    """The board after every ply from ``start`` on (ply 0: the start position), so a
    client can show any past position without knowing a rule: ``fen``, ``pieces`` as in
    ``state``, ``last`` (the move that led there, or None) and ``forced`` (why only some
    pieces may move: ``{"code", "pieces"}`` from ``Position.capture_rule``, or None)."""
    game = Game(get_rules(record.variant), record.start_fen, automatic_draws=False)
    out: list[dict[str, Any]] = []
    for ply in range(len(record.moves) + 1):
        if ply:
            game.play(record.moves[ply - 1])
        if ply < start:
            continue
        rule = game.position.capture_rule()
        out.append(
            {
                "ply": ply,
                "fen": game.fen(),
                "pieces": list(wire.pieces(game)),
                "last": _last_move(game),
                "forced": {"code": rule[0], "pieces": rule[1]} if rule else None,
            }
        )
    return out


def public(record: GameRecord, spectators: int, now: int) -> dict[str, Any]:
    """The game as ``GET /api/games/{id}`` shows it to anyone."""
    return {
        "id": record.id,
        "variant": record.variant,
        "status": record.status,
        "players": players(record),
        "opponent": record.opponent,
        "level": record.level,
        "rated": record.rated,
        # The start position's FEN, as ``state`` gives it (never null: issue 31 point 6).
        "start_fen": replay.replay(record.variant, record.start_fen, record.moves).start_fen,
        "fen": record.fen,
        "side_to_move": record.side_to_move,
        "moves": list(record.moves),
        "clock": clock_spec(record),
        "clocks": record.clocks(now),
        "result": record.result,
        "reason": record.reason,
        "draw_offer": record.draw_offer,
        "rematch": record.rematch_game,
        "spectators": spectators,
        "v": record.version,
        "created_at": record.created_at,
    }


def open_entry(record: GameRecord) -> dict[str, Any]:
    """A lobby line for a game waiting for an opponent."""
    seated = next(side for side in SIDES if record.seat(side) is not None)
    seat = record.seat(seated)
    return {
        "id": record.id,
        "variant": record.variant,
        "clock": clock_spec(record),
        "creator": {
            "side": seated,
            "name": seat.name if seat else None,
            "rating": seat.rating if seat else None,
            "provisional": seat.provisional if seat else False,
        },
        "rated": record.rated,
        "created_at": record.created_at,
    }


def live_entry(record: GameRecord, spectators: int) -> dict[str, Any]:
    """A lobby line for a game being played."""
    return {
        "id": record.id,
        "variant": record.variant,
        "clock": clock_spec(record),
        "players": {side: (p or {}).get("name") for side, p in players(record).items()},
        "ratings": {side: _rating(record, side) for side in SIDES},
        "computer": record.opponent == "computer",
        "level": record.level,
        "rated": record.rated,
        "moves": len(record.moves),
        "spectators": spectators,
        "created_at": record.created_at,  # the lobby's order (protocol/lobby.py)
    }
