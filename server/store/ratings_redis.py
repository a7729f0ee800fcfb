"""Ratings on Redis, shared by every node (beside ``store.redis.RedisStore``).

``KONDAVO_REDIS_URL`` as for the store: ``redis://...`` for one Redis,
``redis+cluster://host:port`` for any node of a Redis Cluster. Key layout (prefix
``kondavo``; the hash tag ``{ratings}`` keeps every ratings key in one cluster slot,
so one script may touch them all):

- ``kondavo:{ratings}:<variant>``        hash: public player id -> entry (canonical JSON)
- ``kondavo:{ratings}:<variant>:top``    sorted set: public player id -> rating
- ``kondavo:{ratings}:applied``          hash: game id -> the rating changes it made

``commit`` is one Lua script: if the game is in ``applied``, return what it did then;
else compare every expected entry byte for byte, and only if all still match write
the new entries, their leaderboard scores and the game's changes. So a game is
applied at most once however many nodes or retries try, and two games of the same
player never overwrite each other's update (the loser of the race recomputes).
"""

from __future__ import annotations

import json
from typing import Any

from engine import VARIANTS
from server.core.ratings import Entry
from server.store.redis import call, connect

# KEYS: applied, entries, top.  ARGV: game id, changes, n, then n times:
# player, expected entry ('' = none), new entry, new rating.
_COMMIT = """
local done = redis.call('HGET', KEYS[1], ARGV[1])
if done then return done end
local n = tonumber(ARGV[3])
for i = 0, n - 1 do
  local at = 4 + i * 4
  local stored = redis.call('HGET', KEYS[2], ARGV[at])
  if stored == false then stored = '' end
  if stored ~= ARGV[at + 1] then return false end
end
for i = 0, n - 1 do
  local at = 4 + i * 4
  redis.call('HSET', KEYS[2], ARGV[at], ARGV[at + 2])
  redis.call('ZADD', KEYS[3], ARGV[at + 3], ARGV[at])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return ARGV[2]
"""


class RedisRatings:
    name = "redis"

    def __init__(self, url: str, prefix: str = "kondavo", timeout_s: float = 2.0):
        # The game store's connection set-up and error mapping: Redis being away is
        # StoreUnavailable here too (a retryable 503 over HTTP, never a 500).
        self._redis: Any = connect(url, timeout_s)
        self._timeout_s = timeout_s
        self._prefix = f"{prefix}:{{ratings}}"
        self._commit = self._redis.register_script(_COMMIT)

    def _entries(self, variant: str) -> str:
        return f"{self._prefix}:{variant}"

    def _top(self, variant: str) -> str:
        return f"{self._prefix}:{variant}:top"

    @property
    def _applied(self) -> str:
        return f"{self._prefix}:applied"

    async def load(self, variant: str, players: list[str]) -> dict[str, Entry | None]:
        if not players:
            return {}
        stored = await call(self._redis.hmget(self._entries(variant), players), self._timeout_s)
        pairs = zip(players, stored, strict=True)
        return {p: Entry.from_json(e) if e is not None else None for p, e in pairs}

    async def commit(
        self,
        game_id: str,
        variant: str,
        expected: dict[str, Entry | None],
        new: dict[str, Entry],
        changes: dict[str, Any],
    ) -> dict[str, Any] | None:
        args: list[Any] = [game_id, json.dumps(changes, sort_keys=True), len(new)]
        for player, entry in new.items():
            before = expected.get(player)
            args += [
                player,
                before.to_json() if before is not None else "",
                entry.to_json(),
                entry.rating.rating,
            ]
        keys = [self._applied, self._entries(variant), self._top(variant)]
        done = await call(self._commit(keys=keys, args=args), self._timeout_s)
        if done is None:
            return None
        result: dict[str, Any] = json.loads(done)
        return result

    async def top(self, variant: str, limit: int) -> list[tuple[str, Entry]]:
        ids = [
            p.decode() if isinstance(p, bytes) else p
            for p in await call(
                self._redis.zrevrange(self._top(variant), 0, limit - 1), self._timeout_s
            )
        ]
        loaded = await self.load(variant, ids)
        return [(p, e) for p, e in loaded.items() if e is not None]

    async def of_player(self, player: str) -> dict[str, Entry]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for variant in VARIANTS:
                pipe.hget(self._entries(variant), player)
            stored = await call(pipe.execute(), self._timeout_s)
        pairs = zip(VARIANTS, stored, strict=True)
        return {v: Entry.from_json(e) for v, e in pairs if e is not None}

    async def close(self) -> None:
        await self._redis.aclose()
