"""A player's games: what each player's history keeps of a game, as plain data.

A game is written into the history of each person seated in it (by the public
player id the ratings use; the computer keeps none) when it starts and again when
it is over, and dropped when it is aborted: an abort has no result to look back on.
An entry outlives the game's record (which the store forgets some days after the
end), so it carries what the "My games" page, the rating chart and the PDN file need.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from engine import Game, Reason, Result
from server.core import replay
from server.core.record import SIDES, GameRecord, Side, other

# Games kept per player: the newest, by when they were created.
HISTORY_KEPT = 1000

Phase = Literal["live", "over", "gone"]


def phase(record: GameRecord) -> Phase | None:
    """What a player's history should say of this game now: nothing yet (nobody to play
    against), "live", "over" (finished, and a rated result applied), or "gone"."""
    if record.status == "aborted":
        return "gone"
    if record.status == "playing":
        return "live"
    if record.status == "finished":
        rating_pending = record.rated and not record.rated_applied
        return "live" if rating_pending else "over"
    return None


def entry(record: GameRecord, side: Side) -> dict[str, Any]:
    """The game as ``side``'s player keeps it."""
    mine, theirs = record.seat(side), record.seat(other(side))
    assert mine is not None
    over = phase(record) == "over"
    return {
        "id": record.id,
        "variant": record.variant,
        "at": record.created_at,
        "ended_at": record.ended_at if over else None,
        "status": "finished" if over else "live",
        "clock": (
            {"initial_ms": record.initial_ms, "increment_ms": record.increment_ms}
            if record.clocked
            else None
        ),
        "rated": record.rated,
        "color": side,
        "name": mine.name,
        "opponent": None
        if theirs is None
        else {
            "name": theirs.name,
            "player": theirs.player,
            "computer": theirs.bot,
            "level": record.level if theirs.bot else None,
            "rating": theirs.rating,
        },
        "result": record.result if over else None,
        "reason": record.reason if over else None,
        # After the result reached the ratings, the seat holds the rating it led to.
        "rating": mine.rating if over and record.rated else None,
        "plies": len(record.moves),
        "moves": list(record.moves),
        "start_fen": record.start_fen,
    }


def entries(record: GameRecord) -> dict[str, dict[str, Any]]:
    """Per public player id seated in the game (people only): its entry."""
    found = {}
    for side in SIDES:
        seat = record.seat(side)
        if seat is not None and not seat.bot and seat.player is not None:
            found[seat.player] = entry(record, side)
    return found


def listed(found: dict[str, Any]) -> dict[str, Any]:
    """An entry as the listing shows it: without its moves (the PDN has them)."""
    return {k: v for k, v in found.items() if k not in ("moves", "start_fen")}


def rating_history(found: list[dict[str, Any]]) -> dict[str, list[list[int]]]:
    """Per rule set, ``[when the game ended, the rating it led to]``, oldest first."""
    points: dict[str, list[list[int]]] = {}
    for each in sorted(found, key=lambda e: e.get("ended_at") or 0):
        if each.get("rated") and each.get("rating") is not None and each.get("ended_at"):
            points.setdefault(each["variant"], []).append([each["ended_at"], each["rating"]])
    return points


def game_of(
    variant: str, start_fen: str | None, moves: list[str], result: str | None, reason: str | None
) -> Game:
    """The game replayed, with the result the record gave it when the board did not
    (a resignation, a flag, an agreement)."""
    game = replay.replay(variant, start_fen, moves).copy()
    if game.result is None and result is not None and reason is not None:
        game.finish(Result(result), Reason(reason))
    return game


def pdn_tags(found: dict[str, Any], site: str) -> dict[str, str]:
    """PDN tags of a history entry: who had which colour, where, when."""
    me = found.get("name") or "Anonymous"
    opponent = found.get("opponent") or {}
    them = opponent.get("name") or "Anonymous"
    white, black = (me, them) if found["color"] == "white" else (them, me)
    return {
        "Event": "Kondavo game",
        "Site": f"{site}/g/{found['id']}",
        "Date": datetime.fromtimestamp(found["at"] / 1000, UTC).strftime("%Y.%m.%d"),
        "White": white,
        "Black": black,
    }
