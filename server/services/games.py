"""The one command path: load a record, hand it to the room, commit, retry on a race.

Every change to a game, whoever causes it (a socket, an HTTP join, the timekeeper,
a bot), goes through ``Games.run``, so the room's rules and the store's atomic
write are never bypassed.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from protocol.messages import ErrorCode, MakeMove, sentence
from server.core import room
from server.core.commands import Command, Fresh, Sent
from server.core.record import GameRecord, Side
from server.core.room import Outcome, Refusal
from server.services.metrics import Metrics
from server.store import Store

log = logging.getLogger(__name__)

# Optimistic concurrency: a lost compare-and-set is retried against the new record.
_ATTEMPTS = 8


def new_token() -> str:
    """A seat or invite secret: 128 bits from the OS's CSPRNG, URL-safe."""
    return secrets.token_urlsafe(16)


def new_game_id() -> str:
    # 64 bits: short enough for a link; a collision makes create return False.
    return secrets.token_urlsafe(8)


def fresh() -> Fresh:
    return Fresh(game_id=new_game_id(), white_token=new_token(), black_token=new_token())


@dataclass
class NotFound:
    refusal: Refusal = Refusal(ErrorCode.ROOM_NOT_FOUND, sentence(ErrorCode.ROOM_NOT_FOUND))


# Told each record a command leaves behind (and a rematch it created), committed or
# not: the computer's seat (``computer.BotTable``) and the ratings (``settler.Settler``)
# react to what the game now needs. An observer must not raise.
Observer = Callable[[GameRecord], Awaitable[None]]


class Games:
    def __init__(self, store: Store, metrics: Metrics | None = None):
        self.store = store
        self.observers: list[Observer] = []
        self.metrics = metrics

    async def _observe(self, outcome: Outcome) -> None:
        for record in (outcome.record, outcome.spawn):
            if record is None:
                continue
            for observer in self.observers:
                await observer(record)

    async def create(self, record: GameRecord) -> bool:
        return await self.store.create(record, room.deadline(record))

    async def run(self, game_id: str, command: Command) -> Outcome | NotFound:
        """Apply ``command`` to the game; the outcome's refusal (if any) is for the sender."""
        started = time.perf_counter() if self.metrics is not None else 0.0
        for attempt in range(_ATTEMPTS):
            # First this node's copy of the record it last committed, if the store keeps
            # one (saves a round trip per move on Redis): the commit's compare-and-set
            # refuses it if another node wrote since.
            record = self.store.cached(game_id) if attempt == 0 else None
            cached = record is not None
            if record is None:
                record = await self.store.load(game_id)
                if record is None:
                    return NotFound()
            now = await self.store.now()
            outcome = room.handle(record, command, now)
            if cached and (not outcome.events or outcome.spawn is not None):
                # Nothing to commit, so nothing would catch a stale copy (a refusal must
                # be about the stored game), or a new game to create first: decide again
                # on the stored record.
                continue
            if not outcome.events:
                await self._observe(outcome)
                return outcome
            if outcome.spawn is not None and not await self.create(outcome.spawn):
                return self._busy(record)  # the new id was taken: astronomically rare
            committed = await self.store.commit(
                game_id,
                record.version,
                outcome.record,
                outcome.events,
                room.deadline(outcome.record),
            )
            if committed:
                metrics = self.metrics
                moved = type(command) is Sent and type(command.message) is MakeMove
                if metrics is not None and moved:
                    metrics.moves.inc()
                    metrics.move_handling.observe(time.perf_counter() - started)
                await self._observe(outcome)
                return outcome
        log.warning("game %s: gave up after %d lost writes", game_id, _ATTEMPTS)
        assert record is not None
        return self._busy(record)

    def _busy(self, record: GameRecord) -> Outcome:
        if self.metrics is not None:
            self.metrics.busy.inc()
        return _busy(record)

    async def seat_of(
        self, game_id: str, token: str | None
    ) -> tuple[GameRecord, Side | None] | None:
        record = await self.store.load(game_id)
        if record is None:
            return None
        return record, room.seat_of(record, token)


def _busy(record: GameRecord) -> Outcome:
    return Outcome(
        record=record,
        refusal=Refusal(ErrorCode.SERVER_BUSY, sentence(ErrorCode.SERVER_BUSY)),
    )
