"""The Starlette application: routes, and the lifespan that owns shared resources.

Everything shared (store, hub, command path, timekeeper, lobby feed) is made in
the lifespan and reached through ``app.state``: nothing lives at import time, so
several apps (tests, nodes) can run in one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from protocol.messages import ErrorCode
from server.config import Settings
from server.core.ratings import Ratings
from server.net.watchdog import SendWatchdog
from server.services.analysis import Analyst, make_analysis_pool
from server.services.cancelling import stop_all
from server.services.chronicle import Chronicle
from server.services.computer import Bot, BotTable, PoolBot, make_pool
from server.services.games import Games
from server.services.hub import Hub
from server.services.lobby import LobbyFeed
from server.services.metrics import Metrics
from server.services.settler import Settler
from server.services.timekeeper import Timekeeper
from server.store import MemoryStore, Store, StoreUnavailable
from server.store.ratings import make_ratings
from server.web import analysis_api, api, import_api, lobby_socket
from server.web.analysis_api import AnalysisLimits
from server.web.game_socket import GameSocket
from server.web.gate import Gate
from server.web.limits import AddressLimits, parse_networks, within
from server.web.origin import allowlist
from server.web.security import SecurityHeaders

log = logging.getLogger(__name__)

_NO_CLIENT = """<!doctype html><meta charset="utf-8"><title>Kondavo</title>
<p>Kondavo is running; the browser client is not installed (client-js/index.html).</p>"""


async def game_socket(websocket: WebSocket) -> None:
    await GameSocket(websocket, websocket.path_params["id"], websocket.app.state).serve()


async def lobby_endpoint(websocket: WebSocket) -> None:
    state = websocket.app.state
    await lobby_socket.serve(state.lobby, websocket, state)


async def store_unavailable(request: Request, exc: Exception) -> Response:
    """Redis is away: a retryable 503, never a half-done request passed off as done."""
    metrics = request.app.state.metrics
    if metrics is not None:
        metrics.busy.inc()
    return api.refusal(ErrorCode.SERVER_BUSY, status=503)


def make_store(settings: Settings) -> Store:
    """``RedisStore`` when ``KONDAVO_REDIS_URL`` is set, else the embedded store."""
    kept_ms = round(settings.finished_kept_s * 1000)
    if settings.redis_url:
        from server.store.redis import RedisStore

        return RedisStore(
            settings.redis_url, keep_events=settings.events_kept, finished_kept_ms=kept_ms
        )
    return MemoryStore(keep_events=settings.events_kept, finished_kept_ms=kept_ms)


def _without_password(url: str | None) -> str:
    """A Redis URL fit for a log: its password, if any, replaced by ``***``."""
    parts = urlsplit(url or "")
    if parts.password is None:
        return url or ""
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


async def metrics_endpoint(request: Request) -> Response:
    """The node's metrics in the Prometheus text format, to the allowed addresses only
    (the direct peer's: X-Forwarded-For is not believed here); 404 to everyone else,
    as to everyone when metrics are off."""
    state = request.app.state
    peer = request.client.host if request.client else ""
    if state.metrics is None or not within(peer, state.metrics_networks):
        return api.refusal(ErrorCode.API_NOT_FOUND, 404, path=request.url.path)
    return Response(await state.metrics.exposition(state), media_type=CONTENT_TYPE_LATEST)


async def page(request: Request) -> Response:
    """The browser client's one page; it reads the game id from the address itself."""
    index = request.app.state.settings.client_dir / "index.html"
    if index.is_file():
        return FileResponse(index, media_type="text/html")
    return HTMLResponse(_NO_CLIENT)


def create_app(
    settings: Settings | None = None,
    store: Store | None = None,
    bot: Bot | None = None,
    ratings: Ratings | None = None,
) -> Starlette:
    """The app; ``store`` defaults to ``make_store(settings)``, ``bot`` to the engine in a
    pool of ``settings.bot_workers`` processes (none: no computer), ``ratings`` to
    ``make_ratings`` (Redis beside a Redis store)."""
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        own_store = store or make_store(settings)
        start = getattr(own_store, "start", None)
        if start is not None:
            try:
                await start()  # a networked store: sample its clock, open the subscriber
            except StoreUnavailable as exc:
                # The operator's to mend (a wrong URL, Redis down, a certificate this
                # node does not trust): say so in one line before uvicorn's traceback.
                cause = exc.__cause__
                log.error(
                    "cannot start: the Redis at %s is unavailable (%s%s)",
                    _without_password(settings.redis_url),
                    exc,
                    f": {cause}" if cause is not None and str(cause) else "",
                )
                raise
        app.state.settings = settings
        app.state.store = own_store
        # The gate's and the API's limits (issue 7): per address, for this node.
        app.state.origins = allowlist(settings.allowed_origins, settings.public_url)
        app.state.trusted_networks = parse_networks(settings.trusted_proxies)
        app.state.address_limits = AddressLimits(
            settings.sockets_per_ip, settings.games_per_ip, settings.games_window_s
        )
        app.state.metrics_networks = parse_networks(settings.metrics_allow)
        metrics = app.state.metrics = Metrics(own_store) if app.state.metrics_networks else None
        app.state.hub = Hub(own_store, metrics)
        app.state.watchdog = SendWatchdog(settings.send_timeout_s)
        app.state.games = Games(own_store, metrics)
        app.state.lobby = LobbyFeed(own_store, settings.lobby_refresh_s)
        app.state.ratings = ratings or make_ratings(settings.redis_url)
        app.state.games.observers.append(Settler(app.state.games, app.state.ratings))
        app.state.chronicle = Chronicle(own_store)
        app.state.games.observers.append(app.state.chronicle)
        # The computer's searches run in worker processes, never on this loop.
        app.state.bot_pool = None
        own_bot = bot
        if own_bot is None and settings.bot_workers > 0:
            app.state.bot_pool = make_pool(settings.bot_workers)
            own_bot = PoolBot(app.state.bot_pool)
        app.state.bot = own_bot
        app.state.analysis_pool = None
        app.state.analyst = None
        if settings.analysis_workers > 0:
            app.state.analysis_pool = make_analysis_pool(settings.analysis_workers)
            app.state.analyst = Analyst(
                app.state.analysis_pool, settings.analysis_workers, settings.analysis_nodes
            )
        app.state.analysis_limits = AnalysisLimits(
            settings.analyses_per_ip, settings.analyses_window_s
        )
        app.state.bot_table = BotTable(app.state.games, own_bot) if own_bot is not None else None
        tasks = [
            asyncio.create_task(
                Timekeeper(app.state.games, settings.tick_s).run(), name="timekeeper"
            ),
            asyncio.create_task(app.state.lobby.run(), name="lobby feed"),
            asyncio.create_task(app.state.watchdog.run(), name="send watchdog"),
        ]
        try:
            yield
        finally:
            await stop_all(tasks)
            await app.state.lobby.close()
            if app.state.bot_table is not None:
                await app.state.bot_table.close()
            for pool in (app.state.bot_pool, app.state.analysis_pool):
                if pool is not None:
                    await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
            if ratings is None:
                await app.state.ratings.close()
            await own_store.close()

    routes: list[Any] = [
        Route("/", page),
        Route("/g/{id}", page),
        Route("/rules", page),
        Route("/rules/{variant}", page),
        Route("/ratings", page),
        Route("/ratings/{variant}", page),
        Route("/my", page),
        Route("/players/{id}", page),
        Route("/import", page),
        Route("/healthz", api.healthz),
        Route("/metrics", metrics_endpoint),
        Route("/api/games", api.create_game, methods=["POST"]),
        Route("/api/games/{id}", api.game_state),
        Route("/api/games/{id}/join", api.join_game, methods=["POST"]),
        Route("/api/games/{id}/pdn", api.game_pdn),
        Route("/api/games/{id}/positions", api.game_positions),
        Route("/api/import", import_api.import_games, methods=["POST"]),
        Route("/api/lobby", api.lobby_listing),
        Route("/api/rules/{variant}/examples", api.rule_examples),
        Route("/api/players/{id}/games", api.player_games),
        Route("/api/players/{id}/games.pdn", api.player_games_pdn),
        Route("/api/analysis", analysis_api.analyse, methods=["POST"]),
        Route("/api/ratings/{variant}", api.leaderboard),
        Route("/api/players/{id}", api.player_ratings),
        WebSocketRoute("/ws/games/{id}", game_socket),
        WebSocketRoute("/ws/lobby", lobby_endpoint),
    ]
    if settings.client_dir.is_dir():
        routes.append(Mount("/static", ClientFiles(directory=settings.client_dir), name="static"))
    return Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders), Middleware(Gate)],
        exception_handlers={StoreUnavailable: store_unavailable, HTTPException: http_refusal},
    )


