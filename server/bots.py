"""The computer opponent's seat: a ``Bot`` chooses moves, a ``BotTable`` plays them.

A bot plays through the same command path as people (``Games.run`` with a
``PlayMove``), so the room checks its moves like any other, and a move chosen for
a position that has since changed is refused as stale (it carries the version it
was made against). ``computer.PoolBot`` is the real one: the engine's search in a
process pool, never on the event loop.

The table is a ``Games`` observer: whenever a command leaves a computer game with
the computer to move (the creation, the person's move, a reconnect, a rematch), the
node that ran it starts thinking. Nothing else remembers that the bot must move, so
should that node die mid-thought, the game's deadline (``room.deadline``: the
computer's turn overdue) brings it to some node's timekeeper, whose ``Tick`` passes
through ``Games.run`` and so through this observer again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from protocol.messages import ErrorCode

from . import room
from .commands import PlayMove
from .games import Games
from .record import GameRecord, Side

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
    """Plays the computer's seat of every game whose commands pass through this node."""

    RETRY_S = 1.0  # after a failed search or store error, look again this much later
    ATTEMPTS = 5

    def __init__(self, games: Games, bot: Bot):
        self.games = games
        self.bot = bot
        self._thinking: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        games.observers.append(self.observe)

    @property
    def thinking(self) -> set[str]:
        return set(self._thinking)

    async def watch(self, record: GameRecord) -> None:
        """Play the computer's seat of ``record`` (already stored) from now on."""
        await self.observe(record)

    async def observe(self, record: GameRecord) -> None:
        if room.bot_to_move(record):
            self.consider(record.id)

    def consider(self, game_id: str) -> None:
        """Think about ``game_id``; if this node already does, look again once done."""
        if game_id in self._thinking:
            self._again.add(game_id)  # e.g. the reply came while the last move committed
        else:
            self._thinking[game_id] = asyncio.create_task(self._think(game_id))

    async def close(self) -> None:
        tasks = list(self._thinking.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self._thinking.clear()
        if self.observe in self.games.observers:
            self.games.observers.remove(self.observe)

    async def _think(self, game_id: str) -> None:
        failures = 0
        try:
            while True:
                self._again.discard(game_id)
                if await self._move(game_id):
                    failures += 1
                    if failures >= self.ATTEMPTS:
                        return  # the game's deadline brings it back later
                    await asyncio.sleep(self.RETRY_S)  # failed: try again a little later
                elif game_id not in self._again:
                    return
        finally:
            self._thinking.pop(game_id, None)
            self._again.discard(game_id)

    async def _move(self, game_id: str) -> bool:
        """Play the computer's move if it is its turn; True if it should try again."""
        try:
            record = await self.games.store.load(game_id)
            if record is None or not room.bot_to_move(record):
                return False
            side: Side = record.side_to_move
            now = await self.games.store.now()
            move = await self.bot.choose(
                record.variant,
                record.start_fen,
                list(record.moves),
                record.level or 1,
                record.time_left(side, now) if record.clocked else None,
            )
            # ``v``: made against this position; if it changed meanwhile, it is dropped.
            command = PlayMove(side, notation=move, v=record.position_version)
            outcome = await self.games.run(game_id, command)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: the bot failed to move", game_id)
            return True
        refusal = getattr(outcome, "refusal", None)
        if refusal is None:
            return False
        if refusal.code in _OVERTAKEN:
            log.debug("game %s: the bot's move %r was overtaken: %s", game_id, move, refusal.code)
            return False
        log.warning("game %s: the bot's move %r was refused: %s", game_id, move, refusal.code)
        return True


# Refusals that only mean the game moved on while the bot thought.
_OVERTAKEN = {
    ErrorCode.MOVE_STALE,
    ErrorCode.MOVE_NOT_YOUR_TURN,
    ErrorCode.GAME_OVER,
}
