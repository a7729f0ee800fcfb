"""``POST /api/analysis``: the analyst over HTTP, for a finished game or any record.

The body names a finished game (``{"game": id}``) or gives a record
(``{"variant", "fen"?, "moves": [...]}``: an imported game, a position to study). The
answer streams as newline-delimited JSON, one line as each position is evaluated, so
a page can draw the graph as it fills and nothing of the analysis lives on the node
after the request (a later request may reach any node):

- ``{"t": "start", "variant", "start_fen", "moves", "fens", "white_moves", "nodes"}``
- ``{"t": "position", "ply", "white_to_move", "eval", "best", "pv", "depth", "nodes",
  "win_in"}`` for the positions after 0, 1, ... moves, in order;
- ``{"t": "done", "moves": [{"ply", "loss", "judgement"}], "summary": {...}}``.

A game in play is never analysed (``analysis/game_in_play``): the analyst must not
help a player during their game. Each client address may ask ``analyses_per_ip``
times per ``analyses_window_s`` (``analysis/limited``, 429).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from engine import EngineError
from engine.analysis import MAX_PLIES, judge_moves, replayed, summary
from engine.position import WHITE
from protocol.messages import ErrorCode
from server.core.record import GameRecord
from server.web.api import BadRequest, _body, _variant, refusal
from server.web.limits import Window, client_ip


class AnalysisLimits:
    """Analyses per client address in a sliding window (``limit`` <= 0: no cap)."""

    def __init__(self, limit: int, window_s: float):
        self.limit, self.window_s = limit, window_s
        self._windows: dict[str, Window] = {}

    def allow(self, ip: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        if len(self._windows) > 10_000:  # a flood of addresses: start counting afresh
            self._windows.clear()
        window = self._windows.setdefault(ip, Window(self.limit, self.window_s))
        return window.allow(now)


def _moves(body: dict[str, Any]) -> list[str]:
    moves = body.get("moves", [])
    if not isinstance(moves, list) or not all(
        isinstance(move, str) and 0 < len(move) <= 64 for move in moves
    ):
        raise BadRequest(
            ErrorCode.API_BAD_FIELD, field="moves", expected="a list of moves in notation"
        )
    if len(moves) > MAX_PLIES:
        raise BadRequest(
            ErrorCode.API_BAD_FIELD, field="moves", expected=f"at most {MAX_PLIES} moves"
        )
    return moves


def _fen(body: dict[str, Any]) -> str | None:
    fen = body.get("fen")
    if fen is not None and (not isinstance(fen, str) or len(fen) > 1000):
        raise BadRequest(ErrorCode.API_BAD_FEN, why="'fen' must be a FEN string")
    return fen


async def _record_of(request: Request, body: dict[str, Any]) -> tuple[str, str | None, list[str]]:
    game_id = body.get("game")
    if game_id is None:
        return _variant(body), _fen(body), _moves(body)
    if not isinstance(game_id, str) or len(game_id) > 64:
        raise BadRequest(ErrorCode.API_BAD_FIELD, field="game", expected="a game id")
    record: GameRecord | None = await request.app.state.store.load(game_id)
    if record is None:
        raise BadRequest(ErrorCode.ROOM_NOT_FOUND, 404)
    if record.result is None:
        raise BadRequest(ErrorCode.ANALYSIS_GAME_IN_PLAY, 409)
    return record.variant, record.start_fen, list(record.moves)


async def analyse(request: Request) -> Response:
    analyst = request.app.state.analyst
    if analyst is None:
        return refusal(ErrorCode.COMPUTER_UNAVAILABLE, 503)
    try:
        variant, start_fen, moves = await _record_of(request, await _body(request))
        try:
            game = replayed(variant, start_fen, moves)
        except EngineError as exc:
            if "fen" in type(exc).__name__.lower():
                raise BadRequest(ErrorCode.API_BAD_FEN, why=exc) from None
            raise BadRequest(
                ErrorCode.API_BAD_FIELD, field="moves", expected=f"moves that replay ({exc})"
            ) from None
        ip = client_ip(request.scope, request.app.state.trusted_networks)
        if not request.app.state.analysis_limits.allow(ip):
            raise BadRequest(ErrorCode.ANALYSIS_LIMITED, 429)
    except BadRequest as bad:
        return bad.response()

    position = game.start_position
    fens, white_moves = [position.fen()], []
    for move in game.moves:
        white_moves.append(position.turn == WHITE)
        position = position.play(move)
        fens.append(position.fen())
    notation = list(game.notation)

    async def lines() -> AsyncIterator[bytes]:
        yield _line(
            {
                "t": "start",
                "variant": variant,
                "start_fen": game.start_fen,
                "moves": notation,
                "fens": fens,
                "white_moves": white_moves,
                "nodes": analyst.nodes,
            }
        )
        evals: list[int] = []
        async for found in analyst.positions(variant, start_fen, moves):
            for entry in found:
                evals.append(int(entry["eval"]))
                yield _line({"t": "position", **entry})
        judged = judge_moves(evals, white_moves)
        yield _line({"t": "done", "moves": judged, "summary": summary(judged, white_moves)})

    return StreamingResponse(
        lines(), media_type="application/x-ndjson", headers={"cache-control": "no-store"}
    )


def _line(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"
