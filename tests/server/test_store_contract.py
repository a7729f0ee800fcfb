"""The store contract, run against every store: ``MemoryStore``, ``RedisStore`` on one
Redis, and ``RedisStore`` on a Redis Cluster.

The Redis runs use a private ``redis-server`` this module starts on a free port, and a
private three-master cluster on three more (never the system's Redis), flushed before
each test.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Iterator

import msgpack
import pytest
from redis_server import (
    RedisClusterServers,
    RedisServer,
    free_port,
    redis_cluster_or_skip,
    redis_server_or_skip,
)

from protocol import messages as m
from server.core import room
from server.core.commands import Join, Sent, Tick
from server.core.events import RoomEvent
from server.core.history import HISTORY_KEPT
from server.services.games import Games
from server.store import MemoryStore
from server.store.redis import RESYNC, SHARDS, RedisStore, StoreUnavailable, shard_of

T0 = 1_000_000


@pytest.fixture(scope="module")
def redis_cluster() -> Iterator[RedisClusterServers]:
    cluster = redis_cluster_or_skip()
    try:
        yield cluster
    finally:
        cluster.cleanup()


def fresh_redis(request: pytest.FixtureRequest, kind: str) -> RedisServer | RedisClusterServers:
    """This module's Redis (``redis``) or cluster (``cluster``), emptied."""
    if kind == "cluster":
        cluster: RedisClusterServers = request.getfixturevalue("redis_cluster")
        cluster.flushall()
        return cluster
    server: RedisServer = request.getfixturevalue("redis_server")
    server.client().flushall()
    return server


def fresh_redis_url(request: pytest.FixtureRequest, kind: str) -> str:
    return fresh_redis(request, kind).url


