"""A small asyncio client for Kondavo: create and join games over HTTP, play and watch
over the game socket. Tests, benchmarks and bots use it; a whole game is a few lines:

    async with Kondavo("http://127.0.0.1:8000") as k:
        white = await k.create(variant="russian", color="white", clock=None)
        black = await k.join(white.game, invite=white.invite)
        async with k.connect(white) as w, k.connect(black) as b:
            pick = lambda conn: random.choice(conn.legal)
            await asyncio.gather(w.play(pick), b.play(pick))
            print(w.result, w.reason)

HTTP goes through the standard library (in a thread); the socket through
``websockets``. Every server message is decoded and validated by
``protocol.messages``; the connection keeps the game's state up to date from them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import secrets
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import quote

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.typing import Subprotocol

from . import lobby as increments
from . import messages as m

DEFAULT_TIMEOUT = 10.0
RESENDS = 3  # times a command is sent again after a lost socket or a busy server
# Close codes after which a client comes back (see protocol/README.md, "Close codes").
COME_BACK_AFTER = frozenset({1001, 1006, 1011, 4008})


class HttpError(Exception):
    """The HTTP API refused: ``status``, and the server's ``code`` and sentence."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class CommandRefused(Exception):
    """The room refused a command: ``code`` (an ``ErrorCode`` value) and a sentence."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


@dataclass(frozen=True)
class SeatTicket:
    """A seat in a game: keep ``token`` secret, it is what proves the seat is yours."""

    game: str
    side: str
    token: str
    url: str
    invite_url: str | None = None

    @property
    def invite(self) -> str | None:
        if self.invite_url and "#invite=" in self.invite_url:
            return self.invite_url.split("#invite=", 1)[1]
        return None


class Kondavo:
    """The HTTP API of one server, and a door to its game sockets."""

    def __init__(self, base_url: str, timeout: float = DEFAULT_TIMEOUT):
        self.base_url = base_url.rstrip("/")
        self.ws_url = "ws" + self.base_url.removeprefix("http")
        self.timeout = timeout

    async def __aenter__(self) -> Kondavo:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    # --- HTTP ---------------------------------------------------------------------

    def _request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={"content-type": "application/json"} if data is not None else {},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        """One HTTP request; the decoded JSON answer, or ``HttpError``."""
        status, raw = await asyncio.to_thread(self._request, method, path, body)
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = raw.decode(errors="replace")
        if status >= 400:
            error = payload.get("error", {}) if isinstance(payload, dict) else {}
            raise HttpError(status, error.get("code", f"http/{status}"), error.get("message", ""))
        return payload

    @staticmethod
    def _ticket(answer: dict[str, Any]) -> SeatTicket:
        seat = answer["seat"]
        return SeatTicket(
            game=answer["id"],
            side=seat["color"],
            token=seat["token"],
            url=answer["url"],
            invite_url=answer.get("invite_url"),
        )

    async def create(self, **options: Any) -> SeatTicket:
        """``POST /api/games``: variant, clock, color, opponent, level, rated, name, fen."""
        return self._ticket(await self.request("POST", "/api/games", options))

    async def join(
        self,
        game: str,
        invite: str | None = None,
        name: str | None = None,
        player: str | None = None,
    ) -> SeatTicket:
        """``POST /api/games/{id}/join``; ``player``: this client's secret player id."""
        fields = {"invite": invite, "name": name, "player": player}
        body = {k: v for k, v in fields.items() if v is not None}
        return self._ticket(await self.request("POST", f"/api/games/{quote(game)}/join", body))

    async def game(self, game: str) -> dict[str, Any]:
        answer: dict[str, Any] = await self.request("GET", f"/api/games/{quote(game)}")
        return answer

    async def pdn(self, game: str) -> str:
        status, raw = await asyncio.to_thread(self._request, "GET", f"/api/games/{quote(game)}/pdn")
        if status >= 400:
            raise HttpError(status, f"http/{status}", raw.decode(errors="replace"))
        return raw.decode()

    async def lobby(self) -> dict[str, Any]:
        answer: dict[str, Any] = await self.request("GET", "/api/lobby")
        return answer

    def watch_lobby(self, *, since: m.Lobby | None = None) -> LobbyConnection:
        """The lobby socket, its listing kept up to date from the server's increments.
        ``since``: a listing held from before (a reconnect asks only for what changed).

        Use as ``async with k.watch_lobby() as lobby`` (then ``lobby.listing``)."""
        return LobbyConnection(self, since)

    # --- sockets ------------------------------------------------------------------

    def connect(
        self,
        seat: SeatTicket | str,
        *,
        since: int | None = None,
        name: str | None = None,
    ) -> GameConnection:
        """A socket to a game: as a player with a ``SeatTicket``, as a spectator with an id.

        Use as ``async with k.connect(...) as conn`` or ``conn = await k.connect(...)``.
        """
        if isinstance(seat, SeatTicket):
            return GameConnection(self, seat.game, seat.token, since=since, name=name)
        return GameConnection(self, seat, None, since=since, name=name)


