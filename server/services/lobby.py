"""The lobby: open games to join and live games to watch, over HTTP and a socket.

One feed per node polls the store and pushes a ``lobby`` message to its lobby
sockets (``web.lobby_socket``) when the listing changes; polling keeps it the same
on every store.
"""

from __future__ import annotations

import asyncio
import logging

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
        self.sockets: set[asyncio.Queue[m.Lobby]] = set()
        self.latest: m.Lobby | None = None

    async def run(self) -> None:
        while True:
            try:
                if self.sockets:
                    current = await listing(self.store)
                    if current != self.latest:
                        self.latest = current
                        for queue in list(self.sockets):
                            _replace(queue, current)
                else:
                    self.latest = None
            except Exception:
                log.exception("lobby: listing failed")
            await asyncio.sleep(self.every_s)

    def watch(self) -> asyncio.Queue[m.Lobby]:
        """A queue that gets the listing now (if known) and each change after."""
        queue: asyncio.Queue[m.Lobby] = asyncio.Queue(1)
        self.sockets.add(queue)
        return queue

    def unwatch(self, queue: asyncio.Queue[m.Lobby]) -> None:
        self.sockets.discard(queue)


def _replace(queue: asyncio.Queue[m.Lobby], listing: m.Lobby) -> None:
    """Only the newest listing matters to a slow reader."""
    while not queue.empty():
        queue.get_nowait()
    queue.put_nowait(listing)