@pytest.fixture(params=["memory", "redis", "cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[MemoryStore | RedisStore]:
    if request.param == "memory":
        made: MemoryStore | RedisStore = MemoryStore(keep_events=200)
    else:
        made = RedisStore(fresh_redis_url(request, request.param), keep_events=200, lease_ms=500)
        await made.start()
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture(params=["memory", "redis", "cluster"])
async def forgetful_store(
    request: pytest.FixtureRequest,
) -> AsyncIterator[MemoryStore | RedisStore]:
    """A store that forgets a game 300 ms after it is over."""
    if request.param == "memory":
        made: MemoryStore | RedisStore = MemoryStore(finished_kept_ms=300)
    else:
        made = RedisStore(fresh_redis_url(request, request.param), finished_kept_ms=300)
        await made.start()
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture(params=["redis", "cluster"])
def redis(request: pytest.FixtureRequest) -> RedisServer | RedisClusterServers:
    return fresh_redis(request, request.param)


@pytest.fixture
def redis_url(redis: RedisServer | RedisClusterServers) -> str:
    return redis.url


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[RedisStore]:
    made = RedisStore(redis_url, keep_events=200, lease_ms=300)
    await made.start()
    try:
        yield made
    finally:
        await made.close()


def fresh_record(game_id: str = "g1", opponent: str = "friend", now: int = T0):
    return room.new_game(
        game_id=game_id,
        variant="english",
        now=now,
        creator="white",
        creator_token="w" * 22,
        invite="i" * 22 if opponent == "friend" else None,
        opponent=opponent,  # type: ignore[arg-type]
    )


async def heard_until(heard: list, count: int, timeout: float = 5.0) -> None:
    """Pub/sub is asynchronous on a networked store: wait for ``count`` items."""
    for _ in range(int(timeout / 0.01)):
        if len(heard) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"heard {len(heard)} of {count}: {heard}")


# --- create, load, compare-and-set -----------------------------------------------------


async def test_a_game_id_can_be_created_only_once(store):
    assert await store.create(fresh_record())
    assert not await store.create(fresh_record())
    loaded = await store.load("g1")
    assert loaded is not None and loaded == fresh_record()
    assert await store.load("g2") is None


async def test_a_commit_against_an_old_version_changes_nothing(store):
    record = fresh_record()
    await store.create(record)
    first = room.handle(record, Sent("white", m.SendChat(text="one")), T0)
    # raced from the same version
    second = room.handle(record, Sent("white", m.SendChat(text="two")), T0)
    assert await store.commit("g1", 0, first.record, first.events, None)
    assert not await store.commit("g1", 0, second.record, second.events, None)
    stored = await store.load("g1")
    assert [line["text"] for line in stored.chat] == ["one"] and stored.version == 1
    assert [e.message.text for e in await store.events_since("g1", 0)] == ["one"]


async def test_a_commit_to_an_unknown_game_is_refused(store):
    record = fresh_record("nope")
    outcome = room.handle(record, Sent("white", m.SendChat(text="x")), T0)
    assert not await store.commit("nope", 0, outcome.record, outcome.events, None)
    assert await store.load("nope") is None


async def test_concurrent_writers_apply_exactly_one_command_per_version(store):
    await store.create(fresh_record())
    games = Games(store)
    outcomes = await asyncio.gather(
        *(games.run("g1", Sent("white", m.SendChat(text=f"line {i}"))) for i in range(20))
    )
    applied = [f"line {i}" for i, o in enumerate(outcomes) if o.refusal is None]
    # A writer that keeps losing the race gives up with server/busy: never half-applied.
    assert all(o.refusal.code == "server/busy" for o in outcomes if o.refusal is not None)
    stored = await store.load("g1")
    assert stored.version == len(applied) >= 8
    events = await store.events_since("g1", 0)
    assert [e.v for e in events] == list(range(1, len(applied) + 1))
    assert sorted(e.message.text for e in events) == sorted(applied)


async def test_a_game_over_is_forgotten_after_its_keeping_time_and_a_live_one_is_kept(
    forgetful_store,
):
    store = forgetful_store
    for game_id in ("over", "live"):
        await store.create(fresh_record(game_id))
    await store.add_spectators("over", 1)  # still watching as it ends
    aborted = room.handle(await store.load("over"), Sent("white", m.Abort()), T0)
    assert await store.commit("over", 0, aborted.record, aborted.events, None)
    await store.add_spectators("over", -1)  # that one leaves ...
    await store.add_spectators("over", 1)  # ... another arrives, and its node dies: never leaves
    chat = room.handle(await store.load("live"), Sent("white", m.SendChat(text="still here")), T0)
    assert await store.commit("live", 0, chat.record, chat.events, None)
    assert (await store.load("over")).status == "aborted"  # kept for now
    await asyncio.sleep(0.6)
    await store.due(await store.now())  # the embedded store forgets as the timekeeper ticks
    assert await store.load("over") is None
    assert await store.events_since("over", 0) is None
    assert await store.spectators("over") == 0
    assert (await store.load("live")).version == 1
    assert [e.message.text for e in await store.events_since("live", 0)] == ["still here"]


# --- the event log -----------------------------------------------------------------------


async def test_committed_events_are_published_and_logged_in_order(store):
    await store.create(fresh_record())
    heard: list = []
    await store.subscribe("g1", lambda game_id, item: heard.append((game_id, item)))
    games = Games(store)
    for text in ("a", "b", "c"):
        await games.run("g1", Sent("white", m.SendChat(text=text)))
    await store.announce("g1", m.Spectators(n=2))
    await heard_until(heard, 4)
    assert [g for g, _ in heard] == ["g1"] * 4
    assert [getattr(i, "v", None) for _, i in heard] == [1, 2, 3, None]
    assert heard[-1][1] == m.Spectators(n=2)
    since = await store.events_since("g1", 1)
    assert [e.message.text for e in since] == ["b", "c"]
    assert await store.events_since("g1", 3) == []
    assert await store.events_since("g1", 9) is None
    assert await store.events_since("nope", 0) is None


async def test_the_log_keeps_the_last_200_events_and_then_asks_for_a_snapshot(store):
    await store.create(fresh_record())
    games = Games(store)
    for i in range(230):
        await games.run("g1", Sent("white", m.SendChat(text=f"{i}")))
    assert await store.events_since("g1", 0) is None
    assert await store.events_since("g1", 29) is None
    kept = await store.events_since("g1", 30)
    assert [e.v for e in kept] == list(range(31, 231))
    assert kept[-1].message.text == "229"


async def test_unsubscribed_listeners_hear_nothing_more(store):
    await store.create(fresh_record())
    heard: list = []

    def listener(game_id, item):
        heard.append(item)

    await store.subscribe("g1", listener)
    games = Games(store)
    await games.run("g1", Sent("white", m.SendChat(text="a")))
    await heard_until(heard, 1)
    await store.unsubscribe("g1", listener)
    await games.run("g1", Sent("white", m.SendChat(text="b")))
    await asyncio.sleep(0.1)
    assert [i.v for i in heard] == [1]


async def test_two_listeners_on_one_game_each_hear_every_event(store):
    await store.create(fresh_record())
    first: list = []
    second: list = []
    await store.subscribe("g1", lambda g, i: first.append(i))
    await store.subscribe("g1", lambda g, i: second.append(i))
    await Games(store).run("g1", Sent("white", m.SendChat(text="a")))
    await heard_until(first, 1)
    await heard_until(second, 1)
    assert first == second


# --- deadlines -----------------------------------------------------------------------


async def test_a_deadline_is_due_once_and_is_replaced_by_the_next_commit(store):
    record = fresh_record()
    await store.create(record, deadline=T0 + 10)
    assert await store.due(T0 + 9) == []
    outcome = room.handle(record, Sent("white", m.SendChat(text="x")), T0)
    await store.commit("g1", 0, outcome.record, outcome.events, T0 + 20)
    assert await store.due(T0 + 15) == []
    assert await store.due(T0 + 20) == ["g1"]
    assert await store.due(T0 + 30) == []  # claimed: no other caller gets it (in its lease)


async def test_a_commit_without_deadline_clears_it(store):
    record = fresh_record()
    await store.create(record, deadline=T0 + 10)
    outcome = room.handle(record, Sent("white", m.SendChat(text="x")), T0)
    await store.commit("g1", 0, outcome.record, outcome.events, None)
    assert await store.due(T0 + 10_000) == []


async def test_many_claimers_get_each_due_game_exactly_once(store):
    for i in range(30):
        await store.create(fresh_record(f"g{i}"), deadline=T0 + i)
    claims = await asyncio.gather(*(store.due(T0 + 100) for _ in range(10)))
    claimed = [game for batch in claims for game in batch]
    assert sorted(claimed) == sorted(f"g{i}" for i in range(30))


# --- spectators, lobby ---------------------------------------------------------------------


async def test_the_spectator_count_goes_up_and_down_and_never_below_zero(store):
    assert await store.spectators("g1") == 0
    assert await store.add_spectators("g1", 1) == 1
    assert await store.add_spectators("g1", 2) == 3
    assert await store.add_spectators("g1", -1) == 2
    assert await store.spectators("g1") == 2
    assert await store.add_spectators("g1", -5) == 0
    assert await store.spectators("g1") == 0


async def test_the_lobby_lists_open_games_and_live_games_newest_first(store):
    await store.create(fresh_record("friendly"))
    # Made just now: an open game whose creator stays away is withdrawn after a while.
    now = await store.now()
    older = fresh_record("older", opponent="open", now=now)
    newer = fresh_record("newer", opponent="open", now=now + 5)
    await store.create(older)
    await store.create(newer)
    waiting, live = await store.waiting_and_live(10)
    assert [r.id for r in waiting] == ["newer", "older"] and live == []
    await Games(store).run("older", Join(token="b" * 22))
    waiting, live = await store.waiting_and_live(10)
    assert [r.id for r in waiting] == ["newer"] and [r.id for r in live] == ["older"]
    assert (await store.waiting_and_live(1))[0][0].id == "newer"
    # The lobby reads more open games than live ones (it hides some of the open ones).
    waiting, live = await store.waiting_and_live(10, 0)
    assert [r.id for r in waiting] == ["newer"] and live == []


async def test_sizes_count_the_whole_lobby_and_every_live_game(store):
    now = await store.now()
    for i in range(30):  # more than a listing shows
        await store.create(fresh_record(f"open{i}", opponent="open", now=now + i))
    await store.create(fresh_record("friendly", now=now))
    assert await store.sizes() == (30, 0)
    await Games(store).run("open3", Join(token="b" * 22))
    await Games(store).run("friendly", Join(token="c" * 22, invite="i" * 22))
    assert await store.sizes() == (29, 2)


async def test_now_is_milliseconds_and_does_not_go_backwards(store):
    readings = [await store.now() for _ in range(50)]
    assert readings == sorted(readings)
    assert 1_600_000_000_000 < readings[0] < 4_000_000_000_000


# --- Redis only: leases, lost connections, an absent Redis ----------------------------------


async def test_a_claimed_timer_comes_back_when_its_lease_runs_out(redis_store):
    """The node that claimed it died before ticking: another node claims it again."""
    record = fresh_record()
    await redis_store.create(record, deadline=T0)
    assert await redis_store.due(T0) == ["g1"]
    assert await redis_store.due(T0 + 299) == []
    assert await redis_store.due(T0 + 300) == ["g1"]


async def test_a_flag_falls_once_with_several_nodes_ticking(redis_url):
    stores = [RedisStore(redis_url, lease_ms=300) for _ in range(3)]
    for each in stores:
        await each.start()
    try:
        games = [Games(each) for each in stores]
        record = fresh_record()
        now = await stores[0].now()
        record.created_at = now
        await games[0].create(record)
        await games[0].run("g1", Join(token="b" * 22, invite="i" * 22))
        # Both sides move once, so that the first mover's clock runs; 200 ms are left on it.
        for node in (0, 1):
            before = await stores[node].load("g1")
            move = Sent(
                before.side_to_move,
                m.MakeMove(notation=_first_legal(before), v=before.version),
            )
            assert (await games[node].run("g1", move)).refusal is None
        stored = await stores[0].load("g1")
        stored.remaining_ms[stored.side_to_move] = 200
        loser = stored.side_to_move
        # 100 ms of lag credit left: the flag falls that long after the zero (lag.grace_ms).
        seat = stored.seat(loser)
        assert seat is not None
        seat.lag_quota_ms = 100
        flag = stored.turn_started + 200 + 100
        assert room.flag_falls_at(stored) == flag
        assert await stores[0].commit("g1", stored.version, stored, [], room.deadline(stored))
        assert await stores[0].deadline_of("g1") == flag
        heard: list = []
        await stores[2].subscribe("g1", lambda g, i: heard.append(i))

        async def tick_for(index: int) -> int:
            ticked = 0
            for _ in range(60):
                for game_id in await stores[index].due(await stores[index].now()):
                    await games[index].run(game_id, Tick())
                    ticked += 1
                await asyncio.sleep(0.01)
            return ticked

        ticks = await asyncio.gather(*(tick_for(i) for i in range(3)))
        assert sum(ticks) == 1
        over = [i for i in heard if isinstance(i, room.RoomEvent) and i.message.t == "over"]
        assert len(over) == 1 and over[0].message.reason == "timeout"
        final = await stores[0].load("g1")
        assert final.result != loser and await stores[0].deadline_of("g1") is None
    finally:
        for each in stores:
            await each.close()


async def test_a_node_that_missed_another_nodes_write_still_applies_commands_once(redis_url):
    # Node A keeps a copy of the record it last committed; with its channel stopped it
    # never hears node B's writes, so that copy is stale: a refusal decided on it is
    # decided again on the stored record, and a commit made from it is refused by the
    # compare-and-set and retried.
    a, b = RedisStore(redis_url), RedisStore(redis_url)
    for each in (a, b):
        await each.start()
    try:
        heard: list = []
        for each in (a, b):
            await each.subscribe("g1", lambda g, i: heard.append(i))
        games_a, games_b = Games(a), Games(b)
        await games_a.create(fresh_record())
        await games_a.run("g1", Join(token="b" * 22, invite="i" * 22))
        first = await a.load("g1")
        mover, other = first.side_to_move, "white" if first.side_to_move == "black" else "black"
        move = Sent(mover, m.MakeMove(notation=_first_legal(first)))
        assert (await games_a.run("g1", move)).acked
        assert a.cached("g1") is not None
        await a._subscriber.close()  # A hears nothing more
        second = await b.load("g1")
        move = Sent(other, m.MakeMove(notation=_first_legal(second)))
        assert (await games_b.run("g1", move)).acked
        assert a.cached("g1").side_to_move == other  # stale: it is the first mover's turn
        third = await b.load("g1")
        moved = await games_a.run("g1", Sent(mover, m.MakeMove(notation=_first_legal(third))))
        assert moved.refusal is None and moved.acked
        assert (await games_b.run("g1", Sent(other, m.SendChat(text="from b")))).acked
        assert (await games_a.run("g1", Sent(mover, m.SendChat(text="from a")))).acked
        stored = await a.load("g1")
        assert len(stored.moves) == 3
        assert [line["text"] for line in stored.chat] == ["from b", "from a"]
        events = await a.events_since("g1", 0)
        assert [e.v for e in events] == list(range(1, stored.version + 1))
    finally:
        for each in (a, b):
            await each.close()


async def test_a_nodes_own_events_come_back_as_committed_and_others_with_their_record(
    redis_url,
):
    a, b = RedisStore(redis_url), RedisStore(redis_url)
    for each in (a, b):
        await each.start()
    try:
        heard: list = []
        await a.subscribe("g1", lambda g, i: heard.append(i))
        await b.subscribe("g1", lambda g, i: None)
        await Games(a).create(fresh_record())
        mine = await Games(a).run("g1", Sent("white", m.SendChat(text="from a")))
        theirs = await Games(b).run("g1", Sent("white", m.SendChat(text="from b")))
        await heard_until(heard, 2)
        assert heard[0] is mine.events[0]
        # Relayed as the bytes B committed, its type and version known without decoding.
        assert heard[1] is not theirs.events[0]
        assert heard[1].frame() == theirs.events[0].frame()
        assert (heard[1].v, heard[1].tag) == (theirs.events[0].v, m.ChatLine.t)
        assert heard[1] == theirs.events[0]  # and decoded when read
        # Another node wrote since: A's copy is the record B committed, as it came along.
        cached = a.cached("g1")
        assert cached is not theirs.record and cached == theirs.record
        assert cached == await a.load("g1")
    finally:
        for each in (a, b):
            await each.close()


async def test_a_commit_published_without_its_record_leaves_no_copy(redis_url):
    """A node older than the record riding along publishes the events alone (``E``):
    the others understand it, and read the record when they next need it."""
    a, b = RedisStore(redis_url), RedisStore(redis_url)
    for each in (a, b):
        await each.start()
    try:
        heard: list = []
        await a.subscribe("g1", lambda g, i: heard.append(i))
        await Games(a).create(fresh_record())
        await Games(a).run("g1", Sent("white", m.SendChat(text="from a")))
        await heard_until(heard, 1)
        assert a.cached("g1") is not None
        event = RoomEvent(m.ChatLine(v=9, channel="players", by="black", text="old"), "players")
        entry = msgpack.packb(event.to_dict(), use_bin_type=True)
        await b._redis.publish(b._channel("g1"), b"E" + entry)
        await heard_until(heard, 2)
        assert heard[1] == event and heard[1].frame() == event.frame()
        assert a.cached("g1") is None
    finally:
        for each in (a, b):
            await each.close()


def _first_legal(record) -> str:
    from server.core import replay

    game = replay.replay(record.variant, record.start_fen, record.moves)
    return str(next(iter(game.legal_moves())))


async def test_killed_pubsub_connections_come_back_and_listeners_resync(redis, redis_store):
    await redis_store.create(fresh_record())
    heard: list = []
    await redis_store.subscribe("g1", lambda g, i: heard.append(i))
    games = Games(redis_store)
    await games.run("g1", Sent("white", m.SendChat(text="before")))
    await heard_until(heard, 1)
    # On a cluster the subscriber is on one of the masters: kill it wherever it is.
    assert sum(each.client_kill_filter(_type="pubsub") for each in redis.clients()) == 1
    await heard_until(heard, 2)
    assert heard[1] is RESYNC
    await games.run("g1", Sent("white", m.SendChat(text="after")))  # the channel works again
    await heard_until(heard, 3)
    assert heard[2].v == 2


async def test_an_absent_redis_raises_store_unavailable_and_is_recovered_from(redis_server):
    down = RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.5)
    with pytest.raises(StoreUnavailable):
        await down.load("g1")
    with pytest.raises(StoreUnavailable):
        await down.now()
    await down.close()


