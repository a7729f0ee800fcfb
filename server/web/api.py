"""The public HTTP API (JSON): create and join games, read them, list the lobby, and
read the rating lists.

Every refusal is ``{"error": {"code", "message"}}`` with a fitting status; no
exception text and no seat token of anyone else ever appears in an answer.
"""

from __future__ import annotations

import json
import math
import re
import secrets
from datetime import UTC, datetime
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from engine import DEFAULT_VARIANT, VARIANTS, EngineError, Result, UnknownVariantError, get_rules
from engine.pdn import write_pdn
from protocol.messages import NAME_MAX_SENT, PROTOCOL_VERSION, ErrorCode, sentence
from server.core import examples, history, ratings, replay, room, views
from server.core.commands import Join
from server.core.names import InvalidName, clean_name
from server.core.record import GameRecord, SeatRecord
from server.services import lobby
from server.services.games import Games, NotFound, new_game_id, new_token
from server.web.limits import client_ip

MAX_BODY_BYTES = 16 * 1024
MAX_INITIAL_S = 3 * 3600
MIN_INITIAL_S = 0.1
MAX_INCREMENT_S = 180
# What a player id in a path looks like (a person's public id or a computer level).
PUBLIC_ID = "a player id: 16 to 64 letters, digits, '-' or '_', or computer-1 to computer-8"
DEFAULT_CLOCK = {"initial_s": 300, "increment_s": 3}
# The room's own sentence for a wrong invite (tests check the two answers are equal).
BAD_INVITE = sentence(ErrorCode.SEAT_BAD_INVITE)

_STATUS = {
    ErrorCode.ROOM_NOT_FOUND: 404,
    ErrorCode.SEAT_TAKEN: 409,
    ErrorCode.SEAT_BAD_INVITE: 403,
    ErrorCode.SERVER_BUSY: 503,
}


class BadRequest(Exception):
    """A request refused: its code, status and the slots of the code's sentence."""

    def __init__(
        self, code: ErrorCode, status: int = 400, *, words: str | None = None, **slots: object
    ):
        # ``words``: a sentence already made from the table (a name's refusal).
        self.code, self.status = code, status
        self.sentence = words if words is not None else sentence(code, **slots)

    def response(self) -> JSONResponse:
        return _refused(self.code, self.sentence, self.status)


def refusal(code: ErrorCode, status: int = 400, **slots: object) -> JSONResponse:
    """The answer refusing a request: the code and its sentence (``SENTENCES``)."""
    return _refused(code, sentence(code, **slots), status)


def _refused(code: ErrorCode, words: str, status: int) -> JSONResponse:
    return _AsciiJSON({"error": {"code": code.value, "message": words}}, status_code=status)


