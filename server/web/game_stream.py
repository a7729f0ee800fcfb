"""A game's events to one socket, in order and without a gap.

The hub hands each local socket every event of its game (``deliver``); this keeps the
client's version ``last_v`` gap-free: an event next in order is sent as it is (to a
spectator, a bare version step if it may not see it), a gap is filled from the store's
log, and a client too far behind (or after a ``Resync``: the channel between nodes was
down) gets what it missed, or a full state when the log no longer has it. A player
whose game was followed by a rematch is told its seat there, privately.
"""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from server.core import views
from server.core.events import RoomEvent
from server.core.record import GameRecord, Side, other
from server.store import Resync, Store
from server.web.outbox import Outbox


class Snapshot:
    """Instruction: send the full state."""


class CatchUp:
    """Instruction: send every event the client has not seen yet."""


class GameStream:
    def __init__(self, store: Store, game_id: str, outbox: Outbox):
        self.store = store
        self.game_id = game_id
        self.outbox = outbox
        self.side: Side | None = None  # the seat it shows the game to (None: a spectator)
        self.last_v = 0
        outbox.render = self.render

    # --- the hub's side ---------------------------------------------------------------

    def deliver(self, item: RoomEvent | m.ServerMessage | Resync | Snapshot | CatchUp) -> None:
        # The writer idle and the event next in order: it needs no store read, so it
        # goes out now, without waking the writer (bench/relay.py).
        if (
            type(item) is RoomEvent
            and item.v == self.last_v + 1
            and item.tag != m.Rematch.t
            and self.outbox.write_now(item.frame_for(self.side))
        ):
            self.last_v = item.v
            return
        self.outbox.deliver(item)

    def send(self, message: m.ServerMessage) -> None:
        self.outbox.deliver(message)

    # --- what the client gets first ---------------------------------------------------

    async def start(self, record: GameRecord, since: int | None) -> None:
        """Send what the client lacks: the events after ``since``, or the whole state."""
        if since is not None and since <= record.version:
            self.last_v = since
            self.deliver(CatchUp())  # falls back to a snapshot if the log lost some
            self.send(m.Spectators(n=await self.store.spectators(self.game_id)))
        else:
            self.deliver(Snapshot())
        if self.side is not None and record.rematch_game is not None:
            await self._send_rematch_seat(record.rematch_game)

    # --- the writer's side ------------------------------------------------------------

    async def render(self, item: Any) -> None:
        if type(item) is RoomEvent:
            await self._send_event(item)
        elif isinstance(item, Snapshot):
            await self._send_snapshot()
        elif isinstance(item, CatchUp | Resync):
            await self._catch_up()  # Resync: the channel was down, events may be lost
        else:
            raise TypeError(f"a game socket cannot send {type(item).__name__}")

    async def _send_snapshot(self) -> None:
        record = await self.store.load(self.game_id)
        if record is None:
            return
        spectators = await self.store.spectators(self.game_id)
        now = await self.store.now()
        await self.outbox.write(views.state_for(record, self.side, spectators, now))
        self.last_v = record.version

    async def _catch_up(self) -> None:
        missed = await self.store.events_since(self.game_id, self.last_v)
        if missed is None:
            await self._send_snapshot()
            return
        for event in missed:
            await self._send_in_order(event)

    async def _send_event(self, event: RoomEvent) -> None:
        if event.v <= self.last_v:
            return  # already sent (a snapshot or a catch-up covered it)
        if event.v > self.last_v + 1:
            await self._catch_up()  # a gap: the log has what came in between
            return
        await self._send_in_order(event)

    async def _send_in_order(self, event: RoomEvent) -> None:
        if event.v != self.last_v + 1:
            return
        await self.outbox.write_frame(event.frame_for(self.side))
        self.last_v = event.v
        if event.tag == m.Rematch.t and self.side is not None:
            rematch = event.message
            assert isinstance(rematch, m.Rematch)
            await self._send_rematch_seat(rematch.game)

    async def _send_rematch_seat(self, game_id: str) -> None:
        """Tell this player, and only this player, its seat in the rematch."""
        record = await self.store.load(game_id)
        if record is None or self.side is None:
            return
        side = other(self.side)  # colours swap in a rematch
        seat = record.seat(side)
        if seat is not None:
            self.send(m.Seat(game=game_id, side=side, token=seat.token))