async def test_a_restarted_redis_is_found_again_without_a_new_store():
    server = redis_server_or_skip(persistent=True)
    try:
        store = RedisStore(server.url, timeout_s=0.5)
        await store.start()
        await store.create(fresh_record())
        heard: list = []
        await store.subscribe("g1", lambda g, i: heard.append(i))
        games = Games(store)
        await games.run("g1", Sent("white", m.SendChat(text="a")))
        server.stop()
        with pytest.raises(StoreUnavailable):
            await games.run("g1", Sent("white", m.SendChat(text="lost")))
        assert isinstance(await store.now(), int)  # the clock carries on from its sample
        server.start()
        for _ in range(100):  # the subscriber comes back by itself
            if RESYNC in heard:
                break
            await asyncio.sleep(0.05)
        assert RESYNC in heard
        await games.run("g1", Sent("white", m.SendChat(text="b")))
        assert [e.message.text for e in await store.events_since("g1", 0)] == ["a", "b"]
        await heard_until(heard, 3)
        assert heard[-1].v == 2
        await store.close()
    finally:
        server.cleanup()


async def test_a_silent_pubsub_connection_is_pinged_then_replaced_and_listeners_resync():
    """A Redis that stops answering (a dropped route sends nothing, not even a reset):
    after a quiet period the subscriber pings, after a second one it takes the
    connection for dead, and once Redis answers again its listeners resync."""
    server = redis_server_or_skip()
    try:
        store = RedisStore(server.url, timeout_s=0.5)
        store._subscriber.QUIET_S = 0.3
        await store.start()
        await store.create(fresh_record())
        heard: list = []
        await store.subscribe("g1", lambda g, i: heard.append(i))
        await asyncio.sleep(0.5)  # a quiet period while Redis answers: no harm done
        assert store._subscriber.connects == 1
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(1.0)  # more than two quiet periods
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        await heard_until(heard, 1)
        assert heard == [RESYNC] and store._subscriber.connects >= 2
        await Games(store).run("g1", Sent("white", m.SendChat(text="after")))
        await heard_until(heard, 2)
        assert heard[1].v == 1
        await store.close()
    finally:
        server.cleanup()


