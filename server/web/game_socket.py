"""One game socket: who it is, then each command to the room and its answer.

The jobs are in their own modules: ``handshake`` (accept, the ``hello``), ``budget``
(messages per window, strikes), ``outbox`` (the send queue, its writer, the close
policy), ``game_stream`` (the game's events in order, resync, the rematch seat).
What is left here is the conversation: find the seat, come and go, and hand every
command as it was decoded to the room (``commands.Sent``), answering ``ack`` or
``error``. There is no list of commands here: the room's is the only one.

Anything unexpected is logged with its traceback and closes the socket with 1011.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode, ProtocolError
from server.core import room
from server.core.commands import Connect, Disconnect, Sent
from server.core.names import InvalidName, clean_name
from server.core.record import Side
from server.services.games import Games, NotFound, fresh
from server.services.hub import Hub
from server.services.metrics import Metrics
from server.store import StoreUnavailable
from server.web import handshake
from server.web.budget import Budget
from server.web.game_stream import GameStream, Snapshot
from server.web.limits import SocketLimits
from server.web.outbox import GONE, UNAVAILABLE, Outbox

log = logging.getLogger(__name__)


class GameSocket:
    def __init__(self, websocket: WebSocket, game_id: str, state: Any):
        self.websocket = websocket
        self.game_id = game_id
        self.games: Games = state.games
        self.hub: Hub = state.hub
        self.store = state.store
        self.settings = state.settings
        self.side: Side | None = None
        self.name: str | None = None
        self.metrics: Metrics | None = state.metrics
        self.outbox = Outbox(
            websocket, state.settings, state.watchdog, f"game {game_id}", metrics=state.metrics
        )
        self.stream = GameStream(state.store, game_id, self.outbox)
        self.budget: Budget | None = None  # set once the hello says who this is
        # Likewise the server's receive, once the handshake is over (web/gate.py).
        self._receive = websocket.scope.get("kondavo.receive", websocket.receive)

    async def serve(self) -> None:
        try:
            await self._serve()
        except GONE:
            pass
        except Exception:
            # A bug, or a store that broke in a new way: log it all, tell the peer nothing.
            log.exception("game %s: unexpected error on a socket", self.game_id)
            await self.outbox.close(CloseCode.SERVER_ERROR)
        finally:
            self.outbox.release()

    async def _serve(self) -> None:
        if not await handshake.accept(self.websocket):
            return
        hello = await handshake.hello(self.websocket, self.outbox, self.settings.hello_timeout_s)
        if hello is None:
            return
        try:
            found = await self.games.seat_of(self.game_id, hello.token)
        except StoreUnavailable:
            # Not a final close code: the client comes back by itself a little later.
            self.outbox.count_busy()
            await self.outbox.refuse_and_close(
                ErrorCode.SERVER_BUSY, UNAVAILABLE, CloseCode.SERVER_ERROR
            )
            return
        if found is None:
            await self.outbox.refuse_and_close(
                ErrorCode.ROOM_NOT_FOUND,
                m.sentence(ErrorCode.ROOM_NOT_FOUND),
                CloseCode.ROOM_NOT_FOUND,
            )
            return
        record, self.side = found
        self.stream.side = self.side
        name_refused: InvalidName | None = None
        if hello.name is not None:
            # The same cleaning as the HTTP API's; a bad name costs the name, not the socket.
            try:
                self.name = clean_name(hello.name)
            except InvalidName as bad:
                name_refused = bad
        limits = SocketLimits(self.settings, seated=self.side is not None)
        self.budget = Budget(limits, self.outbox)
        await self.hub.enter(self.game_id, self.stream)
        self.outbox.start()
        try:
            if name_refused is not None:
                self.outbox.send(m.Error(code=name_refused.code, message=name_refused.sentence))
            if hello.token and self.side is None:
                self.outbox.send(
                    m.Error(
                        code=ErrorCode.SEAT_BAD_TOKEN,
                        message=m.sentence(ErrorCode.SEAT_BAD_TOKEN),
                    )
                )
            await self.stream.start(record, hello.since)
            await self._arrive()
            await self._read_loop()
        finally:
            with contextlib.suppress(Exception):
                await self._depart()
            await self.outbox.stop()

    async def _arrive(self) -> None:
        if self.side is not None:
            # The hello's name is the seat's from now on (the player may have set one).
            await self.games.run(self.game_id, Connect(self.side, self.name))
        else:
            count = await self.store.add_spectators(self.game_id, 1)
            await self.store.announce(self.game_id, m.Spectators(n=count))

    async def _depart(self) -> None:
        await self.hub.leave(self.game_id, self.stream)
        if self.side is not None:
            await self.games.run(self.game_id, Disconnect(self.side))
        else:
            count = await self.store.add_spectators(self.game_id, -1)
            await self.store.announce(self.game_id, m.Spectators(n=count))

    # --- reading ----------------------------------------------------------------------

    async def _read_loop(self) -> None:
        receive = self._receive
        budget = self.budget
        outbox = self.outbox
        assert budget is not None
        while not outbox.closing:
            frame = handshake.payload(await receive())
            if frame is None:
                return
            message: m.ClientMessage | None
            try:
                message = m.decode_client(frame)
            except ProtocolError as exc:
                if budget.admit(None, exc.ack):
                    budget.strike(exc.code, exc.sentence, exc.ack)
                continue
            ack = message.ack if isinstance(message, m.Command) else None
            if budget.admit(message, ack):
                await self._dispatch(message)
            # Not held while the next frame is awaited: anything kept across that wait
            # lives seconds, and the collector walks it (see Outbox._write_loop).
            frame = message = None

    async def _dispatch(self, message: m.ClientMessage) -> None:
        send = self.outbox.send
        if isinstance(message, m.Ping):
            send(m.Pong(n=message.n, now=await self.store.now()))
            return
        if isinstance(message, m.Hello):
            twice = m.sentence(ErrorCode.MSG_HELLO_TWICE)
            send(m.Error(code=ErrorCode.MSG_HELLO_TWICE, message=twice))
            return
        assert isinstance(message, m.Command)
        if isinstance(message, m.SendChat) and self.budget is not None:
            text = room.clean_chat(message.text)
            refused = self.budget.limits.chat(text) if text else None
            if refused is not None:
                send(m.Error(code=refused[0], message=refused[1], ack=message.ack))
                return
        metrics = self.metrics if type(message) is m.MakeMove else None
        if metrics is not None:
            metrics.move_arrived(self.game_id)
        try:
            outcome = await self.games.run(self.game_id, Sent(self.side, message, self.name, fresh))
        except StoreUnavailable:
            # Never an ack for what was not stored; the same ack id may be sent again.
            self.outbox.count_busy()
            if metrics is not None:
                metrics.move_dropped(self.game_id)
            send(m.Error(code=ErrorCode.SERVER_BUSY, message=UNAVAILABLE, ack=message.ack))
            return
        refusal = outcome.refusal
        if metrics is not None and refusal is not None:
            metrics.move_dropped(self.game_id)
        if refusal is not None:
            send(m.Error(code=refusal.code, message=refusal.sentence, ack=message.ack))
            if refusal.resync and not isinstance(outcome, NotFound):
                self.stream.deliver(Snapshot())
        elif message.ack is not None and not isinstance(outcome, NotFound):
            # A resend of a command applied before: its first ack's version again.
            v = outcome.acked_v if outcome.acked_v is not None else outcome.record.version
            send(m.Ack(ack=message.ack, v=v))