class _Socket(ABC):
    """What the game and lobby sockets share: connecting and saying hello, a reader task
    that keeps every message in ``received`` (and its bytes in ``frames``) in order,
    hands it to ``_take`` and wakes whoever waits in ``until``; ``close_code`` once the
    socket is gone (1006 when it closed without a code)."""

    def __init__(self, client: Kondavo):
        self.client = client
        self.socket: ClientConnection | None = None
        self.received: list[m.ServerMessage] = []
        self.frames: list[bytes] = []
        self.gaps = 0  # events that skipped a version (a correct server never causes one)
        self.close_code: int | None = None
        self._changed = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @abstractmethod
    async def open(self) -> Self:
        """Connect (``_connect``) and return once the first state is in."""

    @abstractmethod
    def _take(self, msg: m.ServerMessage) -> None:
        """Keep what ``msg`` says (it is already in ``received``)."""

    @abstractmethod
    def _lost(self) -> None:
        """The socket is gone: fail whatever waits for an answer on it."""

    async def _connect(self, path: str, hello: m.Hello) -> None:
        self.socket = await ws_connect(
            f"{self.client.ws_url}{path}",
            subprotocols=[Subprotocol(m.SUBPROTOCOL)],
            max_size=None,
            open_timeout=self.client.timeout,
        )
        self.close_code = None
        self._reader = asyncio.create_task(self._read())
        await self.socket.send(m.encode(hello))

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self._reader is not None:
            with contextlib.suppress(BaseException):
                await self._reader

    async def _read(self) -> None:
        assert self.socket is not None
        try:
            async for frame in self.socket:
                if isinstance(frame, str):
                    continue
                self.frames.append(frame)
                msg = m.decode_server(frame)
                self.received.append(msg)
                self._take(msg)
                async with self._changed:
                    self._changed.notify_all()
        except Exception:
            pass
        finally:
            self.close_code = self.socket.close_code or 1006
            self._lost()
            async with self._changed:
                self._changed.notify_all()

    async def until(self, condition: Callable[[Self], bool], timeout: float | None = -1) -> None:
        """Wait until ``condition(self)`` holds (checked after every message).

        ``timeout`` -1 means the client's default; None waits for ever."""
        limit = self.client.timeout if timeout == -1 else timeout
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: condition(self)), limit)


