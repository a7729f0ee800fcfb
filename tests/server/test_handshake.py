"""The start of a socket as protocol/README.md describes it (issue 31 point 6): the
subprotocol offered, a ``hello`` that names its version, and required fields."""

from __future__ import annotations

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from protocol import messages as m
from protocol.client import Kondavo


async def test_a_handshake_offering_only_another_subprotocol_is_refused_with_403(k: Kondavo):
    white = await k.create(variant="english")
    for path in (f"/ws/games/{white.game}", "/ws/lobby"):
        with pytest.raises(InvalidStatus) as refused:
            await connect(f"{k.ws_url}{path}", subprotocols=["graphql-ws"])
        assert refused.value.response.status_code == 403
    async with connect(
        f"{k.ws_url}/ws/games/{white.game}", subprotocols=["graphql-ws", m.SUBPROTOCOL]
    ) as ws:
        assert ws.subprotocol == m.SUBPROTOCOL
    async with connect(f"{k.ws_url}/ws/games/{white.game}") as ws:  # none offered
        assert ws.subprotocol is None
        await ws.send(m.encode(m.Hello()))
        assert isinstance(m.decode_server(await ws.recv()), m.State)


async def test_a_hello_without_proto_is_refused_as_a_missing_field(k: Kondavo):
    white = await k.create(variant="english")
    async with connect(f"{k.ws_url}/ws/games/{white.game}", subprotocols=[m.SUBPROTOCOL]) as ws:
        await ws.send(msgpack.packb({"t": "hello"}))
        refusal = m.decode_server(await ws.recv())
        assert isinstance(refusal, m.Error) and refusal.code == "msg/missing_field"
        await ws.wait_closed()
        assert ws.close_code == m.CloseCode.NO_HELLO


async def test_a_chat_without_text_is_a_missing_field_with_its_ack(k: Kondavo):
    white = await k.create(variant="english")
    async with k.connect(white) as w:
        await w.send_raw(msgpack.packb({"t": "chat", "ack": 12}))
        refusal = await w.next(lambda x: x.t == "error")
        assert (refusal.code, refusal.ack) == ("msg/missing_field", 12)


async def test_the_http_view_and_the_state_give_the_same_start_fen(k: Kondavo):
    white = await k.create(variant="russian")
    async with k.connect(white) as w:
        state = next(x for x in w.received if isinstance(x, m.State))
    stored = await k.game(white.game)
    assert stored["start_fen"] == state.start_fen and stored["start_fen"].startswith("W:")
