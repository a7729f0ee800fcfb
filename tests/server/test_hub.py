"""The hub: one store subscription per game while local sockets watch it, and
nothing kept for a game once its last socket has left."""

from __future__ import annotations

import asyncio

from protocol import messages as m
from server.services.hub import Hub
from server.store.memory import MemoryStore


class Socket:
    def __init__(self) -> None:
        self.got: list[object] = []

    def deliver(self, item: object) -> None:
        self.got.append(item)


class CountingStore(MemoryStore):
    """A store whose subscribing takes a while, as a network round trip does."""

    def __init__(self) -> None:
        super().__init__()
        self.subscribed = 0

    async def subscribe(self, game_id, listener) -> None:
        await asyncio.sleep(0.01)
        self.subscribed += 1
        await super().subscribe(game_id, listener)

    async def unsubscribe(self, game_id, listener) -> None:
        await asyncio.sleep(0.01)
        self.subscribed -= 1
        await super().unsubscribe(game_id, listener)


async def test_sockets_entering_at_once_share_one_subscription_and_all_get_the_events():
    store = CountingStore()
    hub = Hub(store)
    sockets = [Socket() for _ in range(5)]
    await asyncio.gather(*(hub.enter("g", s) for s in sockets))
    assert store.subscribed == 1
    notice = m.Spectators(n=1)
    await store.announce("g", notice)
    assert all(s.got == [notice] for s in sockets)


async def test_a_game_whose_last_socket_left_leaves_nothing_behind_in_the_hub():
    store = CountingStore()
    hub = Hub(store)
    for n in range(50):
        game = f"game-{n}"
        sockets = [Socket() for _ in range(4)]
        await asyncio.gather(*(hub.enter(game, s) for s in sockets))
        await asyncio.gather(*(hub.leave(game, s) for s in sockets))
    assert hub.rooms() == {}
    assert hub.entering_or_leaving() == 0  # one lock a game ever served was kept before
    assert store.subscribed == 0


async def test_entering_while_the_last_socket_leaves_ends_subscribed_with_the_newcomer():
    store = CountingStore()
    hub = Hub(store)
    first, second = Socket(), Socket()
    await hub.enter("g", first)
    await asyncio.gather(hub.leave("g", first), hub.enter("g", second))
    assert store.subscribed == 1
    assert hub.members("g") == {second}
    notice = m.Spectators(n=0)
    await store.announce("g", notice)
    assert second.got == [notice]


async def test_a_socket_cancelled_while_waiting_to_enter_does_not_keep_the_games_lock():
    store = CountingStore()
    hub = Hub(store)
    entering = asyncio.create_task(hub.enter("g", Socket()))
    waiting = asyncio.create_task(hub.enter("g", Socket()))
    await asyncio.sleep(0)  # the first holds the lock, the second waits for it
    assert hub.entering_or_leaving() == 1
    waiting.cancel()
    await asyncio.gather(entering, waiting, return_exceptions=True)
    assert hub.entering_or_leaving() == 0