class GameConnection(_Socket):
    """One game socket and the game as its messages describe it.

    ``received`` holds every message in order and ``frames`` the raw bytes, so tests
    can check exactly what a peer saw.
    """

    def __init__(
        self,
        client: Kondavo,
        game: str,
        token: str | None,
        *,
        since: int | None = None,
        name: str | None = None,
    ):
        super().__init__(client)
        self.game = game
        self.token = token
        self.name = name
        self._since = since
        self.errors: list[m.Error] = []
        self.rematch_seat: m.Seat | None = None
        # the game as last described
        self.v = 0
        self.you: str | None = None
        self.status = ""
        self.variant = ""
        self.board: dict[str, Any] = {}
        self.fen = ""
        self.side_to_move = ""
        self.pieces: list[list[Any]] = []
        self.moves: list[str] = []
        self.legal: list[dict[str, Any]] = []
        self.clocks: dict[str, Any] | None = None
        self.result: str | None = None
        self.reason: str | None = None
        self.draw_offer: str | None = None
        self.takeback_offer: str | None = None
        self.rematch: str | None = None
        self.spectators = 0
        # Ack ids only pair answers with commands on this connection (the server knows a
        # resent command by its seat, type, ``v`` and content, never by its ack id).
        self._ack = secrets.randbelow(1 << 30)
        self._waiting: dict[int, asyncio.Future[m.Ack]] = {}
        self._pings: dict[int, asyncio.Future[m.Pong]] = {}
        self._cursor = 0

    # --- life -----------------------------------------------------------------------

    def __await__(self) -> Generator[Any, None, GameConnection]:
        return self.open().__await__()

    async def open(self) -> GameConnection:
        """Connect and say hello; returns once the first state (or catch-up) is in."""
        hello = m.Hello(token=self.token, since=self._since, name=self.name)
        await self._connect(f"/ws/games/{quote(self.game)}", hello)
        if self._since is None:
            await self.until(lambda c: c.status != "" or c.close_code is not None)
        return self

    async def reconnect(self) -> GameConnection:
        """Drop the socket and come back with the last version seen (a resync)."""
        await self.close()
        self._since = self.v
        return await self.open()

    def _lost(self) -> None:
        pending: list[asyncio.Future[Any]] = [*self._waiting.values(), *self._pings.values()]
        for future in pending:
            if not future.done():
                future.set_exception(ConnectionError("the socket closed"))
        self._waiting.clear()
        self._pings.clear()

    # --- keeping the game's state ------------------------------------------------------

    def _take(self, msg: m.ServerMessage) -> None:
        if isinstance(msg, m.Event):
            if not isinstance(msg, m.State) and msg.v != self.v + 1:
                self.gaps += 1
            self.v = msg.v
        match msg:
            case m.State():
                self.you, self.status, self.variant = msg.you, msg.status, msg.variant
                self.board, self.fen, self.side_to_move = msg.board, msg.fen, msg.side_to_move
                self.pieces, self.moves, self.legal = msg.pieces, list(msg.moves), msg.legal
                self.clocks, self.result, self.reason = msg.clocks, msg.result, msg.reason
                self.draw_offer, self.rematch = msg.draw_offer, msg.rematch
                self.takeback_offer = msg.takeback_offer
                self.spectators = msg.spectators
            case m.Moved():
                self.fen, self.side_to_move, self.pieces = msg.fen, msg.side_to_move, msg.pieces
                self.legal, self.clocks = msg.legal, msg.clocks
                self.moves.append(msg.notation)
            case m.Joined():
                self.status = "playing"
            case m.Over():
                self.status = "finished" if msg.result is not None else "aborted"
                self.result, self.reason, self.clocks = msg.result, msg.reason, msg.clocks
                self.draw_offer = None
            case m.TakenBack():
                del self.moves[msg.ply :]
                self.fen, self.side_to_move, self.pieces = msg.fen, msg.side_to_move, msg.pieces
                self.legal, self.clocks = msg.legal, msg.clocks
                self.draw_offer = self.takeback_offer = None
            case m.TakebackOffered():
                self.takeback_offer = msg.by
            case m.TakebackDeclined() | m.TakebackLapsed():
                self.takeback_offer = None
            case m.DrawOffered():
                self.draw_offer = msg.by
            case m.DrawDeclined() | m.DrawLapsed():
                self.draw_offer = None
            case m.Rematch():
                self.rematch = msg.game
            case m.Seat():
                self.rematch_seat = msg
            case m.Spectators():
                self.spectators = msg.n
            case m.Ack():
                future = self._waiting.pop(msg.ack, None)
                if future is not None and not future.done():
                    future.set_result(msg)
            case m.Error():
                future = self._waiting.pop(msg.ack, None) if msg.ack is not None else None
                if future is not None and not future.done():
                    future.set_exception(CommandRefused(msg.code, msg.message))
                else:
                    self.errors.append(msg)
            case m.Pong():
                ping = self._pings.pop(msg.n, None) if msg.n is not None else None
                if ping is not None and not ping.done():
                    ping.set_result(msg)

    @property
    def my_turn(self) -> bool:
        return self.status == "playing" and self.you == self.side_to_move and bool(self.legal)

    # --- waiting ------------------------------------------------------------------------

    async def next(
        self, match: str | Callable[[m.ServerMessage], bool], timeout: float | None = -1
    ) -> m.ServerMessage:
        """The next message (after the last one ``next`` returned) with tag or test ``match``."""
        test = match if callable(match) else (lambda msg: msg.t == match)
        found: list[m.ServerMessage] = []

        def scan(_: GameConnection) -> bool:
            while self._cursor < len(self.received):
                msg = self.received[self._cursor]
                self._cursor += 1
                if test(msg):
                    found.append(msg)
                    return True
            return self.close_code is not None

        await self.until(scan, timeout)
        if not found:
            raise ConnectionError(f"the socket closed ({self.close_code}) before {match!r}")
        return found[0]

    # --- commands -----------------------------------------------------------------------

    async def send(self, message: m.ClientMessage) -> None:
        """Send any message as is (tests use it to send what a correct client would not)."""
        assert self.socket is not None
        await self.socket.send(m.encode(message))

    async def send_raw(self, frame: bytes | str) -> None:
        assert self.socket is not None
        await self.socket.send(frame)

    async def command(self, cls: type[m.Command], **fields: Any) -> m.Ack:
        """Send a command chosen now (at the version this connection has seen); its
        ``Ack``, or ``CommandRefused``. It is resent safely (see ``resend``)."""
        fields.setdefault("v", self.v)
        return await self.resend(cls(**fields))

    async def resend(self, message: m.Command) -> m.Ack:
        """Send ``message`` and wait for its answer; when the socket drops first (closed
        with a code a client should come back after) or the server is busy, reconnect or
        wait, and send the very same command again (a new ack id, the same ``v``). The
        server answers a command it has already applied with its first ack, so a command
        is applied once however often it is sent (protocol/README.md, "Sending again")."""
        for attempt in range(RESENDS + 1):
            self._ack += 1
            ack = self._ack
            try:
                return await self._await_ack(dataclasses.replace(message, ack=ack), ack)
            except ConnectionError:
                if attempt == RESENDS or self.close_code not in COME_BACK_AFTER:
                    raise
                await asyncio.sleep(0.05 * (attempt + 1))
                await self.reconnect()
            except CommandRefused as refused:
                if attempt == RESENDS or refused.code != m.ErrorCode.SERVER_BUSY:
                    raise
                await asyncio.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _await_ack(self, message: m.Command, ack: int) -> m.Ack:
        future: asyncio.Future[m.Ack] = asyncio.get_running_loop().create_future()
        self._waiting[ack] = future
        await self.send(message)
        return await asyncio.wait_for(future, self.client.timeout)

    async def move(self, move: str | list[str] | dict[str, Any], lag: int | None = None) -> m.Ack:
        """Play a move: notation text, a path of labels, or a ``legal`` entry; chosen at
        the version this connection has seen, so it is resent safely. ``lag``: this
        client's network round trip in ms (the server credits it within a quota)."""
        if isinstance(move, dict):
            move = list(move["path"])
        if isinstance(move, str):
            message = m.MakeMove(notation=move, v=self.v, lag=lag)
        else:
            message = m.MakeMove(path=list(move), v=self.v, lag=lag)
        done = await self.resend(message)
        # Return with the move's own event in: the board here is then the new one.
        await self.until(lambda c: c.v >= done.v or c.close_code is not None)
        return done

    async def play(
        self,
        choose: Callable[[GameConnection], Any],
        max_moves: int | None = None,
        timeout: float | None = -1,
    ) -> None:
        """Whenever it is this seat's turn, play ``choose(self)`` (an entry of ``legal``,
        a path or notation), until the game ends or ``max_moves`` have been played.
        ``timeout`` bounds each wait for the opponent (None: for ever)."""
        played = 0
        while max_moves is None or played < max_moves:
            await self.until(lambda c: c.my_turn or c.status != "playing", timeout)
            if self.status != "playing":
                return
            await self.move(choose(self))
            played += 1

    async def offer_draw(self) -> m.Ack:
        return await self.command(m.OfferDraw)

    async def accept_draw(self) -> m.Ack:
        return await self.command(m.AcceptDraw)

    async def decline_draw(self) -> m.Ack:
        return await self.command(m.DeclineDraw)

    async def resign(self) -> m.Ack:
        return await self.command(m.Resign)

    async def abort(self) -> m.Ack:
        return await self.command(m.Abort)

    async def ask_takeback(self) -> m.Ack:
        return await self.command(m.AskTakeback)

    async def accept_takeback(self) -> m.Ack:
        return await self.command(m.AcceptTakeback)

    async def decline_takeback(self) -> m.Ack:
        return await self.command(m.DeclineTakeback)

    async def offer_rematch(self) -> m.Ack:
        return await self.command(m.OfferRematch)

    async def accept_rematch(self) -> m.Ack:
        return await self.command(m.AcceptRematch)

    async def decline_rematch(self) -> m.Ack:
        return await self.command(m.DeclineRematch)

    async def claim_victory(self) -> m.Ack:
        return await self.command(m.ClaimVictory)

    async def claim_draw(self) -> m.Ack:
        return await self.command(m.ClaimDraw)

    async def chat(self, text: str) -> m.Ack:
        return await self.command(m.SendChat, text=text)

    async def ping(self) -> m.Pong:
        self._ack += 1
        n = self._ack
        future: asyncio.Future[m.Pong] = asyncio.get_running_loop().create_future()
        self._pings[n] = future
        await self.send(m.Ping(n=n))
        return await asyncio.wait_for(future, self.client.timeout)


