"""Ratings: identities, the once-only settling of rated games, the stores, the endpoints."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from redis_server import redis_server_or_skip

from protocol import messages as m
from protocol.client import HttpError, Kondavo
from server.core import room
from server.core.commands import MarkRated, Sent, Tick
from server.core.glicko2 import Rating, rate_game
from server.core.ratings import Entry, computer_id, public_id, rate, valid_player_id
from server.core.record import SeatRecord
from server.services.games import Games
from server.services.settler import settle
from server.store import MemoryStore, StoreUnavailable
from server.store.ratings import MemoryRatings
from server.store.ratings_redis import RedisRatings

ALICE = "alice-0123456789abcdef"
BOB = "bob-0123456789abcdef00"


async def refused(call) -> HttpError:
    with pytest.raises(HttpError) as info:
        await call
    return info.value


# --- identities -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("0123456789abcdef", True),
        ("A" * 64, True),
        ("abc_DEF-0123456789", True),
        ("0123456789abcde", False),  # 15: too short
        ("A" * 65, False),
        ("0123456789abcdef!", False),
        ("0123456789abcdef\n", False),
        (12345678901234567890, False),
        (None, False),
    ],
)
def test_a_player_id_is_16_to_64_url_safe_characters(value, ok: bool):
    assert valid_player_id(value) is ok


def test_the_public_id_is_stable_and_reveals_nothing_of_the_secret():
    assert public_id(ALICE) == public_id(ALICE) != public_id(BOB)
    assert ALICE not in public_id(ALICE) and valid_player_id(public_id(ALICE))
    assert not valid_player_id(computer_id(8))  # no browser can pose as the computer


# --- the room's part --------------------------------------------------------------------


def _rated_record(now: int = 1_000):
    record = room.new_game(
        game_id="g1",
        variant="english",
        now=now,
        creator="white",
        creator_token="t" * 22,
        creator_player=public_id(ALICE),
        creator_rating=1500,
        creator_provisional=True,
        opponent="open",
        rated=True,
    )
    return record


def test_a_rated_game_cannot_be_joined_without_a_player_id_nor_by_its_creator():
    from server.core.commands import Join

    record = _rated_record()
    out = room.handle(record, Join(token="u" * 22), 2_000)
    assert out.refusal is not None and out.refusal.code == "rated/no_player"
    out = room.handle(record, Join(token="u" * 22, player=public_id(ALICE)), 2_000)
    assert out.refusal is not None and out.refusal.code == "rated/same_player"
    out = room.handle(record, Join(token="u" * 22, player=public_id(BOB), rating=1600), 2_000)
    assert out.refusal is None and out.record.seat("black").rating == 1600
    assert out.events[-1].message.rating == 1600


def test_mark_rated_happens_once_and_a_finished_unsettled_game_keeps_a_deadline():
    from server.core.commands import Join

    record = room.handle(_rated_record(), Join(token="u" * 22, player=public_id(BOB)), 2_000)
    over = room.handle(record.record, Sent("black", m.Resign()), 3_000).record
    assert room.needs_rating(over) and room.deadline(over) == 3_000 + room.RATING_RETRY_MS
    marked = room.handle(over, MarkRated({"white": {"diff": 5}}), 4_000)
    assert marked.record.rated_applied and [e.message.t for e in marked.events] == ["rated"]
    assert room.deadline(marked.record) is None
    again = room.handle(marked.record, MarkRated({"white": {"diff": 5}}), 5_000)
    assert again.events == [] and again.record.version == marked.record.version


def test_the_computers_turn_has_a_deadline_so_another_node_can_pick_it_up():
    record = room.new_game(
        game_id="g2",
        variant="english",
        now=10_000,
        creator="white",
        creator_token="t" * 22,
        opponent="computer",
        level=8,
        initial_ms=None,
    )
    record.seats["black"] = SeatRecord(token="b" * 22, bot=True, gone_since=None)
    record.status = "playing"
    # English: Black (the computer) moves first.
    assert room.bot_to_move(record)
    assert room.deadline(record) == 10_000 + 3_000 + room.BOT_OVERDUE_MS


def test_a_rematch_against_the_computer_is_accepted_at_once_and_keeps_the_computer():
    from server.core.commands import Fresh, Sent

    record = room.new_game(
        game_id="g3",
        variant="english",
        now=0,
        creator="white",
        creator_token="t" * 22,
        opponent="computer",
        level=2,
        creator_player=public_id(ALICE),
    )
    record.seats["black"] = SeatRecord(token="b" * 22, bot=True, player=computer_id(2))
    record.status = "playing"
    over = room.handle(record, Sent("white", m.Resign()), 1_000).record
    fresh = Fresh("g4", "w" * 22, "x" * 22)
    out = room.handle(over, Sent("white", m.OfferRematch(), fresh=lambda: fresh), 2_000)
    assert out.refusal is None and out.spawn is not None
    assert out.spawn.seat("white").bot and out.spawn.seat("white").player == computer_id(2)
    assert out.spawn.seat("black").player == public_id(ALICE)


# --- settling ---------------------------------------------------------------------------


async def test_rate_applies_glicko2_to_both_sides_and_never_twice():
    ratings = MemoryRatings()
    players = {"white": public_id(ALICE), "black": public_id(BOB)}
    names = {"white": "Alice", "black": None}
    first = await rate(ratings, "g1", "english", players, names, 1.0)
    again = await rate(ratings, "g1", "english", players, names, 1.0)
    assert first == again
    white, black = rate_game(Rating(), Rating(), 1.0)
    stored = await ratings.load("english", list(players.values()))
    assert stored[players["white"]] == Entry(white, 1, "Alice")
    assert stored[players["black"]] == Entry(black, 1, None)
    assert first["white"]["diff"] > 0 > first["black"]["diff"]


async def test_the_computers_rating_is_fixed_and_never_stored():
    ratings = MemoryRatings()
    players = {"white": public_id(ALICE), "black": computer_id(8)}
    changes = await rate(ratings, "g1", "russian", players, {"white": None, "black": None}, 0.0)
    assert changes["black"]["before"] == changes["black"]["after"] == 2000
    assert await ratings.of_player(computer_id(8)) == {}
    assert (await ratings.of_player(players["white"]))["russian"].games == 1


async def test_two_games_of_one_player_landing_together_both_count():
    ratings = MemoryRatings()
    players = [
        {"white": public_id(ALICE), "black": public_id(f"opponent-{i:012d}")} for i in range(6)
    ]
    await asyncio.gather(
        *(
            rate(ratings, f"g{i}", "english", p, {"white": None, "black": None}, 1.0)
            for i, p in enumerate(players)
        )
    )
    assert (await ratings.load("english", [public_id(ALICE)]))[public_id(ALICE)].games == 6


async def test_settle_is_safe_to_call_any_number_of_times():
    from server.core.commands import Join

    store, ratings = MemoryStore(), MemoryRatings()
    games = Games(store)
    record = _rated_record(await store.now())
    await games.create(record)
    await games.run(record.id, Join(token="u" * 22, player=public_id(BOB)))
    await games.run(record.id, Sent("white", m.Resign()))
    finished = await store.load(record.id)
    results = await asyncio.gather(*(settle(games, ratings, finished) for _ in range(4)))
    assert any(results)
    settled = await store.load(record.id)
    assert settled.rated_applied
    rated_events = await store.events_since(record.id, 0)
    assert [e.message.t for e in rated_events].count("rated") == 1
    assert (await ratings.load("english", [public_id(BOB)]))[public_id(BOB)].games == 1
    # A later tick finds nothing left to do.
    await games.run(record.id, Tick())
    assert (await store.load(record.id)).version == settled.version


# --- the Redis ratings ----------------------------------------------------------------


@pytest.fixture(scope="module")
def redis_url():
    server = redis_server_or_skip()
    try:
        yield server.url
    finally:
        server.cleanup()


async def test_redis_ratings_apply_once_and_list_the_leaderboard(redis_url: str):
    ratings = RedisRatings(redis_url, prefix="kondavo-test-ratings")
    try:
        players = {"white": public_id(ALICE), "black": public_id(BOB)}
        names = {"white": "Alice", "black": "Bob"}
        done = await asyncio.gather(
            *(rate(ratings, "r1", "brazilian", players, names, 0.5) for _ in range(3))
        )
        assert done[0] == done[1] == done[2]
        await rate(ratings, "r2", "brazilian", players, names, 0.0)
        top = await ratings.top("brazilian", 10)
        assert [p for p, _ in top] == [public_id(BOB), public_id(ALICE)]
        assert all(entry.games == 2 for _, entry in top)
        assert set(await ratings.of_player(public_id(ALICE))) == {"brazilian"}
        memory = MemoryRatings()
        await rate(memory, "r1", "brazilian", players, names, 0.5)
        await rate(memory, "r2", "brazilian", players, names, 0.0)
        assert await memory.top("brazilian", 10) == top  # the same arithmetic, the same store
    finally:
        await ratings.close()


# --- over HTTP and sockets ------------------------------------------------------------


async def _rated_friend_game(k: Kondavo, variant: str = "english"):
    white = await k.create(variant=variant, color="white", rated=True, player=ALICE, name="Al")
    black = await k.join(white.game, invite=white.invite, player=BOB)
    return white, black


async def test_a_rated_game_updates_both_ratings_exactly_once(serve):
    running = await serve()
    k = running.kondavo
    white, black = await _rated_friend_game(k)
    async with k.connect(white) as conn_w, k.connect(black) as conn_b:
        await conn_w.until(lambda c: c.status == "playing")
        await conn_b.resign()
        for conn in (conn_w, conn_b):
            await conn.until(lambda c: any(m.t == "rated" for m in c.received))
        rated = next(m for m in conn_b.received if m.t == "rated")
        assert rated.ratings["white"]["diff"] > 0 > rated.ratings["black"]["diff"]
    public = await k.game(white.game)
    assert public["rated"] and public["result"] == "white"
    alice = await k.request("GET", f"/api/players/{public_id(ALICE)}")
    bob = await k.request("GET", f"/api/players/{public_id(BOB)}")
    assert alice["ratings"]["english"]["games"] == 1 and bob["ratings"]["english"]["games"] == 1
    assert alice["ratings"]["english"]["rating"] > 1500 > bob["ratings"]["english"]["rating"]
    assert alice["name"] == "Al"
    # Settling again (a retry, another node) changes nothing.
    record = await running.store.load(white.game)
    app_state = running.server.config.app.state
    assert not await settle(app_state.games, app_state.ratings, record)
    alice_again = await k.request("GET", f"/api/players/{public_id(ALICE)}")
    assert alice_again == alice
    board = await k.request("GET", "/api/ratings/english")
    assert [p["player"] for p in board["players"]] == [public_id(ALICE), public_id(BOB)]
    assert board["players"][0]["provisional"] and board["players"][0]["rank"] == 1


async def test_ratings_are_shown_beside_names_and_in_the_lobby(serve):
    running = await serve()
    k = running.kondavo
    white, black = await _rated_friend_game(k)
    async with k.connect(black) as conn:
        await conn.resign()
        await conn.until(lambda c: any(m.t == "rated" for m in c.received))
    # The rematch-free next game: both now carry their new ratings.
    open_game = await k.create(
        variant="english", opponent="open", color="white", rated=True, player=ALICE
    )
    lobby = await k.lobby()
    entry = next(g for g in lobby["open"] if g["id"] == open_game.game)
    assert entry["rated"] and entry["creator"]["rating"] > 1500
    joined = await k.join(open_game.game, player=BOB)
    async with k.connect(joined) as conn:
        await conn.until(lambda c: c.status == "playing")
        state = next(m for m in conn.received if m.t == "state")
        assert state.players["white"]["rating"] > 1500 > state.players["black"]["rating"]
        assert state.players["black"]["player"] == public_id(BOB)
        assert ALICE not in str(state) and BOB not in str(state)


async def test_an_unrated_game_changes_no_rating(serve):
    k = (await serve()).kondavo
    white = await k.create(variant="english", color="white", player=ALICE)
    black = await k.join(white.game, invite=white.invite, player=BOB)
    async with k.connect(black) as conn:
        await conn.resign()
    assert (await k.request("GET", f"/api/players/{public_id(ALICE)}"))["ratings"] == {}


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/api/ratings/chess", "api/bad_variant"),
        ("/api/ratings/english?limit=0", "api/bad_field"),
        ("/api/ratings/english?limit=many", "api/bad_field"),
        ("/api/players/short", "api/bad_field"),
        ("/api/players/computer-9", "api/bad_field"),
        ("/api/players/" + "x" * 65, "api/bad_field"),
    ],
)
async def test_bad_rating_requests_get_a_400_with_a_code_and_a_sentence(k: Kondavo, path, code):
    error = await refused(k.request("GET", path))
    assert (error.status, error.code) == (400, code) and error.message


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"player": "short"}, "api/bad_field"),
        ({"player": "bad id with spaces!!"}, "api/bad_field"),
        ({"player": 12345678901234567}, "api/bad_field"),
        ({"rated": True}, "rated/no_player"),
        ({"opponent": "computer", "level": 0}, "api/bad_field"),
        ({"opponent": "computer", "level": 9}, "api/bad_field"),
        ({"opponent": "computer", "level": "8"}, "api/bad_field"),
    ],
)
async def test_bad_players_and_levels_get_a_400_with_a_code_and_a_sentence(k: Kondavo, body, code):
    error = await refused(k.request("POST", "/api/games", body))
    assert (error.status, error.code) == (400, code) and error.message


async def test_joining_a_rated_game_needs_a_valid_player_id(k: Kondavo):
    white = await k.create(color="white", rated=True, player=ALICE)
    error = await refused(k.join(white.game, invite=white.invite))
    assert (error.status, error.code) == (400, "rated/no_player")
    error = await refused(k.join(white.game, invite=white.invite, player=ALICE))
    assert (error.status, error.code) == (400, "rated/same_player")
    error = await refused(
        k.request("POST", f"/api/games/{white.game}/join", {"invite": white.invite, "player": "x"})
    )
    assert (error.status, error.code) == (400, "api/bad_field")


async def test_a_computer_levels_ratings_are_its_fixed_ones(k: Kondavo):
    answer = await k.request("GET", "/api/players/computer-5")
    assert answer["computer"] and answer["ratings"]["turkish"]["rating"] == 1500
    assert not answer["ratings"]["turkish"]["provisional"]


async def test_the_leaderboard_of_a_rule_set_nobody_played_is_empty(k: Kondavo):
    assert await k.request("GET", "/api/ratings/turkish") == {"variant": "turkish", "players": []}


def test_entries_survive_their_canonical_text():
    entry = Entry(Rating(1623.123456789, 87.5, 0.0599), 12, "Ada")
    assert Entry.from_json(entry.to_json()) == entry
    assert dataclasses.replace(entry, games=13).to_json() != entry.to_json()


async def test_redis_ratings_raise_store_unavailable_while_redis_is_away():
    server = redis_server_or_skip()
    ratings = RedisRatings(server.url, prefix="kondavo-test-ratings", timeout_s=0.5)
    try:
        assert await ratings.load("english", [public_id(ALICE)]) == {public_id(ALICE): None}
        server.stop()
        for call in (
            ratings.load("english", [public_id(ALICE)]),
            ratings.top("english", 10),
            ratings.of_player(public_id(ALICE)),
        ):
            with pytest.raises(StoreUnavailable):
                await call
    finally:
        await ratings.close()
        server.cleanup()


async def test_a_game_with_a_player_id_answers_503_not_500_while_redis_is_away(serve):
    """issue 31 point 7: the ratings' Redis adapter shares the game store's error mapping."""
    server = redis_server_or_skip()
    try:
        k = (await serve(redis_url=server.url)).kondavo
        assert (await k.create(player=ALICE)).game
        server.stop()
        for create in (lambda: k.create(player=ALICE), lambda: k.create()):
            with pytest.raises(HttpError) as refused:
                await create()
            assert (refused.value.status, refused.value.code) == (503, "server/busy")
        with pytest.raises(HttpError) as refused:
            await k.request("GET", "/api/ratings/english")
        assert (refused.value.status, refused.value.code) == (503, "server/busy")
    finally:
        server.cleanup()
