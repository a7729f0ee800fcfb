"""Takebacks and the first-move abort on a real server over WebSockets (memory store);
test_players_cluster.py does the same on two nodes sharing a Redis."""

from __future__ import annotations

import asyncio

import pytest

from engine import Game, get_rules
from protocol import messages as m
from protocol.client import CommandRefused, GameConnection, Kondavo

ADA = "ada-secret-player-id-0001"
BOB = "bob-secret-player-id-0002"


class FirstMoveBot:
    """The computer, instant: the first legal move."""

    async def choose(self, variant, start_fen, moves, level, time_left_ms):
        return str(Game.replay(get_rules(variant), start_fen, moves).legal_moves()[0])


async def play_plies(conns: list[GameConnection], plies: int) -> None:
    """Whoever is to move plays its first legal move, ``plies`` times."""
    # Counted here, not read off a connection: one that has not yet heard of the last
    # move would name a count the others have already passed.
    done = max(len(conn.moves) for conn in conns)
    for _ in range(plies):
        for conn in conns:
            await conn.until(lambda c, n=done: len(c.moves) == n)
        mover = next(c for c in conns if c.my_turn)
        await mover.move(mover.legal[0]["path"])
        done += 1
    for conn in conns:
        await conn.until(lambda c, n=done: len(c.moves) == n)


def taken_back(conn: GameConnection) -> list[m.TakenBack]:
    return [msg for msg in conn.received if isinstance(msg, m.TakenBack)]


async def test_an_accepted_takeback_reaches_players_spectators_and_a_resyncing_client(
    k: Kondavo,
):
    white = await k.create(variant="english", color="white", name="Ada")
    black = await k.join(white.game, invite=white.invite, name="Bo")
    async with (
        k.connect(white) as a,
        k.connect(black) as b,
        k.connect(white.game) as watcher,
        k.connect(white.game) as late,
    ):
        await play_plies([a, b], 4)  # Black, White, Black, White: Black to move
        moves = list(a.moves)
        await late.until(lambda c: len(c.moves) == 4)
        await late.close()  # it will come back with the version it saw last
        await b.ask_takeback()
        await a.until(lambda c: c.takeback_offer == "black")
        await a.accept_takeback()
        for conn in (a, b, watcher):
            await conn.until(lambda c: len(c.moves) == 2)
            assert conn.moves == moves[:2] and conn.side_to_move == "black"
        (event,) = taken_back(watcher)
        assert (event.by, event.plies, event.ply) == ("black", 2, 2)
        assert b.my_turn and not a.my_turn
        await late.reconnect()
        await late.until(lambda c: len(c.moves) == 2)
        assert late.moves == moves[:2] and late.gaps == 0
        assert taken_back(late), "the catch-up replays the takeback itself"
        # Play goes on from the restored position.
        await play_plies([a, b], 1)
    stored = await k.game(white.game)
    assert stored["moves"][:2] == moves[:2] and len(stored["moves"]) == 3


async def test_a_declined_takeback_is_refused_again_for_a_while(k: Kondavo):
    white = await k.create(variant="russian", color="white")
    black = await k.join(white.game, invite=white.invite)
    async with k.connect(white) as a, k.connect(black) as b:
        await play_plies([a, b], 2)
        await a.ask_takeback()
        await b.until(lambda c: c.takeback_offer == "white")
        await b.decline_takeback()
        with pytest.raises(CommandRefused) as info:
            await a.ask_takeback()
        assert info.value.code == "takeback/too_soon" and "seconds" in info.value.message
        assert len(a.moves) == 2


async def test_a_rated_game_refuses_a_takeback_over_the_socket(k: Kondavo):
    white = await k.create(variant="english", color="white", rated=True, player=ADA)
    black = await k.join(white.game, player=BOB, invite=white.invite)
    async with k.connect(white) as a, k.connect(black) as b:
        await play_plies([a, b], 2)
        with pytest.raises(CommandRefused) as info:
            await a.ask_takeback()
        assert info.value.code == "takeback/rated" and "rated" in info.value.message
        assert len(a.moves) == 2 and a.takeback_offer is None


async def test_the_computer_grants_a_takeback_at_once(serve):
    k = (await serve(bot=FirstMoveBot())).kondavo
    me = await k.create(variant="english", opponent="computer", color="white")
    async with k.connect(me) as conn:
        await conn.until(lambda c: c.my_turn)  # the computer (Black) has moved
        await conn.move(conn.legal[0]["path"])
        await conn.until(lambda c: c.my_turn and len(c.moves) == 3)
        await conn.ask_takeback()
        await conn.until(lambda c: len(c.moves) == 1)
        assert conn.my_turn and taken_back(conn)[0].plies == 2


async def test_a_first_move_not_made_aborts_the_game_with_nobody_connected(serve):
    k = (await serve(first_move_s=0.3)).kondavo
    white = await k.create(variant="english", color="white")
    await k.join(white.game, invite=white.invite)
    for _ in range(200):
        game = await k.game(white.game)
        if game["status"] != "playing":
            break
        await asyncio.sleep(0.02)
    assert (game["status"], game["result"], game["reason"]) == ("aborted", None, "no_first_move")


async def test_everyone_watching_is_told_why_the_game_was_aborted(serve):
    k = (await serve(first_move_s=0.5)).kondavo
    white = await k.create(variant="english", color="white")
    black = await k.join(white.game, invite=white.invite)
    async with k.connect(black) as b, k.connect(white.game) as watcher:
        assert b.received[0].abort_at is not None  # the state says when
        await b.move(b.legal[0]["path"])  # Black's first move, in time; White never moves
        for conn in (b, watcher):
            await conn.until(lambda c: c.status == "aborted", timeout=5)
            overs = [msg for msg in conn.received if isinstance(msg, m.Over)]
            assert [(o.result, o.reason) for o in overs] == [(None, "no_first_move")]
        moved = next(msg for msg in watcher.received if isinstance(msg, m.Moved))
        assert moved.abort_at is not None
