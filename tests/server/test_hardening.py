"""Issue 7 against a real server: floods, bad frames, foreign pages, dead and stalled
sockets, attempts to move for someone else, and the server's own failures."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from protocol import messages as m
from protocol.client import GameConnection, HttpError, Kondavo, SeatTicket
from server.web.api import BAD_INVITE


async def seated(k: Kondavo, **options) -> tuple[SeatTicket, SeatTicket]:
    """A friend game with both seats taken: (white, black)."""
    options.setdefault("color", "white")
    creator = await k.create(**options)
    other = await k.join(creator.game, invite=creator.invite)
    return (creator, other) if creator.side == "white" else (other, creator)


async def closed_with(conn: GameConnection, code: int) -> None:
    await conn.until(lambda c: c.close_code is not None)
    assert conn.close_code == code


# --- nobody moves for anyone else -----------------------------------------------------


async def test_ten_thousand_illegal_out_of_turn_and_spectator_moves_change_nothing(k: Kondavo):
    white, black = await seated(k, variant="english", clock=None)
    rng = random.Random(7)
    async with (
        k.connect(white) as w,
        k.connect(black) as b,
        k.connect(white.game) as spectator,
    ):
        mover, waiting = (w, b) if w.my_turn else (b, w)
        before = await k.game(white.game)
        legal = [move["path"] for move in mover.legal]
        legal_ends = {(p[0], p[-1]) for p in legal}
        labels = [label for label, _, _ in mover.board["squares"]]

        def illegal_path() -> list[str]:
            while True:
                path = rng.sample(labels, rng.choice((2, 2, 3)))
                if path not in legal and (path[0], path[-1]) not in legal_ends:
                    return path

        attempts: list[tuple[GameConnection, m.MakeMove, set[str]]] = []
        for i in range(10_000):
            kind = i % 4
            if kind == 0:  # the side to move, a move that is not legal
                attempts.append(
                    (
                        mover,
                        m.MakeMove(path=illegal_path(), ack=i),
                        {"move/illegal", "move/invalid"},
                    )
                )
            elif kind == 1:  # the other seat, out of turn, with the mover's legal moves
                attempts.append(
                    (waiting, m.MakeMove(path=rng.choice(legal), ack=i), {"move/not_your_turn"})
                )
            elif kind == 2:  # the other seat, moving anything at all
                attempts.append(
                    (waiting, m.MakeMove(path=illegal_path(), ack=i), {"move/not_your_turn"})
                )
            else:  # a spectator, with a legal move of the side to move
                attempts.append(
                    (spectator, m.MakeMove(path=rng.choice(legal), ack=i), {"seat/spectator"})
                )
        # In batches, so no socket's send queue is asked to hold thousands of answers.
        for start in range(0, len(attempts), 300):
            batch = attempts[start : start + 300]
            for conn, message, _ in batch:
                await conn.send(message)
            for conn in (w, b, spectator):
                expected = sum(1 for c, _, _ in attempts[: start + 300] if c is conn)
                await conn.until(lambda c, n=expected: len(c.errors) >= n, timeout=30)
        answers = {e.ack: e.code for conn in (w, b, spectator) for e in conn.errors}
        assert len(answers) == 10_000
        for _conn, message, codes in attempts:
            assert answers[message.ack] in codes, (message, answers[message.ack])
        assert not any(isinstance(msg, m.Moved) for msg in w.received + b.received)
        after = await k.game(white.game)
        assert after == before
        await mover.move(legal[0])  # the game itself is fine
        assert len((await k.game(white.game))["moves"]) == 1


async def test_a_wrong_game_id_and_a_wrong_invite_answer_alike_and_invites_work_once(
    k: Kondavo,
):
    creator = await k.create(color="white")
    answers = []
    for game, invite in ((creator.game, "x" * 22), ("nonexistent", creator.invite)):
        status, body = await asyncio.to_thread(
            k._request, "POST", f"/api/games/{game}/join", {"invite": invite}
        )
        answers.append((status, body))
    assert answers[0] == answers[1]
    assert answers[0][0] == 403 and BAD_INVITE.encode() in answers[0][1]
    await k.join(creator.game, invite=creator.invite)
    with pytest.raises(HttpError) as taken:
        await k.join(creator.game, invite=creator.invite)
    assert taken.value.status == 409


# --- frames and floods ----------------------------------------------------------------


async def test_frames_up_to_8_kib_are_read_and_bigger_ones_close_1009(k: Kondavo):
    white, _ = await seated(k)
    async with k.connect(white) as w:
        # exactly 8 KiB: read, decoded and refused (a 1000-character chat line is too long)
        padded = {"t": "chat", "text": "é" * 1000, "ack": 1, "pad": ""}
        pad = m.MAX_FRAME_BYTES - len(m.msgpack.packb(padded)) - 2  # str16 header: 3 bytes
        raw = m.msgpack.packb({**padded, "pad": "p" * pad})
        assert len(raw) == m.MAX_FRAME_BYTES
        await w.send_raw(raw)
        assert (await w.next("error")).code == "chat/too_long"
        await w.send_raw(b"\x00" * m.MAX_FRAME_BYTES)
        assert (await w.next("error")).code == "frame/not_msgpack"
        assert w.close_code is None
        await w.send_raw(b"\x00" * (m.MAX_FRAME_BYTES + 1))
        await closed_with(w, m.CloseCode.TOO_LARGE)


async def test_a_stream_of_malformed_frames_gets_errors_then_close_4029(k: Kondavo):
    white, _ = await seated(k)
    async with k.connect(white) as w:
        for i in range(60):
            await w.send_raw([b"\xc1", "text", b"\x93\x01\x02\x03", b"\x81\xa1t\xa4nope"][i % 4])
        await closed_with(w, m.CloseCode.TOO_MANY_ERRORS)
        assert len(w.errors) >= 49
        assert {e.code for e in w.errors} <= {
            "frame/not_msgpack",
            "frame/not_binary",
            "frame/not_map",
            "msg/unknown_type",
        }
    assert (await k.request("GET", "/healthz"))["status"] == "ok"


async def _closed_after(conn: GameConnection, limit: int, command, refused: str) -> None:
    """``limit`` commands are each answered (refused with ``refused``, the socket left
    open); the next one closes the socket 1008."""
    for n in range(limit):
        await conn.send(command(ack=n))
    await conn.until(lambda c: len(c.errors) >= limit)
    assert conn.close_code is None and {e.code for e in conn.errors} == {refused}
    await conn.send(command(ack=limit))
    await closed_with(conn, m.CloseCode.POLICY)


async def test_a_player_flood_is_closed_1008_after_100_messages(serve):
    k = (await serve(player_messages=100, spectator_messages=50, messages_window_s=20)).kondavo
    white, _ = await seated(k)
    async with k.connect(white) as w:
        await _closed_after(w, 100, m.DeclineDraw, "draw/no_offer")
        assert w.errors[-1].code == "rate/limited" and w.errors[-1].ack == 100


async def test_a_spectator_gets_50_messages_and_pings_are_exempt(serve):
    k = (await serve(player_messages=100, spectator_messages=50, messages_window_s=20)).kondavo
    white, _ = await seated(k)
    async with k.connect(white.game) as s:
        for _ in range(120):
            await s.ping()
        await _closed_after(s, 50, m.Resign, "seat/spectator")


async def test_chat_allows_five_lines_per_ten_seconds_and_drops_repeats(serve):
    k = (await serve(chat_lines=5, chat_window_s=10)).kondavo
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        await w.chat("good luck")
        with pytest.raises(Exception, match="chat/duplicate"):
            await w.chat("GOOD LUCK!!")
        for line in ("nice", "hmm", "oops"):
            await w.chat(line)
        await w.chat("x" * 140)
        with pytest.raises(Exception, match="rate/limited"):
            await w.chat("one too many")
        with pytest.raises(Exception, match="chat/too_long"):
            await b.chat("y" * 141)
        await b.until(lambda c: sum(isinstance(x, m.ChatLine) for x in c.received) == 5)


# --- who may connect ------------------------------------------------------------------


async def test_a_foreign_origin_gets_403_before_the_socket_is_accepted(live, k: Kondavo):
    white, _ = await seated(k)
    url = f"{live.ws_url}/ws/games/{white.game}"
    with pytest.raises(InvalidStatus) as refused:
        await connect(url, origin="https://evil.example", subprotocols=["kondavo.v1"])
    assert refused.value.response.status_code == 403
    assert (await k.game(white.game))["spectators"] == 0
    own = live.url  # a page of this very server
    async with connect(url, origin=own, subprotocols=["kondavo.v1"]) as ws:
        await ws.send(m.encode(m.Hello()))
        assert m.decode_server(await ws.recv()).t == "state"
    async with connect(url) as ws:  # no Origin: not a browser
        await ws.send(m.encode(m.Hello()))
        assert m.decode_server(await ws.recv()).t == "state"


async def test_a_configured_origin_allowlist_is_used_for_the_lobby_too(serve):
    running = await serve(allowed_origins=("https://play.example",))
    with pytest.raises(InvalidStatus) as refused:
        await connect(f"{running.ws_url}/ws/lobby", origin=running.url)
    assert refused.value.response.status_code == 403
    async with connect(f"{running.ws_url}/ws/lobby", origin="https://play.example") as ws:
        await ws.send(m.encode(m.Hello()))
        assert m.decode_server(await ws.recv()).t == "lobby"


async def test_sockets_and_new_games_per_address_are_capped(serve):
    running = await serve(sockets_per_ip=3, games_per_ip=2, games_window_s=60)
    k = running.kondavo
    white = await k.create()
    await k.create()
    with pytest.raises(HttpError) as refused:
        await k.create()
    assert refused.value.status == 429 and refused.value.code == "rate/limited"
    conns = [await k.connect(white.game) for _ in range(3)]
    with pytest.raises(InvalidStatus) as full:
        await connect(f"{running.ws_url}/ws/games/{white.game}")
    assert full.value.response.status_code == 403
    await conns[0].close()
    await asyncio.sleep(0.1)
    async with k.connect(white.game) as again:
        assert again.status == "waiting"
    for conn in conns[1:]:
        await conn.close()


# --- failures inside the server -------------------------------------------------------


async def test_an_unexpected_error_is_logged_and_closes_1011_without_details(
    k: Kondavo, monkeypatch, caplog
):
    from server.web import game_socket as ws

    async def broken(self, message):
        raise RuntimeError("secret internal detail")

    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        monkeypatch.setattr(ws.GameSocket, "_dispatch", broken)
        with caplog.at_level(logging.ERROR, logger="server.web.game_socket"):
            await w.send(m.SendChat(text="hello", ack=1))
            await closed_with(w, m.CloseCode.SERVER_ERROR)
        assert "secret internal detail" in caplog.text and "Traceback" in caplog.text
        assert b"secret" not in b"".join(w.frames)
        monkeypatch.undo()
        await b.until(
            lambda c: any(isinstance(x, m.Presence) and not x.present for x in c.received)
        )
        assert b.close_code is None and (await b.ping()).t == "pong"


async def test_a_store_outage_while_catching_up_closes_1011_with_server_busy_not_a_traceback(
    live, k: Kondavo, monkeypatch, caplog
):
    from server.store import RESYNC, StoreUnavailable

    store = live.server.config.app.state.store
    hub = live.server.config.app.state.hub

    async def unreachable(*args, **kwargs):
        raise StoreUnavailable("redis is down")

    white, _ = await seated(k)
    async with k.connect(white.game) as watcher:
        await watcher.until(lambda c: any(isinstance(x, m.State) for x in c.received))
        monkeypatch.setattr(store, "events_since", unreachable)
        with caplog.at_level(logging.WARNING, logger="server.web.game_socket"):
            for held in hub.members(white.game):
                held.deliver(RESYNC)  # as when the channel between nodes broke
            await closed_with(watcher, m.CloseCode.SERVER_ERROR)
        assert any(isinstance(x, m.Error) and x.code == "server/busy" for x in watcher.received)
        assert "Traceback" not in caplog.text and "store unavailable" in caplog.text


# --- dead and stalled sockets ---------------------------------------------------------


async def _stalled_socket(url: str, hello: m.Hello):
    """A socket that says hello, then stops reading anything (a tiny receive buffer)."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    ws = await connect(url, sock=sock, subprotocols=["kondavo.v1"], max_queue=1)
    await ws.send(m.encode(m.Hello(token=getattr(hello, "token", None))))
    ws.transport.pause_reading()
    return ws


