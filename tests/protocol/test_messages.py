"""The wire format: every message survives a round trip; every bad frame gets a typed error."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import types
import typing
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages as m
from protocol.messages import ErrorCode, ProtocolError

ALL = {
    **{("c", t): cls for t, cls in m.CLIENT_MESSAGES.items()},
    **{("s", t): cls for t, cls in m.SERVER_MESSAGES.items()},
}

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**53) + 1, 2**53 - 1), st.text(max_size=20)
)
_json_like = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def strategy_for(tp: Any, limits: dict[str, Any]) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(tp)
    if tp is Any:
        return _json_like
    if tp is type(None):
        return st.none()
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(strategy_for(a, limits) for a in typing.get_args(tp)))
    if origin is Literal:
        return st.sampled_from(typing.get_args(tp))
    if origin is list:
        (item,) = typing.get_args(tp)
        return st.lists(strategy_for(item, {}), max_size=min(limits.get("max_len", 6), 6))
    if origin is dict:
        _, item = typing.get_args(tp)
        return st.dictionaries(st.text(max_size=8), strategy_for(item, {}), max_size=4)
    if tp is str:
        return st.text(max_size=min(limits.get("max_len", 50), 50))
    if tp is int:
        return st.integers(limits.get("min", -(2**53) + 1), 2**53 - 1)
    if tp is bool:
        return st.booleans()
    raise AssertionError(f"no strategy for {tp}")


def message_strategy(cls: type[m.Message]) -> st.SearchStrategy[m.Message]:
    hints = typing.get_type_hints(cls)
    fields = {
        f.name: strategy_for(hints[f.name], f.metadata.get("limits", {}))
        for f in dataclasses.fields(cls)
    }
    return st.builds(cls, **fields)


@pytest.mark.parametrize("key", sorted(ALL), ids=lambda k: f"{k[0]}-{k[1]}")
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_message_survives_encoding_and_decoding(key: tuple[str, str], data: st.DataObject):
    cls = ALL[key]
    message = data.draw(message_strategy(cls))
    decode = m.decode_client if key[0] == "c" else m.decode_server
    assert decode(m.encode(message), max_bytes=None) == message


def test_both_directions_list_the_messages_the_issue_asks_for():
    assert {
        "hello",
        "move",
        "draw_offer",
        "draw_accept",
        "draw_decline",
        "resign",
        "abort",
        "rematch_offer",
        "rematch_accept",
        "rematch_decline",
        "claim_victory",
        "claim_draw",
        "chat",
        "ping",
    } <= set(m.CLIENT_MESSAGES)
    assert {
        "state",
        "moved",
        "draw_offered",
        "draw_declined",
        "presence",
        "over",
        "ack",
        "error",
        "spectators",
        "chat",
        "pong",
        "skip",
    } <= set(m.SERVER_MESSAGES)


def test_every_room_event_carries_a_version():
    for cls in m.SERVER_MESSAGES.values():
        if issubclass(cls, m.Event):
            assert "v" in {f.name for f in dataclasses.fields(cls)}


def test_error_codes_are_area_slash_what_and_unique():
    values = [c.value for c in ErrorCode]
    assert len(values) == len(set(values))
    assert all(re.fullmatch(r"[a-z]+/[a-z_]+", v) for v in values)


def test_the_schema_is_plain_json_and_names_every_message():
    schema = json.loads(json.dumps(m.schema()))
    assert set(schema["client_to_server"]) == set(m.CLIENT_MESSAGES)
    assert set(schema["server_to_client"]) == set(m.SERVER_MESSAGES)
    assert schema["subprotocol"] == "kondavo.v1"


def refused(frame: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        m.decode_client(frame)
    return info.value


def pack(body: Any) -> bytes:
    return msgpack.packb(body, use_bin_type=True)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\xc1", ErrorCode.FRAME_NOT_MSGPACK),  # never-used msgpack byte
        (b"\x93\x01", ErrorCode.FRAME_NOT_MSGPACK),  # truncated array
        (pack({"t": "ping"}) + b"\x00", ErrorCode.FRAME_NOT_MSGPACK),  # trailing bytes
        (b"", ErrorCode.FRAME_NOT_MSGPACK),
        ('{"t": "ping"}', ErrorCode.FRAME_NOT_BINARY),
        (pack([1, 2, 3]), ErrorCode.FRAME_NOT_MAP),
        (pack(42), ErrorCode.FRAME_NOT_MAP),
        (pack("ping"), ErrorCode.FRAME_NOT_MAP),
        (pack({1: "ping"}), ErrorCode.FRAME_NOT_MSGPACK),  # map keys must be strings
        (pack({"n": 1}), ErrorCode.MSG_UNKNOWN_TYPE),
        (pack({"t": 7}), ErrorCode.MSG_UNKNOWN_TYPE),
        (pack({"t": "launch_missiles"}), ErrorCode.MSG_UNKNOWN_TYPE),
        (pack({"t": "state"}), ErrorCode.MSG_UNKNOWN_TYPE),  # a server message sent by a client
        (pack({"t": "ping", "n": "seven"}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "ping", "n": True}), ErrorCode.MSG_BAD_FIELD),  # bool is not an int
        (pack({"t": "ping", "n": 1.5}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "ping", "n": 2**60}), ErrorCode.MSG_BAD_FIELD),  # beyond a JS number
        (pack({"t": "ping", "n": -1}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "move", "path": "11-15"}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "move", "path": [11, 15]}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "move", "path": ["a"] * 65}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "move", "v": False}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "hello", "proto": 1, "token": b"\x00" * 16}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "chat", "text": None}), ErrorCode.MSG_BAD_FIELD),
        (pack({"t": "chat", "text": "x" * (m.MAX_FRAME_BYTES + 1)}), ErrorCode.FRAME_TOO_LARGE),
        (b"\x00" * (m.MAX_FRAME_BYTES + 1), ErrorCode.FRAME_TOO_LARGE),
    ],
)
def test_each_bad_frame_gets_its_own_error_code(frame: Any, code: ErrorCode):
    error = refused(frame)
    assert error.code == code
    assert error.sentence and error.sentence[0].isupper()


def test_an_error_sentence_names_the_field_and_the_type_expected():
    error = refused(pack({"t": "move", "path": [11, 15]}))
    assert error.sentence == "Field 'path' of 'move' must be a list of strings or nil."


def test_unknown_extra_fields_are_ignored_for_forward_compatibility():
    assert m.decode_client(pack({"t": "ping", "n": 3, "later": [1]})) == m.Ping(n=3)


def test_a_missing_field_with_a_default_takes_the_default():
    assert m.decode_client(pack({"t": "hello", "proto": 1})) == m.Hello()
    assert m.decode_client(pack({"t": "move", "notation": "11-15"})) == m.MakeMove(notation="11-15")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_raise_anything_but_a_protocol_error(frame: bytes):
    with contextlib.suppress(ProtocolError):
        m.decode_client(frame)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["t", "n", "v", "path", "token", "since", "text", "ack", "notation"]),
        st.one_of(st.sampled_from(list(m.CLIENT_MESSAGES)), _json_like, st.binary(max_size=4)),
        max_size=5,
    )
)
def test_arbitrary_maps_never_raise_anything_but_a_protocol_error(body: dict[str, Any]):
    try:
        message = m.decode_client(pack(body))
    except ProtocolError:
        return
    assert isinstance(message, m.ClientMessage)


def test_frames_encoded_in_several_threads_at_once_each_decode_to_their_message():
    # encode() reuses a msgpack packer per thread. One packer shared by all threads
    # fails this test under msgpack's pure-Python packer (MSGPACK_PUREPYTHON=1): the
    # frames' bytes mix.
    def encode_many(worker: int) -> list[tuple[m.ServerMessage, bytes]]:
        out = []
        for i in range(2_000):
            message = m.ChatLine(v=i, by="white", name=f"player {worker}", text="x" * (i % 90))
            out.append((message, m.encode(message)))
        return out

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(encode_many, range(4)))
    for pairs in results:
        for message, frame in pairs:
            assert m.decode_server(frame) == message
            assert frame == msgpack.packb(message.to_dict(), use_bin_type=True)


def test_a_packed_list_encodes_as_its_items_and_refuses_every_change():
    items = [["1", "black", False], ["50", "white", True]]
    shared = m.packed(items, [msgpack.packb(item) for item in items])
    assert shared == items
    assert shared.packed == msgpack.packb(items)
    changes = [
        lambda: shared.append(["2", "black", False]),
        lambda: shared.extend([]),
        lambda: shared.insert(0, []),
        lambda: shared.pop(),
        lambda: shared.remove(items[0]),
        lambda: shared.clear(),
        lambda: shared.sort(),
        lambda: shared.reverse(),
        lambda: shared.__setitem__(0, []),
        lambda: shared.__delitem__(0),
        lambda: shared.__iadd__([]),
        lambda: shared.__imul__(2),
    ]
    for change in changes:
        with pytest.raises(TypeError, match="read-only"):
            change()
    # Nothing changed, so the bytes still match the list.
    assert shared.packed == msgpack.packb(list(shared))