class _AsciiJSON(JSONResponse):
    """JSON with every non-ASCII character escaped: a refusal may quote what a client
    sent (a variant, a path), and a lone surrogate in it must not fail the answer."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":")).encode("ascii")


def _base_url(request: Request) -> str:
    configured = request.app.state.settings.public_url
    return configured or str(request.base_url).rstrip("/")


async def limited_body(request: Request, limit: int, too_large: BadRequest) -> bytes:
    """The request's body, refused with ``too_large`` past ``limit`` bytes: at once when
    its Content-Length says so, else as soon as the bytes read pass it (a body sent
    without a length is never read whole first)."""
    declared = request.headers.get("content-length")
    if declared is not None and _DIGITS.fullmatch(declared) and int(declared) > limit:
        raise too_large
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:
        raise BadRequest(ErrorCode.API_BAD_JSON, limit=limit) from None
    return b"".join(chunks)


# ASCII digits only (str.isdigit also takes '²' and other digits int() refuses), and
# few enough that int() never meets Python's limit on long integer strings.
_DIGITS = re.compile(r"[0-9]{1,18}")
# JSON nested deeper than this is refused: no request of ours nests more than three.
MAX_DEPTH = 16


async def _body(request: Request) -> dict[str, Any]:
    too_large = BadRequest(ErrorCode.API_BAD_JSON, 413, limit=MAX_BODY_BYTES)
    raw = await limited_body(request, MAX_BODY_BYTES, too_large)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadRequest(ErrorCode.API_BAD_JSON, limit=MAX_BODY_BYTES) from None
    if not isinstance(body, dict) or not _plain(body):
        raise BadRequest(ErrorCode.API_BAD_JSON, limit=MAX_BODY_BYTES)
    return body


def _plain(body: Any) -> bool:
    """Whether ``body`` nests at most ``MAX_DEPTH`` deep and all its text is Unicode
    (JSON's escapes can spell a lone surrogate, which no answer or store can encode)."""
    stack = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if not _encodable(value):
                return False
        elif isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                return False
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and not _encodable(key):
                    return False
                stack.append((item, depth + 1))
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _choice(body: dict[str, Any], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = body.get(name, default)
    if value is None:
        value = default
    if value not in allowed:
        raise BadRequest(
            ErrorCode.API_BAD_FIELD, field=name, expected=f"one of {', '.join(allowed)}"
        )
    return str(value)


def _name(body: dict[str, Any]) -> str | None:
    value = body.get("name")
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > NAME_MAX_SENT:
        raise BadRequest(
            ErrorCode.API_BAD_FIELD, field="name", expected="a string (a display name)"
        )
    try:
        return clean_name(value)
    except InvalidName as bad:
        raise BadRequest(bad.code, words=bad.sentence) from None


def _seconds(clock: dict[str, Any], name: str, limit: float) -> float:
    value = clock.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadRequest(
            ErrorCode.API_BAD_CLOCK, field=f"clock.{name}", expected="a number of seconds"
        )
    if not 0 <= value <= limit:
        raise BadRequest(
            ErrorCode.API_BAD_CLOCK, field=f"clock.{name}", expected=f"between 0 and {limit}"
        )
    return float(value)


def _clock(body: dict[str, Any]) -> tuple[int | None, int]:
    clock = body.get("clock", DEFAULT_CLOCK)
    if clock is None:
        return None, 0
    if not isinstance(clock, dict):
        raise BadRequest(
            ErrorCode.API_BAD_CLOCK, field="clock", expected="{initial_s, increment_s} or null"
        )
    initial = _seconds(clock, "initial_s", MAX_INITIAL_S)
    increment = _seconds(clock, "increment_s", MAX_INCREMENT_S)
    if initial < MIN_INITIAL_S:
        # Less would be stored as no time at all (the clock keeps whole milliseconds).
        raise BadRequest(
            ErrorCode.API_BAD_CLOCK, field="clock.initial_s", expected=f"at least {MIN_INITIAL_S}"
        )
    return round(initial * 1000), round(increment * 1000)


def _variant(body: dict[str, Any]) -> str:
    variant = body.get("variant", DEFAULT_VARIANT)
    if not isinstance(variant, str):
        known = ", ".join(VARIANTS)
        raise BadRequest(ErrorCode.API_BAD_VARIANT, variant="(not a string)", known=known)
    try:
        return get_rules(variant).id
    except UnknownVariantError:
        known = ", ".join(VARIANTS)
        shown = variant[:40]
        raise BadRequest(ErrorCode.API_BAD_VARIANT, variant=f"'{shown}'", known=known) from None


def _fen(body: dict[str, Any], variant: str) -> str | None:
    fen = body.get("fen")
    if fen is None:
        return None
    if not isinstance(fen, str) or len(fen) > 1000:
        raise BadRequest(ErrorCode.API_BAD_FEN, why="'fen' must be a FEN string")
    try:
        game = replay.replay(variant, fen, [])
    except EngineError as exc:
        raise BadRequest(ErrorCode.API_BAD_FEN, why=exc) from None
    position = game.position
    if game.result is not None or not position.white or not position.black:
        # A side without pieces has lost, whoever is to move.
        raise BadRequest(ErrorCode.API_BAD_FEN, why="the game in this position is already over")
    return fen


def _level(body: dict[str, Any]) -> int | None:
    level = body.get("level")
    if level is None:
        return None
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 8:
        raise BadRequest(
            ErrorCode.API_BAD_FIELD, field="level", expected="a whole number from 1 to 8"
        )
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
            field="player",
            expected="16 to 64 letters, digits, '-' or '_' (your browser's player id)",
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
            raise BadRequest(ErrorCode.API_BAD_FIELD, field="rated", expected="true or false")
        name = _name(body)
        fen = _fen(body, variant)
        secret = _player(body)
        if rated and secret is None:
            raise BadRequest(ErrorCode.RATED_NO_PLAYER)
    except BadRequest as bad:
        return bad.response()
    level = (level or DEFAULT_LEVEL) if opponent == "computer" else None
    player = ratings.public_id(secret) if secret is not None else None
    rating = await _seat_rating(request, variant, player)
    if opponent == "computer" and request.app.state.bot is None:
        return refusal(ErrorCode.COMPUTER_UNAVAILABLE)
    state = request.app.state
    if not state.address_limits.create_game(client_ip(request.scope, state.trusted_networks)):
        return refusal(ErrorCode.RATE_LIMITED, 429, what="new games from this address")
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
            first_move_ms=round(settings.first_move_s * 1000),
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
            raise BadRequest(ErrorCode.API_BAD_FIELD, field="invite", expected="a string")
        secret = _player(body)
    except BadRequest as bad:
        return bad.response()
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
        return refusal(ErrorCode.SEAT_BAD_INVITE, 403)
    if isinstance(outcome, NotFound):
        return _refused(outcome.refusal.code, outcome.refusal.sentence, 404)
    if outcome.refusal is not None:
        code = outcome.refusal.code
        return _refused(code, outcome.refusal.sentence, _STATUS.get(code, 400))
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
        return refusal(ErrorCode.ROOM_NOT_FOUND, 404)
    store = request.app.state.store
    now = await store.now()
    return JSONResponse(views.public(record, await store.spectators(record.id), now))


async def game_positions(request: Request) -> Response:
    record = await _record(request)
    if record is None:
        return refusal(ErrorCode.ROOM_NOT_FOUND, 404)
    raw = request.query_params.get("from", "0")
    if not raw.isdigit() or int(raw) > len(record.moves):
        ply = f"a ply from 0 to {len(record.moves)}"
        return refusal(ErrorCode.API_BAD_FIELD, field="from", expected=ply)
    return JSONResponse({"game": record.id, "plies": views.positions(record, int(raw))})


async def rule_examples(request: Request) -> Response:
    """The start position and worked examples of one rule set, for its rules page."""
    try:
        answer = examples.examples(request.path_params["variant"])
    except UnknownVariantError:
        shown = request.path_params["variant"][:40]
        return refusal(
            ErrorCode.API_BAD_VARIANT, 404, variant=f"'{shown}'", known=", ".join(VARIANTS)
        )
    return JSONResponse(answer, headers={"cache-control": "public, max-age=3600"})


async def game_pdn(request: Request) -> Response:
    record = await _record(request)
    if record is None:
        return refusal(ErrorCode.ROOM_NOT_FOUND, 404)
    game = replay.replay(record.variant, record.start_fen, record.moves).copy()
    if game.result is None and record.result is not None and record.reason is not None:
        game.finish(Result(record.result), record.reason)
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
        if not _DIGITS.fullmatch(raw) or not 1 <= int(raw) <= ratings.LEADERBOARD_MAX:
            raise BadRequest(
                ErrorCode.API_BAD_FIELD,
                field="limit",
                expected=f"a whole number from 1 to {ratings.LEADERBOARD_MAX}",
            )
    except BadRequest as bad:
        return bad.response()
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
            field="id",
            expected=PUBLIC_ID,
        )
    return str(player)


async def _history(request: Request) -> tuple[str, list[dict[str, Any]]]:
    """The player of the path and its games, newest first, filtered by ``?variant=`` and
    ``?game=`` (one game: its replay once the game's own record has expired)."""
    player = _public_player(request)
    wanted = request.query_params.get("variant")
    if wanted is not None:
        wanted = _variant({"variant": wanted})
    game = request.query_params.get("game")
    found = await request.app.state.store.player_games(player)
    return player, [
        g
        for g in found
        if (wanted is None or g["variant"] == wanted) and (game is None or g["id"] == game)
    ]


async def player_games(request: Request) -> Response:
    """``GET /api/players/{id}/games[?variant=]``: the player's games, live ones first,
    then newest first, and its rating after each rated game per rule set."""
    try:
        player, found = await _history(request)
    except BadRequest as bad:
        return bad.response()
    listing = sorted(found, key=lambda g: g["status"] != "live")  # stable: newest first
    return JSONResponse(
        {
            "player": player,
            "games": [history.listed(g) for g in listing],
            "ratings": history.rating_history(found),
        }
    )


async def player_games_pdn(request: Request) -> Response:
    """``GET /api/players/{id}/games.pdn[?variant=][&game=]``: every finished game (or the
    one named) as one PDN file."""
    try:
        player, found = await _history(request)
    except BadRequest as bad:
        return bad.response()
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
            field="id",
            expected=PUBLIC_ID,
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
