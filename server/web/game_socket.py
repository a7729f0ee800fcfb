"""One game socket: decode, rate-limit, hand commands to the room, send what comes back.

Two tasks per socket: this one reads frames; a writer drains the socket's send
queue in order, keeps the client's version gap-free (fetching missed events from
the store's log, or sending a full state), and renders each event for this seat.
While the writer is idle (its queue empty, no send waiting), an event next in
order, or a plain message, is written at once by ``deliver`` instead
(``net.frames.frame_writer``): no task wakes for it. Anything else, or a transport that
would make the send wait, goes through the queue.

A socket that stops reading only ever blocks its own writer: when its queue fills
up, or one write stays blocked for ``send_timeout_s``, it is cut off (issue 7).
Anything unexpected is logged with its traceback and closes the socket with 1011.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import Any

from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode, ProtocolError
from server.core import commands as c
from server.core import room, views
from server.core.events import RoomEvent
from server.core.names import InvalidName, clean_name
from server.core.record import GameRecord, Side, other
from server.net.watchdog import SendWatchdog
from server.services.games import Games, NotFound, fresh
from server.services.hub import Hub
from server.services.metrics import Metrics
from server.store import Resync, StoreUnavailable
from server.web.limits import SocketLimits

log = logging.getLogger(__name__)

UNAVAILABLE = m.sentence(ErrorCode.SERVER_BUSY)
SEND_QUEUE = 512  # items a socket may fall behind before it is cut off
MAX_STRIKES = 50  # bad frames before the socket is closed
# A peer that has gone away: not worth a traceback.
_GONE = (WebSocketDisconnect, OSError)


class _Snapshot:
    """Writer instruction: send the full state."""


class _CatchUp:
    """Writer instruction: send every event the client has not seen yet."""


class _Close:
    def __init__(self, code: int):
        self.code = code


_Instruction = _Snapshot | _CatchUp | _Close | Resync


async def accept(websocket: WebSocket) -> None:
    offered = websocket.scope.get("subprotocols") or []
    await websocket.accept(subprotocol=m.SUBPROTOCOL if m.SUBPROTOCOL in offered else None)


async def receive_frame(websocket: WebSocket) -> bytes | str | None:
    """The next frame's payload, or None once the peer has gone."""
    return payload(await websocket.receive())


