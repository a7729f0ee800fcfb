"""The Redis store: several nodes share one Redis, and any node serves any game.

Key layout (prefix ``kondavo``; ``{id}`` is a Redis Cluster hash tag, so every key
of one game lives in one slot):

- ``kondavo:{id}:game``   hash: ``v`` (the version), ``rec`` (the record, msgpack)
- ``kondavo:{id}:log``    list: the last ``keep_events`` events, msgpack, oldest first;
  the last entry's version is ``v``, so an entry's version is known from its index
- ``kondavo:{id}:spectators``  integer: spectators on all nodes
- channel ``kondavo:{id}:events``: ``E`` + the commit's events (concatenated msgpack
  values) or ``N`` + one unversioned notice (the spectator count)

Global keys, one per deployment (hash tag ``{kondavo}``, so they share one slot):

- ``kondavo:{kondavo}:deadlines``  sorted set: game id -> when it next needs a Tick (ms)
- ``kondavo:{kondavo}:waiting`` / ``:live``  sorted sets: game id -> created_at, the lobby

Every write to a game is one Lua script (``_COMMIT``): compare the version, store the
record, append and trim the log, set or clear the deadline, update the lobby index,
publish the events. Nothing is published that was not stored, and two nodes can never
both apply a command to the same version. The script names the two global keys as
well as the game's, so on Redis Cluster it would be refused as cross-slot: this store
is for one Redis (or a Sentinel-managed primary). Cluster support needs the deadline
and lobby index kept per slot, or updated outside the script and repaired: not done.

Timers are claimed, not listed (``_CLAIM``): due ids get their score pushed to
``now + lease``, atomically, so one node ticks them; if that node dies the lease
runs out and another node claims the game again. The commit made by the tick sets
the game's next deadline (or clears it) in the same script as the record, so a
flag falls exactly once (and the compare-and-set makes a second tick harmless).

Time is Redis ``TIME`` (one clock for every node), sampled at most once per
``clock_resync_s`` and carried forward with the local monotonic clock: the error is
at most half the sampling round trip plus the local clock's drift since the sample.

Pub/sub runs on one dedicated connection per node (``_Subscriber``). When it
breaks, it is re-established with back-off, every channel is subscribed again, and
every listener receives ``RESYNC``: the hub then reads what it missed from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, urlparse

import hiredis
import msgpack
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import (
    BusyLoadingError,
    ReadOnlyError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol import messages as m
from protocol.messages import ServerMessage

from ..record import GameRecord
from ..room import RoomEvent
from .base import RESYNC, Listener, Resync, StoreUnavailable

log = logging.getLogger(__name__)


# Errors that mean "Redis is not there (yet)": down, restarting, loading its AOF, failing over.
_UNAVAILABLE: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    BusyLoadingError,
    ReadOnlyError,
    TryAgainError,
    ConnectionError,
    OSError,
)


# KEYS: game, log, deadlines, waiting, live
# ARGV: expected version, new version, record, deadline|'', keep, waiting 0|1, live 0|1,
#       created_at, channel, event...
_COMMIT = """
local stored = redis.call('HGET', KEYS[1], 'v')
if stored == false or tonumber(stored) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'rec', ARGV[3])
local first = 10
if #ARGV >= first then
  for i = first, #ARGV, 1000 do
    redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
end
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[3], KEYS[1])
else
  redis.call('ZADD', KEYS[3], ARGV[4], KEYS[1])
