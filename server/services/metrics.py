"""What an operator watches: a node's counters, in the Prometheus text format.

Off unless ``KONDAVO_METRICS_ALLOW`` names who may read them: then the app makes one
``Metrics`` and hands it to the parts that count (``Games``, ``Hub``, ``BotTable``,
the game sockets); off, they hold None and count nothing. Each app has its own
registry, so several apps (tests, nodes) can run in one process.

Only the node's own process counts. The computer's searches run in worker processes
(``computer.make_pool``), but they only search: the node times each search around
its await and knows what waits for one, so prometheus_client's multiprocess mode
(files shared between processes) is not needed.

What is counted on the hot path (a move, a relayed event) is a counter or a
histogram of prometheus_client; what can be read when scraped (sockets, rooms, the
lobby, the computer's queue, the store's errors) is read then, costing nothing
between scrapes.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from protocol import messages as m
from server.core.events import RoomEvent
from server.store import StoreUnavailable

# Relaying a move on one node takes a millisecond or two; over Redis a few more.
FAST_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
THINK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)


class _StoreErrors(Collector):
    """The store's failed calls (``errors``: Redis away or refusing), read when scraped."""

    def __init__(self, store: Any):
        self.store = store

    def collect(self) -> Any:
        yield CounterMetricFamily(
            "kondavo_store_errors",
            "Store calls that failed because the store was unavailable.",
            value=getattr(self.store, "errors", 0),
        )


class Metrics:
    def __init__(self, store: Any = None) -> None:
        self.registry = r = CollectorRegistry(auto_describe=False)
        self.moves = Counter(
            "kondavo_moves",
            "Moves committed by this node (players' and the computer's).",
            registry=r,
        )
        self.frames = Counter(
            "kondavo_relayed_frames",
            "Events and notices handed to this node's game sockets (one per socket).",
            registry=r,
        )
        self.relay = Histogram(
            "kondavo_relay_seconds",
            "From a move's frame arriving at this node to its event being handed to the "
            "game's sockets here (through the store and its channel).",
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.move_handling = Histogram(
            "kondavo_move_handling_seconds",
            "A committed move through the command path: load, rules, commit.",
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.busy = Counter(
            "kondavo_busy_refusals",
            "server/busy refusals (store unavailable, writes lost to other nodes), sockets "
            "and HTTP.",
            registry=r,
        )
        self.think = Histogram(
            "kondavo_bot_think_seconds",
            "The computer's searches, from asking to the move.",
            buckets=THINK_BUCKETS,
            registry=r,
        )
        self.sockets = Gauge(
            "kondavo_sockets", "Open sockets on this node, by kind.", ["kind"], registry=r
        )
        self.rooms = Gauge(
            "kondavo_rooms", "Games with at least one socket on this node.", registry=r
        )
        self.live = Gauge(
            "kondavo_live_games",
            "Games being played, site-wide (the same on every node).",
            registry=r,
        )
        self.lobby = Gauge(
            "kondavo_lobby_games",
            "Open games waiting for an opponent, site-wide (the same on every node).",
            registry=r,
        )
        self.bot_queue = Gauge(
            "kondavo_bot_queue",
            "Computer games this node is searching a move for or waiting to.",
            registry=r,
        )
        if store is not None:
            r.register(_StoreErrors(store))
        # Game -> when its last move's frame arrived here, until the move's event is
        # handed to the game's sockets (``fanned_out``).
        self._arrivals: dict[str, float] = {}

    # --- counted as it happens --------------------------------------------------------

    def move_arrived(self, game_id: str) -> None:
        self._arrivals[game_id] = time.perf_counter()

    def move_dropped(self, game_id: str) -> None:
        """The move was refused or not stored: no event will end its relay."""
        self._arrivals.pop(game_id, None)

    def fanned_out(self, game_id: str, item: Any, sockets: int) -> None:
        self.frames.inc(sockets)
        if self._arrivals and type(item) is RoomEvent and item.tag == m.Moved.t:
            arrived = self._arrivals.pop(game_id, None)
            if arrived is not None:
                self.relay.observe(time.perf_counter() - arrived)

    # --- read when scraped ------------------------------------------------------------

    async def exposition(self, state: Any) -> bytes:
        """The text format, after reading what is read at scrape time from ``state``
        (the app's state: hub, lobby feed, computer's table, store)."""
        players = spectators = 0
        rooms = state.hub.rooms()
        for members in rooms.values():
            for member in members:
                if getattr(member, "side", None) is None:
                    spectators += 1
                else:
                    players += 1
        self.sockets.labels("player").set(players)
        self.sockets.labels("spectator").set(spectators)
        self.sockets.labels("lobby").set(len(state.lobby.sockets))
        self.rooms.set(len(rooms))
        try:
            waiting, live = await state.store.sizes()
        except StoreUnavailable:
            pass  # the last counts stand; the store's errors say why
        else:
            self.lobby.set(waiting)
            self.live.set(live)
        table = state.bot_table
        self.bot_queue.set(len(table.thinking) if table is not None else 0)
        return generate_latest(self.registry)
