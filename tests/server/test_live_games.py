"""End to end: a real server, real sockets, complete games, spectators and resyncs."""

from __future__ import annotations

import asyncio
import random

import pytest
from conftest import TEST_SETTINGS

from protocol import messages as m
from protocol.client import CommandRefused, GameConnection, HttpError, Kondavo, SeatTicket

VARIANTS = ["english", "international", "brazilian", "russian", "spanish", "italian", "turkish"]


async def seated(k: Kondavo, **options) -> tuple[SeatTicket, SeatTicket]:
    """A friend game with both seats taken: (white, black)."""
    options.setdefault("color", "white")
    creator = await k.create(**options)
    other = await k.join(creator.game, invite=creator.invite)
    return (creator, other) if creator.side == "white" else (other, creator)


def versions_are_contiguous(conn: GameConnection) -> bool:
    events = [msg for msg in conn.received if isinstance(msg, m.Event)]
    return all(b.v == a.v + 1 for a, b in zip(events, events[1:], strict=False))


def saw_no_token(conn: GameConnection, *tickets: SeatTicket) -> bool:
    traffic = b"".join(conn.frames)
    return all(t.token.encode() not in traffic for t in tickets)


# --- complete games -------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
async def test_two_players_finish_a_game_while_a_spectator_sees_every_event_in_order(
    k: Kondavo, variant: str
):
    white, black = await seated(k, variant=variant, clock=None)
    rng = random.Random(variant)
    async with k.connect(white.game) as spectator, k.connect(white) as w, k.connect(black) as b:

        def pick(conn: GameConnection):
            return rng.choice(conn.legal)

        await asyncio.gather(w.play(pick, max_moves=150), b.play(pick, max_moves=150))
        if w.status == "playing":  # a long game: end it the quick way
            await (w if w.my_turn else b).resign()
        await spectator.until(lambda c: c.status == "finished")
        await w.until(lambda c: c.status == "finished")
        assert spectator.moves == w.moves == b.moves
        assert spectator.result == w.result == b.result is not None
        for conn in (spectator, w, b):
            assert conn.gaps == 0 and versions_are_contiguous(conn)
        assert saw_no_token(spectator, white, black)
        assert saw_no_token(w, black) and saw_no_token(b, white)
    public = await k.game(white.game)
    assert public["status"] == "finished" and public["moves"] == w.moves
    pdn = await k.pdn(white.game)
    assert '[GameType "' in pdn and '[Result "' in pdn


async def test_capturing_the_last_piece_wins(k: Kondavo):
    white, black = await seated(k, variant="english", fen="B:W18:B14", clock=None)
    async with k.connect(white) as w, k.connect(black) as b:
        await b.move(["14", "23"])
        await w.until(lambda c: c.status == "finished")
        assert (w.result, w.reason) == ("black", "no_pieces")
        moved = next(msg for msg in w.received if isinstance(msg, m.Moved))
        assert moved.captured == ["18"] and moved.notation == "14x23"


async def test_threefold_repetition_is_declared_to_everyone(k: Kondavo):
    white, black = await seated(k, variant="english", fen="B:WK29,K32:BK1,K4", clock=None)
    async with k.connect(white.game) as spectator, k.connect(white) as w, k.connect(black) as b:
        shuffle = [(b, "1-5"), (w, "29-25"), (b, "5-1"), (w, "25-29")] * 2
        for conn, move in shuffle:
            if conn.status != "playing":
                break
            await conn.move(move)
        await spectator.until(lambda c: c.status == "finished")
        assert (spectator.result, spectator.reason) == ("draw", "threefold")


async def test_a_no_progress_draw_from_a_fen_start(k: Kondavo):
    # FMJD 6.4: two kings against a lone king: a draw after five more moves each.
    white, black = await seated(k, variant="international", fen="W:WK47,K48:BK4", clock=None)
    moves = ["47-42", "4-9", "42-38", "9-4", "38-33", "4-9", "33-29", "9-4", "29-24", "4-9"]
    async with k.connect(white) as w, k.connect(black) as b:
        for i, move in enumerate(moves):
            await (w if i % 2 == 0 else b).move(move)
        await w.until(lambda c: c.status == "finished")
        assert (w.result, w.reason) == ("draw", "fmjd_5")


