"""The node's hub: which local sockets watch which game, and the store subscriptions.

The hub subscribes to a game's channel while at least one local socket is in that
room, and hands every event or notice to each socket's own send queue; it never
awaits a socket, so one slow reader cannot hold up the room.

Pub/sub is at most once. The store re-establishes a broken channel and
resubscribes by itself, then hands the hub ``RESYNC``; the hub passes it to every
local socket of the game, and each reads what it missed from the log by its own
last version (or takes a full snapshot), as it does for a gap.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Protocol

from protocol.messages import ServerMessage
from server.core.events import RoomEvent
from server.services.metrics import Metrics
from server.store import Resync, Store


class Member(Protocol):
    """A local socket in a room (see ``web.game_socket.GameSocket``)."""

    def deliver(self, item: RoomEvent | ServerMessage | Resync) -> None: ...


class Hub:
    def __init__(self, store: Store, metrics: Metrics | None = None):
        self.store = store
        self.metrics = metrics
        self._rooms: dict[str, set[Member]] = {}
        # Subscribing is a network round trip on a networked store: one at a time per
        # game. A game's lock, with how many enter or leave it, lives only while they
        # do: kept for every game the node ever served, the locks grew without end.
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def members(self, game_id: str) -> set[Member]:
        return self._rooms.get(game_id, set())

    def rooms(self) -> dict[str, set[Member]]:
        return self._rooms

    def entering_or_leaving(self) -> int:
        """Games a socket is entering or leaving right now: each holds a lock meanwhile,
        and nothing once the last has gone through."""
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def _one_at_a_time(self, game_id: str) -> AsyncIterator[None]:
        entry = self._locks.get(game_id)
        if entry is None:
            entry = self._locks[game_id] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]

    async def enter(self, game_id: str, member: Member) -> None:
        async with self._one_at_a_time(game_id):
            if game_id not in self._rooms:
                self._rooms[game_id] = set()
                await self.store.subscribe(game_id, self._fan_out)
            self._rooms[game_id].add(member)

    async def leave(self, game_id: str, member: Member) -> None:
        async with self._one_at_a_time(game_id):
            members = self._rooms.get(game_id)
            if members is None:
                return
            members.discard(member)
            if not members:
                del self._rooms[game_id]
                await self.store.unsubscribe(game_id, self._fan_out)

    def _fan_out(self, game_id: str, item: RoomEvent | ServerMessage | Resync) -> None:
        members = list(self._rooms.get(game_id, ()))
        for member in members:
            member.deliver(item)
        if self.metrics is not None:
            self.metrics.fanned_out(game_id, item, len(members))