class LobbyConnection(_Socket):
    """The lobby socket: the listing once, then each ``changes`` folded into
    ``listing`` (``protocol.lobby``). ``received`` and ``frames`` hold every
    message and its bytes in order; ``gaps`` counts changes that skipped a version (a
    correct server never causes one)."""

    def __init__(self, client: Kondavo, since: m.Lobby | None = None):
        super().__init__(client)
        self.listing: m.Lobby | None = since

    @property
    def v(self) -> int | None:
        return None if self.listing is None else self.listing.v

    def open_ids(self) -> list[str]:
        return [] if self.listing is None else [line["id"] for line in self.listing.open]

    def live_ids(self) -> list[str]:
        return [] if self.listing is None else [line["id"] for line in self.listing.live]

    async def open(self) -> LobbyConnection:
        """Connect and say hello (with the version held, if any); without one, returns
        once the listing is in (with one, what was missed may still be on its way)."""
        held = self.v
        await self._connect("/ws/lobby", m.Hello(since=held))
        if held is None:
            await self.until(lambda c: c.listing is not None or c.close_code is not None)
        return self

    async def reconnect(self) -> LobbyConnection:
        """Drop the socket and come back with the version held: the server sends the
        changes missed meanwhile, or a fresh listing."""
        await self.close()
        return await self.open()

    def _lost(self) -> None:
        """Nothing waits for an answer on the lobby socket: it takes no commands."""

    def _take(self, msg: m.ServerMessage) -> None:
        if isinstance(msg, m.Lobby):
            self.listing = msg
        elif isinstance(msg, m.LobbyChanges):
            if self.listing is None or msg.v != self.listing.v + 1:
                self.gaps += 1
                return
            self.listing = increments.fold(self.listing, msg)
