"""The Redis store: several nodes share one Redis (or one Redis Cluster), and any node
serves any game.

Shards. The games of a site are spread over ``SHARDS`` (16) shards: a game's shard is
``crc32(game id) % SHARDS``, and every key of the game carries its shard's hash tag,
next to the shard's own deadline and lobby indexes. Everything one script touches is
therefore in one Redis Cluster slot, on one Redis or on a cluster alike. ``SHARDS``
is part of the key layout: never change it on a live site (games would be looked for
in the wrong shard). Shard ``i``'s tag is the first ``s<n>`` (n = 0, 1, ...) whose
slot lies in the ``i``-th sixteenth of the 16384 slots, so with slots spread evenly
over the masters (``redis-cli --cluster create`` does that) so are the shards.

Keys (prefix ``kondavo``; ``{t}`` is the game's shard tag):

- ``kondavo:{t}:game:<id>``  hash: ``v`` (the version), ``rec`` (the record, msgpack)
- ``kondavo:{t}:log:<id>``   list: the last ``keep_events`` events, msgpack, oldest
  first; the last entry's version is ``v``, so an entry's version is known from its index
- ``kondavo:{t}:spectators:<id>``  integer: spectators on all nodes
- ``kondavo:{t}:nodes:<id>``  set: the nodes (``node_id``, one per process, only on one
  Redis) that have a socket in the game, each added as it subscribes to the game's
  channel and taken out as it unsubscribes

A game over expires (the four keys above) ``finished_kept_ms`` after its last commit.
- ``kondavo:{t}:deadlines``  sorted set: game id -> when it next needs a Tick (ms)
- ``kondavo:{t}:waiting`` / ``:live``  sorted sets: game id -> created_at, the lobby
- ``kondavo:{p:<player>}:games`` / ``:entries`` / ``:finished``: a player's history (sorted
  set game id -> created_at, hash game id -> entry, set of the finished ones), the newest
  ``HISTORY_KEPT`` games, with no expiry: it outlives the games' own keys
- ``kondavo:{:lobby}:listing`` hash: ``v`` (the lobby's version), ``snap`` (the listing
  at that version, msgpack); ``kondavo:{:lobby}:log`` list: its last ``LOBBY_KEPT``
  changes, oldest first (``_LOBBY_COMMIT`` writes both and publishes ``L`` + the
  changes on ``kondavo:{:lobby}:events``, a compare-and-set on the version as for a game)
- channel ``kondavo:{<id>}:events``: ``R`` + the committed record (a msgpack bin) + the
  commit's events (concatenated msgpack values), or ``N`` + one unversioned notice (the
  spectator count); ``E`` + events alone, from a node older than the record's
  riding along, is still understood. The record rides along so that a node whose
  player moves next has it without a read (``cached``). A channel is no key:
  plain PUBLISH reaches every node of a cluster, also from inside a script. Both kinds
  are published by scripts on the game's slot, so on a cluster one master sends all of
  a game's messages, and every node receives them in the order they were sent.
  On one Redis a commit is not published when the committing node alone listens:
  it is the only member of the game's ``nodes`` set and PUBSUB NUMSUB counts at most
  one subscriber (its own). The script says so, and the node hands the events to
  its own listeners itself. With routing by game id nearly every commit is one of
  these (``bench/capacity.py``). A node that another node does not know of, because its
  set entry was lost or it predates the set, still subscribes and is counted by NUMSUB;
  a node whose own subscription broke, so that NUMSUB misses it, is still in the set.

Every write to a game is one Lua script (``_COMMIT``) on the game's shard: compare the
version, store the record, append and trim the log, set or clear the deadline, update
the lobby index, publish the events. Nothing is published that was not stored, and
two nodes can never both apply a command to the same version.

On one Redis, a game's calls (its scripts, its record, its spectator count) go over
one pipelined connection of the store's own (``redis_pipe.Pipe``: it says why); the
calls on every shard at once, and everything on a cluster, go through redis-py.

Timers are claimed, not listed (``_CLAIM``, once per shard): due ids get their score
pushed to ``now + lease``, atomically, so one node ticks them; if that node dies the
lease runs out and another node claims the game again. The commit made by the tick
sets the game's next deadline (or clears it) in the same script as the record, and in
the same slot as the claim, so a flag falls exactly once (and the compare-and-set
makes a second tick harmless).

Time is Redis ``TIME`` of one server (on a cluster, the master of shard 0's slot:
every node asks the same one), sampled at most once per ``clock_resync_s`` and carried
forward with the local monotonic clock: the error is at most half the sampling round
trip plus the local clock's drift since the sample.

``redis+cluster://host:port`` (``rediss+cluster://`` with TLS) names one node of a
cluster; the client finds the others. Pub/sub runs on one dedicated connection per
node (``_Subscriber``), to that node or, when it is gone, to any other the cluster
knows. When it breaks, it is re-established with back-off, every channel is subscribed
again, and every listener receives ``RESYNC``: the hub then reads what it missed from
the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
import time
import zlib
from collections import deque
from collections.abc import Awaitable
from functools import cache
from typing import Any, NamedTuple, cast, get_args
from urllib.parse import unquote, urlparse

import hiredis
import msgpack
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    ClusterError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol import messages as m
from protocol.messages import ServerMessage, packer
from server.core.events import Audience, RoomEvent
from server.core.history import HISTORY_KEPT
from server.core.record import GameRecord, SeatRecord
from server.store.base import (
    LOBBY,
    LOBBY_KEPT,
    RESYNC,
    Listener,
    Resync,
    StoreUnavailable,
    raise_if_cancelled,
)
from server.store.redis_pipe import Pipe, replies

log = logging.getLogger(__name__)


# Errors that mean "Redis is not there (yet)": down, restarting, loading its AOF, failing
# over; on a cluster also a slot nobody serves yet, or no node reachable at all.
_UNAVAILABLE: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    BusyLoadingError,
    ReadOnlyError,
    TryAgainError,
    ClusterDownError,
    ClusterError,
    RedisClusterException,
    ConnectionError,
    OSError,
)

# Events committed by this node kept per game until the channel brings them back; more
# means messages were lost (the channel broke), and they are dropped.
_SENT_KEPT = 256

# _COMMIT's answer when it stored the commit and published nothing.
_STORED_UNPUBLISHED = 2

# Connections to one Redis per node; more concurrent calls wait for one to come free.
POOL_CONNECTIONS = 128

# The shard count is part of the key layout: never change it on a live site.
SHARDS = 16


def shard_of(game_id: str) -> int:
    """The game's shard: stable across processes and versions (not Python's ``hash``)."""
    return zlib.crc32(game_id.encode()) % SHARDS


@cache
def shard_tag(shard: int) -> str:
    """The hash tag of a shard: the ``s<n>`` whose slot is nearest its band's middle.

    Shard ``i``'s band is the ``i``-th sixteenth of the 16384 slots, so shards spread
    over masters as evenly as the slots do.

    >>> [shard_tag(i) for i in (0, 1, 15)]
    ['s2481', 's2591', 's738']
    """
    band = REDIS_CLUSTER_HASH_SLOTS // SHARDS
    middle = shard * band + band // 2
    return min(
        (f"s{n}" for n in range(4096)),
        key=lambda tag: (abs(key_slot(tag.encode()) - middle), len(tag), tag),
    )


class GameKeys(NamedTuple):
    """The keys of one game and of its shard's indexes (all in one slot)."""

    game: str
    log: str
    spectators: str
    watchers: str
    deadlines: str
    waiting: str
    live: str


