"""One pipelined connection to a single Redis, for the calls of the games in play.

Why not redis-py for these: its asyncio client takes a pooled connection per call,
encodes each argument in Python, wraps the call in retry and timeout layers and
gives the connection back, about a fifth of a node's CPU on the Redis store under
bench/load.py (1.38x the moves per second without it, same bench). Here a call is
one ``hiredis.pack_command`` (C) and a future that ``data_received`` resolves; the
calls of one loop iteration go out in one write. Replies come back in the order the
commands were sent, so one connection carries every caller's commands at once, and
a caller that gave up (timeout, cancellation) leaves its reply to be read and
dropped, with the connection still in step. Never send a blocking command (BLPOP
and the like) here: it would hold up every caller behind it.

Only for one Redis (``redis://`` or ``rediss://``): on a cluster each command must go
to its slot's master, which redis-py's cluster client knows and this does not. And
only for a URL whose every part it honours (``Pipe.handles``): host, port, user, password
and database, in the path or as ``?db=``. For a unix socket, TLS certificates or
socket options in the query, the store leaves every call to redis-py, which honours
them: a pipe that ignored them could talk to another database than the rest.

Errors: a lost or refused connection raises ``ConnectionError``; Redis's error replies
raise redis-py's ``ResponseError`` with Redis's text, as redis-py would, so the store
treats both clients' errors alike. The next call after a loss connects again.
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

import hiredis
from redis.asyncio.connection import SSLConnection, parse_url
from redis.exceptions import ResponseError

Arg = bytes | str | int | float


def _packed(args: tuple[Arg, ...]) -> bytes:
    # hiredis's type stub declares a one-element tuple; it takes any number.
    return hiredis.pack_command(args)  # type: ignore[arg-type]


def replies(parser: hiredis.Reader, data: bytes, garbled: Callable[[], None]) -> Iterator[Any]:
    """Feeds ``data`` to ``parser`` and yields each whole reply it then holds, in order.

    Bytes that are not RESP (not Redis speaking) call ``garbled`` (the connection
    closes itself, to start over) and end the replies. Shared by the pipe's connection
    and the store's pub/sub one (``redis._Channel``).
    """
    parser.feed(data)
    while True:
        try:
            reply = parser.gets()
        except hiredis.ProtocolError:
            garbled()
            return
        if reply is False:
            return
        yield reply


class _Connection(asyncio.Protocol):
    """The socket: replies are handed to the waiting futures, first sent first served.

    A connection that owes replies and has sent none for ``stall_s`` is dropped: a
    Redis that stopped answering is as likely gone (a host or a network that drops
    packets rather than refusing them) as slow, and the next call's new connection
    finds out which. Callers' own timeouts leave the connection alone: one caller
    giving up says nothing about the others' commands.
    """

    def __init__(self, stall_s: float) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = hiredis.Reader()
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.lost = False
        self._stall_s = stall_s
        self._heard = False  # data came in, or a command went out to an idle connection
        self._outgoing: list[bytes] = []  # commands of this loop iteration, not yet written
        self._watch: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports have asyncio's methods without its base classes.
        self.transport = cast(asyncio.Transport, transport)
        self._watch = asyncio.get_running_loop().call_later(self._stall_s, self._check)

    def _check(self) -> None:
        # Fires every stall_s: a command owed since before the previous check (sent to
        # a busy connection, or to an idle one, which marks it heard) and no data
        # since is a stall.
        if self.waiting and not self._heard:
            self.close()
            return
        self._heard = False
        self._watch = asyncio.get_running_loop().call_later(self._stall_s, self._check)

    def data_received(self, data: bytes) -> None:
        self._heard = True
        for reply in replies(self.parser, data, self.close):
            if not self.waiting:  # a reply nobody asked for: out of step, start over
                self.close()
                return
            future = self.waiting.popleft()
            if not future.done():
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self._watch is not None:
            self._watch.cancel()
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(ConnectionError("redis closed the connection"))

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        assert self.transport is not None
        future = asyncio.get_running_loop().create_future()
        if not self.waiting:
            self._heard = True  # the wait for this reply starts now
        self.waiting.append(future)
        # Written once the loop iteration's other callbacks had their turn: every
        # command they send goes out in the same write (a write per command was 5% of
        # a node's CPU under bench/load.py's Redis run).
        if not self._outgoing:
            asyncio.get_running_loop().call_soon(self._flush)
        self._outgoing.append(packed)
        return future

    def _flush(self) -> None:
        if self.transport is not None and not self.lost:
            self.transport.write(b"".join(self._outgoing))
        self._outgoing.clear()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()  # connection_lost fails whoever still waits


# The parts of a URL (as redis-py parses it) that the pipe honours.
_HONOURED = frozenset({"host", "port", "username", "password", "db"})


def _honoured(url: str) -> dict[str, Any] | None:
    """redis-py's own reading of the URL (so both clients find the same Redis and
    database), or None if it says something the pipe does not honour."""
    options = parse_url(url)
    if options.get("connection_class") not in (None, SSLConnection):
        return None
    if options.keys() - {"connection_class"} <= _HONOURED:
        return dict(options)
    return None


class Pipe:
    """Commands to one Redis, pipelined on one connection opened on first use."""

    @staticmethod
    def handles(url: str) -> bool:
        """Whether the pipe honours everything this URL says (the module's docstring
        lists what it does); raises ``ValueError`` for a URL redis-py rejects too."""
        return _honoured(url) is not None

    def __init__(self, url: str, *, timeout_s: float = 2.0, name: str = "kondavo"):
        options = _honoured(url)
        if options is None:
            raise ValueError(
                "the pipe takes a redis:// or rediss:// URL with no options "
                "but the database (Pipe.handles)"
            )
        self._host = options.get("host", "localhost")
        self._port = int(options.get("port", 6379))
        self._tls = options.get("connection_class") is SSLConnection
        self._username = options.get("username")
        self._password = options.get("password")
        self._db = int(options.get("db", 0))
        self._connect_timeout_s = timeout_s
        self._stall_s = timeout_s
        self._name = name
        self._connection: _Connection | None = None
        self._connecting: asyncio.Lock | None = None

    async def call(self, *args: Arg) -> Any:
        """Send one command and return its reply (``ResponseError`` for an error reply)."""
        connection = self._connection
        if connection is None or connection.lost:
            connection = await self._connect()
        reply = await connection.send(_packed(args))
        if isinstance(reply, hiredis.ReplyError):
            raise ResponseError(str(reply))
        return reply

    async def calls(self, commands: Sequence[tuple[Arg, ...]]) -> list[Any]:
        """Send several commands in one write; their replies in order, an error reply
        as the ``hiredis.ReplyError`` it came as (the caller decides about each)."""
        connection = self._connection
        if connection is None or connection.lost:
            connection = await self._connect()
        sent = [connection.send(_packed(c)) for c in commands]
        # gather on futures makes no task; it also takes every exception, so a lost
        # connection leaves no future whose error nobody retrieved.
        replies = await asyncio.gather(*sent, return_exceptions=True)
        for reply in replies:  # an error reply is a result, an exception only a lost call
            if isinstance(reply, BaseException) and not isinstance(reply, hiredis.ReplyError):
                raise reply
        return replies

    def register_script(self, source: str) -> Script:  # redis-py's name for it
        return Script(self, source)

    async def _connect(self) -> _Connection:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:  # one attempt at a time; the others take its result
            if self._connection is not None and not self._connection.lost:
                return self._connection
            loop = asyncio.get_running_loop()
            _, connection = await asyncio.wait_for(
                loop.create_connection(
                    lambda: _Connection(self._stall_s),
                    self._host,
                    self._port,
                    ssl=ssl.create_default_context() if self._tls else None,
                ),
                self._connect_timeout_s,
            )
            try:
                await asyncio.wait_for(self._handshake(connection), self._connect_timeout_s)
            except BaseException:
                connection.close()
                raise
            self._connection = connection
            return connection

    async def _handshake(self, connection: _Connection) -> None:
        commands: list[tuple[Arg, ...]] = []
        if self._password is not None:
            auth: tuple[Arg, ...] = ("AUTH", self._password)
            if self._username is not None:
                auth = ("AUTH", self._username, self._password)
            commands.append(auth)
        if self._db:
            commands.append(("SELECT", self._db))
        commands.append(("CLIENT", "SETNAME", self._name))
        replies = [connection.send(_packed(c)) for c in commands]
        for command, future in zip(commands, replies, strict=True):
            reply = await future
            if isinstance(reply, hiredis.ReplyError):
                raise ConnectionError(f"redis refused {command[0]!r}: {reply}")

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class Script:
    """A Lua script run by its SHA-1 (``EVALSHA``), loaded again by ``EVAL`` whenever
    Redis says it does not know it (after a restart or ``SCRIPT FLUSH``); called like
    redis-py's registered scripts: ``await script(keys=[...], args=[...])``."""

    def __init__(self, pipe: Pipe, source: str):
        self._pipe = pipe
        self._source = source
        self._sha = hashlib.sha1(source.encode()).hexdigest()

    async def __call__(self, keys: Sequence[Arg] = (), args: Sequence[Arg] = ()) -> Any:
        try:
            return await self._pipe.call("EVALSHA", self._sha, len(keys), *keys, *args)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await self._pipe.call("EVAL", self._source, len(keys), *keys, *args)

    async def each(self, runs: Sequence[tuple[Sequence[Arg], Sequence[Arg]]]) -> list[Any]:
        """The script once per (keys, args), all in one write: their replies in order.
        Those Redis did not run for want of the script are run again by ``EVAL``."""
        replies = await self._pipe.calls(
            [("EVALSHA", self._sha, len(keys), *keys, *args) for keys, args in runs]
        )
        for i, reply in enumerate(replies):
            if isinstance(reply, hiredis.ReplyError) and str(reply).startswith("NOSCRIPT"):
                keys, args = runs[i]
                replies[i] = await self._pipe.call("EVAL", self._source, len(keys), *keys, *args)
            elif isinstance(reply, hiredis.ReplyError):
                raise ResponseError(str(reply))
        return replies