async def test_a_player_that_stops_answering_pings_is_dropped_and_the_opponent_told(serve):
    k = (await serve(ping_interval_s=0.2, ping_timeout_s=0.4)).kondavo
    white, black = await seated(k)
    async with k.connect(white) as w:
        url = f"{k.ws_url}/ws/games/{black.game}"
        dead = await _stalled_socket(url, m.Hello(token=black.token))
        await w.until(
            lambda c: any(
                isinstance(x, m.Presence) and x.side == "black" and x.present for x in c.received
            )
        )
        # The stalled socket's TCP connection stays open: only the unanswered pings
        # can tell the server it is gone.
        await w.until(
            lambda c: any(
                isinstance(x, m.Presence) and x.side == "black" and not x.present
                for x in c.received
            ),
            timeout=5,
        )
        assert not (await k.game(white.game))["players"]["black"]["present"]
        dead.transport.abort()


def _shrink_send_buffer(hub, game: str) -> None:
    """Loopback lets the kernel buffer megabytes for a socket; a phone on a real
    network gets far less. Shrink the server's send buffer for the spectators."""
    for held in hub.members(game):
        if held.side is None:
            sock = held.outbox._abort.__self__.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)


async def _flood_until(condition, chatty: GameConnection, players, rng: random.Random) -> None:
    """Chat lines from a spectator that reads (spectators see them) fill a stalled
    spectator's buffers, while the players keep moving; until ``condition()`` holds.
    Counted in lines, not time: 3000 lines are far more than any buffer here holds."""
    for _ in range(3000):
        if condition():
            return
        text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(140))
        await chatty.chat(text)
        mover = next((p for p in players if p.my_turn), None)
        if mover is not None:
            await mover.move(rng.choice(mover.legal))
    raise AssertionError("3000 chat lines and the stalled spectator still keeps up")