def shard_keys(shard: int, prefix: str = "kondavo") -> tuple[str, str, str]:
    """The shard's deadlines, waiting and live sorted sets."""
    base = f"{prefix}:{{{shard_tag(shard)}}}"
    return f"{base}:deadlines", f"{base}:waiting", f"{base}:live"


def keys_of(game_id: str, prefix: str = "kondavo") -> GameKeys:
    """Where a game lives (also for tests and operators poking at Redis)."""
    shard = shard_of(game_id)
    base = f"{prefix}:{{{shard_tag(shard)}}}"
    return GameKeys(
        f"{base}:game:{game_id}",
        f"{base}:log:{game_id}",
        f"{base}:spectators:{game_id}",
        f"{base}:nodes:{game_id}",
        *shard_keys(shard, prefix),
    )


def cluster_url(url: str) -> str | None:
    """``redis+cluster://...`` -> the plain URL of the node it names; else None."""
    for scheme in ("redis+cluster://", "rediss+cluster://"):
        if url.startswith(scheme):
            return scheme.replace("+cluster", "") + url[len(scheme) :]
    return None


def connect(url: str, timeout_s: float) -> Any:
    """A redis-py client for ``url`` (one Redis, or any node of a Redis Cluster named by
    ``redis+cluster://``), set up as every Kondavo store uses Redis: the game store and
    the ratings (``ratings_redis``). Calls on it go through ``call`` (or the game store's
    ``_call``), so Redis being away is ``StoreUnavailable`` everywhere."""
    node_url = cluster_url(url)
    connection: dict[str, Any] = {
        "socket_connect_timeout": timeout_s,
        "health_check_interval": 30,
    }
    if node_url is not None:
        # Two quick retries: enough to follow a MOVED after a failover; longer
        # outages are the caller's to see (StoreUnavailable).
        return RedisCluster.from_url(
            node_url,
            retry=Retry(ExponentialBackoff(cap=0.1, base=0.01), 2),
            socket_timeout=timeout_s,
            **connection,
        )
    # One quick retry covers a dropped idle connection; longer outages are the
    # caller's to see (StoreUnavailable), not to sit out inside a request.
    # A call waits for a free connection when all are busy: the default pool
    # refuses the 101st concurrent call outright (MaxConnectionsError), which
    # under load reached players as "server busy" (bench/load.py).
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_CONNECTIONS,
        timeout=timeout_s,
        retry=Retry(ExponentialBackoff(cap=0.05, base=0.01), 1),
        **connection,
    )
    return aioredis.Redis.from_pool(pool)


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means Redis is not there (yet) rather than a mistake of ours."""
    if isinstance(exc, _UNAVAILABLE):
        return True
    return isinstance(exc, ResponseError) and str(exc).startswith(
        ("LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN")
    )


async def call(awaitable: Awaitable[Any], timeout_s: float | None) -> Any:
    """Await a call on a ``connect`` client within ``timeout_s``; Redis's absence is
    raised as ``StoreUnavailable``."""
    try:
        async with asyncio.timeout(timeout_s):
            return await awaitable
    except Exception as exc:
        if unavailable(exc):
            raise_if_cancelled()
            raise StoreUnavailable(f"redis: {type(exc).__name__}: {exc}") from exc
        raise


# KEYS: game, log, deadlines, waiting, live, spectators, watchers (one shard: one slot)
# ARGV: expected version, new version, record, deadline|'', keep, waiting 0|1, live 0|1,
#       created_at, channel, game id, expiry ms|'' (the game is over), the record's
#       msgpack bin header, the committing node's id|'' (it relays its own events when
#       it alone listens), event...
# -> 0: refused (stale version); 1: stored and published; 2: stored, not published
_COMMIT = """
local stored = redis.call('HGET', KEYS[1], 'v')
if stored == false or tonumber(stored) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'rec', ARGV[3])
local first = 14
local id = ARGV[10]
if ARGV[11] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[11])
  redis.call('PEXPIRE', KEYS[6], ARGV[11])
  redis.call('PEXPIRE', KEYS[7], ARGV[11])
end
if #ARGV >= first then
  for i = first, #ARGV, 1000 do
    redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
end
if ARGV[11] ~= '' then redis.call('PEXPIRE', KEYS[2], ARGV[11]) end
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[3], id)
else
  redis.call('ZADD', KEYS[3], ARGV[4], id)
end
if ARGV[6] == '1' then redis.call('ZADD', KEYS[4], ARGV[8], id)
else redis.call('ZREM', KEYS[4], id) end
if ARGV[7] == '1' then redis.call('ZADD', KEYS[5], ARGV[8], id)
else redis.call('ZREM', KEYS[5], id) end
if #ARGV < first then return 1 end
if ARGV[13] ~= '' and redis.call('SCARD', KEYS[7]) == 1
    and redis.call('SISMEMBER', KEYS[7], ARGV[13]) == 1
    and redis.call('PUBSUB', 'NUMSUB', ARGV[9])[2] <= 1 then
  return 2