# --- the key layout, and Redis Cluster only ---------------------------------------------


def test_every_key_of_a_game_and_its_shard_indexes_share_one_slot():
    from redis.crc import key_slot

    from server.store.redis import keys_of

    for game_id in ("g1", "abcDEF-_12", "x" * 40, "{odd}id"):
        slots = {key_slot(key.encode()) for key in keys_of(game_id)}
        assert len(slots) == 1, (game_id, keys_of(game_id))


def test_the_shard_of_a_game_never_changes():
    """Part of the stored key layout: a live site finds its games only if this holds."""
    from server.store.redis import keys_of

    assert SHARDS == 16
    assert [shard_of(g) for g in ("g1", "g2", "abcDEF-_12")] == [5, 15, 2]
    assert keys_of("g1").game == "kondavo:{s3266}:game:g1"


async def test_games_on_a_cluster_are_spread_over_every_master(redis_cluster):
    redis_cluster.flushall()
    store = RedisStore(redis_cluster.url)
    await store.start()
    try:
        for i in range(40):
            assert await store.create(fresh_record(f"g{i}", opponent="open"))
        assert len({shard_of(f"g{i}") for i in range(40)}) >= 12
        held = [each.dbsize() for each in redis_cluster.clients()]
        assert all(count > 0 for count in held), held
        waiting, _ = await store.waiting_and_live(100)
        assert sorted(r.id for r in waiting) == sorted(f"g{i}" for i in range(40))
    finally:
        await store.close()


