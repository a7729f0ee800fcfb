"""The lobby: open games to join and live games to watch, over HTTP and a socket.

One feed per node polls the store and pushes a ``lobby`` message to its lobby
sockets (``web.lobby_socket``) when the listing changes; polling keeps it the same
on every store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from protocol import messages as m
from server.core import room, views
from server.store import Store

log = logging.getLogger(__name__)

LISTED = 50  # open games and live games shown, each
# Open games read per listing, newest first. Some of the newest may be hidden (their
# creator came and went, ``room.seek_listed``) for up to a minute before they are
# withdrawn; read only LISTED, fifty such seeks would empty the lobby of the older
# games still waiting. Reading four times as many takes two hundred a minute to do that,
# past what the per-address cap on game creation lets one address make.
WAITING_READ = 4 * LISTED


async def listing(store: Store) -> m.Lobby:
    waiting, live = await store.waiting_and_live(WAITING_READ, LISTED)
    shown = [r for r in waiting if room.seek_listed(r)][:LISTED]
    return m.Lobby(
        open=[views.open_entry(r) for r in shown],
        live=[views.live_entry(r, await store.spectators(r.id)) for r in live],
    )


class LobbyFeed:
    def __init__(self, store: Store, every_s: float):
        self.store = store
        self.every_s = every_s
        # Each lobby socket's way to take a listing (its outbox's ``deliver``).
        self.sockets: set[Callable[[m.Lobby], None]] = set()
        self.latest: m.Lobby | None = None

    async def run(self) -> None:
        while True:
            try:
                if self.sockets:
                    current = await listing(self.store)
                    if current != self.latest:
                        self.latest = current
                        for deliver in list(self.sockets):
                            deliver(current)
                else:
                    self.latest = None
            except Exception:
                log.exception("lobby: listing failed")
            await asyncio.sleep(self.every_s)

    def watch(self, deliver: Callable[[m.Lobby], None]) -> None:
        """Hand ``deliver`` each change of the listing from now on."""
        self.sockets.add(deliver)

    def unwatch(self, deliver: Callable[[m.Lobby], None]) -> None:
        self.sockets.discard(deliver)
