"""The public HTTP API (JSON): create and join games, read them, list the lobby, and
read the rating lists.

Every refusal is ``{"error": {"code", "message"}}`` with a fitting status; no
exception text and no seat token of anyone else ever appears in an answer.
"""

from __future__ import annotations

import json
import math
import secrets
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from engine import VARIANTS, EngineError, Reason, Result, UnknownVariantError, get_rules
from engine.pdn import write_pdn
from protocol.messages import NAME_MAX_SENT, PROTOCOL_VERSION, ErrorCode
from server.core import history, ratings, replay, room, views
from server.core.commands import Join
from server.core.names import InvalidName, clean_name
from server.core.record import GameRecord, SeatRecord
from server.services import lobby
from server.services.games import Games, NotFound, new_game_id, new_token
from server.web.limits import client_ip

MAX_BODY_BYTES = 16 * 1024
MAX_INITIAL_S = 3 * 3600
MAX_INCREMENT_S = 180
DEFAULT_CLOCK = {"initial_s": 300, "increment_s": 3}
# The room's own sentence for a wrong invite (tests check the two answers are equal).
BAD_INVITE = "This invitation is not valid for this game."

_STATUS = {
    ErrorCode.ROOM_NOT_FOUND: 404,
    ErrorCode.SEAT_TAKEN: 409,
    ErrorCode.SEAT_BAD_INVITE: 403,
    ErrorCode.SERVER_BUSY: 503,
}


class BadRequest(Exception):
    def __init__(self, code: ErrorCode, sentence: str, status: int = 400):
        self.code, self.sentence, self.status = code, sentence, status