async def test_the_subscriber_falls_back_to_another_cluster_node(redis_cluster):
    """The node named in the URL is unreachable for pub/sub: any other one will do."""
    redis_cluster.flushall()
    store = RedisStore(redis_cluster.url, timeout_s=0.5)
    store._subscriber._port = free_port()  # nothing listens there
    await store.start()
    try:
        await store.create(fresh_record())
        heard: list = []
        await store.subscribe("g1", lambda g, i: heard.append(i))
        await Games(store).run("g1", Sent("white", m.SendChat(text="hello")))
        await heard_until(heard, 1)
        assert heard[0].v == 1
    finally:
        await store.close()


# --- players' histories ------------------------------------------------------------------


def history_entry(game_id: str, at: int, status: str = "finished", **more) -> dict:
    return {
        "id": game_id,
        "at": at,
        "status": status,
        "variant": "english",
        "moves": ["11-15"],
        "opponent": {"name": "Bo", "computer": False},
        **more,
    }


async def test_a_players_games_come_back_newest_first_and_only_theirs(store):
    await store.remember_game("ada-public-id-0001", history_entry("a", T0))
    await store.remember_game("ada-public-id-0001", history_entry("b", T0 + 5))
    await store.remember_game("bob-public-id-0001", history_entry("a", T0))
    games = await store.player_games("ada-public-id-0001")
    assert [g["id"] for g in games] == ["b", "a"]
    assert games[1] == history_entry("a", T0)
    assert [g["id"] for g in await store.player_games("ada-public-id-0001", 1)] == ["b"]
    assert await store.player_games("nobody-public-id-01") == []