async def _play(w: GameConnection, b: GameConnection, plies: int, rng: random.Random) -> None:
    """``plies`` random legal moves, each seen by both players before the next."""
    for _ in range(plies):
        if w.status != "playing":
            return
        mover = w if w.my_turn else b
        target = len(mover.moves) + 1
        await mover.move(rng.choice(mover.legal))
        await w.until(lambda c, n=target: len(c.moves) >= n)
        await b.until(lambda c, n=target: len(c.moves) >= n)


@contextlib.asynccontextmanager
async def _beside_a_stalled_spectator(serve, **settings) -> AsyncIterator[tuple]:
    """Two players of a new game, connected, and one spectator's socket that never reads
    (its place on the server with a small send buffer, so its sends soon block): yields
    (the client, the hub, the game id, white's connection, black's)."""
    running = await serve(chat_lines=0, **settings)
    k = running.kondavo
    hub = running.server.config.app.state.hub  # type: ignore[union-attr]
    white, black = await seated(k, variant="english", clock=None)
    stalled = await _stalled_socket(f"{k.ws_url}/ws/games/{white.game}", m.Hello())
    async with k.connect(white) as w, k.connect(black) as b:
        await w.until(lambda c: c.spectators == 1)
        _shrink_send_buffer(hub, white.game)
        yield k, hub, white.game, w, b
    stalled.transport.abort()


