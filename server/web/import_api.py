"""``POST /api/import``: games from a PDN text (one or many) or a FEN, read by the engine.

The body is JSON ``{pdn: str, variant?: str}`` or ``{fen: str, variant?: str}``; a
script may also send the PDN file itself as ``text/plain`` (or ``application/x-pdn``)
with ``?variant=``. ``variant`` is the rule set of a FEN, and of the games without a
GameType tag (default International, PDN's GameType 20).

The answer ``{games, layouts}`` lists each game with its rule set, tags, moves, the FEN
after every ply, where our draw rules would have ended it (``draws_passed``) and, for a
game the reader refused, its error (code, line, sentence, that line's text). Nothing is
stored: the answer is all there is.

The body is limited: a Content-Length above the limit is refused before anything is
read, and a body without one is counted while it is read (413 ``api/too_large``).
Reading runs in a worker thread so a large file never holds the event loop alone, at
most ``READING_AT_ONCE`` at a time, and ``IMPORTS_PER_ADDRESS`` per client address in
``IMPORTS_WINDOW_S`` (429 ``rate/limited``).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine import VARIANTS, EngineError, Rules, UnknownVariantError, get_rules
from engine.errors import InvalidPdnError
from protocol.messages import ErrorCode
from server.core import imported
from server.web.api import BadRequest, limited_body
from server.web.limits import Window, client_ip

# About 360 games of 80 plies (28,000 plies); the answer, a FEN per ply, is about fifteen
# times the text (3.8 MB). Reading 5,000 plies took 0.1 s on an idle core here.
MAX_IMPORT_BYTES = 256 * 1024
MAX_FEN_CHARS = 1000
_RAW_TYPES = ("text/", "application/x-pdn", "application/x-chess-pdn")
# Reading costs CPU that nothing else bounds: imports per client address in a window,
# and how many are read at once on a node (the others wait their turn).
IMPORTS_PER_ADDRESS = 30
IMPORTS_WINDOW_S = 60.0
READING_AT_ONCE = 2


class ImportGate:
    """One per app, made on the first import (so the app's lifespan need not know it)."""

    def __init__(self) -> None:
        self.windows: dict[str, Window] = {}
        self.reading = asyncio.Semaphore(READING_AT_ONCE)

    def allow(self, ip: str) -> bool:
        if len(self.windows) > 10_000:  # a flood of addresses: start counting afresh
            self.windows.clear()
        window = self.windows.setdefault(ip, Window(IMPORTS_PER_ADDRESS, IMPORTS_WINDOW_S))
        return window.allow(time.monotonic())


def _gate(request: Request) -> ImportGate:
    state = request.app.state
    gate: ImportGate | None = getattr(state, "import_gate", None)
    if gate is None:
        gate = state.import_gate = ImportGate()
    return gate


async def import_games(request: Request) -> Response:
    gate = _gate(request)
    try:
        raw = await _limited_body(request)
        if not gate.allow(client_ip(request.scope, request.app.state.trusted_networks)):
            raise BadRequest(ErrorCode.RATE_LIMITED, 429, what="imports from this address")
        kind, text, variant = _parse(request, raw)
        rules = _rules(variant)
        async with gate.reading:
            if kind == "fen":
                answer = await asyncio.to_thread(_fen_answer, text, rules)
            else:
                answer = await asyncio.to_thread(_pdn_answer, text, rules)
    except BadRequest as bad:
        return bad.response()
    return JSONResponse(answer)


def _too_large() -> BadRequest:
    return BadRequest(ErrorCode.API_TOO_LARGE, 413, limit=MAX_IMPORT_BYTES // 1024)


async def _limited_body(request: Request) -> bytes:
    return await limited_body(request, MAX_IMPORT_BYTES, _too_large())


def _parse(request: Request, raw: bytes) -> tuple[str, str, str | None]:
    """(``"pdn"`` or ``"fen"``, its text, the variant asked for or None)."""
    content_type = request.headers.get("content-type", "").lower()
    if content_type.startswith(_RAW_TYPES):
        try:
            return "pdn", raw.decode("utf-8-sig"), request.query_params.get("variant")
        except UnicodeDecodeError:
            # Old PDN files are often Latin-1 (names with accents): every byte is a letter.
            return "pdn", raw.decode("latin-1"), request.query_params.get("variant")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest(ErrorCode.API_BAD_JSON, limit=MAX_IMPORT_BYTES) from None
    if not isinstance(body, dict):
        raise BadRequest(ErrorCode.API_BAD_JSON, limit=MAX_IMPORT_BYTES)
    given = [name for name in ("pdn", "fen") if body.get(name) is not None]
    if len(given) != 1:
        raise BadRequest(
            ErrorCode.API_BAD_FIELD, field="pdn' or 'fen", expected="sent, and not both"
        )
    kind = given[0]
    text = body[kind]
    if not isinstance(text, str):
        raise BadRequest(ErrorCode.API_BAD_FIELD, field=kind, expected="a string")
    if kind == "fen" and len(text) > MAX_FEN_CHARS:
        raise BadRequest(ErrorCode.API_BAD_FEN, why=f"a FEN is at most {MAX_FEN_CHARS} characters")
    variant = body.get("variant")
    if variant is not None and not isinstance(variant, str):
        raise BadRequest(
            ErrorCode.API_BAD_VARIANT, variant="(not a string)", known=", ".join(VARIANTS)
        )
    return kind, text, variant


def _rules(variant: str | None) -> Rules:
    # Not the site's default rule set: a PDN game without a GameType tag is International
    # by the PDN standard (GameType 20), and the reader's default is that too.
    try:
        return get_rules(variant or "international")
    except UnknownVariantError:
        known = ", ".join(VARIANTS)
        shown = str(variant)[:40]
        raise BadRequest(ErrorCode.API_BAD_VARIANT, variant=f"'{shown}'", known=known) from None


def _pdn_answer(text: str, rules: Rules) -> dict[str, Any]:
    try:
        games = imported.pdn_games(text, rules)
    except InvalidPdnError as exc:
        raise BadRequest(ErrorCode.PDN_INVALID, why=exc.reason) from None
    return {"games": games, "layouts": imported.layouts(games)}


def _fen_answer(fen: str, rules: Rules) -> dict[str, Any]:
    try:
        games = [imported.fen_game(fen, rules)]
    except EngineError as exc:
        raise BadRequest(ErrorCode.API_BAD_FEN, why=str(exc)) from None
    return {"games": games, "layouts": imported.layouts(games)}