class ClientFiles(StaticFiles):
    """The browser client's files: only what a page loads (scripts, styles, images),
    never the development files beside them (package.json, tools/, tests/, docs/)."""

    SERVED = frozenset({".js", ".mjs", ".css", ".svg", ".png", ".ico", ".woff2"})
    HIDDEN = frozenset({"tools", "tests", "docs", "node_modules"})

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        parts = PurePosixPath(path).parts
        if PurePosixPath(path).suffix not in self.SERVED or self.HIDDEN.intersection(parts):
            return "", None  # as if it were not there: 404
        return super().lookup_path(path)


async def http_refusal(request: Request, exc: Exception) -> Response:
    """The router's own refusals (no such path, a method the path does not take, a
    missing static file) in the API's error shape, as JSON like every other answer."""
    assert isinstance(exc, HTTPException)
    path = request.url.path[:80]
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        answer = api.refusal(
            ErrorCode.API_METHOD,
            405,
            method=request.method[:10],
            path=path,
            allowed=allowed or "another method",
        )
        if allowed:
            answer.headers["Allow"] = allowed
        return answer
    if exc.status_code == 404:
        return api.refusal(ErrorCode.API_NOT_FOUND, 404, path=path)
    return api.refusal(
        ErrorCode.API_BAD_FIELD,
        exc.status_code,
        field="request",
        expected="a request this server answers",
    )
