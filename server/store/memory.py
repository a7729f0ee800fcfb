"""The embedded store: one process, nothing to set up.

Records and events are kept as msgpack bytes, as a networked store would keep
them, so nothing a caller holds is ever shared with the store by accident, and
the serialisation path is exercised from the first test on.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections import deque
from collections.abc import Callable

import msgpack

from protocol.messages import ServerMessage

from ..record import GameRecord
from ..room import RoomEvent
from .base import Listener

log = logging.getLogger(__name__)


class MemoryStore:
    name = "memory"

    def __init__(self, keep_events: int = 1000, clock: Callable[[], float] = time.time):
        self._keep = keep_events
        self._clock = clock
        self._records: dict[str, bytes] = {}
        self._versions: dict[str, int] = {}
        self._logs: dict[str, deque[bytes]] = {}
        self._listeners: dict[str, list[Listener]] = {}
        self._spectators: dict[str, int] = {}
        self._deadlines: dict[str, int] = {}
        self._deadline_heap: list[tuple[int, str]] = []
        self._waiting: dict[str, None] = {}  # insertion-ordered sets
        self._live: dict[str, None] = {}

    async def now(self) -> int:
        return int(self._clock() * 1000)

    async def create(self, record: GameRecord, deadline: int | None = None) -> bool:
        if record.id in self._records:
            return False
        self._write(record, deadline)
        self._logs[record.id] = deque(maxlen=self._keep)
        return True

    async def load(self, game_id: str) -> GameRecord | None:
        stored = self._records.get(game_id)
        if stored is None:
            return None
        return GameRecord.from_dict(msgpack.unpackb(stored))

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: GameRecord,
        events: list[RoomEvent],
        deadline: int | None,
    ) -> bool:
        if self._versions.get(game_id) != expected_version:
            return False
        self._write(record, deadline)
        log_ = self._logs.setdefault(game_id, deque(maxlen=self._keep))
        for event in events:
            log_.append(msgpack.packb(event.to_dict()))
        for event in events:
            self._publish(game_id, event)
        return True

    async def events_since(self, game_id: str, version: int) -> list[RoomEvent] | None:
        current = self._versions.get(game_id)
        if current is None or version > current:
            return None
        if version == current:
            return []
        stored = [RoomEvent.from_dict(msgpack.unpackb(e)) for e in self._logs.get(game_id, ())]
        missed = [e for e in stored if e.v > version]
        if not missed or missed[0].v != version + 1:
            return None  # the oldest of them is no longer kept
        return missed

    async def subscribe(self, game_id: str, listener: Listener) -> None:
        self._listeners.setdefault(game_id, []).append(listener)

    async def unsubscribe(self, game_id: str, listener: Listener) -> None:
        listeners = self._listeners.get(game_id, [])
        if listener in listeners:
            listeners.remove(listener)
        if not listeners:
            self._listeners.pop(game_id, None)

    async def announce(self, game_id: str, notice: ServerMessage) -> None:
        self._publish(game_id, notice)

    async def add_spectators(self, game_id: str, delta: int) -> int:
        count = max(0, self._spectators.get(game_id, 0) + delta)
        self._spectators[game_id] = count
        return count

    async def spectators(self, game_id: str) -> int:
        return self._spectators.get(game_id, 0)

    async def due(self, now: int) -> list[str]:
        found = []
        while self._deadline_heap and self._deadline_heap[0][0] <= now:
            at, game_id = heapq.heappop(self._deadline_heap)
            if self._deadlines.get(game_id) == at:  # else superseded by a later commit
                del self._deadlines[game_id]
                found.append(game_id)
        return found

    async def waiting_and_live(self, limit: int) -> tuple[list[GameRecord], list[GameRecord]]:
        waiting = [await self.load(i) for i in list(reversed(self._waiting))[:limit]]
        live = [await self.load(i) for i in list(reversed(self._live))[:limit]]
        return [r for r in waiting if r], [r for r in live if r]

    async def close(self) -> None:
        self._listeners.clear()

    # ----------------------------------------------------------------------------------

    def _write(self, record: GameRecord, deadline: int | None) -> None:
        self._records[record.id] = msgpack.packb(record.to_dict())
        self._versions[record.id] = record.version
        if deadline is None:
            self._deadlines.pop(record.id, None)
        elif self._deadlines.get(record.id) != deadline:
            self._deadlines[record.id] = deadline
            heapq.heappush(self._deadline_heap, (deadline, record.id))
        if record.status == "waiting" and record.opponent == "open":
            self._waiting[record.id] = None
        else:
            self._waiting.pop(record.id, None)
        if record.status == "playing":
            self._live[record.id] = None
        else:
            self._live.pop(record.id, None)

    def _publish(self, game_id: str, item: RoomEvent | ServerMessage) -> None:
        for listener in list(self._listeners.get(game_id, ())):
            try:
                listener(game_id, item)
            except Exception:  # one broken subscriber must not stop the others
                log.exception("listener failed for game %s", game_id)