async def test_a_stalled_spectator_is_cut_off_and_the_players_play_on(serve):
    rng = random.Random(3)
    async with _beside_a_stalled_spectator(serve, send_timeout_s=0.3, ping_interval_s=60) as stage:
        k, hub, game, w, b = stage
        async with k.connect(game) as chatty:
            # The players and the chatty spectator are all that is left.
            await _flood_until(lambda: len(hub.members(game)) == 3, chatty, (w, b), rng)
            await w.until(lambda c: c.spectators == 1)
            await _play(w, b, 10, rng)
        assert w.gaps == 0 and b.gaps == 0


async def test_a_stalled_spectator_never_holds_up_the_players(serve):
    # No send timeout within the test: the stalled spectator stays, its send blocked,
    # and the players' moves must reach each other all the same.
    rng = random.Random(5)
    async with _beside_a_stalled_spectator(
        serve, send_timeout_s=3600, ping_interval_s=3600
    ) as stage:
        k, hub, game, w, b = stage
        # The one spectator so far: the stalled socket's place on the server.
        (held,) = [member for member in hub.members(game) if member.side is None]
        async with k.connect(game) as chatty:
            await _flood_until(lambda: held.outbox.sending_since is not None, chatty, (), rng)
            played = len(w.moves)
            await _play(w, b, 30, rng)
            assert len(w.moves) > played and w.moves == b.moves
            # Still there and still stuck: the players never waited for it.
            assert held in hub.members(game) and held.outbox.sending_since is not None
        assert w.gaps == 0 and b.gaps == 0
