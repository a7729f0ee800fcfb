"""The limits as plain bookkeeping: windows, chat, addresses, origins (no sockets)."""

from __future__ import annotations

import dataclasses

import pytest

from protocol import messages as m
from server.config import ConfigError, Settings
from server.web.limits import (
    AddressLimits,
    ChatFilter,
    SocketLimits,
    Window,
    client_ip,
    parse_networks,
)
from server.web.origin import allowlist, normal_origin, origin_allowed


def test_a_window_allows_its_limit_then_refuses_until_the_oldest_ages_out():
    w = Window(3, 20.0)
    assert [w.allow(t) for t in (0, 1, 2, 3, 19.9)] == [True, True, True, False, False]
    assert w.allow(20.0) and not w.allow(20.5) and w.allow(21.0)


def test_a_window_of_zero_is_no_limit():
    w = Window(0, 1.0)
    assert all(w.allow(0.0) for _ in range(1000))


def test_players_get_100_messages_per_20_s_spectators_50_and_pings_are_not_counted():
    settings = Settings()
    player, spectator = SocketLimits(settings, seated=True), SocketLimits(settings, seated=False)
    move = m.MakeMove(path=["11", "15"])
    assert all(player.admit(move, 0.0) for _ in range(100)) and not player.admit(move, 1.0)
    assert all(spectator.admit(None, 0.0) for _ in range(50)) and not spectator.admit(move, 1.0)
    # pings have their own budget: a spectator past its messages may still ping
    assert all(spectator.admit(m.Ping(n=i), 2.0) for i in range(150))
    assert player.admit(move, 20.0)  # the window slid


def test_chat_is_five_lines_per_ten_seconds():
    chat = ChatFilter(5, 10.0)
    lines = ["hello", "nice opening", "oops", "well played", "thanks for the game"]
    assert [chat.check(line, i * 0.1) for i, line in enumerate(lines)] == [None] * 5
    refused = chat.check("something else entirely", 1.0)
    assert refused is not None and refused[0] == m.ErrorCode.RATE_LIMITED
    assert chat.check("now it is fine again", 10.0) is None


@pytest.mark.parametrize(
    "first, again",
    [
        ("good game", "good game"),
        ("good game", "GOOD GAME!!!"),
        ("good game", "goood   gaaame"),
        ("you are a beginner", "you are a beginer"),
        ("héllo there", "hello there"),
        ("!!!", "!!!"),
    ],
)
def test_near_duplicate_chat_lines_are_dropped(first, again):
    chat = ChatFilter(5, 10.0)
    assert chat.check(first, 0.0) is None
    refused = chat.check(again, 1.0)
    assert refused is not None and refused[0] == m.ErrorCode.CHAT_DUPLICATE


def test_different_lines_and_old_repeats_pass():
    chat = ChatFilter(5, 10.0)
    assert chat.check("good game", 0.0) is None
    assert chat.check("good luck", 1.0) is None
    assert chat.check("good game", 100.0) is None  # a minute later it is new again
    assert chat.check("x" * 141, 101.0)[0] == m.ErrorCode.CHAT_TOO_LONG


def test_sockets_per_address_are_capped_and_released():
    limits = AddressLimits(sockets_per_ip=2, games_per_ip=0, games_window_s=1.0)
    assert limits.open_socket("1.2.3.4") and limits.open_socket("1.2.3.4")
    assert not limits.open_socket("1.2.3.4") and limits.open_socket("5.6.7.8")
    limits.close_socket("1.2.3.4")
    assert limits.open_socket("1.2.3.4")
    for _ in range(3):
        limits.close_socket("1.2.3.4")
    assert "1.2.3.4" not in limits.sockets


def test_games_per_address_are_a_sliding_window():
    limits = AddressLimits(sockets_per_ip=0, games_per_ip=2, games_window_s=60.0)
    assert limits.create_game("a", 0) and limits.create_game("a", 1)
    assert not limits.create_game("a", 2) and limits.create_game("b", 2)
    assert limits.create_game("a", 60.5)


def _scope(peer: str, forwarded: str | None = None) -> dict:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return {"client": (peer, 5000), "headers": headers}


