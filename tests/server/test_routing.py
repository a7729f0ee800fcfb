"""A game whose sockets are all on one node costs the other node nothing per move.

``server/deploy/nginx.conf`` sends every socket of a game to the node its id hashes to.
That saves the other nodes' work only if a node with no socket on a game neither
subscribes to its channel, nor catches up its record, nor decodes its events: here two
real nodes (``python -m server``) on this module's own Redis, both players and a
spectator on node A, and what node B and Redis show while the moves are relayed:
Redis has one subscriber on the game's channel (so PUBLISH sends node B nothing of it),
and node B's counters (``/metrics``) for moves, relayed frames and rooms stay at zero.
A spectator opening on node B then moves them, which shows they would have.
"""

from __future__ import annotations

import asyncio
import random
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families
from redis_server import RedisServer
from test_cluster import Node, converge, two_nodes

from protocol.client import GameConnection, Kondavo


@pytest.fixture(scope="module")
def nodes(redis_server: RedisServer) -> Iterator[list[Node]]:
    with two_nodes(redis_server.url, {"KONDAVO_METRICS_ALLOW": "127.0.0.1"}) as started:
        yield started


def scrape(node: Node) -> dict[str, float]:
    """The node's samples by name (labels left out: only unlabelled ones are read)."""
    with urllib.request.urlopen(node.url + "/metrics", timeout=5) as answer:
        text = answer.read().decode()
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.labels
    }


def subscribers(redis_server: RedisServer, game: str) -> int:
    channel = f"kondavo:{{{game}}}:events"
    ((_, count),) = redis_server.client().pubsub_numsub(channel)
    return int(count)


def pick(conn: GameConnection) -> dict:
    return random.choice(conn.legal)


async def test_a_node_with_no_socket_on_a_game_does_no_work_for_its_moves(nodes, redis_server):
    a, b = nodes
    here = Kondavo(a.url)
    white = await here.create(variant="english", color="white", clock=None)
    black = await here.join(white.game, invite=white.invite)
    before_b = scrape(b)
    async with (
        here.connect(white) as w,
        here.connect(black) as bl,
        here.connect(white.game) as watcher,
    ):
        everyone = [w, bl, watcher]
        await asyncio.gather(w.play(pick, max_moves=3), bl.play(pick, max_moves=3))
        await converge(everyone, here, white.game)
        on_a, version = scrape(a), w.v
        await asyncio.gather(w.play(pick, max_moves=6), bl.play(pick, max_moves=6))
        stored = await converge(everyone, here, white.game)
        assert len(stored["moves"]) == 18
        after_a, after_b = scrape(a), scrape(b)

        # Only node A is subscribed to the game: Redis sends node B none of its moves.
        assert subscribers(redis_server, white.game) == 1
        # Node A did the work of a single node: it committed the 12 moves and handed
        # each version's event to its three sockets.
        assert after_a["kondavo_moves_total"] - on_a["kondavo_moves_total"] == 12
        frames_a = after_a["kondavo_relayed_frames_total"] - on_a["kondavo_relayed_frames_total"]
        assert frames_a == 3 * (w.v - version)
        assert after_a["kondavo_rooms"] == 1
        # Node B: no room, no move, no frame, no relay timed, for the whole game so far.
        for name in (
            "kondavo_moves_total",
            "kondavo_relayed_frames_total",
            "kondavo_relay_seconds_count",
            "kondavo_move_handling_seconds_count",
        ):
            assert after_b[name] == before_b[name] == 0, name
        assert after_b["kondavo_rooms"] == 0

        # The same observations see node B's work once it has a socket on the game.
        async with Kondavo(b.url).connect(white.game) as far:
            assert subscribers(redis_server, white.game) == 2
            version = far.v
            await asyncio.gather(w.play(pick, max_moves=2), bl.play(pick, max_moves=2))
            await converge([*everyone, far], here, white.game)
            later_b = scrape(b)
            assert later_b["kondavo_rooms"] == 1
            assert later_b["kondavo_relayed_frames_total"] >= far.v - version >= 4
            assert later_b["kondavo_moves_total"] == 0  # the moves were committed on A
