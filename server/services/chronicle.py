"""Keeping each player's history: a ``Games`` observer that writes a game into the
history of the people seated in it when it starts, when it is over, and drops it
when it is aborted (``core.history`` says what an entry holds).

Every command's record passes through here, so the node remembers the phase it
last wrote per game and writes only when the phase changes. The writes are
idempotent (an entry per game id, a finished one never replaced by a live one), so
two nodes writing the same phase, or a node writing it again after a restart, is
harmless. A history write that fails is logged and tried again on the game's
next command; it never undoes or delays the command itself.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from server.core import history
from server.core.record import GameRecord
from server.store import Store, StoreUnavailable

log = logging.getLogger(__name__)

# Games whose written phase this node remembers; older ones are written again if seen.
REMEMBERED = 20_000


class Chronicle:
    def __init__(self, store: Store):
        self.store = store
        self._written: OrderedDict[str, history.Phase] = OrderedDict()

    async def __call__(self, record: GameRecord) -> None:
        phase = history.phase(record)
        if phase is None or self._written.get(record.id) == phase:
            return
        try:
            for player, entry in history.entries(record).items():
                if phase == "gone":
                    await self.store.forget_game(player, record.id)
                else:
                    await self.store.remember_game(player, entry)
        except StoreUnavailable:
            log.warning("game %s: the players' histories could not be written yet", record.id)
            return
        except Exception:
            log.exception("game %s: writing the players' histories failed", record.id)
            return
        self._written[record.id] = phase
        self._written.move_to_end(record.id)
        while len(self._written) > REMEMBERED:
            self._written.popitem(last=False)
