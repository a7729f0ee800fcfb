"""The computer opponent's seat: a ``Bot`` chooses moves, a ``BotTable`` plays them.

A bot plays through the same command path as people (``Games.run`` with a
``PlayMove``), so the room checks its moves like any other. The search itself is
the engine's (a later issue plugs it in as a ``Bot``, run off the event loop in a
process pool); until one is configured, ``app.state.bot`` is None and creating a
game against the computer is refused with ``computer/unavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from protocol import messages as m

from .commands import PlayMove
from .games import Games
from .record import GameRecord, Side
from .room import RoomEvent
from .store import Resync

log = logging.getLogger(__name__)


class Bot(Protocol):
    async def choose(
        self,
        variant: str,
        start_fen: str | None,
        moves: list[str],
        level: int,
        time_left_ms: int | None,
    ) -> str:
        """The move to play (notation or a path joined by '-'/'x') after ``moves``.

        Must not block the event loop: run the search in an executor.
        """
        ...


class BotTable:
    """Plays the computer's side of the games this node created against it."""

    def __init__(self, games: Games, bot: Bot):
        self.games = games
        self.bot = bot
        self._thinking: dict[str, asyncio.Task[None]] = {}
        self._watched: set[str] = set()

    async def watch(self, record: GameRecord) -> None:
        """Start playing the bot seat of ``record`` (already stored)."""
        self._watched.add(record.id)
        await self.games.store.subscribe(record.id, self._heard)
        self._consider(record.id)

    async def close(self) -> None:
        for task in self._thinking.values():
            task.cancel()
        for game_id in list(self._watched):
            await self.games.store.unsubscribe(game_id, self._heard)
        self._watched.clear()

    def _heard(self, game_id: str, item: RoomEvent | m.ServerMessage | Resync) -> None:
        if isinstance(item, Resync) or (
            isinstance(item, RoomEvent) and isinstance(item.message, m.Moved | m.Over)
        ):
            self._consider(game_id)

    def _consider(self, game_id: str) -> None:
        if game_id not in self._thinking:
            self._thinking[game_id] = asyncio.create_task(self._think(game_id))

    async def _think(self, game_id: str) -> None:
        try:
            record = await self.games.store.load(game_id)
            if record is None or record.over:
                await self._forget(game_id)
                return
            side: Side = record.side_to_move
            seat = record.seat(side)
            if record.status != "playing" or seat is None or not seat.bot:
                return
            now = await self.games.store.now()
            move = await self.bot.choose(
                record.variant,
                record.start_fen,
                list(record.moves),
                record.level or 1,
                record.time_left(side, now) if record.clocked else None,
            )
            outcome = await self.games.run(game_id, PlayMove(side, notation=move))
            if getattr(outcome, "refusal", None) is not None:
                log.warning("game %s: the bot's move %r was refused", game_id, move)
        except Exception:
            log.exception("game %s: the bot failed to move", game_id)
        finally:
            self._thinking.pop(game_id, None)

    async def _forget(self, game_id: str) -> None:
        self._watched.discard(game_id)
        with contextlib.suppress(Exception):
            await self.games.store.unsubscribe(game_id, self._heard)
