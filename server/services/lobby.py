"""The lobby: open games to join and live games to watch, over HTTP and a socket.

The lobby socket (``web.lobby_socket``) sends the listing once, then only what
changes, each change one lobby version on (``protocol.lobby``). The versions are the
store's, so every node numbers the same changes alike and a client may come back on
any node with the version it has.

One feed per node. While the node has lobby sockets it reads the listing from the
store every ``every_s`` (polling keeps it the same on every store), works out the
changes since the listing it holds, and commits them to the store: a compare-and-set
on the lobby's version, so of two nodes that saw the same change one commits it and
the other, refused, catches up. A node's feed holds the listing at the version it has
applied; it reads the version before it reads the games, so a listing it commits is
always newer than the one it was compared with. Every node, the committing one too,
applies the changes as the store's lobby channel brings them, and hands each, in
order, to its sockets; a gap in the versions (a change lost with a broken channel) is
filled from the store's log, or, when that no longer has it, every socket is sent the
whole listing again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from protocol import lobby as increments
from protocol import messages as m
from server.core import room, views
from server.services.cancelling import raise_if_cancelled
from server.store import Resync, Store, StoreUnavailable

log = logging.getLogger(__name__)

LISTED = 50  # open games and live games shown, each
# Open games read per listing, newest first. Some of the newest may be hidden (their
# creator came and went, ``room.seek_listed``) for up to a minute before they are
# withdrawn; read only LISTED, fifty such seeks would empty the lobby of the older
# games still waiting. Reading four times as many takes two hundred a minute to do that,
# past what the per-address cap on game creation lets one address make.
WAITING_READ = 4 * LISTED
# Changes each node keeps for sockets that come back with an older version.
KEPT = 200

# A lobby socket's way to take what it must send: a listing or a change.
Deliver = Callable[[m.Lobby | m.LobbyChange], None]


async def listing(store: Store) -> m.Lobby:
    """The lobby as the store has it now (version 0: not numbered yet)."""
    waiting, live = await store.waiting_and_live(WAITING_READ, LISTED)
    shown = [r for r in waiting if room.seek_listed(r)][:LISTED]
    return m.Lobby(
        open=increments.newest_first([views.open_entry(r) for r in shown]),
        live=increments.newest_first(
            [views.live_entry(r, await store.spectators(r.id)) for r in live]
        ),
    )


class LobbyFeed:
    def __init__(self, store: Store, every_s: float):
        self.store = store
        self.every_s = every_s
        # Each lobby socket's way to take a listing or a change (its outbox's ``deliver``).
        self.sockets: set[Deliver] = set()
        self.latest: m.Lobby | None = None  # the listing at the version applied here
        self.recent: deque[m.LobbyChange] = deque(maxlen=KEPT)
        self._polled_at = float("-inf")
        self._poll_lock = asyncio.Lock()
        self._catch_up_lock = asyncio.Lock()
        self._ready_lock = asyncio.Lock()
        self._behind = False
        self._subscribed = False
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def version(self) -> int:
        return 0 if self.latest is None else self.latest.v

    # --- what a socket gets -------------------------------------------------------------

    async def ready(self) -> None:
        """Make sure this node holds a current listing: subscribed, loaded, and read from
        the games within the last ``every_s`` (the first socket of an idle node)."""
        async with self._ready_lock:
            if not self._subscribed:
                await self.store.subscribe_lobby(self._on_change)
                self._subscribed = True
            if self.latest is None:
                await self._load()
        if time.monotonic() - self._polled_at > self.every_s:
            await self.poll()

    def since(self, version: int) -> list[m.LobbyChange] | None:
        """The changes after ``version`` this node still keeps, or None (send the
        listing): also for a version ahead of this node's."""
        if version > self.version:
            return None
        missed = [change for change in self.recent if change.v > version]
        if version < self.version and (not missed or missed[0].v != version + 1):
            return None
        return missed

    def watch(self, deliver: Deliver) -> None:
        """Hand ``deliver`` each change from now on (and a listing after a reset)."""
        self.sockets.add(deliver)

    def unwatch(self, deliver: Deliver) -> None:
        self.sockets.discard(deliver)

    # --- reading and committing -----------------------------------------------------------

    async def run(self) -> None:
        while True:
            try:
                if self.sockets:
                    await self.ready()
                    if time.monotonic() - self._polled_at >= self.every_s * 0.9:
                        await self.poll()
            except StoreUnavailable:
                log.warning("lobby: the store is away; trying again")
            except Exception:
                log.exception("lobby: listing failed")
            raise_if_cancelled()
            await asyncio.sleep(self.every_s)

    async def poll(self) -> None:
        """Read the games; commit what changed since the listing held here."""
        async with self._poll_lock:
            self._polled_at = time.monotonic()
            if self.latest is None:
                await self._load()
            before = self.latest
            assert before is not None
            found = increments.changes(before, await listing(self.store))
            if not found:
                return
            after = before
            for change in found:
                after = increments.fold(after, change)
            if not await self.store.lobby_commit(before.v, after, found):
                # Another node committed first (or this one is behind): what it
                # committed comes by the channel, or from the log now.
                await self.catch_up()

    async def _load(self) -> None:
        head = await self.store.lobby_head()
        self._reset(head if head is not None else m.Lobby())

    def _reset(self, head: m.Lobby) -> None:
        """Hold ``head`` from now on; sockets that had an older listing get this one."""
        told = self.latest is not None
        self.latest = head
        self.recent.clear()
        if told:
            for deliver in list(self.sockets):
                deliver(head)

    # --- the channel ----------------------------------------------------------------------

    def _on_change(self, key: str, item: Any) -> None:
        if isinstance(item, Resync):
            self._fall_behind()
            return
        if self.latest is None or item.v <= self.version:
            return  # loaded after it was committed, or seen already
        if item.v != self.version + 1:
            self._fall_behind()
            return
        self._apply(item)

    def _apply(self, change: m.LobbyChange) -> None:
        assert self.latest is not None
        self.latest = increments.fold(self.latest, change)
        self.recent.append(change)
        for deliver in list(self.sockets):
            deliver(change)

    def _fall_behind(self) -> None:
        self._behind = True
        task = asyncio.get_running_loop().create_task(self.catch_up())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def catch_up(self) -> None:
        """Apply what the store committed after this node's version: from its log, or
        its whole listing when the log no longer has it all."""
        async with self._catch_up_lock:
            self._behind = True
            while self._behind:
                self._behind = False
                try:
                    missed = await self.store.lobby_since(self.version)
                    if missed is None:
                        await self._load()
                        continue
                except StoreUnavailable:
                    log.warning("lobby: cannot catch up while the store is away")
                    return
                for change in missed:
                    if change.v == self.version + 1:
                        self._apply(change)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        if self._subscribed:
            with contextlib.suppress(StoreUnavailable):
                await self.store.unsubscribe_lobby(self._on_change)
