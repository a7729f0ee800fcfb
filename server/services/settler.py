"""Settling rated games: a finished rated game's result applied to both ratings once.

See ``server.core.ratings`` for why a game is applied at most once (the ratings
store's compare-and-set on the game id) and at least once (``MarkRated`` and the
game's deadline).
"""

from __future__ import annotations

import logging

from server.core import room
from server.core.commands import MarkRated
from server.core.ratings import Ratings, rate, score_of
from server.core.record import SIDES, GameRecord, Side
from server.services.games import Games

log = logging.getLogger(__name__)


async def settle(games: Games, ratings: Ratings, record: GameRecord) -> bool:
    """Apply a finished rated game's result to both ratings and mark the game; True if
    this call found it unsettled. Safe to call any number of times, on any node."""
    if not room.needs_rating(record) or record.result is None:
        return False
    players: dict[Side, str] = {}
    names: dict[Side, str | None] = {}
    for side in SIDES:
        seat = record.seat(side)
        if seat is None or seat.player is None:
            log.warning("game %s: rated, but the %s seat has no player id", record.id, side)
            return False
        players[side], names[side] = seat.player, seat.name
    changes = await rate(
        ratings, record.id, record.variant, players, names, score_of(record.result)
    )
    await games.run(record.id, MarkRated(changes))
    return True


class Settler:
    """A ``Games`` observer: settles each rated game as the command that ends it returns;
    the timekeeper's deadline (``room.deadline``) retries one that failed."""

    def __init__(self, games: Games, ratings: Ratings):
        self.games = games
        self.ratings = ratings

    async def __call__(self, record: GameRecord) -> None:
        if not room.needs_rating(record):
            return
        try:
            await settle(self.games, self.ratings, record)
        except Exception:  # the deadline brings it back; the move that ended it stands
            log.exception("game %s: the ratings could not be settled yet", record.id)
