"""GET /metrics on a real server: Prometheus's text format, only to allowed addresses.

A real uvicorn server on loopback (conftest.py), real sockets: the scrapes are read
with prometheus_client's own parser, as Prometheus would read them.
"""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client.parser import text_string_to_metric_families

from protocol.client import CommandRefused, Kondavo


async def scrape(k: Kondavo) -> tuple[int, str]:
    status, raw = await asyncio.to_thread(k._request, "GET", "/metrics")
    return status, raw.decode()


async def samples(k: Kondavo) -> dict[tuple[str, tuple], float]:
    """Every sample of a scrape: (name, sorted labels) -> value."""
    status, text = await scrape(k)
    assert status == 200
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict, name: str, **labels: str) -> float:
    return found[(name, tuple(sorted(labels.items())))]


async def test_metrics_are_off_unless_an_address_is_allowed(k: Kondavo):
    status, text = await scrape(k)
    assert status == 404 and "kondavo" not in text


async def test_an_address_outside_the_allowed_networks_is_not_shown_the_metrics(serve):
    k = (await serve(metrics_allow=("10.0.0.0/8", "192.0.2.7"))).kondavo
    status, text = await scrape(k)
    assert status == 404 and "kondavo" not in text


async def test_a_scrape_during_a_game_finds_moves_frames_sockets_and_relays_counted(serve):
    running = await serve(metrics_allow=("127.0.0.1",))
    k = running.kondavo
    before = await samples(k)
    assert value(before, "kondavo_moves_total") == 0
    assert value(before, "kondavo_sockets", kind="player") == 0

    white = await k.create(variant="english", color="white", clock=None)
    black = await k.join(white.game, invite=white.invite_url.split("#invite=")[1])
    waiting = await k.create(variant="russian", opponent="open")  # waits in the lobby
    async with k.connect(white) as w, k.connect(black) as b, k.connect(white.game) as watcher:
        for _ in range(4):
            mover = w if w.my_turn else b
            played = len(mover.moves)
            await mover.move(mover.legal[0])
            for conn in (w, b, watcher):
                await conn.until(lambda c, n=played: len(c.moves) > n)
        during = await samples(k)

    assert value(during, "kondavo_moves_total") == 4
    # Each move's event went to both players and the spectator.
    frames = value(during, "kondavo_relayed_frames_total")
    assert frames - value(before, "kondavo_relayed_frames_total") >= 3 * 4
    assert value(during, "kondavo_relay_seconds_count") == 4
    assert 0 < value(during, "kondavo_relay_seconds_sum") < 4 * 5
    assert value(during, "kondavo_move_handling_seconds_count") == 4
    assert value(during, "kondavo_sockets", kind="player") == 2
    assert value(during, "kondavo_sockets", kind="spectator") == 1
    assert value(during, "kondavo_sockets", kind="lobby") == 0
    assert value(during, "kondavo_rooms") == 1
    assert value(during, "kondavo_live_games") == 1
    assert value(during, "kondavo_lobby_games") == 1
    assert value(during, "kondavo_busy_refusals_total") == 0
    assert value(during, "kondavo_store_errors_total") == 0
    assert value(during, "kondavo_bot_queue") == 0
    assert waiting.game != white.game

    after = await samples(k)  # the sockets are closed: the gauges come back down
    assert value(after, "kondavo_sockets", kind="player") == 0
    assert value(after, "kondavo_sockets", kind="spectator") == 0
    assert value(after, "kondavo_rooms") == 0
    assert value(after, "kondavo_moves_total") == 4


async def test_the_computers_searches_are_timed(serve):
    k = (await serve(metrics_allow=("127.0.0.0/8",))).kondavo
    me = await k.create(variant="russian", opponent="computer", level=1, color="black", clock=None)
    async with k.connect(me) as conn:
        await conn.until(lambda c: c.my_turn, timeout=20)  # the computer moved first
    found = await samples(k)
    assert value(found, "kondavo_bot_think_seconds_count") >= 1
    assert value(found, "kondavo_moves_total") >= 1


async def test_a_store_outage_shows_as_store_errors_and_busy_refusals(serve, redis_server):
    k = (await serve(redis_url=redis_server.url, metrics_allow=("127.0.0.1",))).kondavo
    white = await k.create(variant="english", color="white", clock=None)
    black = await k.join(white.game, invite=white.invite_url.split("#invite=")[1])
    try:
        async with k.connect(white), k.connect(black) as b:
            await b.until(lambda c: c.my_turn)  # English: Black moves first
            calm = await samples(k)
            assert value(calm, "kondavo_store_errors_total") == 0
            assert value(calm, "kondavo_live_games") == 1
            redis_server.stop()
            with pytest.raises(CommandRefused) as refused:
                await b.move(b.legal[0])
            assert refused.value.code == "server/busy"
            away = await samples(k)  # the node still answers, Redis or not
    finally:
        redis_server.start()
    assert value(away, "kondavo_busy_refusals_total") >= 1
    assert value(away, "kondavo_store_errors_total") >= 1
    assert value(away, "kondavo_moves_total") == 0
    assert value(away, "kondavo_live_games") == 1  # the last count, until Redis is back
