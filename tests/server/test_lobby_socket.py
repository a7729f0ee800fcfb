"""The lobby socket by increments (issue 31 point 5), on a real server with real
sockets: the listing once, then one ``changes`` message per change of the listing, one
lobby version each; a client that comes back with its version gets exactly what it
missed. Two nodes on one Redis are in test_cluster.py."""

from __future__ import annotations

from protocol import messages as m
from protocol.client import Kondavo, LobbyConnection

CHANGES = (m.LobbyChanges,)


def changes_of(lobby: LobbyConnection) -> list[m.ServerMessage]:
    return [msg for msg in lobby.received if isinstance(msg, CHANGES)]


def assert_one_version_each(lobby: LobbyConnection) -> None:
    """After the first listing, each message is one version on from the one before."""
    versioned = [msg for msg in lobby.received if isinstance(msg, (m.Lobby, *CHANGES))]
    for before, after in zip(versioned, versioned[1:], strict=False):
        assert after.v == before.v + 1, f"v{before.v} ({before.t}) then v{after.v} ({after.t})"  # type: ignore[attr-defined]
    assert lobby.gaps == 0


async def same_as_the_api(k: Kondavo, lobby: LobbyConnection) -> None:
    """The folded listing is what ``GET /api/lobby`` lists, once the feed caught up."""

    def held() -> dict:
        assert lobby.listing is not None
        return {"open": lobby.listing.open, "live": lobby.listing.live}

    for _ in range(3):  # the socket may still be one poll behind the API
        api = await k.lobby()
        try:
            await lobby.until(lambda c, api=api: held() == api, timeout=2)
            return
        except TimeoutError:
            continue
    assert held() == await k.lobby()


async def test_a_watcher_gets_the_listing_then_only_what_changes(k: Kondavo):
    before = await k.create(opponent="open", name="Old")
    async with k.watch_lobby() as lobby:
        first = lobby.received[0]
        assert isinstance(first, m.Lobby) and before.game in lobby.open_ids()

        opened = await k.create(opponent="open", name="Ada")  # a seek opened
        await lobby.until(lambda c: opened.game in c.open_ids())
        added = changes_of(lobby)[-1]
        assert isinstance(added, m.LobbyChanges) and added.v == first.v + 1
        assert [line["id"] for line in added.added["open"]] == [opened.game]
        assert added.added["live"] == added.removed["open"] == added.changed["open"] == []
        assert lobby.open_ids() == [opened.game, before.game]  # newest first

        taker = await k.join(opened.game, name="Bo")  # taken: from open to live, one frame
        await lobby.until(lambda c: opened.game in c.live_ids())
        assert opened.game not in lobby.open_ids()
        taken = next(msg for msg in changes_of(lobby) if opened.game in msg.removed["open"])
        assert [line["id"] for line in taken.added["live"]] == [opened.game]

        async with k.connect(before) as creator:  # a seek cancelled
            await creator.abort()
        await lobby.until(lambda c: before.game not in c.open_ids())
        last = changes_of(lobby)[-1]
        assert last.removed["open"] == [before.game] and not last.added["open"]

        async with k.connect(opened) as white, k.connect(taker) as black:  # a live line changes
            mover = white if white.my_turn else black
            await mover.move(mover.legal[0]["path"])
            await lobby.until(
                lambda c: any(g["moves"] == 1 for g in c.listing.live if g["id"] == opened.game)  # type: ignore[union-attr]
            )
        assert any(msg.changed["live"] for msg in changes_of(lobby))
        assert_one_version_each(lobby)
        assert sum(isinstance(msg, m.Lobby) for msg in lobby.received) == 1
        await same_as_the_api(k, lobby)


async def test_a_watcher_back_with_its_version_gets_exactly_the_changes_it_missed(k: Kondavo):
    async with k.watch_lobby() as steady, k.watch_lobby() as away:
        left_at = away.listing
        assert left_at is not None and left_at == steady.listing
        await away.close()
        games = [await k.create(opponent="open") for _ in range(3)]
        await k.join(games[0].game)
        async with k.connect(games[1]) as creator:
            await creator.abort()
        await steady.until(
            lambda c: c.open_ids()[:1] == [games[2].game] and games[0].game in c.live_ids()
        )
        missed = changes_of(steady)
        assert missed and missed[0].v == left_at.v + 1  # type: ignore[attr-defined]

        back = await k.watch_lobby(since=left_at).open()
        try:
            await back.until(lambda c: c.v == steady.v)
            assert back.received == missed  # no fresh listing: only what it missed
            assert back.listing == steady.listing
            assert_one_version_each(back)
        finally:
            await back.close()


async def test_a_version_the_lobby_has_not_reached_gets_a_fresh_listing(k: Kondavo):
    await k.create(opponent="open")
    async with k.watch_lobby() as lobby:
        current = lobby.listing
    assert current is not None
    ahead = m.Lobby(v=current.v + 1_000, open=[], live=[])
    async with k.watch_lobby(since=ahead) as back:
        await back.until(lambda c: len(c.received) > 0)
        assert isinstance(back.received[0], m.Lobby)
        assert back.listing is not None and back.listing.v == current.v
        assert back.listing.open == current.open


async def test_a_version_no_longer_kept_gets_a_fresh_listing(k: Kondavo):
    """Version 1 on a lobby that has moved on past the changes it keeps."""
    from server.services.lobby import KEPT

    async with k.watch_lobby() as lobby:
        while (lobby.v or 0) <= KEPT + 1:
            seen = lobby.v
            await k.create(opponent="open")
            await lobby.until(lambda c, seen=seen: c.v != seen)
        async with k.watch_lobby(since=m.Lobby(v=1)) as back:
            await back.until(lambda c: len(c.received) > 0)
            assert [type(msg) for msg in back.received[:1]] == [m.Lobby]
            assert back.listing is not None and back.listing.v >= KEPT
