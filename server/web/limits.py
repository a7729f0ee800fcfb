"""Limits a public server needs: messages per socket, chat lines, sockets and games per IP.

Pure bookkeeping with the time passed in (``time.monotonic()`` by default), so each
limit is testable without sleeping. The adapters (``game_socket``, ``gate``, ``api``)
decide what a refusal means on their transport: close 1008, an ``error``, a 429.
"""

from __future__ import annotations

import ipaddress
import re
import time
import unicodedata
from collections import deque
from collections.abc import Iterable, MutableMapping
from difflib import SequenceMatcher
from typing import Any

from protocol import messages as m
from protocol.messages import CHAT_MAX_CHARS, ErrorCode


class Window:
    """At most ``limit`` events in any ``window_s`` seconds (a sliding log; ``limit`` <= 0: none).

    >>> w = Window(2, 10.0)
    >>> w.allow(0.0), w.allow(1.0), w.allow(9.0), w.allow(10.0)
    (True, True, False, True)
    """

    __slots__ = ("limit", "window_s", "_times")

    def __init__(self, limit: int, window_s: float):
        self.limit = limit
        self.window_s = window_s
        self._times: deque[float] = deque()

    def allow(self, now: float | None = None) -> bool:
        if self.limit <= 0:
            return True
        now = time.monotonic() if now is None else now
        times = self._times
        if len(times) >= self.limit:
            if now - times[0] < self.window_s:
                return False
            times.popleft()
        times.append(now)
        return True


class SocketLimits:
    """One game socket's budget: ``admit`` each frame, ``chat`` each chat line.

    Players may send ``player_messages``, spectators ``spectator_messages``, per
    ``messages_window_s`` (issue 7: 100 and 50 per 20 s); pings do not count against
    that but have their own, four times larger, so a ping flood still ends. Bad
    frames count as messages.
    """

    def __init__(self, settings: Any, seated: bool):
        budget = settings.player_messages if seated else settings.spectator_messages
        self.messages = Window(budget, settings.messages_window_s)
        self.pings = Window(4 * budget, settings.messages_window_s)
        self.chat_lines = ChatFilter(settings.chat_lines, settings.chat_window_s)

    def admit(self, message: m.ClientMessage | None, now: float | None = None) -> bool:
        """Whether this frame (``None``: one that did not decode) is within the budget."""
        if isinstance(message, m.Ping):
            return self.pings.allow(now)
        return self.messages.allow(now)

    def chat(self, text: str, now: float | None = None) -> tuple[ErrorCode, str] | None:
        return self.chat_lines.check(text, now)


def _gist(text: str) -> str:
    """What a chat line says, ignoring case, accents, punctuation, spacing and repeats.

    >>> _gist("HELLO!!!  heeello") == _gist("hello hello")
    True
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    letters = "".join(ch for ch in decomposed if ch.isalnum())
    return re.sub(r"(.)\1+", r"\1", letters)


class ChatFilter:
    """At most ``lines`` chat lines per ``window_s`` seconds, and no near-duplicates.

    A line whose gist is the same as, or 90% like, one of the sender's last few lines
    (within a minute) is dropped: repeating oneself is the cheapest kind of spam.
    """

    SIMILAR = 0.9
    REMEMBERED = 5
    REMEMBER_S = 60.0

    def __init__(self, lines: int, window_s: float):
        self.window = Window(lines, window_s)
        self.recent: deque[tuple[float, str]] = deque(maxlen=self.REMEMBERED)

    def check(self, text: str, now: float | None = None) -> tuple[ErrorCode, str] | None:
        """None if the line may go out, else the refusal's code and sentence."""
        now = time.monotonic() if now is None else now
        if len(text) > CHAT_MAX_CHARS:
            too_long = m.sentence(ErrorCode.CHAT_TOO_LONG, limit=CHAT_MAX_CHARS)
            return ErrorCode.CHAT_TOO_LONG, too_long
        gist = _gist(text) or text.casefold()
        for at, earlier in self.recent:
            if now - at < self.REMEMBER_S and _alike(gist, earlier):
                return ErrorCode.CHAT_DUPLICATE, m.sentence(ErrorCode.CHAT_DUPLICATE)
        if not self.window.allow(now):
            return ErrorCode.RATE_LIMITED, m.sentence(ErrorCode.RATE_LIMITED, what="chat lines")
        self.recent.append((now, gist))
        return None


def _alike(a: str, b: str) -> bool:
    if a == b:
        return True
    if not a or not b or abs(len(a) - len(b)) > max(len(a), len(b)) * (1 - ChatFilter.SIMILAR):
        return False
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= ChatFilter.SIMILAR


# --------------------------------------------------------------------------------------
# per address
# --------------------------------------------------------------------------------------


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """``"10.0.0.0/8"``, ``"127.0.0.1"``... as networks; raises ValueError for a bad one."""
    return tuple(ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip())


def within(address: str, networks: tuple[Network, ...]) -> bool:
    """Whether ``address`` is in one of ``networks`` (never, if it is no address)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


def client_ip(scope: MutableMapping[str, Any], proxies: tuple[Network, ...]) -> str:
    """The address a request came from.

    ``X-Forwarded-For`` is believed only when the peer is one of the configured
    ``proxies``, and then read from the right: the first address no trusted proxy
    added is the client (anything left of it the client could have written itself).
    """
    peer = (scope.get("client") or ("unknown", 0))[0]
    if not proxies or not within(peer, proxies):
        return peer
    forwarded: list[str] = []
    for name, value in scope.get("headers", ()):
        if name == b"x-forwarded-for":
            forwarded.extend(part.strip() for part in value.decode("latin-1").split(","))
    for hop in reversed([h for h in forwarded if h]):
        if not within(hop, proxies):
            return hop
    return peer


class AddressLimits:
    """Per IP address: open sockets (a cap) and games created (a sliding window)."""

    def __init__(self, sockets_per_ip: int, games_per_ip: int, games_window_s: float):
        self.sockets_per_ip = sockets_per_ip
        self.games_per_ip = games_per_ip
        self.games_window_s = games_window_s
        self.sockets: dict[str, int] = {}
        self._games: dict[str, Window] = {}

    def open_socket(self, ip: str) -> bool:
        """Count a new socket from ``ip``; False (and nothing counted) when at the cap."""
        held = self.sockets.get(ip, 0)
        if self.sockets_per_ip > 0 and held >= self.sockets_per_ip:
            return False
        self.sockets[ip] = held + 1
        return True

    def close_socket(self, ip: str) -> None:
        held = self.sockets.get(ip, 0) - 1
        if held > 0:
            self.sockets[ip] = held
        else:
            self.sockets.pop(ip, None)

    def create_game(self, ip: str, now: float | None = None) -> bool:
        if self.games_per_ip <= 0:
            return True
        now = time.monotonic() if now is None else now
        if len(self._games) > 100_000:  # forget idle addresses now and then
            self._games = {
                a: w for a, w in self._games.items() if w._times and now - w._times[-1] < w.window_s
            }
        window = self._games.setdefault(ip, Window(self.games_per_ip, self.games_window_s))
        return window.allow(now)