async def test_a_live_entry_is_replaced_by_the_finished_one_and_never_the_other_way(store):
    player = "ada-public-id-0001"
    await store.remember_game(player, history_entry("a", T0, "live"))
    await store.remember_game(player, history_entry("a", T0, "finished", result="white"))
    await store.remember_game(player, history_entry("a", T0, "live"))  # a late, slow write
    (only,) = await store.player_games(player)
    assert only["status"] == "finished" and only["result"] == "white"


async def test_an_aborted_game_is_forgotten_from_the_history(store):
    player = "ada-public-id-0001"
    await store.remember_game(player, history_entry("a", T0, "live"))
    await store.remember_game(player, history_entry("b", T0 + 1, "live"))
    await store.forget_game(player, "a")
    await store.forget_game(player, "never-there")
    assert [g["id"] for g in await store.player_games(player)] == ["b"]


async def test_a_history_keeps_the_newest_thousand_games(store):
    player = "ada-public-id-0001"
    for n in range(HISTORY_KEPT + 5):
        await store.remember_game(player, history_entry(f"g{n}", T0 + n))
    kept = await store.player_games(player)
    assert len(kept) == HISTORY_KEPT
    assert kept[0]["id"] == f"g{HISTORY_KEPT + 4}" and kept[-1]["id"] == "g5"


