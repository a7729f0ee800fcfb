"""The node's timekeeper: lets flags fall and claims open when nobody is connected.

The store knows each game's next deadline (``room.deadline``); the timekeeper asks
it which are due and runs a ``Tick`` through the normal command path, so a flag
falls the same way whether or not anyone is watching. On a shared store ``due``
claims the games for this node alone, with a lease: if this node dies before its
Tick is committed, another claims the game when the lease runs out. Should two
nodes ever tick the same game, the compare-and-set makes the second harmless.
"""

from __future__ import annotations

import asyncio
import logging

from server.core.commands import Tick
from server.services.cancelling import raise_if_cancelled
from server.services.games import Games
from server.store import StoreUnavailable

log = logging.getLogger(__name__)


class Timekeeper:
    def __init__(self, games: Games, every_s: float):
        self.games = games
        self.every_s = every_s

    async def tick_once(self) -> int:
        """Tick every game whose deadline has passed; return how many there were."""
        store = self.games.store
        due = await store.due(await store.now())
        for game_id in due:
            try:
                await self.games.run(game_id, Tick())
            except StoreUnavailable:
                raise  # the claim's lease runs out and the game is claimed again
            except Exception:  # one broken game must not stop the clocks of the others
                log.exception("game %s: tick failed", game_id)
        return len(due)

    async def run(self) -> None:
        away = False
        while True:
            try:
                await self.tick_once()
                if away:
                    log.warning("timekeeper: the store is back")
                away = False
            except StoreUnavailable:
                if not away:
                    log.warning("timekeeper: the store is unavailable; retrying")
                away = True
            except Exception:
                log.exception("timekeeper: tick failed")
            raise_if_cancelled()
            await asyncio.sleep(self.every_s)
