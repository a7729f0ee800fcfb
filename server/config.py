"""Settings from environment variables (``KONDAVO_*``), read once at start-up."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

_REPO = Path(__file__).resolve().parent.parent


class ConfigError(ValueError):
    """A ``KONDAVO_*`` variable that cannot be used; the message names it."""


def _number(env: dict[str, str], name: str, default: float, minimum: float = 0) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, not {raw!r}")
    return value


def _list(env: dict[str, str], name: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in (env.get(name) or "").split(",") if part.strip())


def _networks(env: dict[str, str], name: str) -> tuple[str, ...]:
    entries = _list(env, name)
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ConfigError(f"{name}: {entry!r} is not an address or network") from None
    return entries


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str | None = None  # None: the embedded store (one process only)
    # Public base URL for links (``https://kondavo.example``); None: from each request.
    public_url: str | None = None
    # How long a player must be gone before the opponent may claim the game.
    claim_after_s: float = 30.0
    # A clocked game whose side to move has not made its first move within this long of
    # its turn's start is aborted (no result, no rating change); 0: never.
    first_move_s: float = 30.0
    # Events kept per game for resync; older gaps get a full snapshot.
    events_kept: int = 1000
    # A game over (finished or aborted) is forgotten this long after its last change:
    # its link stops working. Without it, a long-running node's memory (or Redis) would
    # hold every game ever played; there is no archive database.
    finished_kept_s: float = 7 * 86_400.0
    # Messages one socket may send per window (pings aside), then it is closed 1008.
    player_messages: int = 100
    spectator_messages: int = 50
    messages_window_s: float = 20.0
    # Chat lines one socket may send per window (at most 140 characters each).
    chat_lines: int = 5
    chat_window_s: float = 10.0
    # Per client address (0: no cap): sockets open at once, games created per window.
    sockets_per_ip: int = 100
    games_per_ip: int = 60
    games_window_s: float = 600.0
    # Proxies whose X-Forwarded-For is believed (addresses or networks); none by default.
    trusted_proxies: tuple[str, ...] = ()
    # Origins whose pages may open sockets; empty: the server's own host only.
    allowed_origins: tuple[str, ...] = ()
    # Protocol-level pings find dead sockets; a socket whose writes stay blocked this
    # long (it stopped reading) is cut off, as is one whose send queue fills up.
    ping_interval_s: float = 20.0
    ping_timeout_s: float = 20.0
    send_timeout_s: float = 10.0
    # Addresses or networks that may read GET /metrics; none (the default): no metrics
    # at all, nothing counted and /metrics is 404.
    metrics_allow: tuple[str, ...] = ()
    # Processes that search the computer's moves (0: no computer opponent).
    bot_workers: int = 1
    # The analyst (services/analysis.py): its processes (0: no analyst), nodes searched
    # per position, and analyses a client address may ask for per window.
    analysis_workers: int = 1
    analysis_nodes: int = 20_000
    analyses_per_ip: int = 10
    analyses_window_s: float = 600.0
    # How often the timekeeper looks for fallen flags, and the lobby for changes.
    tick_s: float = 0.1
    lobby_refresh_s: float = 1.0
    hello_timeout_s: float = 10.0
    client_dir: Path = field(default=_REPO / "client-js")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        base = cls()
        return cls(
            host=env.get("KONDAVO_HOST") or base.host,
            port=int(_number(env, "KONDAVO_PORT", base.port, 0)),
            redis_url=env.get("KONDAVO_REDIS_URL") or None,
            public_url=(env.get("KONDAVO_PUBLIC_URL") or "").rstrip("/") or None,
            claim_after_s=_number(env, "KONDAVO_CLAIM_AFTER_S", base.claim_after_s),
            first_move_s=_number(env, "KONDAVO_FIRST_MOVE_S", base.first_move_s),
            events_kept=int(_number(env, "KONDAVO_EVENTS_KEPT", base.events_kept, 1)),
            finished_kept_s=_number(env, "KONDAVO_FINISHED_KEPT_S", base.finished_kept_s, 0.001),
            player_messages=int(_number(env, "KONDAVO_PLAYER_MESSAGES", base.player_messages)),
            spectator_messages=int(
                _number(env, "KONDAVO_SPECTATOR_MESSAGES", base.spectator_messages)
            ),
            messages_window_s=_number(
                env, "KONDAVO_MESSAGES_WINDOW_S", base.messages_window_s, 0.001
            ),
            chat_lines=int(_number(env, "KONDAVO_CHAT_LINES", base.chat_lines)),
            chat_window_s=_number(env, "KONDAVO_CHAT_WINDOW_S", base.chat_window_s, 0.001),
            sockets_per_ip=int(_number(env, "KONDAVO_SOCKETS_PER_IP", base.sockets_per_ip)),
            games_per_ip=int(_number(env, "KONDAVO_GAMES_PER_IP", base.games_per_ip)),
            games_window_s=_number(env, "KONDAVO_GAMES_WINDOW_S", base.games_window_s, 0.001),
            trusted_proxies=_networks(env, "KONDAVO_TRUSTED_PROXIES"),
            allowed_origins=_list(env, "KONDAVO_ALLOWED_ORIGINS"),
            metrics_allow=_networks(env, "KONDAVO_METRICS_ALLOW"),
            ping_interval_s=_number(env, "KONDAVO_PING_INTERVAL_S", base.ping_interval_s, 0.01),
            ping_timeout_s=_number(env, "KONDAVO_PING_TIMEOUT_S", base.ping_timeout_s, 0.01),
            send_timeout_s=_number(env, "KONDAVO_SEND_TIMEOUT_S", base.send_timeout_s, 0.01),
            bot_workers=int(_number(env, "KONDAVO_BOT_WORKERS", base.bot_workers)),
            analysis_workers=int(_number(env, "KONDAVO_ANALYSIS_WORKERS", base.analysis_workers)),
            analysis_nodes=int(_number(env, "KONDAVO_ANALYSIS_NODES", base.analysis_nodes, 1000)),
            analyses_per_ip=int(_number(env, "KONDAVO_ANALYSES_PER_IP", base.analyses_per_ip)),
            analyses_window_s=_number(
                env, "KONDAVO_ANALYSES_WINDOW_S", base.analyses_window_s, 0.001
            ),
            hello_timeout_s=_number(env, "KONDAVO_HELLO_TIMEOUT_S", base.hello_timeout_s, 0.01),
            tick_s=_number(env, "KONDAVO_TICK_S", base.tick_s, 0.01),
            lobby_refresh_s=_number(env, "KONDAVO_LOBBY_REFRESH_S", base.lobby_refresh_s, 0.01),
            client_dir=Path(env.get("KONDAVO_CLIENT_DIR") or base.client_dir),
        )
