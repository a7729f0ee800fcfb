"""The ratings stores: ``MemoryRatings`` (embedded) here, ``RedisRatings`` in
``ratings_redis``; ``make_ratings`` picks one for the configured store."""

from __future__ import annotations

from typing import Any

from server.core.ratings import Entry, Ratings


class MemoryRatings:
    """Ratings in this process: the embedded default (with ``MemoryStore``)."""

    name = "memory"

    def __init__(self) -> None:
        self._entries: dict[str, dict[str, str]] = {}  # variant -> player -> json
        self._applied: dict[str, dict[str, Any]] = {}

    async def load(self, variant: str, players: list[str]) -> dict[str, Entry | None]:
        table = self._entries.get(variant, {})
        return {p: Entry.from_json(table[p]) if p in table else None for p in players}

    async def commit(
        self,
        game_id: str,
        variant: str,
        expected: dict[str, Entry | None],
        new: dict[str, Entry],
        changes: dict[str, Any],
    ) -> dict[str, Any] | None:
        if game_id in self._applied:
            return self._applied[game_id]
        table = self._entries.setdefault(variant, {})
        for player, entry in expected.items():
            if table.get(player) != (entry.to_json() if entry is not None else None):
                return None
        for player, entry in new.items():
            table[player] = entry.to_json()
        self._applied[game_id] = changes
        return changes

    async def top(self, variant: str, limit: int) -> list[tuple[str, Entry]]:
        entries = [(p, Entry.from_json(e)) for p, e in self._entries.get(variant, {}).items()]
        entries.sort(key=lambda pe: (-pe[1].rating.rating, pe[0]))
        return entries[:limit]

    async def of_player(self, player: str) -> dict[str, Entry]:
        return {
            variant: Entry.from_json(table[player])
            for variant, table in self._entries.items()
            if player in table
        }

    async def close(self) -> None:
        pass


def make_ratings(redis_url: str | None) -> Ratings:
    """``RedisRatings`` when a Redis URL is configured, else ``MemoryRatings``."""
    if redis_url:
        from server.store.ratings_redis import RedisRatings

        return RedisRatings(redis_url)
    return MemoryRatings()