end
redis.call('PUBLISH', ARGV[9], 'R' .. ARGV[12] .. ARGV[3] .. table.concat(ARGV, '', first, #ARGV))
return 1
"""

# KEYS: game, log, deadlines, waiting, live (one shard: one slot)
# ARGV: version, record, deadline|'', waiting 0|1, live 0|1, created_at, game id
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'rec', ARGV[2])
redis.call('DEL', KEYS[2])
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[7]) end
if ARGV[4] == '1' then redis.call('ZADD', KEYS[4], ARGV[6], ARGV[7]) end
if ARGV[5] == '1' then redis.call('ZADD', KEYS[5], ARGV[6], ARGV[7]) end
return 1
"""

# KEYS: the lobby's listing, log.  ARGV: expected version, new version, listing, keep,
# channel, change...  The lobby's version is 0 before its first change.
_LOBBY_COMMIT = """
local stored = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if stored ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'snap', ARGV[3])
redis.call('RPUSH', KEYS[2], unpack(ARGV, 6, #ARGV))
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[4]), -1)
redis.call('PUBLISH', ARGV[5], 'L' .. table.concat(ARGV, '', 6, #ARGV))
return 1
"""

# KEYS: the lobby's listing, log.  ARGV: since.  -> {version, changes-after-since|false}
_LOBBY_SINCE = """
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
local since = tonumber(ARGV[1])
if since > v then return {v, false} end
if since == v then return {v, {}} end
local n = redis.call('LLEN', KEYS[2])
local oldest = v - n + 1
if since + 1 < oldest then return {v, false} end
return {v, redis.call('LRANGE', KEYS[2], since + 1 - oldest, -1)}
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

# KEYS: one shard's deadlines.  ARGV: now, lease (ms), limit.  -> the claimed game ids
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local until_ = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, key in ipairs(due) do redis.call('ZADD', KEYS[1], until_, key) end
return due
"""

# KEYS: any key of the clock's slot (it only routes the call).  -> {seconds, micros}
_TIME = "return redis.call('TIME')"

# KEYS: the game (it only routes the call to the game's master).  ARGV: channel, message
_PUBLISH = "return redis.call('PUBLISH', ARGV[1], ARGV[2])"

# KEYS: the game's watchers, the game.  ARGV: node id, 1 (add it) | 0 (take it out).
# A set made for a game that is over expires with it, even if the node dies watching.
_WATCH = """
if ARGV[2] == '0' then return redis.call('SREM', KEYS[1], ARGV[1]) end
local added = redis.call('SADD', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return added
"""

# KEYS: spectators, game.  ARGV: delta.  Never below zero.  A count kept for a game
# that is over expires with it, even if the node that counted its spectators dies.
_SPECTATORS = """
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n <= 0 then redis.call('DEL', KEYS[1]) return 0 end
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return n
"""

# A player's history (``remember_game``). KEYS: the player's games (sorted set: game id
# -> created_at) and entries (hash: game id -> entry, msgpack), one slot per player.
# ARGV: game id, created_at, entry, finished 0|1, games kept. A finished entry is never
# replaced by a live one (a slow write from the game's start); the oldest go past the cap.
_REMEMBER = """
if ARGV[4] == '0' and redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
if ARGV[4] == '1' then redis.call('SADD', KEYS[3], ARGV[1]) end
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[5])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[1], 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1)
  redis.call('HDEL', KEYS[2], unpack(old))
  redis.call('SREM', KEYS[3], unpack(old))
end
return 1
"""

# KEYS: the player's games, entries, finished.  ARGV: game id.
_FORGET = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
"""

# KEYS: the player's games, entries.  ARGV: limit.  -> entries, newest first.
_PLAYER_GAMES = """
local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))
"""


def _pack(body: Any) -> bytes:
    return packer().pack(body)


def _fields_of(value: Any) -> dict[str, Any]:
    """msgpack's hook for the record's dataclasses: their fields, as ``to_dict`` has them."""
    if type(value) in (GameRecord, SeatRecord):
        return value.__dict__
    raise TypeError(f"cannot pack {type(value).__name__}")


def _pack_record(record: GameRecord) -> bytes:
    """``_pack(record.to_dict())`` without building the plain copy first (msgpack walks
    the record itself): the record is written on every commit, moves and chat included."""
    return msgpack.packb(record, default=_fields_of, use_bin_type=True)


_ENTRY_HEAD = b"\x82" + _pack("audience")
_ENTRY_MESSAGE = _pack("message")


def _entry(event: RoomEvent) -> bytes:
    """``_pack(event.to_dict())``, spliced from the event's frame (a msgpack map is its
    header and its keys and values in a row): the frame is made once and the sockets
    send it too."""
    return _ENTRY_HEAD + _pack(event.audience) + _ENTRY_MESSAGE + event.frame()


_LOBBY_CHANGES: dict[str, type[m.LobbyChange]] = {m.LobbyChanges.t: m.LobbyChanges}


def _lobby_change(entry: bytes) -> m.LobbyChange:
    return m.from_dict(msgpack.unpackb(entry, raw=False), _LOBBY_CHANGES)


def _concatenated(body: bytes) -> list[bytes]:
    """The msgpack values written one after another in ``body``, each as its bytes."""
    unpacker = msgpack.Unpacker()
    unpacker.feed(body)
    found, start = [], 0
    while start < len(body):
        unpacker.skip()
        end = unpacker.tell()
        found.append(body[start:end])
        start = end
    return found


# An entry's head for each audience: all that comes before the event's frame.
_ENTRY_HEADS = {_ENTRY_HEAD + _pack(a) + _ENTRY_MESSAGE: a for a in get_args(Audience)}
_EVENT_TAGS = frozenset(t for t, kind in m.SERVER_MESSAGES.items() if issubclass(kind, m.Event))


def _relayed(entry: bytes) -> RoomEvent:
    """A stored entry as its event, undecoded (``RoomEvent.undecoded``): its frame as
    written, with the type and version read from the frame's first fields (``encode``
    writes ``t`` and then ``v``). An entry laid out otherwise is decoded whole."""
    cut = len(_ENTRY_HEAD) + 1 + (entry[len(_ENTRY_HEAD)] & 0x1F) + len(_ENTRY_MESSAGE)
    audience = _ENTRY_HEADS.get(entry[:cut])
    if audience is not None:
        unpacker = msgpack.Unpacker(raw=False)
        unpacker.feed(entry[cut:])
        with contextlib.suppress(Exception):  # not as expected: decoded whole below
            unpacker.read_map_header()
            if unpacker.unpack() == "t":
                tag = unpacker.unpack()
                if tag in _EVENT_TAGS and unpacker.unpack() == "v":
                    v = unpacker.unpack()
                    if type(v) is int:
                        return RoomEvent.undecoded(entry[cut:], audience, tag, v)
    return RoomEvent.from_dict(msgpack.unpackb(entry, raw=False, strict_map_key=False))


def _bin_header(size: int) -> bytes:
    """The msgpack header of ``size`` bytes of binary (the record on the channel)."""
    if size < 0x100:
        return b"\xc4" + size.to_bytes(1, "big")
    if size < 0x10000:
        return b"\xc5" + size.to_bytes(2, "big")
    return b"\xc6" + size.to_bytes(4, "big")


def _split_record(body: bytes) -> tuple[bytes, bytes]:
    """A channel message's record (a msgpack bin) and the events after it."""
    width = {0xC4: 1, 0xC5: 2, 0xC6: 4}[body[0]]
    start = 1 + width
    end = start + int.from_bytes(body[1:start], "big")
    return body[start:end], body[end:]


