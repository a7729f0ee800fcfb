"""Clocks fair under lag (issue 31 point 4): a move's reported network round trip is
credited to the mover's clock within the seat's quota (``server.core.lag``).

The room's arithmetic is checked without sockets; then a real client behind a proxy
that delays every frame both ways plays against a direct one: with its lag reported,
its clock loses about the delay minus the credit, never more; without, the whole delay;
and a client that lies about its lag on a fast line gains no more than its quota.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from protocol import messages as m
from protocol.client import GameConnection, Kondavo
from server.core import lag, room
from server.core.commands import Connect, Join, Sent

T0 = 1_000_000


def started(initial_ms: int, increment_ms: int = 0):
    record = room.new_game(
        game_id="g",
        variant="english",
        now=T0,
        creator="white",
        creator_token="w" * 22,
        invite="i" * 22,
        initial_ms=initial_ms,
        increment_ms=increment_ms,
    )
    record = room.handle(record, Join(token="b" * 22, invite="i" * 22), T0).record
    for side in ("white", "black"):
        record = room.handle(record, Connect(side), T0).record
    return record


def move(record, now: int, reported: int | None):
    """The side to move plays its first legal move at ``now``, reporting ``reported``."""
    from server.core import replay, wire

    game = replay.replay(record.variant, record.start_fen, record.moves)
    path = wire.legal(game)[0]["path"]
    outcome = room.handle(
        record, Sent(record.side_to_move, m.MakeMove(path=list(path), lag=reported)), now
    )
    assert outcome.refusal is None, outcome.refusal
    return outcome.record


def test_a_reported_lag_is_given_back_within_the_quota_and_never_more_than_the_turn():
    record = started(10_000)  # 10 s: a gain of 0.2 s, a quota starting at 0.6 s
    assert lag.gain_ms(10_000, 0) == 200
    now = T0
    record = move(record, now, None)  # each side's first move runs no clock
    record = move(record, now, None)
    mover = record.side_to_move
    before = record.remaining_ms[mover]
    now += 1_000
    record = move(record, now, 300)
    assert record.remaining_ms[mover] == before - 1_000 + 300
    # A lie is paid only up to what is left of the quota (600 - 300 + 200 = 500).
    record = move(record, now + 10, None)
    before = record.remaining_ms[mover]
    record = move(record, now + 1_010, 5_000)
    assert record.remaining_ms[mover] == before - 1_000 + 500
    # And never more than the turn lasted: a clock never goes up.
    record = move(record, now + 1_020, None)
    before = record.remaining_ms[mover]
    record = move(record, now + 1_050, 5_000)
    assert record.remaining_ms[mover] <= before


def test_the_quota_is_capped_at_seven_gains():
    quota = None
    for _ in range(20):
        _, quota = lag.credit(quota, 200, 0, 1_000)
    assert quota == 7 * 200


# --- a real client behind a slow line -------------------------------------------------


class DelayingProxy:
    """A TCP proxy on loopback that holds every chunk ``one_way_s`` in each direction."""

    def __init__(self, target_port: int, one_way_s: float):
        self.target_port = target_port
        self.one_way_s = one_way_s
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        for pump in (self._pump(reader, up_writer), self._pump(up_reader, writer)):
            task = asyncio.create_task(pump)
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                if not chunk:
                    writer.close()
                    return
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                writer.write(chunk)
                await writer.drain()

        sender = asyncio.create_task(deliver())
        try:
            while chunk := await reader.read(65536):
                queue.put_nowait((time.monotonic() + self.one_way_s, chunk))
        finally:
            queue.put_nowait((time.monotonic() + self.one_way_s, b""))
            await asyncio.gather(sender, return_exceptions=True)

    async def close(self) -> None:
        assert self.server is not None
        self.server.close()
        for task in list(self.tasks):
            task.cancel()


async def play_timed_moves(
    slow: GameConnection,
    fast: GameConnection,
    moves: int,
    reported: Callable[[], int | None],
    think_s: float = 0.0,
) -> None:
    """Both play at once; ``slow`` thinks ``think_s`` and reports ``reported()``."""
    for _ in range(moves):
        await slow.until(lambda c: c.my_turn)
        await asyncio.sleep(think_s)
        await slow.move(slow.legal[0], lag=reported())
        await fast.until(lambda c: c.my_turn)
        await fast.move(fast.legal[0])


def server_port(k: Kondavo) -> int:
    return int(k.base_url.rsplit(":", 1)[1])


async def round_trip_ms(conn: GameConnection, pings: int = 3) -> int:
    samples = []
    for _ in range(pings):
        began = time.perf_counter()
        await conn.ping()
        samples.append((time.perf_counter() - began) * 1000)
    return round(min(samples))


async def slow_game(k: Kondavo, proxy_port: int, initial_s: float):
    """A game whose black player connects through the proxy, has measured its round
    trip (before any clock runs) and both have made their first (untimed) move.
    Returns (black's connection, white's, black's round trip in ms)."""
    white = await k.create(
        variant="english", color="white", clock={"initial_s": initial_s, "increment_s": 0}
    )
    black = await k.join(white.game, invite=white.invite)
    slow_k = Kondavo(f"http://127.0.0.1:{proxy_port}")
    b = await slow_k.connect(black)
    w = await k.connect(white)
    rtt = await round_trip_ms(b)
    await b.until(lambda c: c.my_turn)  # English: black moves first
    await b.move(b.legal[0])
    await w.until(lambda c: c.my_turn)
    await w.move(w.legal[0])
    return b, w, rtt


@pytest.mark.parametrize("report", [True, False], ids=["lag reported", "lag not reported"])
async def test_a_delayed_client_loses_the_delay_less_the_credit_never_more(
    k: Kondavo, report, capsys
):
    one_way_s, moves = 0.1, 6
    proxy = DelayingProxy(server_port(k), one_way_s)
    port = await proxy.start()
    b, w, rtt = await slow_game(k, port, initial_s=120)
    try:
        assert rtt >= 2 * one_way_s * 1000 * 0.9
        # Black's clock as the server read it when White moved (it starts running then).
        before = w.clocks["black"]
        await play_timed_moves(b, w, moves, lambda: rtt if report else None)
        after = w.clocks["black"]
        lost = before - after
        delay = moves * 2 * one_way_s * 1000
        with capsys.disabled():
            print(
                f"\n{moves} timed moves, round trip {rtt} ms, lag "
                f"{'reported' if report else 'not reported'}: clock lost {lost} ms "
                f"of {delay:.0f} ms spent on the network"
            )
        if report:
            # The quota (three gains of 0.77 s, growing) covers every round trip: what is
            # lost is the client's own think time and the server's, far less than the delay;
            # and never less than nothing (a clock never goes up).
            assert 0 <= lost < delay / 2, (lost, delay)
        else:
            assert lost >= delay * 0.9, (lost, delay)
    finally:
        await b.close()
        await w.close()
        await proxy.close()


async def test_a_client_that_lies_about_its_lag_gains_no_more_than_its_quota(k: Kondavo):
    think_s, moves = 0.4, 6
    proxy = DelayingProxy(server_port(k), 0.0)  # a fast line
    port = await proxy.start()
    b, w, _ = await slow_game(k, port, initial_s=10)  # a gain of 0.2 s
    gain = lag.gain_ms(10_000, 0)
    try:
        before = w.clocks["black"]
        await play_timed_moves(b, w, moves, lambda: 5_000, think_s=think_s)
        after = w.clocks["black"]
        thought = moves * think_s * 1000
        # At most the starting quota and one gain per move came back.
        assert before - after >= thought - (lag.START_GAINS + moves) * gain
    finally:
        await b.close()
        await w.close()
        await proxy.close()


# --- the flag is judged after the credit (lichess does the same) ------------------------


def timed_turn(initial_ms: int):
    """A game at the first timed turn (Black's, English): both first moves made at T0."""
    record = started(initial_ms)
    record = move(record, T0, None)
    return move(record, T0, None)


def test_a_move_after_the_clocks_zero_is_played_when_its_credit_covers_the_overrun():
    record = timed_turn(3_000)  # a gain of 0.2 s: a quota of 0.6 s
    mover = record.side_to_move
    zero = record.flag_time()
    assert room.flag_falls_at(record) == zero + 600 == room.deadline(record)
    # 250 ms past the zero, the network's round trip of 400 ms reported: played.
    after = move(record, zero + 250, 400)
    assert after.status == "playing" and len(after.moves) == len(record.moves) + 1
    assert after.remaining_ms[mover] == 150  # 3,000 - 3,250 + 400
    assert after.seat(mover).lag_quota_ms == 600 - 400 + 200


def test_a_move_after_the_clocks_zero_without_credit_enough_loses_on_time():
    record = timed_turn(3_000)
    mover = record.side_to_move
    zero = record.flag_time()
    for reported in (None, 100):  # nothing reported, or less than the overrun
        outcome = room.handle(
            record, Sent(mover, m.MakeMove(path=first_path(record), lag=reported)), zero + 250
        )
        assert outcome.refusal is not None and outcome.refusal.code == "game/over"
        assert outcome.record.status == "finished" and outcome.record.reason == "timeout"
        assert outcome.record.result != mover and outcome.record.moves == record.moves


def test_the_flag_falls_when_the_grace_is_over_and_not_before():
    record = timed_turn(3_000)
    zero = record.flag_time()
    from server.core.commands import Tick

    assert room.handle(record, Tick(), zero + 599).record.status == "playing"
    fallen = room.handle(record, Tick(), zero + 600).record
    assert (fallen.status, fallen.reason) == ("finished", "timeout")
    assert fallen.clocks(zero + 600)[record.side_to_move] == 0


def first_path(record) -> list[str]:
    from server.core import replay, wire

    game = replay.replay(record.variant, record.start_fen, record.moves)
    return list(wire.legal(game)[0]["path"])


@pytest.mark.parametrize("report", [True, False], ids=["lag reported", "lag not reported"])
async def test_a_delayed_client_that_moves_in_time_is_not_flagged_by_the_network(
    k: Kondavo, report: bool
):
    """Black's line delays each frame 0.25 s each way. Black sends its move 0.15 s before
    its clock would reach zero had the server's reading of it not started half a round
    trip earlier: the move reaches the server after the zero. With its round trip
    reported (about 0.5 s, within the 0.6 s quota) the move is played; without, the
    flag falls."""
    one_way_s, initial_s = 0.25, 3
    proxy = DelayingProxy(server_port(k), one_way_s)
    port = await proxy.start()
    b, w, rtt = await slow_game(k, port, initial_s=initial_s)
    try:
        await b.until(lambda c: c.my_turn)
        left_ms = b.clocks["black"]  # the server's reading when Black's clock started
        # Black heard of it one way later; its move takes one way more to arrive.
        await asyncio.sleep(left_ms / 1000 - 2 * one_way_s + 0.15)
        sent = m.MakeMove(path=b.legal[0]["path"], v=b.v, lag=rtt if report else None)
        moves_before = len(b.moves)
        await b.send(sent)
        await w.until(lambda c: len(c.moves) > moves_before or c.status == "finished")
        if report:
            assert w.status == "playing" and len(w.moves) == moves_before + 1
            # Played after the zero: what is left is the credit less the overrun.
            assert 0 < w.clocks["black"] < rtt
        else:
            assert (w.status, w.reason, w.result) == ("finished", "timeout", "white")
            refusal = await b.next(lambda msg: msg.t == "error")
            assert refusal.code == "game/over"  # type: ignore[attr-defined]
    finally:
        await b.close()
        await w.close()
        await proxy.close()


def test_a_move_handled_by_a_node_whose_clock_is_a_little_behind_gains_no_time():
    """Two nodes' clocks agree within a few ms: a move whose ``now`` is before its turn
    began (read on the other node) spends nothing, and gains nothing either."""
    record = timed_turn(3_000)
    mover = record.side_to_move
    after = move(record, record.turn_started - 2, 500)
    assert after.remaining_ms[mover] == 3_000
