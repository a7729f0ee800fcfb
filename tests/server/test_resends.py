"""Commands a client can trust (issue 31 points 1-3), on a real server over real sockets:
a command sent again after its ack was lost is answered with its first ack and applied
once, across reconnects; an ack id never stands in for a command; and every error
answers with the ack of the frame that caused it."""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from protocol import messages as m
from protocol.client import GameConnection, Kondavo, SeatTicket


async def seated(k: Kondavo) -> tuple[SeatTicket, SeatTicket]:
    creator = await k.create(color="white", variant="english")
    other = await k.join(creator.game, invite=creator.invite)
    return creator, other


async def test_a_move_whose_ack_was_lost_is_resent_after_a_reconnect_and_played_once(
    k: Kondavo,
):
    white, black = await seated(k)
    async with k.connect(white) as w:
        b = await k.connect(black)
        chosen = m.MakeMove(path=["11", "15"], v=b.v, ack=5)
        # The move goes out and the socket drops before its ack can come back.
        await b.send(chosen)
        await b.socket.close()
        await w.until(lambda c: c.moves == ["11-15"])
        moved_at = next(x.v for x in w.received if isinstance(x, m.Moved))
        # A new connection, numbering its acks afresh: the same move, the same v.
        again = await k.connect(black)
        answer = await again.resend(m.MakeMove(path=["11", "15"], v=chosen.v))
        assert answer.v >= moved_at
        await again.ping()
        stored = await k.game(white.game)
        assert stored["moves"] == ["11-15"]
        assert [x.t for x in w.received].count("moved") == 1
        await again.close()


async def test_the_python_client_resends_by_itself_when_the_socket_drops(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        sent = []
        real_send = b.send

        async def send_then_drop(message):
            # The first time, the frame leaves and the connection dies before the ack.
            await real_send(message)
            if not sent:
                sent.append(message)
                b.socket.transport.abort()

        b.send = send_then_drop
        answer = await b.move(["11", "15"])
        assert answer.t == "ack" and sent and b.moves == ["11-15"]
        await w.until(lambda c: c.moves == ["11-15"])
        assert (await k.game(white.game))["moves"] == ["11-15"]


async def test_an_old_ack_id_on_another_move_never_acknowledges_it(k: Kondavo):
    white, black = await seated(k)
    async with k.connect(white) as w, k.connect(black) as b:
        await b.send(m.MakeMove(path=["11", "15"], v=b.v, ack=1))
        await b.next(lambda x: x.t == "ack" and x.ack == 1)
        # A client that numbers acks from 1 again: a different move, out of turn.
        await b.send(m.MakeMove(path=["9", "13"], ack=1))
        refused = await b.next(lambda x: x.t in ("ack", "error") and x.ack == 1)
        assert refused.t == "error" and refused.code == "move/not_your_turn"
        await w.until(lambda c: c.my_turn)
        assert w.moves == ["11-15"]


async def test_frame_level_errors_answer_with_the_frames_ack(k: Kondavo):
    white, _ = await seated(k)
    async with k.connect(white) as w:
        frames = {
            1: {"t": "move", "ack": 1, "path": "not a list"},  # msg/bad_field
            2: {"t": "teleport", "ack": 2},  # msg/unknown_type
            3: {"t": "chat", "ack": 3, "text": "x" * 1001},  # over-long field
            4: {"t": "move", "ack": 4, "v": True},  # true is not an integer
        }
        for ack, body in frames.items():
            await w.send_raw(msgpack.packb(body))
            error = await w.next(lambda x, a=ack: x.t == "error")
            assert error.ack == ack, (body, error)


# --- the fuzz: any map with an ack, over a real socket --------------------------------

# Every command's tag and field, and hello and ping (which carry no ack of their own).
COMMAND_TAGS = sorted(t for t, cls in m.CLIENT_MESSAGES.items() if issubclass(cls, m.Command))
FIELDS = sorted({name for cls in m.CLIENT_MESSAGES.values() for name in cls.__dataclass_fields__})
_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.binary(max_size=8),
    st.lists(st.one_of(st.text(max_size=4), st.integers(0, 60)), max_size=4),
    st.dictionaries(st.text(max_size=4), st.integers(-(2**60), 2**60), max_size=2),
)
_bodies = st.dictionaries(st.sampled_from(FIELDS), _values, max_size=4)
_tags = st.one_of(
    st.sampled_from(COMMAND_TAGS), st.text(max_size=12), st.integers(-(2**60), 2**60), st.none()
)


class Fuzzer:
    """A player socket that comes back whenever the server closes it (strikes)."""

    def __init__(self, k: Kondavo, seat: SeatTicket):
        self.k, self.seat = k, seat
        self.conn: GameConnection | None = None
        self.next_ack = 1000

    async def answer_to(self, body: dict) -> m.ServerMessage:
        self.next_ack += 1
        ack = self.next_ack
        for _ in range(2):
            if self.conn is None or self.conn.close_code is not None:
                self.conn = await self.k.connect(self.seat)
            try:
                await self.conn.send_raw(msgpack.packb({**body, "ack": ack}))
            except ConnectionClosed:  # closed by the frame before (strikes, budget)
                await self.conn.until(lambda c: c.close_code is not None)
                continue
            return await self.conn.next(lambda x: x.t in ("ack", "error") and x.ack == ack)
        raise AssertionError("could not send the frame")


async def test_the_socket_answers_every_fuzzed_frame_with_its_ack(k: Kondavo):
    """Any map with a valid ``ack``, whatever else it holds, is answered by an ``ack`` or
    an ``error`` carrying it (``next`` times out, failing the test, otherwise). Hypothesis
    draws the frames; they are then sent one by one on the server's own loop."""
    white, _ = await seated(k)
    fuzzer = Fuzzer(k, white)
    answers: list[m.ServerMessage] = []

    @settings(
        max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(tag=_tags, body=_bodies)
    def frames(tag, body):
        examples.append({**body, "t": tag})

    examples: list[dict] = []
    frames()
    for body in examples:
        answers.append(await fuzzer.answer_to(body))
    assert len(answers) == len(examples)
    assert {a.t for a in answers} <= {"ack", "error"}
    assert any(a.t == "error" and a.code.startswith("msg/") for a in answers)
    if fuzzer.conn is not None:
        await fuzzer.conn.close()