async def test_the_flag_falls_with_nobody_connected(k: Kondavo):
    white, black = await seated(k, variant="turkish", clock={"initial_s": 0.3, "increment_s": 0})
    async with k.connect(white) as w, k.connect(black) as b:
        await w.move(w.legal[0])
        await b.until(lambda c: c.my_turn)
        await b.move(b.legal[0])  # from here White's clock runs
    # both sockets are closed now; the server's timekeeper must end the game alone
    for _ in range(100):
        public = await k.game(white.game)
        if public["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert (public["result"], public["reason"]) == ("black", "timeout")
    assert public["clocks"]["white"] == 0


async def test_resignation_ends_the_game_for_everyone(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white.game) as spectator, k.connect(white) as w, k.connect(black):
        await w.resign()
        over = await spectator.next("over")
        assert (over.result, over.reason) == ("black", "resign")


async def test_a_draw_by_agreement_after_a_declined_offer_and_a_lapsed_one(k: Kondavo):
    white, black = await seated(k)  # English: Black moves first
    async with k.connect(white.game) as spectator, k.connect(white) as w, k.connect(black) as b:
        await w.offer_draw()
        await b.decline_draw()
        with pytest.raises(CommandRefused) as refused:
            await w.offer_draw()
        assert refused.value.code == "draw/too_soon"
        await b.offer_draw()
        await b.move(b.legal[0])  # the offerer moving keeps the offer open
        await w.until(lambda c: c.my_turn)
        await w.move(w.legal[0])  # the other side moving lets it lapse
        await b.until(lambda c: c.my_turn)
        await b.offer_draw()
        await w.accept_draw()
        await spectator.until(lambda c: c.status == "finished")
        tags = [msg.t for msg in spectator.received if msg.t.startswith("draw") or msg.t == "over"]
        assert tags == [
            "draw_offered",
            "draw_declined",
            "draw_offered",
            "draw_lapsed",
            "draw_offered",
            "over",
        ]
        assert (spectator.result, spectator.reason) == ("draw", "agreement")


async def test_abort_before_both_sides_have_moved(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        await b.move(b.legal[0])
        await w.abort()
        await b.until(lambda c: c.status == "aborted")
        assert b.result is None and b.reason == "aborted"


async def test_a_game_over_is_forgotten_once_its_keeping_time_has_passed(serve):
    k = (await serve(finished_kept_s=0.3)).kondavo
    white, black = await seated(k)
    async with k.connect(white) as w:
        await w.abort()
        await w.until(lambda c: c.status == "aborted")
    assert (await k.game(white.game))["status"] == "aborted"  # kept for now
    for _ in range(100):
        await asyncio.sleep(0.05)
        try:
            await k.game(white.game)
        except HttpError as gone:
            assert gone.status == 404
            break
    else:
        raise AssertionError("the finished game was never forgotten")


async def test_abort_is_refused_once_both_sides_have_moved(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        await b.move(b.legal[0])
        await w.until(lambda c: c.my_turn)
        await w.move(w.legal[0])
        with pytest.raises(CommandRefused) as refused:
            await w.abort()
        assert refused.value.code == "abort/too_late"


async def test_a_game_whose_opponent_never_came_may_be_aborted_not_claimed(k: Kondavo):
    white, black = await seated(k)
    # White never connects, for longer than a claim would wait.
    await asyncio.sleep(TEST_SETTINGS.claim_after_s * 2)
    async with k.connect(black) as b:
        with pytest.raises(CommandRefused) as refused:
            await b.claim_victory()
        assert refused.value.code == "claim/not_started"
        state = next(x for x in b.received if x.t == "state")
        assert state.may["black"] == ["abort", "draw_offer", "resign"]
        assert state.abort_at is not None  # the one countdown: White's first move
        assert not any(x.t == "claimable" for x in b.received)
        await b.abort()
        await b.until(lambda c: c.status == "aborted")


# --- refusals over the wire -----------------------------------------------------------


async def test_a_spectator_may_not_move_offer_or_resign(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white.game) as spectator, k.connect(black) as b:
        before = await k.game(white.game)
        for attempt in (
            spectator.move(["11", "15"]),
            spectator.offer_draw(),
            spectator.resign(),
            spectator.abort(),
            spectator.claim_victory(),
        ):
            with pytest.raises(CommandRefused) as refused:
                await attempt
            assert refused.value.code == "seat/spectator"
        after = await k.game(white.game)
        assert after["moves"] == before["moves"] == [] and after["status"] == "playing"
        assert b.my_turn


async def test_out_of_turn_and_illegal_moves_are_refused_with_reasons(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        with pytest.raises(CommandRefused) as refused:
            await w.move(["22", "18"])
        assert refused.value.code == "move/not_your_turn"
        with pytest.raises(CommandRefused) as refused:
            await b.move(["11", "18"])
        assert refused.value.code == "move/illegal" and "11-18" in refused.value.message
        assert (await k.game(white.game))["moves"] == []


async def test_a_wrong_token_only_watches(k: Kondavo):
    white, _ = await seated(k)
    fake = SeatTicket(white.game, "white", "not-the-token", white.url)
    async with k.connect(fake) as conn:
        assert conn.you is None
        assert conn.errors[0].code == "seat/bad_token"


async def test_a_move_resent_at_the_same_version_is_applied_once_whatever_its_ack_id(
    k: Kondavo,
):
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        chosen = m.MakeMove(path=["11", "15"], v=b.v)
        first = await b.resend(chosen)
        again = await b.resend(chosen)
        assert first.ack != again.ack and first.v == again.v
        await w.until(lambda c: len(c.moves) == 1)
        await b.ping()  # anything applied twice would have arrived before the pong
        assert b.moves == ["11-15"] and [x.t for x in b.received].count("moved") == 1


async def test_a_move_against_an_old_version_is_stale_and_brings_the_current_state(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        await b.move(["11", "15"])
        await w.until(lambda c: c.my_turn)
        states = [x for x in w.received if x.t == "state"]
        await w.send(m.MakeMove(path=["22", "18"], v=0, ack=9))
        error = await w.next(lambda x: x.t == "error" and x.ack == 9)
        assert error.code == "move/stale"
        await w.until(lambda c: len([x for x in c.received if x.t == "state"]) > len(states))


# --- reconnecting ---------------------------------------------------------------------


async def test_a_player_reconnects_and_gets_exactly_what_it_missed(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white.game) as spectator, k.connect(white) as w, k.connect(black) as b:
        await b.move(b.legal[0])
        await w.until(lambda c: c.my_turn)
        await w.move(w.legal[0])
        await w.close()
        await b.next(lambda x: x.t == "presence" and not x.present)
        await b.until(lambda c: c.my_turn)
        await b.move(b.legal[0])  # played while White is away
        await b.chat("are you there?")
        seen_before = w.v
        await w.reconnect()
        await w.until(lambda c: c.v >= b.v)
        missed = [x for x in w.received if isinstance(x, m.Event) and x.v > seen_before]
        assert [x.t for x in missed] == ["presence", "moved", "chat", "presence"]
        assert [x.v for x in missed] == list(range(seen_before + 1, w.v + 1))
        assert w.gaps == 0 and versions_are_contiguous(w)
        assert w.moves == b.moves and len(w.moves) == 3
        await w.move(w.legal[0])
        await spectator.until(lambda c: len(c.moves) == 4)
        assert spectator.gaps == 0


async def test_a_client_too_far_behind_gets_the_full_state(serve):
    k = (await serve(events_kept=3)).kondavo
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        await w.close()
        for i in range(6):
            await b.chat(f"line {i}")
        before = len(w.received)
        await w.reconnect()
        await w.until(lambda c: c.v == b.v)
        after = [x.t for x in w.received[before:] if isinstance(x, m.Event)]
        assert after[0] == "state" and "chat" not in after
        assert w.gaps == 0


# --- presence, claims, chat, spectators ------------------------------------------------


async def test_players_learn_when_the_opponent_goes_and_may_then_claim(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w:
        b = await k.connect(black)
        await w.until(lambda c: any(x.t == "presence" and x.side == "black" for x in c.received))
        # Only a game both sides have moved in may be claimed (before, it is aborted).
        await b.move(b.legal[0])
        await w.until(lambda c: c.my_turn)
        await w.move(w.legal[0])
        await b.until(lambda c: c.v == w.v)
        await b.close()
        gone = await w.next(lambda x: x.t == "presence" and x.side == "black" and not x.present)
        assert gone
        claimable = await w.next("claimable")
        assert claimable.by == "white"
        await w.claim_victory()
        await w.until(lambda c: c.status == "finished")
        assert (w.result, w.reason) == ("white", "abandoned")


async def test_spectator_chat_never_reaches_players_while_the_game_runs(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white.game, name="Cy") as spectator, k.connect(white) as w:
        await spectator.chat("nice opening")
        await w.chat("thanks")
        await spectator.until(lambda c: c.v == w.v)
        await w.until(lambda c: c.v == spectator.v)
        w_lines = [x.text for x in w.received if x.t == "chat"]
        s_lines = [x.text for x in spectator.received if x.t == "chat"]
        assert w_lines == ["thanks"] and s_lines == ["nice opening"]
        assert any(x.t == "skip" for x in w.received) and any(
            x.t == "skip" for x in spectator.received
        )
        with pytest.raises(CommandRefused) as refused:
            await w.chat("x" * 141)
        assert refused.value.code == "chat/too_long"


async def test_players_see_the_spectator_count(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w:
        async with k.connect(white.game), k.connect(white.game):
            await w.until(lambda c: c.spectators == 2)
        await w.until(lambda c: c.spectators == 0)
        assert (await k.game(white.game))["spectators"] == 0


async def test_a_rematch_swaps_colours_and_hands_each_player_its_new_seat(k: Kondavo):
    white, black = await seated(k, variant="russian")
    async with k.connect(white.game) as spectator, k.connect(white) as w, k.connect(black) as b:
        await w.resign()
        await b.until(lambda c: c.status == "finished")
        await w.offer_rematch()
        await b.accept_rematch()
        await w.until(lambda c: c.rematch_seat is not None)
        await b.until(lambda c: c.rematch_seat is not None)
        await spectator.until(lambda c: c.rematch is not None)
        assert w.rematch == b.rematch == spectator.rematch == w.rematch_seat.game
        assert (w.rematch_seat.side, b.rematch_seat.side) == ("black", "white")
        assert w.rematch_seat.token not in (white.token, black.token)
        assert spectator.rematch_seat is None
        assert saw_no_token(spectator, white, black)
        assert w.rematch_seat.token.encode() not in b"".join(b.frames + spectator.frames)
        new_white = SeatTicket(b.rematch, "white", b.rematch_seat.token, "")
        async with k.connect(new_white) as nw:
            assert nw.you == "white" and nw.status == "playing" and nw.moves == []


# --- bad input on the socket ----------------------------------------------------------


async def test_bad_frames_get_their_error_codes_and_change_nothing(live, k: Kondavo):
    white, black = await seated(k)
    async with k.connect(black) as b:
        before = (await k.game(white.game))["v"]
        for frame, code in [
            (b"\xc1", "frame/not_msgpack"),
            ("hello", "frame/not_binary"),
            (m.encode(m.Ping(n=1))[:-1], "frame/not_msgpack"),
            (b"\x93\x01\x02\x03", "frame/not_map"),
            (b"\x81\xa1t\xa4nope", "msg/unknown_type"),
            (b"\x82\xa1t\xa4move\xa1v\xc3", "msg/bad_field"),  # v: true
        ]:
            await b.send_raw(frame)
            error = await b.next("error")
            assert error.code == code
        assert (await k.game(white.game))["v"] == before
        await b.move(["11", "15"])  # the socket still works
        await b.send_raw(b"\x00" * (m.MAX_FRAME_BYTES + 1))  # beyond the 8 KiB limit
        await b.until(lambda c: c.close_code is not None)
        assert b.close_code == m.CloseCode.TOO_LARGE
    assert (await k.request("GET", "/healthz"))["status"] == "ok"


async def test_the_first_message_must_be_a_hello(live):
    from websockets.asyncio.client import connect

    white = await live.kondavo.create()
    async with connect(f"{live.ws_url}/ws/games/{white.game}", subprotocols=["kondavo.v1"]) as ws:
        assert ws.subprotocol == "kondavo.v1"
        await ws.send(m.encode(m.Ping(n=1)))
        error = m.decode_server(await ws.recv())
        assert error.code == "msg/hello_first"
        await ws.wait_closed()
        assert ws.close_code == m.CloseCode.NO_HELLO


async def test_an_unknown_game_or_protocol_version_closes_with_a_code(live):
    from websockets.asyncio.client import connect

    async with connect(f"{live.ws_url}/ws/games/nope") as ws:
        await ws.send(m.encode(m.Hello()))
        assert m.decode_server(await ws.recv()).code == "room/not_found"
        await ws.wait_closed()
        assert ws.close_code == m.CloseCode.ROOM_NOT_FOUND
    white = await live.kondavo.create()
    async with connect(f"{live.ws_url}/ws/games/{white.game}") as ws:
        await ws.send(m.encode(m.Hello(proto=99)))
        assert m.decode_server(await ws.recv()).code == "proto/version"
        await ws.wait_closed()
        assert ws.close_code == m.CloseCode.UNSUPPORTED_VERSION


async def test_the_lobby_socket_lists_open_games(live):
    async with live.kondavo.watch_lobby() as lobby:
        assert lobby.received[0].t == "lobby"
        created = await live.kondavo.create(opponent="open", name="Ada")
        await lobby.until(lambda c: created.game in c.open_ids())
        assert lobby.listing is not None
        entry = next(g for g in lobby.listing.open if g["id"] == created.game)
        assert entry["creator"]["name"] == "Ada" and "token" not in str(entry)
        assert b"token" not in b"".join(lobby.frames)


async def test_the_lobby_drops_an_open_game_while_its_creator_is_away(live):
    created = await live.kondavo.create(opponent="open", name="Ada")
    async with live.kondavo.watch_lobby() as lobby:
        await lobby.until(lambda c: created.game in c.open_ids())
        async with live.kondavo.connect(created):
            pass  # the creator's tab opens and closes
        await lobby.until(lambda c: created.game not in c.open_ids())
        assert (await live.kondavo.game(created.game))["status"] == "waiting"
        async with live.kondavo.connect(created):  # a reload within the grace
            await lobby.until(lambda c: created.game in c.open_ids())
        assert lobby.gaps == 0


# --- the computer's seat --------------------------------------------------------------


class FirstMoveBot:
    """A stand-in for the engine's search: always the first legal move."""

    async def choose(self, variant, start_fen, moves, level, time_left_ms):
        from engine import Game, get_rules

        game = Game.replay(get_rules(variant), start_fen, moves)
        return str(game.legal_moves()[0])


async def test_a_game_against_the_computer_is_played_through_the_same_path(serve):
    k = (await serve(bot=FirstMoveBot())).kondavo
    me = await k.create(variant="english", opponent="computer", level=2, color="white")
    assert me.invite_url is None
    async with k.connect(me) as conn:
        assert conn.status == "playing"
        await conn.until(lambda c: c.my_turn)  # English: the computer (Black) opened
        assert len(conn.moves) == 1
        await conn.move(conn.legal[0])
        await conn.until(lambda c: len(c.moves) == 3)
    public = await k.game(me.game)
    assert public["players"]["black"]["computer"] and public["players"]["black"]["present"]