def refusal(code: ErrorCode, sentence: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": {"code": code.value, "message": sentence}}, status_code=status)


def _base_url(request: Request) -> str:
    configured = request.app.state.settings.public_url
    return configured or str(request.base_url).rstrip("/")


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise BadRequest(ErrorCode.API_BAD_JSON, "The request body is too large.", 413)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest(ErrorCode.API_BAD_JSON, "The request body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise BadRequest(ErrorCode.API_BAD_JSON, "The request body must be a JSON object.")
    return body


def _choice(body: dict[str, Any], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = body.get(name, default)
    if value is None:
        value = default
    if value not in allowed:
        raise BadRequest(ErrorCode.API_BAD_FIELD, f"'{name}' must be one of {', '.join(allowed)}.")
    return str(value)


def _name(body: dict[str, Any]) -> str | None:
    value = body.get("name")
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > NAME_MAX_SENT:
        raise BadRequest(ErrorCode.API_BAD_FIELD, "'name' must be a string (a display name).")
    try:
        return clean_name(value)
    except InvalidName as bad:
        raise BadRequest(bad.code, bad.sentence) from None


def _seconds(clock: dict[str, Any], name: str, limit: float) -> float:
    value = clock.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadRequest(ErrorCode.API_BAD_CLOCK, f"'clock.{name}' must be a number of seconds.")
    if not 0 <= value <= limit:
        raise BadRequest(ErrorCode.API_BAD_CLOCK, f"'clock.{name}' must be between 0 and {limit}.")
    return float(value)


def _clock(body: dict[str, Any]) -> tuple[int | None, int]:
    clock = body.get("clock", DEFAULT_CLOCK)
    if clock is None:
        return None, 0
    if not isinstance(clock, dict):
        raise BadRequest(
            ErrorCode.API_BAD_CLOCK, "'clock' must be {initial_s, increment_s} or null."
        )
    initial = _seconds(clock, "initial_s", MAX_INITIAL_S)
    increment = _seconds(clock, "increment_s", MAX_INCREMENT_S)
    if initial <= 0:
        raise BadRequest(ErrorCode.API_BAD_CLOCK, "'clock.initial_s' must be more than 0.")
    return round(initial * 1000), round(increment * 1000)


def _variant(body: dict[str, Any]) -> str:
    variant = body.get("variant", "english")
    if not isinstance(variant, str):
        raise BadRequest(ErrorCode.API_BAD_VARIANT, "'variant' must be a string.")
    try:
        return get_rules(variant).id
    except UnknownVariantError:
        known = ", ".join(VARIANTS)
        shown = variant[:40]
        raise BadRequest(
            ErrorCode.API_BAD_VARIANT, f"Unknown variant '{shown}'; choose one of {known}."
        ) from None


def _fen(body: dict[str, Any], variant: str) -> str | None:
    fen = body.get("fen")
    if fen is None:
        return None
    if not isinstance(fen, str) or len(fen) > 1000:
        raise BadRequest(ErrorCode.API_BAD_FEN, "'fen' must be a FEN string.")
    try:
        game = replay.replay(variant, fen, [])
    except EngineError as exc:
        raise BadRequest(ErrorCode.API_BAD_FEN, str(exc)) from None
    if game.result is not None:
        raise BadRequest(ErrorCode.API_BAD_FEN, "The game in this position is already over.")
    return fen


def _level(body: dict[str, Any]) -> int | None:
    level = body.get("level")
    if level is None:
        return None
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 8:
        raise BadRequest(ErrorCode.API_BAD_FIELD, "'level' must be a whole number from 1 to 8.")
    return level


DEFAULT_LEVEL = 3


def _player(body: dict[str, Any]) -> str | None:
    """The browser's secret player id (``player``), checked; None if not sent."""
    value = body.get("player")
    if value is None:
        return None
    if not ratings.valid_player_id(value):
        raise BadRequest(
            ErrorCode.API_BAD_FIELD,
            "'player' must be 16 to 64 letters, digits, '-' or '_' (your browser's player id).",
        )
    return str(value)


async def _seat_rating(request: Request, variant: str, player: str | None) -> ratings.Entry | None:
    if player is None:
        return None
    return await ratings.current(request.app.state.ratings, variant, player)


def _seat_answer(request: Request, record: GameRecord, side: str, token: str) -> dict[str, Any]:
    base = _base_url(request)
    return {
        "id": record.id,
        "url": f"{base}/g/{record.id}",
        # ``side`` repeats ``color`` in the protocol's own word for it.
        "seat": {"color": side, "side": side, "token": token},
    }


async def create_game(request: Request) -> Response:
    try:
        body = await _body(request)
        variant = _variant(body)
        initial_ms, increment_ms = _clock(body)
        colour = _choice(
            body, "color", ("white", "black", "random"), body.get("colour") or "random"
        )
        opponent = _choice(body, "opponent", ("friend", "open", "computer"), "friend")
        level = _level(body)
        rated = body.get("rated", False)
        if not isinstance(rated, bool):
            raise BadRequest(ErrorCode.API_BAD_FIELD, "'rated' must be true or false.")
        name = _name(body)
        fen = _fen(body, variant)
        secret = _player(body)
        if rated and secret is None:
            raise BadRequest(
                ErrorCode.RATED_NO_PLAYER, "A rated game needs your player id ('player')."
            )
    except BadRequest as bad:
        return refusal(bad.code, bad.sentence, bad.status)
    level = (level or DEFAULT_LEVEL) if opponent == "computer" else None
    player = ratings.public_id(secret) if secret is not None else None
    rating = await _seat_rating(request, variant, player)
    if opponent == "computer" and request.app.state.bot is None:
        return refusal(ErrorCode.COMPUTER_UNAVAILABLE, "Playing the computer is not available yet.")
    state = request.app.state
    if not state.address_limits.create_game(client_ip(request.scope, state.trusted_networks)):
        return refusal(
            ErrorCode.RATE_LIMITED, "Too many new games from this address; try again later.", 429
        )
    games: Games = request.app.state.games
    side = secrets.choice(("white", "black")) if colour == "random" else colour
    token = new_token()
    invite = new_token() if opponent == "friend" else None
    settings = request.app.state.settings
    while True:
        record = room.new_game(
            game_id=new_game_id(),
            variant=variant,
            now=await games.store.now(),
            creator=side,  # type: ignore[arg-type]
            creator_token=token,
            creator_name=name,
            invite=invite,
            opponent=opponent,  # type: ignore[arg-type]
            initial_ms=initial_ms,
            increment_ms=increment_ms,
            start_fen=fen,
            claim_after_ms=round(settings.claim_after_s * 1000),
            level=level,
            rated=rated,
            creator_player=player,
            creator_rating=round(rating.rating.rating) if rating else None,
            creator_provisional=rating.rating.provisional if rating else False,
        )
        if opponent == "computer":
            _seat_the_computer(record, level or DEFAULT_LEVEL)
        if await games.create(record):
            break
    if opponent == "computer":
        await request.app.state.bot_table.watch(record)
        await request.app.state.chronicle(record)  # on at once: in the history as live
    answer = _seat_answer(request, record, side, token)
    if player is not None:
        answer["player"] = player  # the public id: ratings are shown under it
    if invite is not None:
        # A fragment is never sent to a server, so the invite stays out of access logs.
        answer["invite_url"] = f"{answer['url']}#invite={invite}"
    return JSONResponse(answer, status_code=201)


def _seat_the_computer(record: GameRecord, level: int) -> None:
    """The computer takes the free seat at once; its token never leaves the server."""
    free = "black" if record.seat("white") is not None else "white"
    fixed = ratings.computer_entry(level)
    record.seats[free] = SeatRecord(
        token=new_token(),
        name=f"Computer level {level}",
        bot=True,
        gone_since=None,
        player=ratings.computer_id(level),
        rating=round(fixed.rating.rating),
        provisional=False,
    )
    record.status = "playing"
    record.invite = None


async def join_game(request: Request) -> Response:
    game_id = request.path_params["id"]
    try:
        body = await _body(request)
        name = _name(body)
        invite = body.get("invite")
        if invite is not None and not isinstance(invite, str):
            raise BadRequest(ErrorCode.API_BAD_FIELD, "'invite' must be a string.")
        secret = _player(body)
    except BadRequest as bad:
        return refusal(bad.code, bad.sentence, bad.status)
    games: Games = request.app.state.games
    token = new_token()
    player = ratings.public_id(secret) if secret is not None else None
    waiting = await games.store.load(game_id)
    rating = await _seat_rating(request, waiting.variant, player) if waiting else None
    join = Join(
        token=token,
        invite=invite,
        name=name,
        player=player,
        rating=round(rating.rating.rating) if rating else None,
        provisional=rating.rating.provisional if rating else False,
    )
    outcome = await games.run(game_id, join)
    if isinstance(outcome, NotFound) and invite is not None:
        # With an invite, a wrong game id answers exactly as a wrong invite does.
        return refusal(ErrorCode.SEAT_BAD_INVITE, BAD_INVITE, 403)
    if isinstance(outcome, NotFound):
        return refusal(outcome.refusal.code, outcome.refusal.sentence, 404)
    if outcome.refusal is not None:
        code = outcome.refusal.code
        return refusal(code, outcome.refusal.sentence, _STATUS.get(code, 400))
    side = room.seat_of(outcome.record, token)
    assert side is not None
    answer = _seat_answer(request, outcome.record, side, token)
    if player is not None:
        answer["player"] = player  # the public id: ratings are shown under it
    return JSONResponse(answer)


async def _record(request: Request) -> GameRecord | None:
    return await request.app.state.store.load(request.path_params["id"])


async def game_state(request: Request) -> Response:
    record = await _record(request)
    if record is None:
        return refusal(ErrorCode.ROOM_NOT_FOUND, "There is no game with this id.", 404)
    store = request.app.state.store
    now = await store.now()
    return JSONResponse(views.public(record, await store.spectators(record.id), now))


async def game_positions(request: Request) -> Response:
    record = await _record(request)
    if record is None:
        return refusal(ErrorCode.ROOM_NOT_FOUND, "There is no game with this id.", 404)
    raw = request.query_params.get("from", "0")
    if not raw.isdigit() or int(raw) > len(record.moves):
        sentence = f"'from' must be a ply from 0 to {len(record.moves)}."
        return refusal(ErrorCode.API_BAD_FIELD, sentence)
    return JSONResponse({"game": record.id, "plies": views.positions(record, int(raw))})


async def game_pdn(request: Request) -> Response:
    record = await _record(request)
    if record is None:
        return refusal(ErrorCode.ROOM_NOT_FOUND, "There is no game with this id.", 404)
    game = replay.replay(record.variant, record.start_fen, record.moves).copy()
    if game.result is None and record.result is not None and record.reason is not None:
        game.finish(Result(record.result), Reason(record.reason))
    names = views.players(record)
    created = datetime.fromtimestamp(record.created_at / 1000, UTC)
    tags = {
        "Event": "Kondavo game",
        "Site": f"{_base_url(request)}/g/{record.id}",
        "Date": created.strftime("%Y.%m.%d"),
        "White": (names["white"] or {}).get("name") or "Anonymous",
        "Black": (names["black"] or {}).get("name") or "Anonymous",
    }
    return PlainTextResponse(
        game.pdn(tags),
        headers={"content-disposition": f'inline; filename="kondavo-{record.id}.pdn"'},
    )


async def lobby_listing(request: Request) -> Response:
    listing = await lobby.listing(request.app.state.store)
    return JSONResponse({"open": listing.open, "live": listing.live})


async def leaderboard(request: Request) -> Response:
    """``GET /api/ratings/{variant}?limit=N``: the rule set's best rated players."""
    try:
        variant = _variant({"variant": request.path_params["variant"]})
        raw = request.query_params.get("limit", "50")
        if not raw.isdigit() or not 1 <= int(raw) <= ratings.LEADERBOARD_MAX:
            raise BadRequest(
                ErrorCode.API_BAD_FIELD,
                f"'limit' must be a whole number from 1 to {ratings.LEADERBOARD_MAX}.",
            )
    except BadRequest as bad:
        return refusal(bad.code, bad.sentence, bad.status)
    best = await request.app.state.ratings.top(variant, int(raw))
    return JSONResponse(
        {
            "variant": variant,
            "players": [
                {"rank": rank, "player": player, "name": entry.name, **entry.shown()}
                for rank, (player, entry) in enumerate(best, start=1)
            ],
        }
    )


def _public_player(request: Request) -> str:
    player = request.path_params["id"]
    if not ratings.valid_public_id(player):
        raise BadRequest(
            ErrorCode.API_BAD_FIELD,
            "A player id is 16 to 64 letters, digits, '-' or '_', or computer-1 to computer-8.",
        )
    return str(player)


async def _history(request: Request) -> tuple[str, list[dict[str, Any]]]:
    """The player of the path and its games, newest first, filtered by ``?variant=``."""
    player = _public_player(request)
    wanted = request.query_params.get("variant")
    if wanted is not None:
        wanted = _variant({"variant": wanted})
    found = await request.app.state.store.player_games(player)
    return player, [g for g in found if wanted is None or g["variant"] == wanted]


async def player_games(request: Request) -> Response:
    """``GET /api/players/{id}/games[?variant=]``: the player's games, live ones first,
    then newest first, and its rating after each rated game per rule set."""
    try:
        player, found = await _history(request)
    except BadRequest as bad:
        return refusal(bad.code, bad.sentence, bad.status)
    listing = sorted(found, key=lambda g: g["status"] != "live")  # stable: newest first
    return JSONResponse({
        "player": player,
        "games": [history.listed(g) for g in listing],
        "ratings": history.rating_history(found),
    })


async def player_games_pdn(request: Request) -> Response:
    """``GET /api/players/{id}/games.pdn[?variant=]``: every finished game as one PDN file."""
    try:
        player, found = await _history(request)
    except BadRequest as bad:
        return refusal(bad.code, bad.sentence, bad.status)
    site = _base_url(request)
    written = [
        write_pdn(
            history.game_of(g["variant"], g.get("start_fen"), g["moves"], g["result"], g["reason"]),
            history.pdn_tags(g, site),
        )
        for g in reversed(found)  # oldest first, as a file of games is read
        if g["status"] == "finished"
    ]
    return PlainTextResponse(
        "\n".join(written),
        headers={"content-disposition": f'attachment; filename="kondavo-{player}.pdn"'},
    )


async def player_ratings(request: Request) -> Response:
    """``GET /api/players/{id}``: a player's (public id) or a computer level's ratings."""
    player = request.path_params["id"]
    if not ratings.valid_public_id(player):
        return refusal(
            ErrorCode.API_BAD_FIELD,
            "A player id is 16 to 64 letters, digits, '-' or '_', or computer-1 to computer-8.",
        )
    found = await ratings.player_ratings(request.app.state.ratings, player)
    names = [entry.name for entry in found.values() if entry.name]
    return JSONResponse(
        {
            "player": player,
            "computer": ratings.computer_level(player) is not None,
            "name": names[0] if names else None,
            "ratings": {variant: entry.shown() for variant, entry in found.items()},
        }
    )


async def healthz(request: Request) -> Response:
    return JSONResponse(
        {"status": "ok", "store": request.app.state.store.name, "protocol": PROTOCOL_VERSION}
    )
