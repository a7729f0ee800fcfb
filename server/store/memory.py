"""The embedded store: one process, nothing to set up.

Records are kept as objects, copy-on-write: ``load`` hands out the stored record
itself and ``commit`` keeps the one it is given (``room.handle``'s new record), so
neither may be changed afterwards; ``room.handle`` copies a record before it
changes anything. ``create`` keeps a copy, as callers build a new record by hand.
Unpacking and repacking the whole record on every command was a large part of
relaying a move (bench/relay.py).

A game over is forgotten ``finished_kept_ms`` after its last commit (a chat line or a
rematch offer after the end counts): ``due``, which the timekeeper calls every tick,
drops the expired ones, oldest first.

Events are logged as their encoded frames, the bytes the sockets send: kept as
objects, a thousand events per game would have the garbage collector walk
millions of lists and dicts (bench/relay.py's p99 went from 50 to 250 ms).
"""

from __future__ import annotations

import heapq
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import msgpack

from protocol.messages import Lobby, LobbyChange, ServerMessage
from server.core.events import Audience, RoomEvent
from server.core.history import HISTORY_KEPT
from server.core.record import GameRecord
from server.store.base import LOBBY, LOBBY_KEPT, Listener

log = logging.getLogger(__name__)


class MemoryStore:
    name = "memory"

    def __init__(
        self,
        keep_events: int = 1000,
        clock: Callable[[], float] = time.time,
        finished_kept_ms: int = 7 * 86_400_000,
    ):
        self._keep = keep_events
        self._clock = clock
        self._finished_kept_ms = finished_kept_ms
        # Games over -> when they are forgotten; in commit order, so also by that time.
        self._expiry: dict[str, int] = {}
        self._records: dict[str, GameRecord] = {}
        # Per game: (version, audience, frame) of the last ``keep_events`` events.
        self._logs: dict[str, deque[tuple[int, Audience, bytes]]] = {}
        self._listeners: dict[str, list[Listener]] = {}
        self._spectators: dict[str, int] = {}
        self._deadlines: dict[str, int] = {}
        self._deadline_heap: list[tuple[int, str]] = []
        self._waiting: dict[str, None] = {}  # insertion-ordered sets
        self._live: dict[str, None] = {}
        # Per public player id: game id -> history entry (for the process's life).
        self._histories: dict[str, dict[str, dict[str, Any]]] = {}
        self._lobby: Lobby | None = None
        self._lobby_log: deque[LobbyChange] = deque(maxlen=LOBBY_KEPT)

    async def now(self) -> int:
        return int(self._clock() * 1000)

    async def create(self, record: GameRecord, deadline: int | None = None) -> bool:
        if record.id in self._records:
            return False
        self._write(record.copy(), deadline)
        self._logs[record.id] = deque(maxlen=self._keep)
        return True

    async def load(self, game_id: str) -> GameRecord | None:
        """The stored record itself: read it, never change it (copy it first)."""
        return self._records.get(game_id)

    def cached(self, game_id: str) -> GameRecord | None:
        return None  # load is a dict lookup already

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: GameRecord,
        events: list[RoomEvent],
        deadline: int | None,
    ) -> bool:
        stored = self._records.get(game_id)
        if stored is None or stored.version != expected_version:
            return False
        self._write(record, deadline)
        if record.over:
            self._expiry.pop(game_id, None)  # to the end: the order stays by time
            self._expiry[game_id] = int(self._clock() * 1000) + self._finished_kept_ms
        kept = self._logs.get(game_id)
        if kept is None:  # made only when missing (setdefault would make one every time)
            kept = self._logs[game_id] = deque(maxlen=self._keep)
        kept.extend((event.v, event.audience, event.frame()) for event in events)
        for event in events:
            self._publish(game_id, event)
        return True

    async def events_since(self, game_id: str, version: int) -> list[RoomEvent] | None:
        stored = self._records.get(game_id)
        if stored is None or version > stored.version:
            return None
        if version == stored.version:
            return []
        missed = [
            RoomEvent.from_frame(frame, audience)
            for v, audience, frame in self._logs.get(game_id, ())
            if v > version
        ]
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
        if count:
            self._spectators[game_id] = count
        else:
            self._spectators.pop(game_id, None)  # a game nobody watches costs nothing
        return count

    async def spectators(self, game_id: str) -> int:
        return self._spectators.get(game_id, 0)

    async def due(self, now: int) -> list[str]:
        self._forget_expired(now)
        found = []
        while self._deadline_heap and self._deadline_heap[0][0] <= now:
            at, game_id = heapq.heappop(self._deadline_heap)
            if self._deadlines.get(game_id) == at:  # else superseded by a later commit
                del self._deadlines[game_id]
                found.append(game_id)
        return found

    async def waiting_and_live(
        self, limit: int, live_limit: int | None = None
    ) -> tuple[list[GameRecord], list[GameRecord]]:
        live_limit = limit if live_limit is None else live_limit
        waiting = [await self.load(i) for i in list(reversed(self._waiting))[:limit]]
        live = [await self.load(i) for i in list(reversed(self._live))[:live_limit]]
        return [r for r in waiting if r], [r for r in live if r]

    async def sizes(self) -> tuple[int, int]:
        return len(self._waiting), len(self._live)

    async def remember_game(self, player: str, entry: dict[str, Any]) -> None:
        games = self._histories.setdefault(player, {})
        known = games.get(entry["id"])
        if known is not None and known["status"] == "finished" and entry["status"] != "finished":
            return  # a late write from the game's start must not undo its end
        games[entry["id"]] = _plain_copy(entry)
        if len(games) > HISTORY_KEPT:
            oldest = sorted(games, key=lambda i: (games[i]["at"], i))
            for old in oldest[: len(games) - HISTORY_KEPT]:
                del games[old]

    async def forget_game(self, player: str, game_id: str) -> None:
        self._histories.get(player, {}).pop(game_id, None)

    async def player_games(self, player: str, limit: int = HISTORY_KEPT) -> list[dict[str, Any]]:
        games = self._histories.get(player, {})
        newest = sorted(games.values(), key=lambda e: (e["at"], e["id"]), reverse=True)
        return [_plain_copy(e) for e in newest[:limit]]

    async def lobby_head(self) -> Lobby | None:
        return self._lobby

    async def lobby_commit(
        self, expected_v: int, listing: Lobby, changes: list[LobbyChange]
    ) -> bool:
        if (0 if self._lobby is None else self._lobby.v) != expected_v:
            return False
        self._lobby = listing
        self._lobby_log.extend(changes)
        for change in changes:
            self._publish(LOBBY, change)
        return True

    async def lobby_since(self, version: int) -> list[LobbyChange] | None:
        current = 0 if self._lobby is None else self._lobby.v
        if version > current:
            return None
        missed = [change for change in self._lobby_log if change.v > version]
        if version < current and (not missed or missed[0].v != version + 1):
            return None  # the oldest of them is no longer kept
        return missed

    async def subscribe_lobby(self, listener: Listener) -> None:
        await self.subscribe(LOBBY, listener)

    async def unsubscribe_lobby(self, listener: Listener) -> None:
        await self.unsubscribe(LOBBY, listener)

    async def close(self) -> None:
        self._listeners.clear()

    # ----------------------------------------------------------------------------------

    def _write(self, record: GameRecord, deadline: int | None) -> None:
        self._records[record.id] = record
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

    def _forget_expired(self, now: int) -> None:
        while self._expiry:
            game_id, at = next(iter(self._expiry.items()))
            if at > now:
                return
            del self._expiry[game_id]
            self._records.pop(game_id, None)
            self._logs.pop(game_id, None)
            self._spectators.pop(game_id, None)
            self._deadlines.pop(game_id, None)  # its heap entry is skipped as stale

    def _publish(self, game_id: str, item: RoomEvent | ServerMessage) -> None:
        for listener in list(self._listeners.get(game_id, ())):
            try:
                listener(game_id, item)
            except Exception:  # one broken subscriber must not stop the others
                log.exception("listener failed for game %s", game_id)


def _plain_copy(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy through msgpack, as a networked store would hand it out: nobody shares it."""
    copied: dict[str, Any] = msgpack.unpackb(msgpack.packb(entry, use_bin_type=True), raw=False)
    return copied
