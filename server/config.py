"""Settings from environment variables (``KONDAVO_*``), read once at start-up."""

from __future__ import annotations

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


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str | None = None  # None: the embedded store (one process only)
    # Public base URL for links (``https://kondavo.example``); None: from each request.
    public_url: str | None = None
    # How long a player must be gone before the opponent may claim the game.
    claim_after_s: float = 30.0
    # Events kept per game for resync; older gaps get a full snapshot.
    events_kept: int = 1000
    # Messages per second one socket may send, and the burst it may save up.
    messages_per_s: float = 20.0
    message_burst: int = 40
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
            events_kept=int(_number(env, "KONDAVO_EVENTS_KEPT", base.events_kept, 1)),
            messages_per_s=_number(env, "KONDAVO_MESSAGES_PER_S", base.messages_per_s, 0.1),
            message_burst=int(_number(env, "KONDAVO_MESSAGE_BURST", base.message_burst, 1)),
            tick_s=_number(env, "KONDAVO_TICK_S", base.tick_s, 0.01),
            client_dir=Path(env.get("KONDAVO_CLIENT_DIR") or base.client_dir),
        )