async def test_a_history_outlives_its_games_records(forgetful_store):
    store = forgetful_store
    record = fresh_record()
    await store.create(record)
    await store.remember_game("ada-public-id-0001", history_entry("g1", T0))
    over = room.handle(record, Sent("white", m.Abort()), T0)
    assert await store.commit("g1", 0, over.record, over.events, None)
    for _ in range(200):
        await store.due(await store.now())  # the memory store forgets as it ticks
        if await store.load("g1") is None:
            break
        await asyncio.sleep(0.02)
    assert await store.load("g1") is None
    assert [g["id"] for g in await store.player_games("ada-public-id-0001")] == ["g1"]


async def test_a_history_on_redis_survives_the_node_that_wrote_it(redis_url):
    first = RedisStore(redis_url)
    await first.start()
    await first.remember_game("ada-public-id-0001", history_entry("a", T0))
    await first.close()
    second = RedisStore(redis_url)
    await second.start()
    try:
        assert [g["id"] for g in await second.player_games("ada-public-id-0001")] == ["a"]
    finally:
        await second.close()


# --- the lobby's increments (issue 31 point 5) ---------------------------------------------


def lobby_at(v: int, *ids: str) -> tuple[m.Lobby, list]:
    """A listing of open games ``ids`` at version ``v``, and the one change to it from v-1."""
    lines = [{"id": game, "created_at": n} for n, game in enumerate(ids)]
    return m.Lobby(v=v, open=lines), [m.LobbyChanges(v=v, added={"open": lines, "live": []})]


async def test_lobby_changes_are_a_compare_and_set_published_and_logged_in_order(store):
    from server.store import LOBBY

    heard: list = []
    await store.subscribe_lobby(lambda key, item: heard.append((key, item)))
    assert await store.lobby_head() is None
    assert await store.lobby_since(0) == []
    first, change = lobby_at(1, "a")
    assert await store.lobby_commit(0, first, change)
    assert not await store.lobby_commit(0, *lobby_at(1, "b"))  # another node was first
    second, more = lobby_at(2, "a", "c")
    assert await store.lobby_commit(1, second, more)
    await heard_until(heard, 2)
    assert heard == [(LOBBY, change[0]), (LOBBY, more[0])]
    assert await store.lobby_head() == second
    assert await store.lobby_since(0) == [change[0], more[0]]
    assert await store.lobby_since(1) == more
    assert await store.lobby_since(2) == []
    assert await store.lobby_since(3) is None  # ahead of the lobby


async def test_the_lobby_log_keeps_its_last_changes_and_then_asks_for_the_listing(store):
    from server.store.base import LOBBY_KEPT

    for v in range(1, LOBBY_KEPT + 11):
        assert await store.lobby_commit(v - 1, *lobby_at(v, f"g{v}"))
    assert await store.lobby_since(9) is None
    kept = await store.lobby_since(10)
    assert [c.v for c in kept] == list(range(11, LOBBY_KEPT + 11))