def test_x_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy():
    assert client_ip(_scope("9.9.9.9", "1.1.1.1"), ()) == "9.9.9.9"
    proxies = parse_networks(["10.0.0.0/8"])
    assert client_ip(_scope("9.9.9.9", "1.1.1.1"), proxies) == "9.9.9.9"
    assert client_ip(_scope("10.0.0.2", "1.1.1.1"), proxies) == "1.1.1.1"
    # the client may write its own header: only the hop the proxies added counts
    assert client_ip(_scope("10.0.0.2", "6.6.6.6, 1.1.1.1, 10.0.0.7"), proxies) == "1.1.1.1"
    assert client_ip(_scope("10.0.0.2"), proxies) == "10.0.0.2"


def test_trusted_proxies_must_be_addresses_or_networks():
    assert Settings.from_env({"KONDAVO_TRUSTED_PROXIES": "10.0.0.0/8, ::1"}).trusted_proxies == (
        "10.0.0.0/8",
        "::1",
    )
    with pytest.raises(ConfigError, match="KONDAVO_TRUSTED_PROXIES"):
        Settings.from_env({"KONDAVO_TRUSTED_PROXIES": "proxy.local"})


def _headers(origin: str | None, host: str = "kondavo.example") -> list[tuple[bytes, bytes]]:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return headers


def test_the_default_origin_allowlist_is_the_servers_own_host():
    own = allowlist((), None)
    assert origin_allowed(_headers("https://kondavo.example"), own, True)
    assert origin_allowed(_headers("http://127.0.0.1:8000", "127.0.0.1:8000"), own, True)
    assert origin_allowed(_headers(None), own, True)  # not a browser
    for foreign in (
        "https://evil.example",
        "https://kondavo.example.evil.example",
        "null",
        "http://127.0.0.1:9999",
    ):
        assert not origin_allowed(
            _headers(foreign, "127.0.0.1:8000" if "127" in foreign else "kondavo.example"),
            own,
            True,
        ), foreign


def test_a_configured_allowlist_replaces_the_default():
    configured = allowlist(("https://play.example",), "https://kondavo.example/")
    assert origin_allowed(_headers("https://play.example:443"), configured, False)
    assert origin_allowed(_headers("https://kondavo.example"), configured, False)
    assert not origin_allowed(_headers("http://other.example", "other.example"), configured, False)
    assert origin_allowed(_headers("http://any.example"), allowlist(("*",), None), False)
    assert normal_origin("HTTP://A.example:80/x") == "http://a.example"


def test_settings_read_the_limits_from_the_environment():
    env = {
        "KONDAVO_PLAYER_MESSAGES": "7",
        "KONDAVO_SPECTATOR_MESSAGES": "3",
        "KONDAVO_SOCKETS_PER_IP": "0",
        "KONDAVO_ALLOWED_ORIGINS": "https://a.example, https://b.example",
        "KONDAVO_PING_INTERVAL_S": "5",
    }
    settings = Settings.from_env(env)
    assert dataclasses.asdict(settings) | {} and settings.player_messages == 7
    assert settings.spectator_messages == 3 and settings.sockets_per_ip == 0
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
    assert settings.ping_interval_s == 5


def test_uvicorn_is_pinned_and_its_websocket_limits_are_ours():
    import tomllib
    from pathlib import Path

    import uvicorn

    from server.net.serve import uvicorn_config
    from server.web.app import create_app

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    (pin,) = [d for d in pyproject["project"]["dependencies"] if d.startswith("uvicorn")]
    assert pin.endswith(f"=={uvicorn.__version__}")
    settings = Settings(ping_interval_s=5, ping_timeout_s=7)
    config = uvicorn_config(settings, create_app(settings))
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    assert isinstance(config.ws, type) and issubclass(config.ws, WebSocketsSansIOProtocol)
    assert config.ws_max_size == m.MAX_FRAME_BYTES == 8 * 1024
    assert config.ws_per_message_deflate is False
    assert (config.ws_ping_interval, config.ws_ping_timeout) == (5, 7)
    assert config.proxy_headers is False  # X-Forwarded-For only from trusted proxies