end
if ARGV[6] == '1' then redis.call('ZADD', KEYS[4], ARGV[8], KEYS[1])
else redis.call('ZREM', KEYS[4], KEYS[1]) end
if ARGV[7] == '1' then redis.call('ZADD', KEYS[5], ARGV[8], KEYS[1])
else redis.call('ZREM', KEYS[5], KEYS[1]) end
if #ARGV >= first then
  redis.call('PUBLISH', ARGV[9], 'E' .. table.concat(ARGV, '', first, #ARGV))
end
return 1
"""

# KEYS: game, log, deadlines, waiting, live
# ARGV: version, record, deadline|'', waiting 0|1, live 0|1, created_at
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'rec', ARGV[2])
redis.call('DEL', KEYS[2])
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[3], ARGV[3], KEYS[1]) end
if ARGV[4] == '1' then redis.call('ZADD', KEYS[4], ARGV[6], KEYS[1]) end
if ARGV[5] == '1' then redis.call('ZADD', KEYS[5], ARGV[6], KEYS[1]) end
return 1
"""

# KEYS: game, log.  ARGV: since.  -> nil (no game), or {version, entries-after-since|false}
_EVENTS_SINCE = """
local stored = redis.call('HGET', KEYS[1], 'v')
if stored == false then return nil end
local v = tonumber(stored)
local since = tonumber(ARGV[1])
if since > v then return {v, false} end
if since == v then return {v, {}} end
local n = redis.call('LLEN', KEYS[2])
local oldest = v - n + 1
if since + 1 < oldest then return {v, false} end
return {v, redis.call('LRANGE', KEYS[2], since + 1 - oldest, -1)}
"""

# KEYS: deadlines.  ARGV: now, lease (ms), limit.  -> the claimed game keys
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local until_ = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, key in ipairs(due) do redis.call('ZADD', KEYS[1], until_, key) end
return due
"""

# KEYS: spectators.  ARGV: delta.  Never below zero.
_SPECTATORS = """
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n < 0 then redis.call('SET', KEYS[1], 0) n = 0 end
return n
"""


def _pack(body: Any) -> bytes:
    return msgpack.packb(body, use_bin_type=True)


def _unpack_all(payload: bytes) -> Iterable[Any]:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(payload)
    return unpacker


def _listed(record: GameRecord) -> tuple[str, str]:
    waiting = record.status == "waiting" and record.opponent == "open"
    return ("1" if waiting else "0"), ("1" if record.status == "playing" else "0")


class RedisStore:
    """``Store`` on Redis: see the module docstring for keys, scripts and guarantees."""

    name = "redis"

    def __init__(
        self,
        url: str,
        *,
        keep_events: int = 1000,
        prefix: str = "kondavo",
        lease_ms: int = 3000,
        clock_resync_s: float = 1.0,
        claim_limit: int = 200,
        timeout_s: float = 2.0,
    ):
        self.url = url
        self._keep = max(200, keep_events)  # the issue asks for at least the last 200
        self._prefix = prefix
        self._lease_ms = lease_ms
        self._claim_limit = claim_limit
        self._redis = aioredis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            # One quick retry covers a dropped idle connection; longer outages are the
            # caller's to see (StoreUnavailable), not to sit out inside a request.
            retry=Retry(ExponentialBackoff(cap=0.05, base=0.01), 1),
            health_check_interval=30,
        )
        self._commit = self._redis.register_script(_COMMIT)
        self._create = self._redis.register_script(_CREATE)
        self._events_since = self._redis.register_script(_EVENTS_SINCE)
        self._claim = self._redis.register_script(_CLAIM)
        self._spectators = self._redis.register_script(_SPECTATORS)
        self._deadlines = f"{prefix}:{{kondavo}}:deadlines"
        self._waiting = f"{prefix}:{{kondavo}}:waiting"
        self._live = f"{prefix}:{{kondavo}}:live"
        self._subscriber = _Subscriber(url, self._channel, self._dispatch, timeout_s)
        self._listeners: dict[str, list[Listener]] = {}
        # the clock: Redis TIME at one local monotonic instant
        self._resync_s = clock_resync_s
        self._time_base: float | None = None  # Redis ms at _time_mono
        self._time_mono = 0.0
        self._time_last = 0
        self._time_lock = asyncio.Lock()

    # --- keys -------------------------------------------------------------------------

    def _game(self, game_id: str) -> str:
        return f"{self._prefix}:{{{game_id}}}:game"

    def _log(self, game_id: str) -> str:
        return f"{self._prefix}:{{{game_id}}}:log"

    def _channel(self, game_id: str) -> str:
        return f"{self._prefix}:{{{game_id}}}:events"

    def _spectator_key(self, game_id: str) -> str:
        return f"{self._prefix}:{{{game_id}}}:spectators"

    def _id_of(self, game_key: str | bytes) -> str:
        key = game_key.decode() if isinstance(game_key, bytes) else game_key
        return key[len(self._prefix) + 2 : key.rindex("}")]

    async def _call(self, awaitable: Any) -> Any:
        try:
            return await awaitable
        except _UNAVAILABLE as exc:
            raise StoreUnavailable(f"redis: {type(exc).__name__}") from exc
        except ResponseError as exc:
            if str(exc).startswith(("LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN")):
                raise StoreUnavailable(f"redis: {exc}") from exc
            raise

    # --- the clock --------------------------------------------------------------------

    async def now(self) -> int:
        mono = time.monotonic()
        if self._time_base is None or mono - self._time_mono > self._resync_s:
            async with self._time_lock:
                if self._time_base is None or time.monotonic() - self._time_mono > self._resync_s:
                    try:
                        await self._sample_time()
                    except StoreUnavailable:
                        if self._time_base is None:
                            raise
                        # Redis is away: carry on from the last sample (still one clock).
                        self._retry_clock_soon()
        assert self._time_base is not None
        reading = int(self._time_base + (time.monotonic() - self._time_mono) * 1000)
        # Never backwards on this node, even when a new sample comes in a little early.
        self._time_last = max(self._time_last, reading)
        return self._time_last

    async def _sample_time(self) -> None:
        before = time.monotonic()
        seconds, micros = await self._call(self._redis.time())
        after = time.monotonic()
        # TIME was read somewhere in the round trip; the midpoint bounds the error by half.
        self._time_base = seconds * 1000 + micros / 1000
        self._time_mono = (before + after) / 2

    def _retry_clock_soon(self) -> None:
        # Move the sample's reference point (keeping the reading the same) so the next
        # attempt comes in 0.2 s rather than after a whole resync period.
        assert self._time_base is not None
        shift = time.monotonic() - self._time_mono - max(0.0, self._resync_s - 0.2)
        self._time_mono += shift
        self._time_base += shift * 1000

    # --- games ------------------------------------------------------------------------

    async def create(self, record: GameRecord, deadline: int | None = None) -> bool:
        waiting, live = _listed(record)
        created = await self._call(
            self._create(
                keys=[
                    self._game(record.id),
                    self._log(record.id),
                    self._deadlines,
                    self._waiting,
                    self._live,
                ],
                args=[
                    record.version,
                    _pack(record.to_dict()),
                    "" if deadline is None else deadline,
                    waiting,
                    live,
                    record.created_at,
                ],
            )
        )
        return bool(created)

    async def load(self, game_id: str) -> GameRecord | None:
        stored = await self._call(self._redis.hget(self._game(game_id), "rec"))
        if stored is None:
            return None
        return GameRecord.from_dict(msgpack.unpackb(stored, raw=False, strict_map_key=False))

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: GameRecord,
        events: list[RoomEvent],
        deadline: int | None,
    ) -> bool:
        waiting, live = _listed(record)
        committed = await self._call(
            self._commit(
                keys=[
                    self._game(game_id),
                    self._log(game_id),
                    self._deadlines,
                    self._waiting,
                    self._live,
                ],
                args=[
                    expected_version,
                    record.version,
                    _pack(record.to_dict()),
                    "" if deadline is None else deadline,
                    self._keep,
                    waiting,
                    live,
                    record.created_at,
                    self._channel(game_id),
                    *(_pack(event.to_dict()) for event in events),
                ],
            )
        )
        return bool(committed)

    async def events_since(self, game_id: str, version: int) -> list[RoomEvent] | None:
        found = await self._call(
            self._events_since(keys=[self._game(game_id), self._log(game_id)], args=[version])
        )
        if found is None or found[1] is None:
            return None
        events = [RoomEvent.from_dict(msgpack.unpackb(e, raw=False)) for e in found[1]]
        if events and (events[0].v != version + 1 or events[-1].v != found[0]):
            log.error("game %s: log out of step with version %s", game_id, found[0])
            return None
        return events

    async def waiting_and_live(self, limit: int) -> tuple[list[GameRecord], list[GameRecord]]:
        async def listed(key: str) -> list[GameRecord]:
            ids = await self._call(self._redis.zrevrange(key, 0, limit - 1))
            if not ids:
                return []
            async with self._redis.pipeline(transaction=False) as pipe:
                for game_key in ids:
                    pipe.hget(game_key, "rec")
                stored = await self._call(pipe.execute())
            return [
                GameRecord.from_dict(msgpack.unpackb(s, raw=False, strict_map_key=False))
                for s in stored
                if s is not None
            ]

        return await listed(self._waiting), await listed(self._live)

    # --- spectators -------------------------------------------------------------------

    async def add_spectators(self, game_id: str, delta: int) -> int:
        return int(
            await self._call(self._spectators(keys=[self._spectator_key(game_id)], args=[delta]))
        )

    async def spectators(self, game_id: str) -> int:
        return int(await self._call(self._redis.get(self._spectator_key(game_id))) or 0)

    # --- timers -----------------------------------------------------------------------

    async def due(self, now: int) -> list[str]:
        """Claim the games whose deadline has passed, for ``lease_ms``: one node gets each.

        The Tick's commit sets the next deadline; if this node dies first, the lease
        runs out and another node claims the game again.
        """
        claimed = await self._call(
            self._claim(keys=[self._deadlines], args=[now, self._lease_ms, self._claim_limit])
        )
        return [self._id_of(key) for key in claimed]

    async def deadline_of(self, game_id: str) -> int | None:
        """The game's scheduled deadline (or lease), for tests and operators."""
        score = await self._call(self._redis.zscore(self._deadlines, self._game(game_id)))
        return None if score is None else int(score)

    # --- channels ---------------------------------------------------------------------

    async def subscribe(self, game_id: str, listener: Listener) -> None:
        listeners = self._listeners.setdefault(game_id, [])
        listeners.append(listener)
        if len(listeners) == 1:
            try:
                await self._subscriber.subscribe(game_id)
            except StoreUnavailable:
                # The subscriber subscribes every listed game when it is back, and
                # tells the listeners to resync then; nothing more to do here.
                log.warning("game %s: subscribing while Redis is away", game_id)

    async def unsubscribe(self, game_id: str, listener: Listener) -> None:
        listeners = self._listeners.get(game_id, [])
        if listener in listeners:
            listeners.remove(listener)
        if not listeners and game_id in self._listeners:
            del self._listeners[game_id]
            with contextlib.suppress(StoreUnavailable):
                await self._subscriber.unsubscribe(game_id)

    async def announce(self, game_id: str, notice: ServerMessage) -> None:
        await self._call(
            self._redis.publish(self._channel(game_id), b"N" + _pack(notice.to_dict()))
        )

    def subscribed(self) -> list[str]:
        return list(self._listeners)

    def _dispatch(self, game_id: str | None, payload: bytes | None) -> None:
        """From the subscriber: a channel message, or (None, None) after a reconnect."""
        if game_id is None:
            for each in list(self._listeners):
                self._tell(each, RESYNC)
            return
        assert payload is not None
        kind, body = payload[:1], payload[1:]
        try:
            if kind == b"E":
                items: list[Any] = [RoomEvent.from_dict(e) for e in _unpack_all(body)]
            else:
                items = [m.from_dict(msgpack.unpackb(body, raw=False), m.SERVER_MESSAGES)]
        except Exception:
            log.exception("game %s: undecodable channel message", game_id)
            self._tell(game_id, RESYNC)
            return
        for item in items:
            self._tell(game_id, item)

    def _tell(self, game_id: str, item: Any) -> None:
        for listener in list(self._listeners.get(game_id, ())):
            try:
                listener(game_id, item)
            except Exception:  # one broken subscriber must not stop the others
                log.exception("listener failed for game %s", game_id)

    # --- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Check Redis is there, sample its clock, and open the subscriber connection."""
        await self.now()
        self._subscriber.games = self.subscribed
        await self._subscriber.start()

    async def ping(self) -> bool:
        try:
            return bool(await self._call(self._redis.ping()))
        except StoreUnavailable:
            return False

    async def close(self) -> None:
        self._listeners.clear()
        await self._subscriber.close()
        await self._redis.aclose()


class _Subscriber:
    """One pub/sub connection per node, re-established (and resubscribed) when it dies.

    A plain socket with a hiredis reader rather than redis-py's ``PubSub``: that one
    reconnects silently, and a silent reconnect is exactly when listeners must learn
    that events may have been lost.
    """

    def __init__(self, url: str, channel: Any, dispatch: Any, timeout_s: float):
        parsed = urlparse(url)
        self._host = parsed.hostname or "127.0.0.1"
        self._port = parsed.port or 6379
        self._tls = parsed.scheme == "rediss"
        self._username = unquote(parsed.username) if parsed.username else None
        self._password = unquote(parsed.password) if parsed.password else None
        self._channel = channel
        self._dispatch = dispatch
        self._timeout = timeout_s
        self.games: Any = list  # () -> the game ids that should be subscribed
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._confirm: dict[bytes, list[asyncio.Future[None]]] = {}
        self.connects = 0  # how many times the connection was (re-)established

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._ready.wait(), self._timeout)

    async def subscribe(self, game_id: str) -> None:
        await self._send_and_confirm(b"SUBSCRIBE", game_id)

    async def unsubscribe(self, game_id: str) -> None:
        await self._send_and_confirm(b"UNSUBSCRIBE", game_id)

    async def _send_and_confirm(self, command: bytes, game_id: str) -> None:
        if self._task is None:
            await self.start()
        writer = self._writer
        if writer is None or not self._ready.is_set():
            raise StoreUnavailable("redis: the pub/sub connection is down")
        channel = self._channel(game_id).encode()
        # Wait for Redis to confirm: only then is a snapshot read afterwards sure to be
        # no older than the first event this node will receive.
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirm.setdefault(command.lower()[:3] + b":" + channel, []).append(future)
        try:
            writer.write(_resp(command, channel))
            await writer.drain()
            await asyncio.wait_for(future, self._timeout)
        except (TimeoutError, OSError) as exc:
            raise StoreUnavailable("redis: pub/sub did not confirm") from exc

    async def _run(self) -> None:
        backoff = 0.05
        while True:
            reader: asyncio.StreamReader | None = None
            try:
                reader, self._writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        self._host,
                        self._port,
                        ssl=ssl.create_default_context() if self._tls else None,
                    ),
                    self._timeout,
                )
                parser = hiredis.Reader()
                await self._handshake(reader, parser)
                # Read the games and mark the connection ready with no await in between,
                # so a game subscribed meanwhile is either in this list or sent itself.
                games = list(self.games())
                if games:
                    self._writer.write(
                        _resp(b"SUBSCRIBE", *(self._channel(g).encode() for g in games))
                    )
                self.connects += 1
                self._ready.set()
                await self._writer.drain()
                if self.connects > 1:
                    log.warning("redis pub/sub re-established; resyncing %d games", len(games))
                    self._dispatch(None, None)
                backoff = 0.05
                await self._read(reader, parser)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._ready.is_set():
                    log.warning("redis pub/sub connection lost: %s", type(exc).__name__)
            finally:
                self._ready.clear()
                if self._writer is not None:
                    self._writer.close()
                    self._writer = None
                for futures in self._confirm.values():
                    for future in futures:
                        if not future.done():
                            future.set_exception(OSError("pub/sub connection lost"))
                self._confirm.clear()
            await asyncio.sleep(backoff)
            backoff = min(1.0, backoff * 2)

    async def _handshake(self, reader: asyncio.StreamReader, parser: hiredis.Reader) -> None:
        assert self._writer is not None
        if self._password is not None:
            auth = [b"AUTH", self._password.encode()]
            if self._username is not None:
                auth.insert(1, self._username.encode())
            self._writer.write(_resp(*auth))
            await self._writer.drain()
            reply = await asyncio.wait_for(_reply(reader, parser), self._timeout)
            if isinstance(reply, hiredis.ReplyError):
                raise ConnectionError("redis: AUTH refused")
        self._writer.write(_resp(b"CLIENT", b"SETNAME", b"kondavo-pubsub"))
        await self._writer.drain()
        await asyncio.wait_for(_reply(reader, parser), self._timeout)

    async def _read(self, reader: asyncio.StreamReader, parser: hiredis.Reader) -> None:
        assert self._writer is not None
        pinged = False
        while True:
            try:
                reply = await asyncio.wait_for(_reply(reader, parser), 15.0)
            except TimeoutError:
                # Quiet for a while: make sure the connection is still there.
                if pinged:
                    raise ConnectionError("redis pub/sub: no answer to PING") from None
                self._writer.write(_resp(b"PING"))
                await self._writer.drain()
                pinged = True
                continue
            pinged = False
            if not isinstance(reply, list) or not reply:
                continue
            kind = reply[0]
            if kind == b"message":
                channel = reply[1].decode()
                self._dispatch(channel.split("{", 1)[1].rsplit("}", 1)[0], reply[2])
            elif kind in (b"subscribe", b"unsubscribe"):
                key = kind[:3] + b":" + reply[1]
                waiting = self._confirm.get(key)
                if waiting:
                    future = waiting.pop(0)
                    if not waiting:
                        del self._confirm[key]
                    if not future.done():
                        future.set_result(None)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            self._task = None


async def _reply(reader: asyncio.StreamReader, parser: hiredis.Reader) -> Any:
    while True:
        reply = parser.gets()
        if reply is not False:
            return reply
        chunk = await reader.read(65536)
        if not chunk:
            raise ConnectionError("redis closed the connection")
        parser.feed(chunk)


def _resp(*parts: bytes) -> bytes:
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


__all__ = ["RESYNC", "RedisStore", "Resync", "StoreUnavailable"]
