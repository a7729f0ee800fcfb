"""A player's games over HTTP, against a real server: the listing, the rating history and
one PDN file of them all (issue 30 point 2)."""

from __future__ import annotations

import asyncio
import urllib.request

import pytest

from engine import get_rules
from engine.pdn import read_pdn_games
from protocol.client import HttpError, Kondavo
from server.core.ratings import public_id

ADA = "ada-secret-player-id-0001"
BOB = "bob-secret-player-id-0002"


async def games_of(k: Kondavo, secret: str, query: str = "") -> dict:
    return await k.request("GET", f"/api/players/{public_id(secret)}/games{query}")


async def until_listed(k: Kondavo, secret: str, test, query: str = "") -> dict:
    """The history is written as the command that changed the game returns: poll briefly."""
    for _ in range(250):
        found = await games_of(k, secret, query)
        if test(found["games"]):
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"never listed as expected: {found}")


async def finished_game(k: Kondavo, variant: str = "english", rated: bool = False) -> str:
    """Ada (white) and Bo play two moves each, whoever starts, then Bo resigns."""
    ada = await k.create(variant=variant, color="white", name="Ada", player=ADA, rated=rated)
    bob = await k.join(ada.game, invite=ada.invite, name="Bo", player=BOB)
    async with k.connect(ada) as white, k.connect(bob) as black:
        for ply in range(4):
            await white.until(lambda c, ply=ply: len(c.moves) == ply)
            await black.until(lambda c, ply=ply: len(c.moves) == ply)
            mover = white if white.my_turn else black
            await mover.move(mover.legal[0]["path"])
        await black.resign()
        await white.until(lambda c: c.status == "finished")
    return ada.game


async def test_a_finished_game_is_in_both_players_histories_from_each_side(k: Kondavo):
    game = await finished_game(k)
    ada = await until_listed(k, ADA, lambda g: g and g[0]["status"] == "finished")
    bob = await until_listed(k, BOB, lambda g: g and g[0]["status"] == "finished")
    (mine,), (theirs,) = ada["games"], bob["games"]
    assert mine["id"] == theirs["id"] == game
    assert (mine["color"], theirs["color"]) == ("white", "black")
    assert mine["opponent"]["name"] == "Bo" and theirs["opponent"]["name"] == "Ada"
    assert mine["opponent"]["player"] == public_id(BOB)
    assert mine["result"] == "white" and mine["reason"] == "resign" and mine["plies"] == 4
    assert mine["clock"] == {"initial_ms": 300_000, "increment_ms": 3_000}
    assert mine["rated"] is False and mine["ended_at"] >= mine["at"]
    assert "moves" not in mine  # the listing is light; the PDN has the moves


async def test_live_games_come_first_and_an_aborted_game_is_not_listed(k: Kondavo):
    await finished_game(k)
    live = await k.create(variant="russian", color="white", name="Ada", player=ADA)
    await k.join(live.game, invite=live.invite, name="Bo", player=BOB)
    aborted = await k.create(variant="italian", color="white", name="Ada", player=ADA)
    bob = await k.join(aborted.game, invite=aborted.invite, player=BOB)
    async with k.connect(bob) as conn:
        await conn.abort()
    async with k.connect(live) as conn:
        await conn.until(lambda c: c.my_turn)
        await conn.move(conn.legal[0]["path"])  # a command that passes the history's way
    found = await until_listed(k, ADA, lambda g: [e["status"] for e in g] == ["live", "finished"])
    assert found["games"][0]["id"] == live.game
    assert aborted.game not in [g["id"] for g in found["games"]]


async def test_the_history_can_be_filtered_by_rule_set(k: Kondavo):
    english = await finished_game(k, "english")
    turkish = await finished_game(k, "turkish")
    await until_listed(k, ADA, lambda g: len([e for e in g if e["status"] == "finished"]) == 2)
    only = await games_of(k, ADA, "?variant=turkish")
    assert [g["id"] for g in only["games"]] == [turkish]
    assert english != turkish
    with pytest.raises(HttpError) as info:
        await games_of(k, ADA, "?variant=chess")
    assert info.value.code == "api/bad_variant"


async def test_a_bad_player_id_is_refused_with_a_sentence(k: Kondavo):
    with pytest.raises(HttpError) as info:
        await k.request("GET", "/api/players/x/games")
    assert info.value.status == 400 and info.value.code == "api/bad_field"
    assert "player id" in info.value.message


async def test_all_of_a_players_games_come_as_one_pdn_file(k: Kondavo, live):
    first = await finished_game(k, "english")
    second = await finished_game(k, "international")
    await until_listed(k, ADA, lambda g: len([e for e in g if e["status"] == "finished"]) == 2)
    url = f"{live.url}/api/players/{public_id(ADA)}/games.pdn"
    text = await asyncio.to_thread(lambda: urllib.request.urlopen(url).read().decode())
    games = list(read_pdn_games(text))
    assert [g.game.rules for g in games] == [get_rules("english"), get_rules("international")]
    assert [g.game.tags["Site"].rsplit("/", 1)[1] for g in games] == [first, second]
    for each in games:
        assert each.game.tags["White"] == "Ada" and each.game.tags["Black"] == "Bo"
        assert len(each.game.notation) == 4 and each.game.result.value == "white"
    # One game alone: what the "My games" page replays once the game's record is gone.
    one = await asyncio.to_thread(lambda: urllib.request.urlopen(f"{url}?game={second}").read())
    (only,) = read_pdn_games(one.decode())
    assert only.game.tags["Site"].endswith(second) and only.game.rules == get_rules("international")


async def test_a_rated_game_adds_a_point_to_the_rating_history_of_its_rule_set(k: Kondavo):
    await finished_game(k, "russian", rated=True)
    found = await until_listed(k, ADA, lambda g: g and g[0]["status"] == "finished")
    (point,) = found["ratings"]["russian"]
    assert point[0] == found["games"][0]["ended_at"] and point[1] > 1500
    assert found["games"][0]["rating"] == point[1]
    loser = await until_listed(k, BOB, lambda g: g and g[0]["status"] == "finished")
    assert loser["ratings"]["russian"][0][1] < 1500
