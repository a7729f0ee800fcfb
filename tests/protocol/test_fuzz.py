"""Fuzzing the decoders (issue 7): any frame in, a message or a ``ProtocolError`` out,
never another exception, and never more memory than a small multiple of the frame.

Three kinds of frames: random bytes; msgpack of random structures, many of them maps
tagged with a real message type and real field names holding values of any type;
and valid messages with bytes flipped, cut off or inserted. The default run tries a
few thousand; ``-m slow`` (and ``.ci/run``) at least 10^5.
"""

from __future__ import annotations

import dataclasses
import random
import tracemalloc
from collections.abc import Iterator

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import messages as m

TAGS = sorted({*m.CLIENT_MESSAGES, *m.SERVER_MESSAGES})
FIELDS = sorted(
    {
        f.name
        for cls in (*m.CLIENT_MESSAGES.values(), *m.SERVER_MESSAGES.values())
        for f in dataclasses.fields(cls)
    }
)
# Peak memory a decode may use: generous for 8 KiB of tiny nested containers (each
# byte can become a Python object), tiny next to what a lying length header asks for.
MEMORY_BOUND = 4 * 1024 * 1024

_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(),
    st.text(max_size=40),
    st.binary(max_size=40),
)
_shallow = st.one_of(
    _leaf,
    st.lists(st.one_of(_leaf, st.lists(_leaf, max_size=3)), max_size=4),
    st.dictionaries(st.text(max_size=6), _leaf, max_size=3),
)
# Two levels deep is enough to reach every check; deeper nesting is in the hostile corpus.
_value = st.one_of(
    _leaf,
    st.lists(_shallow, max_size=4),
    st.dictionaries(
        st.one_of(st.sampled_from(FIELDS), st.text(max_size=8), st.integers(-5, 5)),
        _shallow,
        max_size=4,
    ),
)
_tagged = st.builds(
    lambda tag, body: {**body, "t": tag},
    st.one_of(st.sampled_from(TAGS), st.text(max_size=10), st.integers(-(2**63), 2**63)),
    st.dictionaries(st.sampled_from(FIELDS), _shallow, max_size=5),
)


def _pack(value: object) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _valid_frames() -> st.SearchStrategy[bytes]:
    """Real messages (with defaults), to mutate."""
    return st.sampled_from(
        [m.encode(cls()) for cls in (*m.CLIENT_MESSAGES.values(), *m.SERVER_MESSAGES.values())]
        + [m.encode(m.MakeMove(path=["11", "15"], v=3, ack=1)), m.encode(m.Hello(token="x"))]
    )


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    frame = bytearray(draw(_valid_frames()))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(("flip", "cut", "insert", "header")))
        at = draw(st.integers(0, max(0, len(frame) - 1)))
        if op == "flip" and frame:
            frame[at] = draw(st.integers(0, 255))
        elif op == "cut":
            del frame[at:]
        elif op == "insert":
            frame[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:  # a container or string header claiming a huge length
            frame[at:at] = draw(
                st.sampled_from(
                    [
                        b"\xdd\xff\xff\xff\xff",
                        b"\xdf\xff\xff\xff\xff",
                        b"\xc6\xff\xff\xff\xff",
                        b"\xdb\xff\xff\xff\xff",
                        b"\xc9\xff\xff\xff\xff\x01",
                        b"\xdc\xff\xff",
                    ]
                )
            )
    return bytes(frame)


# Large random frames from a seed: hypothesis draws big binaries byte by byte (slow).
_large = st.builds(
    lambda seed, size: random.Random(seed).randbytes(size),
    st.integers(0, 2**32),
    st.integers(0, m.MAX_FRAME_BYTES + 64),
)

FRAMES = st.one_of(
    st.binary(max_size=64),
    _large,
    _value.map(_pack),
    _tagged.map(_pack),
    _mutated(),
    st.text(max_size=50),  # a text frame
)


def decodes_safely(frame: bytes | str, memory: bool = False) -> None:
    """Both directions: a message of the right kind or a ProtocolError; with ``memory``
    (tracemalloc running), the peak memory of each decode is bounded too."""
    for decode, kind in ((m.decode_client, m.ClientMessage), (m.decode_server, m.ServerMessage)):
        if memory:
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
        try:
            message = decode(frame, m.MAX_FRAME_BYTES)
        except m.ProtocolError as exc:
            assert isinstance(exc.code, m.ErrorCode) and exc.sentence
        else:
            assert isinstance(message, kind)
        if memory:
            peak = tracemalloc.get_traced_memory()[1] - before
            assert peak < MEMORY_BOUND, f"{peak} bytes to decode {len(frame)}"


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )


@fuzz(2_000)
@given(frame=FRAMES)
def test_any_frame_decodes_to_a_message_or_a_protocol_error(frame):
    decodes_safely(frame)


@pytest.mark.slow
# Several minutes on a two-core machine; over 30 on a slow one shared with benchmarks.
@pytest.mark.timeout(3600)
@fuzz(100_000)
@given(frame=FRAMES)
def test_a_hundred_thousand_frames_decode_to_a_message_or_a_protocol_error(frame):
    decodes_safely(frame)


class TestDecodingInBoundedMemory:
    """Decoding measured with tracemalloc, which slows every allocation about four
    times: it runs for this class's tests only, not under the 10^5-frame fuzzing
    (which took over half an hour under it instead of minutes)."""

    @pytest.fixture(scope="class", autouse=True)
    @classmethod
    def traced(cls) -> Iterator[None]:
        tracemalloc.start()
        yield
        tracemalloc.stop()

    @fuzz(300)
    @given(frame=FRAMES)
    def test_decoding_any_frame_stays_within_bounded_memory(self, frame):
        decodes_safely(frame, memory=True)

    @pytest.mark.parametrize(
        "frame",
        [
            b"\xdd\xff\xff\xff\xff",  # an array of 4 billion elements, none present
            b"\xdf\xff\xff\xff\xff",  # a map of 4 billion pairs
            b"\xc6\xff\xff\xff\xff" + b"x" * 100,  # 4 GiB of bytes
            b"\xdb\xff\xff\xff\xff" + b"x" * 100,  # a 4 GiB string
            b"\xc9\xff\xff\xff\xff\x01",  # a 4 GiB extension
            b"\x91" * m.MAX_FRAME_BYTES,  # arrays nested 8192 deep
            b"\x81\xa1t" * (m.MAX_FRAME_BYTES // 3),  # maps nested as deep
            b"\x90" * m.MAX_FRAME_BYTES,  # 8192 empty arrays after one another
            b"\xdc\x1f\xfd" + b"\x90" * 8189,  # one array of 8189 empty arrays
            b"\xde\x0f\xfe" + b"\xa1a\x90" * 2730,  # a map with thousands of keys
            b"\x00" * (m.MAX_FRAME_BYTES + 1),  # too large: refused before unpacking
        ],
    )
    def test_hostile_frames_are_refused_in_bounded_memory(self, frame):
        decodes_safely(frame, memory=True)
        with pytest.raises(m.ProtocolError):
            m.decode_client(frame)
