"""What the lobby lists: open games to join (newest first) and live games to watch."""

from __future__ import annotations

from server.core import room
from server.core.commands import Connect, Disconnect
from server.core.record import GameRecord
from server.services import lobby
from server.store import MemoryStore

T0 = 1_000_000


def seek(game_id: str, now: int, creator_left: bool = False) -> GameRecord:
    """An open game waiting for an opponent; its creator connected, and left if told so."""
    record = room.new_game(
        game_id=game_id,
        variant="english",
        now=now,
        creator="white",
        creator_token=game_id.ljust(22, "t"),
        opponent="open",
    )
    record = room.handle(record, Connect("white"), now).record
    if creator_left:
        record = room.handle(record, Disconnect("white"), now + 1).record
    return record


async def open_ids(store: MemoryStore) -> list[str]:
    return [entry["id"] for entry in (await lobby.listing(store)).open]


async def test_seeks_whose_creators_left_do_not_crowd_older_open_games_out_of_the_lobby():
    store = MemoryStore()
    await store.create(seek("waiting", T0))
    # More newer seeks than the lobby shows, each hidden until it is withdrawn.
    for n in range(lobby.LISTED + 10):
        await store.create(seek(f"left{n}", T0 + 10 + n, creator_left=True))
    assert await open_ids(store) == ["waiting"]


async def test_the_lobby_shows_the_newest_open_games_up_to_its_length():
    store = MemoryStore()
    for n in range(lobby.LISTED + 5):
        await store.create(seek(f"g{n}", T0 + n))
    shown = await open_ids(store)
    assert shown == [f"g{n}" for n in range(lobby.LISTED + 4, 4, -1)]