def payload(message: Message) -> bytes | str | None:
    """A received ASGI message's frame payload, or None if it says the peer has gone."""
    if message["type"] == "websocket.disconnect":
        return None
    if message.get("bytes") is not None:
        return message["bytes"]
    return message.get("text") or ""


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
        self.last_v = 0
        # The send queue: a deque and one future the writer waits on when it is empty.
        # An asyncio.Queue costs several calls and a waiter list per item, once per
        # frame per socket (bench/relay.py).
        self.queue: deque[Any] = deque()
        self._wakeup: asyncio.Future[None] | None = None
        self.limits: SocketLimits | None = None  # set once the hello says who this is
        self.strikes = 0
        self.closing = False
        self.closed = False
        # Drops the TCP connection at once (see net/frames.py); None outside uvicorn.
        self._abort = websocket.scope.get("kondavo.abort")
        # The server's send under Starlette's wrappers (web/gate.py): frames go straight
        # to it. Starlette's WebSocket would only repeat checks uvicorn makes itself
        # (nothing after a close) and turn the OSError of a lost peer into its own.
        self._send_frame = websocket.scope.get("kondavo.send", websocket.send)
        # And a way to write a frame without waiting, when the transport takes it.
        self._write_now = websocket.scope.get("kondavo.write_now")
        # Likewise the server's receive, once the handshake is over (web/gate.py).
        self._receive = websocket.scope.get("kondavo.receive", websocket.receive)
        # When the pending send began (None: no send waiting): the node's one
        # SendWatchdog cuts the socket off when a send waits too long.
        self.sending_since: float | None = None
        self.watchdog: SendWatchdog = state.watchdog
        self.metrics: Metrics | None = state.metrics

    # --- the hub's side ---------------------------------------------------------------

    def deliver(self, item: RoomEvent | m.ServerMessage | _Instruction) -> None:
        if self.closing:
            return
        queue = self.queue
        if self._wakeup is not None and not queue and self._write_now is not None:
            # The writer is idle, so nothing is queued or being sent: a frame that
            # needs no store read goes out now, in order, without waking the writer.
            if type(item) is RoomEvent:
                if (
                    item.v == self.last_v + 1
                    and type(item.message) is not m.Rematch
                    and self._write_now(item.frame_for(self.side))
                ):
                    self.last_v = item.v
                    return
            elif isinstance(item, m.ServerMessage) and self._write_now(m.encode(item)):
                return
        if len(queue) < SEND_QUEUE:
            queue.append(item)
        else:
            # It does not read: cut it off rather than hold events for it forever.
            self.closing = True
            queue.clear()
            queue.append(_Close(CloseCode.TOO_SLOW))
            # The writer is most likely blocked on the full socket: the close frame
            # could never be sent, so drop the connection if it is still open shortly.
            asyncio.get_running_loop().call_later(0.5, self.cut_off)
        wakeup = self._wakeup
        if wakeup is not None:
            self._wakeup = None
            if not wakeup.done():
                wakeup.set_result(None)

    def cut_off(self) -> None:
        """Drop the connection without a closing handshake (the peer does not read)."""
        if self.closed or self._abort is None:
            return
        self.closed = True
        log.info("game %s: cut off a socket that stopped reading", self.game_id)
        with contextlib.suppress(Exception):
            self._abort()

    def send(self, message: m.ServerMessage) -> None:
        self.deliver(message)

    # --- the connection's life --------------------------------------------------------

    async def serve(self) -> None:
        try:
            await self._serve()
        except _GONE:
            pass
        except Exception:
            # A bug, or a store that broke in a new way: log it all, tell the peer nothing.
            log.exception("game %s: unexpected error on a socket", self.game_id)
            await self._close(CloseCode.SERVER_ERROR)

    async def _serve(self) -> None:
        await accept(self.websocket)
        hello = await self._hello()
        if hello is None:
            return
        try:
            found = await self.games.seat_of(self.game_id, hello.token)
        except StoreUnavailable:
            # Not a final close code: the client comes back by itself a little later.
            self._count_busy()
            await self._refuse_and_close(ErrorCode.SERVER_BUSY, UNAVAILABLE, CloseCode.SERVER_ERROR)
            return
        if found is None:
            await self._refuse_and_close(
                ErrorCode.ROOM_NOT_FOUND,
                m.sentence(ErrorCode.ROOM_NOT_FOUND),
                CloseCode.ROOM_NOT_FOUND,
            )
            return
        record, self.side = found
        name_refused: InvalidName | None = None
        if hello.name is not None:
            # The same cleaning as the HTTP API's; a bad name costs the name, not the socket.
            try:
                self.name = clean_name(hello.name)
            except InvalidName as bad:
                name_refused = bad
        self.limits = SocketLimits(self.settings, seated=self.side is not None)
        await self.hub.enter(self.game_id, self)
        writer = asyncio.create_task(self._write_loop())
        self.watchdog.add(self)
        try:
            if name_refused is not None:
                self.send(m.Error(code=name_refused.code, message=name_refused.sentence))
            if hello.token and self.side is None:
                self.send(
                    m.Error(
                        code=ErrorCode.SEAT_BAD_TOKEN,
                        message=m.sentence(ErrorCode.SEAT_BAD_TOKEN),
                    )
                )
            await self._first_sync(record, hello.since)
            await self._arrive()
            await self._read_loop()
        finally:
            with contextlib.suppress(Exception):
                await self._depart()
            if self.closing and not writer.done():
                # Let the writer send what is queued up to the close frame.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(writer), self.settings.send_timeout_s)
                if not writer.done():
                    self.cut_off()
            writer.cancel()
            self.watchdog.discard(self)
            with contextlib.suppress(BaseException):
                await writer

    async def _hello(self) -> m.Hello | None:
        try:
            frame = await asyncio.wait_for(
                receive_frame(self.websocket), self.settings.hello_timeout_s
            )
        except TimeoutError:
            await self._close(CloseCode.NO_HELLO)
            return None
        if frame is None:
            return None
        try:
            hello = m.decode_client(frame)
        except ProtocolError as exc:
            await self._refuse_and_close(exc.code, exc.sentence, CloseCode.NO_HELLO)
            return None
        if not isinstance(hello, m.Hello):
            await self._refuse_and_close(
                ErrorCode.MSG_HELLO_FIRST, m.sentence(ErrorCode.MSG_HELLO_FIRST), CloseCode.NO_HELLO
            )
            return None
        if hello.proto != m.PROTOCOL_VERSION:
            await self._refuse_and_close(
                ErrorCode.PROTO_VERSION,
                m.sentence(ErrorCode.PROTO_VERSION, ours=m.PROTOCOL_VERSION, theirs=hello.proto),
                CloseCode.UNSUPPORTED_VERSION,
            )
            return None
        return hello

    async def _first_sync(self, record: GameRecord, since: int | None) -> None:
        """Send what the client lacks: the events after ``since``, or the whole state."""
        if since is not None and since <= record.version:
            self.last_v = since
            self.deliver(_CatchUp())  # falls back to a snapshot if the log lost some
            self.send(m.Spectators(n=await self.store.spectators(self.game_id)))
        else:
            self.deliver(_Snapshot())
        if self.side is not None and record.rematch_game is not None:
            await self._send_rematch_seat(record.rematch_game)

    async def _arrive(self) -> None:
        if self.side is not None:
            # The hello's name is the seat's from now on (the player may have set one).
            await self.games.run(self.game_id, c.Connect(self.side, self.name))
        else:
            count = await self.store.add_spectators(self.game_id, 1)
            await self.store.announce(self.game_id, m.Spectators(n=count))

    async def _depart(self) -> None:
        await self.hub.leave(self.game_id, self)
        if self.side is not None:
            await self.games.run(self.game_id, c.Disconnect(self.side))
        else:
            count = await self.store.add_spectators(self.game_id, -1)
            await self.store.announce(self.game_id, m.Spectators(n=count))

    # --- reading ----------------------------------------------------------------------

    async def _read_loop(self) -> None:
        receive = self._receive
        while not self.closing:
            frame = payload(await receive())
            if frame is None:
                return
            message: m.ClientMessage | None
            try:
                message = m.decode_client(frame)
            except ProtocolError as exc:
                if self._within_budget(None):
                    self._strike(exc.code, exc.sentence)
                continue
            if self._within_budget(message):
                await self._dispatch(message)
            # Not held while the next frame is awaited: anything kept across that wait
            # lives seconds, and the collector walks it (see _write_loop).
            frame = message = None

    def _within_budget(self, message: m.ClientMessage | None) -> bool:
        """Count the frame; past the socket's budget: say so and close with 1008."""
        assert self.limits is not None
        if self.limits.admit(message):
            return True
        ack = message.ack if isinstance(message, m.Command) else None
        too_many = m.sentence(ErrorCode.RATE_LIMITED, what="messages")
        self.send(m.Error(code=ErrorCode.RATE_LIMITED, message=too_many, ack=ack))
        self.deliver(_Close(CloseCode.POLICY))
        self.closing = True
        return False

    def _strike(self, code: ErrorCode, sentence: str, ack: int | None = None) -> None:
        self.strikes += 1
        self.send(m.Error(code=code, message=sentence, ack=ack))
        if self.strikes >= MAX_STRIKES:
            self.deliver(_Close(CloseCode.TOO_MANY_ERRORS))
            self.closing = True

    async def _dispatch(self, message: m.ClientMessage) -> None:
        if isinstance(message, m.Ping):
            self.send(m.Pong(n=message.n, now=await self.store.now()))
            return
        if isinstance(message, m.Hello):
            twice = m.sentence(ErrorCode.MSG_HELLO_TWICE)
            self.send(m.Error(code=ErrorCode.MSG_HELLO_TWICE, message=twice))
            return
        assert isinstance(message, m.Command)
        if isinstance(message, m.SendChat) and self.limits is not None:
            text = room.clean_chat(message.text)
            refused = self.limits.chat(text) if text else None
            if refused is not None:
                self.send(m.Error(code=refused[0], message=refused[1], ack=message.ack))
                return
        command = self._command(message)
        metrics = self.metrics if type(message) is m.MakeMove else None
        if metrics is not None:
            metrics.move_arrived(self.game_id)
        try:
            outcome = await self.games.run(self.game_id, command)
        except StoreUnavailable:
            # Never an ack for what was not stored; the same ack id may be sent again.
            self._count_busy()
            if metrics is not None:
                metrics.move_dropped(self.game_id)
            self.send(m.Error(code=ErrorCode.SERVER_BUSY, message=UNAVAILABLE, ack=message.ack))
            return
        if metrics is not None and (isinstance(outcome, NotFound) or outcome.refusal):
            metrics.move_dropped(self.game_id)
        if isinstance(outcome, NotFound):
            self.send(
                m.Error(
                    code=outcome.refusal.code, message=outcome.refusal.sentence, ack=message.ack
                )
            )
            return
        if outcome.refusal is not None:
            self.send(
                m.Error(
                    code=outcome.refusal.code, message=outcome.refusal.sentence, ack=message.ack
                )
            )
            if outcome.refusal.resync:
                self.deliver(_Snapshot())
        elif message.ack is not None:
            self.send(m.Ack(ack=message.ack, v=outcome.record.version))

    def _command(self, message: m.Command) -> c.Command:
        by = self.side
        match message:
            case m.MakeMove(path=path, notation=notation, v=v, ack=ack):
                return c.PlayMove(by, tuple(path) if path is not None else None, notation, ack, v)
            case m.OfferDraw():
                return c.OfferDraw(by)
            case m.AcceptDraw():
                return c.AcceptDraw(by)
            case m.DeclineDraw():
                return c.DeclineDraw(by)
            case m.Resign():
                return c.Resign(by)
            case m.Abort():
                return c.Abort(by)
            case m.AskTakeback():
                return c.AskTakeback(by)
            case m.AcceptTakeback():
                return c.AcceptTakeback(by)
            case m.DeclineTakeback():
                return c.DeclineTakeback(by)
            case m.OfferRematch():
                return c.OfferRematch(by, fresh())
            case m.AcceptRematch():
                return c.AcceptRematch(by, fresh())
            case m.DeclineRematch():
                return c.DeclineRematch(by)
            case m.ClaimVictory():
                return c.Claim(by, draw=False)
            case m.ClaimDraw():
                return c.Claim(by, draw=True)
            case m.SendChat(text=text):
                return c.Chat(by, text, self.name)
        raise AssertionError(f"no command for {message.t}")  # the schema lists no other

    # --- writing ----------------------------------------------------------------------

    async def _write_loop(self) -> None:
        queue = self.queue
        loop = asyncio.get_running_loop()
        try:
            while not self.closed:
                while not queue:
                    # Waits on a bare future, not a helper coroutine: with thousands of
                    # sockets idle between moves, every object a wait keeps alive is
                    # one more for each young garbage collection to walk (issue 7).
                    self._wakeup = wakeup = loop.create_future()
                    try:
                        await wakeup
                    finally:
                        self._wakeup = None
                        del wakeup
                item = queue.popleft()
                if isinstance(item, _Close):
                    await self._close(item.code)
                    return
                if isinstance(item, _Snapshot):
                    await self._send_snapshot()
                elif isinstance(item, _CatchUp | Resync):
                    await self._catch_up()  # Resync: the channel was down, events may be lost
                elif isinstance(item, RoomEvent):
                    await self._send_event(item)
                else:
                    await self._write(item)
                # Let the event go before waiting for the next: a move's event (the
                # board, the legal moves) would otherwise live until the next move.
                item = None
        except asyncio.CancelledError:
            raise
        except _GONE:
            # The peer is gone or the socket broke: the reader will see the disconnect.
            log.debug("game %s: writer stopped", self.game_id, exc_info=True)
        except StoreUnavailable:
            # A snapshot or catch-up could not be read: not a bug. The socket cannot
            # go on without the events it missed, so it closes with a code the client
            # answers by coming back shortly (and catching up then).
            log.warning("game %s: store unavailable while catching a socket up", self.game_id)
            self._count_busy()
            await self._refuse_and_close(ErrorCode.SERVER_BUSY, UNAVAILABLE, CloseCode.SERVER_ERROR)
        except Exception:
            log.exception("game %s: unexpected error while sending", self.game_id)
            with contextlib.suppress(Exception):
                await self.websocket.close(CloseCode.SERVER_ERROR)

    async def _write(self, message: m.ServerMessage) -> None:
        await self._write_frame(m.encode(message))

    async def _write_frame(self, frame: bytes) -> None:
        # The send only waits while the transport's buffer is full (the peer is slow);
        # the node's watchdog cuts the socket off when one send waits send_timeout_s.
        # A timestamp per frame costs far less than a timeout (a timer) per frame.
        self.sending_since = time.monotonic()
        try:
            await self._send_frame({"type": "websocket.send", "bytes": frame})
        finally:
            self.sending_since = None

    async def _send_snapshot(self) -> None:
        record = await self.store.load(self.game_id)
        if record is None:
            return
        spectators = await self.store.spectators(self.game_id)
        now = await self.store.now()
        await self._write(views.state_for(record, self.side, spectators, now))
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
        await self._write_frame(event.frame_for(self.side))
        self.last_v = event.v
        if isinstance(event.message, m.Rematch) and self.side is not None:
            await self._send_rematch_seat(event.message.game)

    async def _send_rematch_seat(self, game_id: str) -> None:
        """Tell this player, and only this player, its seat in the rematch."""
        record = await self.store.load(game_id)
        if record is None or self.side is None:
            return
        side = other(self.side)  # colours swap in a rematch
        seat = record.seat(side)
        if seat is not None:
            self.send(m.Seat(game=game_id, side=side, token=seat.token))

    def _count_busy(self) -> None:
        if self.metrics is not None:
            self.metrics.busy.inc()

    # --- closing ----------------------------------------------------------------------

    async def _refuse_and_close(self, code: ErrorCode, sentence: str, close: int) -> None:
        with contextlib.suppress(Exception):
            await self._write(m.Error(code=code, message=sentence))
        await self._close(close)

    async def _close(self, code: int) -> None:
        self.closing = True
        try:
            async with asyncio.timeout(self.settings.send_timeout_s):
                await self.websocket.close(code)
        except TimeoutError:
            self.cut_off()  # not even the close frame goes through
        except Exception:
            pass
        self.closed = True
