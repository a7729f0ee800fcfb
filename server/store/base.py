"""The store interface: where games live, how writes stay atomic, how events travel.

Every implementation (``MemoryStore`` now, a Redis store later) keeps, per game:

- the record and its version; ``commit`` is a compare-and-set on that version, so
  two nodes can never both apply a command to the same game;
- an event log: each commit appends its versioned events; ``events_since`` reads
  them back for a client that missed some (None once they are no longer kept);
- a channel: each commit publishes its events, and ``announce`` publishes an
  unversioned notice (the spectator count), to every subscriber on every node;
- a deadline: when the game next needs a ``Tick`` (a flag, a claim opening);
  ``due`` lists the games whose deadline has passed;
- a spectator counter across nodes;
- the lobby's listing by increments: its version, the listing at that version, the
  last ``LOBBY_KEPT`` changes and a channel for them (``lobby_commit``, a
  compare-and-set on the lobby's version, like ``commit`` on a game's);
- per player (public id), the history of its games: the memory store keeps it for
  the process's life, Redis the newest ``HISTORY_KEPT`` per player, with no expiry.

Time comes from the store (``now``), so all nodes agree on it.

A networked store may be away for a while: its calls then raise ``StoreUnavailable``
(nothing was written; retrying is safe), and after its channel was interrupted it
tells each listener ``RESYNC``, since events published meanwhile may be lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from protocol.messages import Lobby, LobbyChange, ServerMessage
from server.core.events import RoomEvent
from server.core.history import HISTORY_KEPT
from server.core.record import GameRecord


class StoreUnavailable(Exception):
    """The store cannot be reached right now; the caller may retry later.

    Nothing is known to have been written: a command that raised this was not
    acknowledged, and resending it (same ack id) is safe.
    """


def raise_if_cancelled() -> None:
    """Raise ``CancelledError`` if the current task has been asked to stop.

    A store that maps a client's connection errors to ``StoreUnavailable`` calls this
    first: a cancellation that lands inside a call can come out of the client as a
    connection error (while Redis is away), and a caller cancelled to shut a node down
    must see its cancellation, not an outage it would retry (server/services/cancelling.py)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class Resync:
    """Told to listeners after the channel was interrupted: read the log by version."""

    def __repr__(self) -> str:
        return "RESYNC"


RESYNC = Resync()

# The lobby's changes a store keeps for clients that come back with an older version.
LOBBY_KEPT = 200
# The key under which lobby listeners are told each change (and RESYNC): no game id
# (``secrets.token_urlsafe``) has a colon.
LOBBY = ":lobby"

# Receives each event committed to a game, each notice announced on it, and RESYNC.
Listener = Callable[[str, "RoomEvent | ServerMessage | Resync"], None]


class Store(Protocol):
    name: str

    async def now(self) -> int:
        """Milliseconds on the one clock all nodes share."""
        ...

    async def create(self, record: GameRecord, deadline: int | None = None) -> bool:
        """Store a new game; False if the id is taken."""
        ...

    async def load(self, game_id: str) -> GameRecord | None:
        """The record (its ``version`` field is the stored version), or None.

        Read-only: a store may hand out the record it keeps (the memory store does);
        copy it before changing it, as ``room.handle`` does.
        """
        ...

    def cached(self, game_id: str) -> GameRecord | None:
        """This node's copy of the record it last committed for the game, or None.

        Possibly stale (another node may have written since): only for a command
        whose commit's compare-and-set will refuse it then, never for a refusal or a
        view. A store without a round trip to save returns None.
        """
        ...

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        record: GameRecord,
        events: list[RoomEvent],
        deadline: int | None,
    ) -> bool:
        """Write ``record`` if the stored version is still ``expected_version``.

        On success, append ``events`` to the log, publish them, set the deadline,
        and return True; otherwise change nothing and return False. A store may keep
        ``record`` itself (the memory store does): do not change it afterwards.
        """
        ...

    async def events_since(self, game_id: str, version: int) -> list[RoomEvent] | None:
        """The events after ``version`` in order, or None if some are no longer kept."""
        ...

    async def subscribe(self, game_id: str, listener: Listener) -> None: ...

    async def unsubscribe(self, game_id: str, listener: Listener) -> None: ...

    async def announce(self, game_id: str, notice: ServerMessage) -> None:
        """Publish an unversioned message to every subscriber of the game."""
        ...

    async def add_spectators(self, game_id: str, delta: int) -> int:
        """Change the game's spectator count by ``delta``; return the new count."""
        ...

    async def spectators(self, game_id: str) -> int: ...

    async def due(self, now: int) -> list[str]:
        """Ids of games whose deadline is at or before ``now``."""
        ...

    async def waiting_and_live(
        self, limit: int, live_limit: int | None = None
    ) -> tuple[list[GameRecord], list[GameRecord]]:
        """The newest ``limit`` open games waiting for an opponent, and the newest
        ``live_limit`` (default ``limit``) games being played, newest first."""
        ...

    async def sizes(self) -> tuple[int, int]:
        """How many open games wait for an opponent and how many are being played
        (the lobby's two lists, counted whole: for the node's metrics)."""
        ...

    async def remember_game(self, player: str, entry: dict[str, Any]) -> None:
        """Put ``entry`` (``history.entry``) in the player's history, replacing the one of
        the same game unless that one is finished and this is not; keep the newest
        ``history.HISTORY_KEPT`` games by ``entry["at"]``. Idempotent."""
        ...

    async def forget_game(self, player: str, game_id: str) -> None:
        """Drop the game from the player's history (an aborted game)."""
        ...

    async def player_games(self, player: str, limit: int = HISTORY_KEPT) -> list[dict[str, Any]]:
        """The player's newest ``limit`` games, newest first."""
        ...

    async def lobby_head(self) -> Lobby | None:
        """The lobby's listing at its current version, None before the first change."""
        ...

    async def lobby_commit(
        self, expected_v: int, listing: Lobby, changes: list[LobbyChange]
    ) -> bool:
        """If the lobby is still at version ``expected_v`` (0 before the first change):
        keep ``listing`` (at the last change's version), append ``changes`` to the
        lobby's log and publish them to every lobby listener, on every node; True.
        Otherwise change nothing and return False."""
        ...

    async def lobby_since(self, version: int) -> list[LobbyChange] | None:
        """The lobby's changes after ``version`` in order, or None if some are no longer
        kept (or the version is ahead of the lobby's)."""
        ...

    async def subscribe_lobby(self, listener: Listener) -> None:
        """Hand ``listener`` (with the key ``LOBBY``) each lobby change, and RESYNC."""
        ...

    async def unsubscribe_lobby(self, listener: Listener) -> None: ...

    async def close(self) -> None: ...
