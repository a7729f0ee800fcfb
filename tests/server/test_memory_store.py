"""The store contract, on the embedded store: compare-and-set, the event log, deadlines."""

from __future__ import annotations

from protocol import messages as m
from server.core import room
from server.core.commands import Join, Sent, Tick
from server.services.games import Games
from server.store import MemoryStore

T0 = 1_000_000


def fresh_record(game_id: str = "g1"):
    return room.new_game(
        game_id=game_id,
        variant="english",
        now=T0,
        creator="white",
        creator_token="w" * 22,
        invite="i" * 22,
    )


async def test_a_game_id_can_be_created_only_once():
    store = MemoryStore()
    assert await store.create(fresh_record())
    assert not await store.create(fresh_record())
    assert (await store.load("g1")).id == "g1"
    assert await store.load("g2") is None


async def test_a_commit_against_an_old_version_changes_nothing():
    store = MemoryStore()
    record = fresh_record()
    await store.create(record)
    first = room.handle(record, Sent("white", m.SendChat(text="one")), T0)
    # raced from the same version
    second = room.handle(record, Sent("white", m.SendChat(text="two")), T0)
    assert await store.commit("g1", 0, first.record, first.events, None)
    assert not await store.commit("g1", 0, second.record, second.events, None)
    stored = await store.load("g1")
    assert [line["text"] for line in stored.chat] == ["one"] and stored.version == 1


async def test_committed_events_are_published_and_logged_in_order():
    store = MemoryStore()
    await store.create(fresh_record())
    heard: list = []
    await store.subscribe("g1", lambda game_id, item: heard.append(item))
    games = Games(store)
    for text in ("a", "b", "c"):
        await games.run("g1", Sent("white", m.SendChat(text=text)))
    await store.announce("g1", m.Spectators(n=2))
    assert [getattr(i, "v", None) for i in heard] == [1, 2, 3, None]
    since = await store.events_since("g1", 1)
    assert [e.message.text for e in since] == ["b", "c"]
    assert await store.events_since("g1", 3) == []
    assert await store.events_since("g1", 9) is None


async def test_events_no_longer_kept_make_the_reader_take_a_snapshot():
    store = MemoryStore(keep_events=2)
    await store.create(fresh_record())
    games = Games(store)
    for text in ("a", "b", "c"):
        await games.run("g1", Sent("white", m.SendChat(text=text)))
    assert await store.events_since("g1", 0) is None
    assert [e.v for e in await store.events_since("g1", 1)] == [2, 3]


async def test_a_deadline_is_due_once_and_is_replaced_by_the_next_commit():
    store = MemoryStore()
    record = fresh_record()
    await store.create(record, deadline=T0 + 10)
    assert await store.due(T0 + 9) == []
    outcome = room.handle(record, Sent("white", m.SendChat(text="x")), T0)
    await store.commit("g1", 0, outcome.record, outcome.events, T0 + 20)
    assert await store.due(T0 + 15) == []
    assert await store.due(T0 + 20) == ["g1"]
    assert await store.due(T0 + 30) == []


async def test_the_command_path_retries_a_lost_race_against_the_new_record():
    store = MemoryStore()
    await store.create(fresh_record())
    games = Games(store)
    real_commit = store.commit
    raced = []

    async def commit_after_a_rival(game_id, expected, record, events, deadline):
        if not raced:  # a rival node writes first
            raced.append(True)
            rival_chat = Sent("white", m.SendChat(text="rival"))
            rival = room.handle(await store.load(game_id), rival_chat, T0)
            await real_commit(game_id, expected, rival.record, rival.events, None)
        return await real_commit(game_id, expected, record, events, deadline)

    store.commit = commit_after_a_rival  # type: ignore[method-assign]
    outcome = await games.run("g1", Join(token="b" * 22, invite="i" * 22))
    assert outcome.refusal is None
    stored = await store.load("g1")
    assert stored.version == 2 and stored.status == "playing"


async def test_ticking_an_unknown_game_is_harmless():
    assert (await Games(MemoryStore()).run("nope", Tick())).refusal.code == "room/not_found"