def _record(stored: bytes) -> GameRecord:
    return GameRecord.from_dict(msgpack.unpackb(stored, raw=False, strict_map_key=False))


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _newest_first(shards: list[list[tuple[bytes, float]]], limit: int) -> list[str]:
    """Merge each shard's (id, created_at) newest-first lists into the ``limit`` newest.

    Ties in the order ZREVRANGE gives within one sorted set: the greater id first.
    """
    merged = sorted(
        (entry for shard in shards for entry in shard),
        reverse=True,
        key=lambda entry: (entry[1], entry[0]),
    )
    return [_text(game_id) for game_id, _ in merged[:limit]]


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
        finished_kept_ms: int = 7 * 86_400_000,
    ):
        self.url = url
        self.errors = 0  # calls failed as StoreUnavailable: read by the node's metrics
        self._finished_kept_ms = finished_kept_ms
        self._keep = max(200, keep_events)  # the issue asks for at least the last 200
        self._prefix = prefix
        self._lease_ms = lease_ms
        # Per shard and call, so one call claims at most about ``claim_limit`` games.
        self._claim_limit = max(1, -(-claim_limit // SHARDS))
        node_url = cluster_url(url)
        self.cluster = node_url is not None
        # This node, in each game's set of the nodes that have sockets in it (``watchers``,
        # see ``commit``). Only on one Redis: on a cluster a node's subscription may be on
        # any master, where PUBSUB NUMSUB in a game's script cannot count it, so every
        # commit is published there.
        self.node_id = None if self.cluster else os.urandom(8).hex()
        self._redis: Any = connect(url, timeout_s)
        # On one Redis, each call is bounded by a timeout around it (``_call``); redis-py's
        # socket_timeout would wrap every send in asyncio.wait_for, a new task per command
        # (bench/load.py). A call cut off there drops its connection (redis-py closes one
        # interrupted mid-command), so no reply is ever read by the wrong caller.
        self._call_timeout_s: float | None = None if node_url is not None else timeout_s
        # On one Redis, the calls of a game (its scripts, its record, its spectator
        # count) go on a pipelined connection of our own (redis_pipe.py says why); the
        # pipelines over every shard, and everything on a cluster, through redis-py.
        # A URL with options the pipe does not honour (Pipe.handles) keeps redis-py.
        self._pipe = (
            Pipe(url, timeout_s=timeout_s) if node_url is None and Pipe.handles(url) else None
        )
        scripts = self._pipe or self._redis
        self._commit = scripts.register_script(_COMMIT)
        self._create = scripts.register_script(_CREATE)
        self._events_since = scripts.register_script(_EVENTS_SINCE)
        self._spectators = scripts.register_script(_SPECTATORS)
        self._watchers = scripts.register_script(_WATCH)
        self._time = scripts.register_script(_TIME)
        self._publish = scripts.register_script(_PUBLISH)
        self._lobby_commit = scripts.register_script(_LOBBY_COMMIT)
        self._lobby_since = scripts.register_script(_LOBBY_SINCE)
        self._lobby_keys = [f"{prefix}:{{{LOBBY}}}:listing", f"{prefix}:{{{LOBBY}}}:log"]
        self._claim = self._redis.register_script(_CLAIM)  # once per shard: _on_every_shard
        self._claim_piped = None if self._pipe is None else self._pipe.register_script(_CLAIM)
        self._remember = self._redis.register_script(_REMEMBER)
        self._forget_game = self._redis.register_script(_FORGET)
        self._player_games = self._redis.register_script(_PLAYER_GAMES)
        self._clock_key = f"{prefix}:{{{shard_tag(0)}}}:clock"
        self._shards = [shard_keys(shard, prefix) for shard in range(SHARDS)]
        self._subscriber = _Subscriber(
            node_url or url, self._channel, self._dispatch, timeout_s, self._other_nodes
        )
        self._listeners: dict[str, list[Listener]] = {}
        # Per subscribed game: the record of its last commit (see ``cached``): this node's
        # own, or another's as its channel message brought it (bytes, until it is wanted);
        # and the events this node committed whose channel message has not come back yet,
        # by entry.
        self._recent: dict[str, GameRecord | bytes] = {}
        self._sent: dict[str, dict[bytes, RoomEvent]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # kept referenced until done
        # the clock: Redis TIME at one local monotonic instant
        self._resync_s = clock_resync_s
        self._time_base: float | None = None  # Redis ms at _time_mono
        self._time_mono = 0.0
        self._time_last = 0
        self._time_lock = asyncio.Lock()

    # --- keys -------------------------------------------------------------------------

    def keys_of(self, game_id: str) -> GameKeys:
        return keys_of(game_id, self._prefix)

    def _channel(self, game_id: str) -> str:
        return f"{self._prefix}:{{{game_id}}}:events"

    def _command(self, *args: Any) -> Awaitable[Any]:
        """One plain command: on the pipe on one Redis, through redis-py on a cluster."""
        if self._pipe is None:
            return self._redis.execute_command(*args)
        return self._pipe.call(*args)

    async def _call(self, awaitable: Awaitable[Any], piped: bool = False) -> Any:
        """Await a Redis call, Redis's absence raised as ``StoreUnavailable``.

        ``piped``: a call on ``self._pipe``, which needs no timer of its own (a timer
        per move was 3% of a node's CPU under bench/load.py): the pipe drops a
        connection that stops answering, and that fails the call.
        """
        try:
            if piped:
                return await awaitable
            async with asyncio.timeout(self._call_timeout_s):
                return await awaitable
        except Exception as exc:
            if unavailable(exc):
                # A cancelled caller (a node shutting down) stays cancelled, even where
                # the client turned the cancellation into a connection error.
                raise_if_cancelled()
                self.errors += 1
                raise StoreUnavailable(f"redis: {type(exc).__name__}") from exc
            raise

    async def _on_every_shard(
        self, script: Any, keys: Any, args: list[Any], piped: Any = None
    ) -> list[Any]:
        """Run ``script`` once per shard, on ``keys(shard)``: each run is in one slot.

        A single Redis gets them as one pipeline: on the store's pipe when there is one
        (``piped``, the script registered there), where the timekeeper's claims, ten
        times a second on every node, cost a fifth of what redis-py's pipeline did (it
        also asks Redis whether the script is loaded, every time); on a cluster they go to their
        masters concurrently (redis-py's cluster pipeline would not load a script), and
        the shards whose master is away are left out (what the others did is kept:
        claimed timers are not dropped) unless every one is away.
        """
        if self.cluster:
            runs = (self._call(script(keys=keys(shard), args=args)) for shard in range(SHARDS))
            done = await asyncio.gather(*runs, return_exceptions=True)
            for failed in done:
                if isinstance(failed, BaseException) and not isinstance(failed, StoreUnavailable):
                    raise failed
            if all(isinstance(each, StoreUnavailable) for each in done):
                raise done[0]
            return [each for each in done if not isinstance(each, BaseException)]
        if piped is not None:
            each = [(keys(shard), args) for shard in range(SHARDS)]
            return list(await self._call(piped.each(each), piped=True))
        async with self._redis.pipeline(transaction=False) as pipe:
            for shard in range(SHARDS):
                await script(keys=keys(shard), args=args, client=pipe)
            return list(await self._call(pipe.execute()))

    def _other_nodes(self) -> list[tuple[str, int]]:
        """The cluster's nodes, for the subscriber when the one in the URL is gone."""
        if not self.cluster:
            return []
        return [(node.host, int(node.port)) for node in self._redis.get_nodes()]

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
        # A script keyed on one slot: on a cluster every node reads the same master's TIME.
        seconds, micros = await self._call(self._time(keys=[self._clock_key]))
        after = time.monotonic()
        # TIME was read somewhere in the round trip; the midpoint bounds the error by half.
        self._time_base = int(seconds) * 1000 + int(micros) / 1000
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
        keys = self.keys_of(record.id)
        created = await self._call(
            self._create(
                keys=[keys.game, keys.log, keys.deadlines, keys.waiting, keys.live],
                args=[
                    record.version,
                    _pack_record(record),
                    "" if deadline is None else deadline,
                    waiting,
                    live,
                    record.created_at,
                    record.id,
                ],
            )
        )
        return bool(created)

    async def load(self, game_id: str) -> GameRecord | None:
        # A read per move whenever another node moved last: no timer on the pipe (_call).
        reading = self._command("HGET", self.keys_of(game_id).game, "rec")
        stored = await self._call(reading, piped=self._pipe is not None)
        if stored is None:
            return None
        return _record(stored)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: GameRecord,
        events: list[RoomEvent],
        deadline: int | None,
    ) -> bool:
        waiting, live = _listed(record)
        keys = self.keys_of(game_id)
        entries = [_entry(event) for event in events]
        stored = _pack_record(record)
        # If the script publishes them (another node listens too), this node's
        # subscription brings these entries back: remember the events they are, by
        # their bytes, so ``_dispatch`` hands out these objects (frames already
        # encoded) rather than decoding and validating them again. Noted before the
        # script runs: the channel may deliver before the script's reply arrives.
        listening = game_id in self._listeners
        mine = self._sent.setdefault(game_id, {}) if listening else None
        if mine is not None:
            if len(mine) > _SENT_KEPT:
                mine.clear()  # left by messages lost with a broken channel
            mine.update(zip(entries, events, strict=True))
        try:
            committed = await self._call(
                self._commit(
                    keys=[
                        keys.game,
                        keys.log,
                        keys.deadlines,
                        keys.waiting,
                        keys.live,
                        keys.spectators,
                        keys.watchers,
                    ],
                    args=[
                        expected_version,
                        record.version,
                        stored,
                        "" if deadline is None else deadline,
                        self._keep,
                        waiting,
                        live,
                        record.created_at,
                        self._channel(game_id),
                        game_id,
                        self._finished_kept_ms if record.over else "",
                        _bin_header(len(stored)),
                        self.node_id if listening and self.node_id is not None else "",
                        *entries,
                    ],
                ),
                piped=self._pipe is not None,
            )
        except BaseException:
            self._forget(game_id, entries)
            raise
        if not committed:
            self._forget(game_id, entries)
            return False
        if game_id in self._listeners:
            self._recent[game_id] = record
        if committed == _STORED_UNPUBLISHED:
            # No other node has a socket in the game, and no other subscriber listens:
            # the script published nothing, and this node hands its events to its own
            # listeners now. A commit's channel message cost Redis a PUBLISH and this
            # node a wake-up and a read for every move of every game it alone serves,
            # which with routing by game id (server/deploy/nginx.conf) is nearly all.
            self._forget_sent(game_id, entries)
            for event in events:
                self._tell(game_id, event)
        return True

    def cached(self, game_id: str) -> GameRecord | None:
        """The record of the game's last commit this node knows of: its own, or the one
        another node's commit brought along on the channel (decoded now, when it is
        wanted). For ``Games.run``, whose commit (a compare-and-set) refuses it if stale."""
        recent = self._recent.get(game_id)
        if type(recent) is bytes:
            try:
                recent = self._recent[game_id] = _record(recent)
            except Exception:
                log.exception("game %s: undecodable record on the channel", game_id)
                del self._recent[game_id]
                return None
        return recent  # type: ignore[return-value]

    def _forget(self, game_id: str, entries: list[bytes]) -> None:
        """A commit that did not happen: neither its record nor its events are this
        node's to hand out."""
        self._recent.pop(game_id, None)
        self._forget_sent(game_id, entries)

    def _forget_sent(self, game_id: str, entries: list[bytes]) -> None:
        """Events whose channel message will not come."""
        mine = self._sent.get(game_id)
        if mine:
            for entry in entries:
                mine.pop(entry, None)

    async def events_since(self, game_id: str, version: int) -> list[RoomEvent] | None:
        keys = self.keys_of(game_id)
        found = await self._call(self._events_since(keys=[keys.game, keys.log], args=[version]))
        if found is None or found[1] is None:
            return None
        events = [_relayed(entry) for entry in found[1]]
        if events and (events[0].v != version + 1 or events[-1].v != found[0]):
            log.error("game %s: log out of step with version %s", game_id, found[0])
            return None
        return events

    async def sizes(self) -> tuple[int, int]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for _, waiting_key, live_key in self._shards:
                pipe.zcard(waiting_key)
                pipe.zcard(live_key)
            counted = await self._call(pipe.execute())
        return sum(counted[0::2]), sum(counted[1::2])

    async def waiting_and_live(
        self, limit: int, live_limit: int | None = None
    ) -> tuple[list[GameRecord], list[GameRecord]]:
        """The newest of each list (``limit`` open, ``live_limit`` live, default
        ``limit``): the newest of every shard, merged.

        Not one snapshot across shards (no listing is: games start and end meanwhile);
        each game read is its stored record, and ones gone meanwhile are left out.
        """
        live_limit = limit if live_limit is None else live_limit
        if limit <= 0 and live_limit <= 0:
            return [], []
        # One pipeline (per master, on a cluster): the newest of each shard's two lists.
        async with self._redis.pipeline(transaction=False) as pipe:
            for _, waiting_key, live_key in self._shards:
                pipe.zrevrange(waiting_key, 0, limit - 1, withscores=True)
                pipe.zrevrange(live_key, 0, live_limit - 1, withscores=True)
            listed = await self._call(pipe.execute())
        waiting = _newest_first(listed[0::2], limit)
        live = _newest_first(listed[1::2], live_limit)
        if not waiting and not live:
            return [], []
        async with self._redis.pipeline(transaction=False) as pipe:
            for game_id in (*waiting, *live):
                pipe.hget(self.keys_of(game_id).game, "rec")
            stored = await self._call(pipe.execute())
        records = [None if s is None else _record(s) for s in stored]
        return (
            [r for r in records[: len(waiting)] if r is not None],
            [r for r in records[len(waiting) :] if r is not None],
        )

    # --- the lobby --------------------------------------------------------------------

    async def lobby_head(self) -> m.Lobby | None:
        stored = await self._call(self._command("HGET", self._lobby_keys[0], "snap"))
        if stored is None:
            return None
        return m.from_dict(msgpack.unpackb(stored, raw=False), {"lobby": m.Lobby})

    async def lobby_commit(
        self, expected_v: int, listing: m.Lobby, changes: list[m.LobbyChange]
    ) -> bool:
        if not changes:
            return False
        committed = await self._call(
            self._lobby_commit(
                keys=self._lobby_keys,
                args=[
                    expected_v,
                    listing.v,
                    _pack(listing.to_dict()),
                    LOBBY_KEPT,
                    self._channel(LOBBY),
                    *(_pack(change.to_dict()) for change in changes),
                ],
            )
        )
        return bool(committed)

    async def lobby_since(self, version: int) -> list[m.LobbyChange] | None:
        found = await self._call(self._lobby_since(keys=self._lobby_keys, args=[version]))
        if found[1] is None:
            return None
        missed = [_lobby_change(entry) for entry in found[1]]
        if missed and (missed[0].v != version + 1 or missed[-1].v != found[0]):
            log.error("lobby: log out of step with version %s", found[0])
            return None
        return missed

    async def subscribe_lobby(self, listener: Listener) -> None:
        await self.subscribe(LOBBY, listener)

    async def unsubscribe_lobby(self, listener: Listener) -> None:
        await self.unsubscribe(LOBBY, listener)

    # --- players' histories -------------------------------------------------------------

    def history_keys(self, player: str) -> list[str]:
        """A player's history keys (one hash tag per player: one slot), no expiry."""
        base = f"{self._prefix}:{{p:{player}}}"
        return [f"{base}:games", f"{base}:entries", f"{base}:finished"]

    async def remember_game(self, player: str, entry: dict[str, Any]) -> None:
        finished = 1 if entry["status"] == "finished" else 0
        await self._call(
            self._remember(
                keys=self.history_keys(player),
                args=[entry["id"], entry["at"], _pack(entry), finished, HISTORY_KEPT],
            )
        )

    async def forget_game(self, player: str, game_id: str) -> None:
        await self._call(self._forget_game(keys=self.history_keys(player), args=[game_id]))

    async def player_games(self, player: str, limit: int = HISTORY_KEPT) -> list[dict[str, Any]]:
        if limit <= 0:
            return []
        stored = await self._call(
            self._player_games(keys=self.history_keys(player)[:2], args=[limit])
        )
        return [msgpack.unpackb(e, raw=False) for e in stored if e is not None]

    # --- spectators -------------------------------------------------------------------

    async def add_spectators(self, game_id: str, delta: int) -> int:
        keys = self.keys_of(game_id)
        return int(
            await self._call(self._spectators(keys=[keys.spectators, keys.game], args=[delta]))
        )

    async def spectators(self, game_id: str) -> int:
        return int(await self._call(self._command("GET", self.keys_of(game_id).spectators)) or 0)

    # --- timers -----------------------------------------------------------------------

    async def due(self, now: int) -> list[str]:
        """Claim the games whose deadline has passed, for ``lease_ms``: one node gets each.

        One claim script per shard (each atomic in its slot). The Tick's commit sets the
        next deadline; if this node dies first, the lease runs out and another node
        claims the game again.
        """
        claimed = await self._on_every_shard(
            self._claim,
            lambda shard: [self._shards[shard][0]],
            [now, self._lease_ms, self._claim_limit],
            self._claim_piped,
        )
        return [_text(game_id) for batch in claimed for game_id in batch]

    async def deadline_of(self, game_id: str) -> int | None:
        """The game's scheduled deadline (or lease), for tests and operators."""
        keys = self.keys_of(game_id)
        score = await self._call(self._redis.zscore(keys.deadlines, game_id))
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
            await self._watch(game_id, True)

    async def unsubscribe(self, game_id: str, listener: Listener) -> None:
        listeners = self._listeners.get(game_id, [])
        if listener in listeners:
            listeners.remove(listener)
        if not listeners and game_id in self._listeners:
            del self._listeners[game_id]
            self._recent.pop(game_id, None)
            self._sent.pop(game_id, None)
            with contextlib.suppress(StoreUnavailable):
                await self._subscriber.unsubscribe(game_id)
            await self._watch(game_id, False)

    async def _watch(self, game_id: str, watching: bool) -> None:
        """Add this node to the game's watchers, or take it out: only then may its
        commits go unpublished while it alone listens (``_COMMIT``). Either may fail
        without harm. A node missing from the set publishes every commit; one left in it
        makes the others publish theirs; and PUBSUB NUMSUB, in the same script, counts
        every subscriber, of a node older than this code too."""
        if self.node_id is None or game_id == LOBBY:  # the lobby's changes always go out
            return
        keys = self.keys_of(game_id)
        try:
            await self._call(
                self._watchers(keys=[keys.watchers, keys.game], args=[self.node_id, int(watching)]),
                piped=self._pipe is not None,
            )
        except StoreUnavailable:
            log.warning("game %s: Redis away as this node came or went", game_id)

    async def _watch_again(self, games: list[str]) -> None:
        """After the channel was re-established: Redis may have restarted empty."""
        await asyncio.gather(*(self._watch(g, True) for g in games if g in self._listeners))

    async def announce(self, game_id: str, notice: ServerMessage) -> None:
        # Published by a script on the game's slot, like the commits: on a cluster the
        # same master sends both, so a notice keeps its place among the game's events.
        await self._call(
            self._publish(
                keys=[self.keys_of(game_id).game],
                args=[self._channel(game_id), b"N" + _pack(notice.to_dict())],
            )
        )

    def subscribed(self) -> list[str]:
        return list(self._listeners)

    def _dispatch(self, game_id: str | None, payload: bytes | None) -> None:
        """From the subscriber: a channel message, or (None, None) after a reconnect."""
        if game_id is None:
            # Other nodes' commits may be among what was lost: no copy is current.
            self._recent.clear()
            self._sent.clear()
            for each in list(self._listeners):
                self._tell(each, RESYNC)
            if self.node_id is not None and self._listeners:
                task = asyncio.get_running_loop().create_task(
                    self._watch_again(list(self._listeners))
                )
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            return
        assert payload is not None
        kind, body = payload[:1], payload[1:]
        try:
            if kind == b"R":
                stored, body = _split_record(body)
                items: list[Any] = self._events(game_id, body, stored)
            elif kind == b"E":
                items = self._events(game_id, body, None)
            elif kind == b"L":
                items = [_lobby_change(entry) for entry in _concatenated(body)]
            else:
                items = [m.from_dict(msgpack.unpackb(body, raw=False), m.SERVER_MESSAGES)]
        except Exception:
            log.exception("game %s: undecodable channel message", game_id)
            self._tell(game_id, RESYNC)
            return
        for item in items:
            self._tell(game_id, item)

    def _events(self, game_id: str, body: bytes, stored: bytes | None) -> list[RoomEvent]:
        """A commit's events from its channel message: this node's own as committed, any
        other node's relayed as their frames came (``_relayed``). Another node's commit
        also replaces this node's copy of the record, by ``stored`` if it came along."""
        mine = self._sent.get(game_id)
        unpacker = msgpack.Unpacker()
        unpacker.feed(body)
        events, start = [], 0
        theirs = False
        while start < len(body):
            unpacker.skip()
            end = unpacker.tell()
            entry = body[start:end]
            start = end
            event = mine.pop(entry, None) if mine else None
            if event is None:
                theirs = True
                event = _relayed(entry)
            events.append(event)
        if theirs:
            if stored is None:
                self._recent.pop(game_id, None)
            else:
                self._recent[game_id] = stored
        return events

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
        for task in list(self._tasks):
            task.cancel()
        await self._subscriber.close()
        if self._pipe is not None:
            self._pipe.close()
        await self._redis.aclose()


class _Channel(asyncio.Protocol):
    """The subscriber's socket. Channel messages are handed on as ``data_received``
    parses them: no task wakes for each, where a stream reader woke the subscriber's
    for every message, on every node, for every move (``bench/capacity.py``: two nodes
    receive each move's message twice). Other replies go to ``expect``'s futures, in
    order; subscription confirmations to ``confirmed``."""

    def __init__(self, dispatch: Any, confirmed: Any) -> None:
        self._dispatch = dispatch
        self._confirmed = confirmed
        self.parser = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.heard = False  # anything came in since the last look
        self._replies: deque[asyncio.Future[Any]] = deque()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def expect(self) -> asyncio.Future[Any]:
        """A future for the next reply that is neither a message nor a confirmation."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._replies.append(future)
        return future

    def data_received(self, data: bytes) -> None:
        self.heard = True
        for reply in replies(self.parser, data, self.close):
            if isinstance(reply, list) and reply:
                kind = reply[0]
                if kind == b"message":
                    channel = reply[1].decode()
                    self._dispatch(channel.split("{", 1)[1].rsplit("}", 1)[0], reply[2])
                    continue
                if kind in (b"subscribe", b"unsubscribe"):
                    self._confirmed(kind[:3] + b":" + reply[1])
                    continue
            if self._replies:  # a handshake's reply; a PING's goes nowhere
                future = self._replies.popleft()
                if not future.done():
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        while self._replies:
            future = self._replies.popleft()
            if not future.done():
                future.set_exception(ConnectionError("redis closed the connection"))

    def write(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            raise ConnectionError("redis pub/sub: the connection is closed")
        self.transport.write(data)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()  # connection_lost follows


class _Subscriber:
    """One pub/sub connection per node, re-established (and resubscribed) when it dies.

    A plain socket with a hiredis reader rather than redis-py's ``PubSub``: that one
    reconnects silently, and a silent reconnect is exactly when listeners must learn
    that events may have been lost. On a cluster any node will do (PUBLISH reaches
    them all): the one in the URL first, and when that fails the others it knows of
    (``other_nodes``), in turn.
    """

    # Quiet this long: PING; quiet as long again: the connection is taken for dead.
    QUIET_S = 15.0

    def __init__(
        self,
        url: str,
        channel: Any,
        dispatch: Any,
        timeout_s: float,
        other_nodes: Any = list,
    ):
        parsed = urlparse(url)
        self._host = parsed.hostname or "127.0.0.1"
        self._port = parsed.port or 6379
        self._other_nodes = other_nodes  # () -> [(host, port)], empty off a cluster
        self._attempt = 0
        self._tls = parsed.scheme == "rediss"
        self._username = unquote(parsed.username) if parsed.username else None
        self._password = unquote(parsed.password) if parsed.password else None
        self._channel = channel
        self._dispatch = dispatch
        self._timeout = timeout_s
        self.games: Any = list  # () -> the game ids that should be subscribed
        self._connection: _Channel | None = None
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
        connection = self._connection
        if connection is None or not self._ready.is_set():
            raise StoreUnavailable("redis: the pub/sub connection is down")
        channel = self._channel(game_id).encode()
        # Wait for Redis to confirm: only then is a snapshot read afterwards sure to be
        # no older than the first event this node will receive.
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirm.setdefault(command.lower()[:3] + b":" + channel, []).append(future)
        try:
            connection.write(_resp(command, channel))
            await asyncio.wait_for(future, self._timeout)
        except (TimeoutError, OSError) as exc:
            raise StoreUnavailable("redis: pub/sub did not confirm") from exc

    def _confirmed(self, key: bytes) -> None:
        waiting = self._confirm.get(key)
        if waiting:
            future = waiting.pop(0)
            if not waiting:
                del self._confirm[key]
            if not future.done():
                future.set_result(None)

    def _address(self) -> tuple[str, int]:
        """The URL's node on the first attempt after a success, then the others in turn."""
        seed = (self._host, self._port)
        try:
            candidates = [seed, *(n for n in self._other_nodes() if n != seed)]
        except Exception:  # the cluster client's view is only a hint
            candidates = [seed]
        return candidates[self._attempt % len(candidates)]

    async def _run(self) -> None:
        backoff = 0.05
        loop = asyncio.get_running_loop()
        while True:
            try:
                host, port = self._address()
                self._attempt += 1
                _, connection = await asyncio.wait_for(
                    loop.create_connection(
                        lambda: _Channel(self._dispatch, self._confirmed),
                        host,
                        port,
                        ssl=ssl.create_default_context() if self._tls else None,
                    ),
                    self._timeout,
                )
                self._connection = connection
                await self._handshake(connection)
                # Read the games and mark the connection ready with no await in between,
                # so a game subscribed meanwhile is either in this list or sent itself.
                games = list(self.games())
                if games:
                    connection.write(
                        _resp(b"SUBSCRIBE", *(self._channel(g).encode() for g in games))
                    )
                self.connects += 1
                self._attempt = 0
                self._ready.set()
                if self.connects > 1:
                    log.warning("redis pub/sub re-established; resyncing %d games", len(games))
                    self._dispatch(None, None)
                backoff = 0.05
                await self._watch(connection)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._ready.is_set():
                    log.warning("redis pub/sub connection lost: %s", type(exc).__name__)
            finally:
                self._ready.clear()
                if self._connection is not None:
                    self._connection.close()
                    self._connection = None
                for futures in self._confirm.values():
                    for future in futures:
                        if not future.done():
                            future.set_exception(OSError("pub/sub connection lost"))
                self._confirm.clear()
            await asyncio.sleep(backoff)
            backoff = min(1.0, backoff * 2)

    async def _handshake(self, connection: _Channel) -> None:
        if self._password is not None:
            auth = [b"AUTH", self._password.encode()]
            if self._username is not None:
                auth.insert(1, self._username.encode())
            authed = connection.expect()
            connection.write(_resp(*auth))
            reply = await asyncio.wait_for(authed, self._timeout)
            if isinstance(reply, hiredis.ReplyError):
                raise ConnectionError("redis: AUTH refused")
        named = connection.expect()
        connection.write(_resp(b"CLIENT", b"SETNAME", b"kondavo-pubsub"))
        await asyncio.wait_for(named, self._timeout)

    async def _watch(self, connection: _Channel) -> None:
        """Until the connection closes; one quiet period: PING, two: taken for dead.
        One timer per period, not one per message."""
        pinged = False
        while True:
            connection.heard = False
            done, _ = await asyncio.wait([connection.closed], timeout=self.QUIET_S)
            if done:
                raise ConnectionError("redis closed the pub/sub connection")
            if connection.heard:
                pinged = False
                continue
            if pinged:
                raise ConnectionError("redis pub/sub: no answer to PING")
            connection.write(_resp(b"PING"))
            pinged = True

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            self._task = None


def _resp(*parts: bytes) -> bytes:
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


__all__ = ["RESYNC", "RedisStore", "Resync", "StoreUnavailable"]
