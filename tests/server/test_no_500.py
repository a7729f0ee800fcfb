"""No 500 on any input (issue 31 points 7 and 8): every request to a real server gets a
JSON answer, and every refusal is the README's error shape with a 4xx: the router's own
404 and 405, the inputs a prober found, and whatever hypothesis makes of the API."""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.error
import urllib.parse
import urllib.request

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.client import Kondavo


def raw_request(
    k: Kondavo, method: str, path: str, body: bytes | None = None, headers: dict | None = None
) -> tuple[int, bytes, dict]:
    request = urllib.request.Request(
        k.base_url + path, data=body, method=method, headers=headers or {}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


async def answer(
    k: Kondavo, method: str, path: str, body: bytes | None = None, headers: dict | None = None
) -> tuple[int, object, dict]:
    status, raw, head = await asyncio.to_thread(raw_request, k, method, path, body, headers)
    return status, json.loads(raw), head


def refused_with(status_and_body, status: int, code: str) -> str:
    got, body, _ = status_and_body
    assert got == status, (got, body)
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]["message"]


async def test_the_routers_own_404_and_405_answer_json_in_the_error_shape(k: Kondavo):
    refused_with(await answer(k, "GET", "/api/nothing-here"), 404, "api/not_found")
    refused_with(await answer(k, "GET", "/no/such/page"), 404, "api/not_found")
    got = await answer(k, "DELETE", "/api/games")
    refused_with(got, 405, "api/method")
    assert "POST" in got[2].get("allow", got[2].get("Allow", ""))


async def test_a_lone_surrogate_in_any_field_is_bad_json_not_a_500(k: Kondavo):
    white = await k.create(variant="english")
    for path, raw in [
        ("/api/games", b'{"variant": "\\ud800"}'),
        ("/api/games", b'{"name": "a\\udfff"}'),
        (f"/api/games/{white.game}/join", b'{"invite": "\\ud800"}'),
    ]:
        refused_with(await answer(k, "POST", path, raw), 400, "api/bad_json")


async def test_json_nested_eight_thousand_deep_is_bad_json(k: Kondavo):
    deep = b'{"clock": ' + b"[" * 8000 + b"]" * 8000 + b"}"
    refused_with(await answer(k, "POST", "/api/games", deep), 400, "api/bad_json")


async def test_a_limit_of_other_digits_or_of_thousands_of_digits_is_a_bad_field(k: Kondavo):
    for limit in ("²", "٣", "9" * 5000, "-1", "0", "101", ""):
        query = urllib.parse.urlencode({"limit": limit})
        got = await answer(k, "GET", f"/api/ratings/english?{query}")
        refused_with(got, 400, "api/bad_field")


async def test_a_huge_declared_body_is_refused_before_it_is_sent(k: Kondavo):
    host, port = k.base_url.removeprefix("http://").split(":")

    def promise_ten_mib() -> bytes:
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\n"
                b"Content-Length: 10485760\r\n\r\n{"
            )  # one byte of 10 MiB sent
            answer = b""
            while b"}}" not in answer and (chunk := sock.recv(65536)):
                answer += chunk
            return answer

    # Answered with the body's rest never sent: the socket's 5 s timeout would fail
    # the read had the server waited for it.
    head = await asyncio.to_thread(promise_ten_mib)
    assert head.startswith(b"HTTP/1.1 413"), head[:80]
    assert b"api/bad_json" in head


async def test_a_body_without_a_length_is_counted_as_it_is_read(k: Kondavo):
    # 20 KiB of spaces, sent chunked: past the 16 KiB limit, but little enough that the
    # server has read all of it off the socket when it answers and closes. A larger body
    # left unread in the server's socket makes its close a reset, which may reach the
    # client before it has read the 413 (seen under load with 100 KiB).
    def chunks():
        for _ in range(2):
            yield b" " * (10 * 1024)

    status, raw, _ = await asyncio.to_thread(
        raw_request, k, "POST", "/api/games", chunks(), {"Content-Type": "application/json"}
    )
    assert status == 413 and json.loads(raw)["error"]["code"] == "api/bad_json"


async def test_a_clock_of_no_time_and_a_position_with_a_side_gone_are_refused(k: Kondavo):
    got = await answer(
        k,
        "POST",
        "/api/games",
        json.dumps({"clock": {"initial_s": 0.0004, "increment_s": 0}}).encode(),
    )
    refused_with(got, 400, "api/bad_clock")
    for fen in ("B:W18:B", "W:W:B14"):
        got = await answer(
            k, "POST", "/api/games", json.dumps({"variant": "english", "fen": fen}).encode()
        )
        refused_with(got, 400, "api/bad_fen")


async def test_static_serves_what_the_page_loads_and_no_development_file(k: Kondavo):
    for served in (
        "/static/main.js",
        "/static/style.css",
        "/static/favicon.svg",
        "/static/vendor/msgpack/index.mjs",
    ):
        status, _, _ = await asyncio.to_thread(raw_request, k, "GET", served)
        assert status == 200, served
    for hidden in (
        "/static/package.json",
        "/static/package-lock.json",
        "/static/README.md",
        "/static/tools/vendor.mjs",
        "/static/vendor/msgpack/LICENSE",
        "/static/docs/kondavo.png",
    ):
        refused_with(await answer(k, "GET", hidden), 404, "api/not_found")


# --- hypothesis over the API ----------------------------------------------------------

_json = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
_fields = st.sampled_from(
    [
        "variant",
        "clock",
        "color",
        "opponent",
        "level",
        "rated",
        "name",
        "fen",
        "player",
        "invite",
        "limit",
        "initial_s",
        "increment_s",
    ]
)
_bodies = st.one_of(
    st.dictionaries(st.one_of(_fields, st.text(max_size=8)), _json, max_size=5),
    _json,
    st.binary(max_size=40),
)
_segments = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12).map(
    lambda s: urllib.parse.quote(s, safe="")
)
_queries = st.dictionaries(
    st.sampled_from(["limit", "variant", "x", "since"]), st.text(max_size=12), max_size=3
)


@st.composite
def _requests(draw) -> tuple[str, str, bytes | None]:
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]))
    known = [
        "games",
        "games/{id}",
        "games/{id}/join",
        "games/{id}/pdn",
        "games/{id}/positions",
        "lobby",
        "ratings/{x}",
        "players/{x}",
        "players/{x}/games",
        "import",
        "analysis",
    ]
    shape = draw(st.one_of(st.sampled_from(known), st.lists(_segments, max_size=3).map("/".join)))
    path = "/api/" + shape.replace("{id}", draw(_segments)).replace("{x}", draw(_segments))
    query = urllib.parse.urlencode(draw(_queries))
    body = draw(_bodies)
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return method, path + (f"?{query}" if query else ""), raw if method != "GET" else None


async def test_any_request_to_the_api_gets_json_and_no_status_of_500_or_more(k: Kondavo):
    drawn: list[tuple[str, str, bytes | None]] = []

    @settings(
        max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(_requests())
    def requests(request):
        drawn.append(request)

    requests()
    for method, path, body in drawn:
        status, raw, _ = await asyncio.to_thread(
            raw_request, k, method, path, body, {"Content-Type": "application/json"}
        )
        assert status < 500, (method, path, body, raw[:200])
        if status >= 400:  # (a success may be PDN text or an analysis' stream of lines)
            refusal = json.loads(raw)
            assert set(refusal) == {"error"}, (method, path, refusal)
            assert {"code", "message"} <= set(refusal["error"])
