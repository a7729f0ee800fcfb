"""On one Redis, a commit is published only when someone besides its own node listens.

Each node adds itself to a game's set of watchers (``kondavo:{t}:nodes:<id>``) as it
subscribes to the game's channel. A node that is the set's only member, with at most
one subscriber on the channel, gets its commit back unpublished and hands the events
to its own listeners itself: with routing by game id that is nearly every move.
These tests count Redis's PUBLISH calls (INFO commandstats, which counts the calls
made inside scripts too) on a private ``redis-server``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis_server import RedisServer

from protocol import messages as m
from server.core import room
from server.core.commands import Sent
from server.services.games import Games
from server.store.redis import RESYNC, RedisStore, keys_of

T0 = 1_000_000


def published(server: RedisServer) -> int:
    stats = server.client().info("commandstats")
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


def subscribers(server: RedisServer, game_id: str) -> int:
    channel = f"kondavo:{{{game_id}}}:events"
    return int(dict(server.client().pubsub_numsub(channel))[channel.encode()])


async def eventually(check, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not within the time")


@pytest.fixture
def server(redis_server: RedisServer) -> RedisServer:
    redis_server.client().flushall()
    redis_server.client().config_resetstat()
    return redis_server


@pytest.fixture
async def nodes(server: RedisServer) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    a, b = RedisStore(server.url), RedisStore(server.url)
    for each in (a, b):
        await each.start()
    try:
        yield a, b
    finally:
        for each in (a, b):
            await each.close()


async def new_game(store: RedisStore) -> Games:
    games = Games(store)
    await games.create(
        room.new_game(
            game_id="g1",
            variant="english",
            now=T0,
            creator="white",
            creator_token="w" * 22,
            invite="i" * 22,
            opponent="friend",
        )
    )
    return games


def chat(text: str) -> Sent:
    return Sent("white", m.SendChat(text=text))


async def test_a_node_alone_in_a_game_hands_its_commits_to_its_listeners_unpublished(server, nodes):
    a, _ = nodes
    heard: list = []
    await a.subscribe("g1", lambda g, item: heard.append(item))
    games = await new_game(a)
    before = published(server)
    first = await games.run("g1", chat("one"))
    second = await games.run("g1", chat("two"))
    # Handed over before the commit returned, as the very events committed.
    assert heard == [first.events[0], second.events[0]]
    assert heard[0] is first.events[0]
    assert published(server) == before
    assert server.client().smembers(keys_of("g1").watchers) == {a.node_id.encode()}


async def test_once_another_node_watches_every_commit_is_published_and_heard_once_by_each(
    server, nodes
):
    a, b = nodes
    heard_a: list = []
    heard_b: list = []

    def listen_b(game_id, item):
        heard_b.append(item)

    await a.subscribe("g1", lambda g, item: heard_a.append(item))
    games_a = await new_game(a)
    await games_a.run("g1", chat("alone"))
    await b.subscribe("g1", listen_b)
    before = published(server)
    await games_a.run("g1", chat("from a"))
    await Games(b).run("g1", chat("from b"))
    await eventually(lambda: len(heard_a) == 3 and len(heard_b) == 2)
    assert [e.v for e in heard_a] == [1, 2, 3]
    assert [e.v for e in heard_b] == [2, 3]
    assert published(server) == before + 2
    # B's socket leaves: A is alone again, and publishes nothing more.
    await b.unsubscribe("g1", listen_b)
    await games_a.run("g1", chat("alone again"))
    assert [e.v for e in heard_a] == [1, 2, 3, 4]
    assert published(server) == before + 2
    await asyncio.sleep(0.1)
    assert len(heard_a) == 4 and len(heard_b) == 2  # and nobody heard anything twice


async def test_a_node_whose_own_subscription_broke_still_publishes_for_the_others(server, nodes):
    # NUMSUB then counts only B's subscriber; the set still names both nodes.
    a, b = nodes
    heard_b: list = []
    await a.subscribe("g1", lambda g, item: None)
    await b.subscribe("g1", lambda g, item: heard_b.append(item))
    games_a = await new_game(a)
    await a._subscriber.close()
    await eventually(lambda: subscribers(server, "g1") == 1)
    done = await games_a.run("g1", chat("while my channel is down"))
    await eventually(lambda: len(heard_b) == 1)
    assert heard_b[0].v == done.record.version


async def test_a_subscriber_that_is_not_in_the_set_is_still_published_to(server, nodes):
    """A node from before the set subscribes without adding itself: NUMSUB counts it."""
    a, _ = nodes
    await a.subscribe("g1", lambda g, item: None)
    games_a = await new_game(a)
    plain = server.client().pubsub()
    plain.subscribe("kondavo:{g1}:events")
    assert plain.get_message(timeout=5)["type"] == "subscribe"
    before = published(server)
    await games_a.run("g1", chat("for the old node too"))
    assert published(server) == before + 1
    message = plain.get_message(timeout=5)
    assert message is not None and message["data"].startswith(b"R")
    plain.close()


async def test_after_its_channel_comes_back_a_node_is_a_watcher_again(server, nodes):
    a, _ = nodes
    heard: list = []
    await a.subscribe("g1", lambda g, item: heard.append(item))
    await new_game(a)
    watchers = keys_of("g1").watchers
    assert server.client().sismember(watchers, a.node_id)
    server.client().delete(watchers)  # as a Redis restarted empty would have it
    assert server.client().client_kill_filter(_type="pubsub") == 1  # A's; B subscribes nothing
    await eventually(lambda: RESYNC in heard)
    await eventually(lambda: bool(server.client().sismember(watchers, a.node_id)))


async def test_a_game_over_forgets_its_watchers_with_its_record(server):
    store = RedisStore(server.url, finished_kept_ms=300)
    await store.start()
    try:
        await store.subscribe("g1", lambda g, item: None)
        games = await new_game(store)
        await games.run("g1", Sent("white", m.Abort()))
        assert (await store.load("g1")).status == "aborted"
        await eventually(lambda: not server.client().exists(keys_of("g1").watchers))
    finally:
        await store.close()


async def test_a_node_watching_a_game_that_is_over_is_forgotten_with_it(server):
    """A node that dies while it watches never takes itself out of the set."""
    store = RedisStore(server.url, finished_kept_ms=300)
    await store.start()
    try:
        games = await new_game(store)
        await games.run("g1", Sent("white", m.Abort()))
        await store.subscribe("g1", lambda g, item: None)  # the replay of a game over
        assert server.client().sismember(keys_of("g1").watchers, store.node_id)
        await eventually(lambda: not server.client().exists(keys_of("g1").watchers))
    finally:
        await store.close()
