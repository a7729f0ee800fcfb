"""Two server nodes on one Redis, as in production: real processes, real sockets.

Each node is ``python -m server`` with its own KONDAVO_PORT and the same
KONDAVO_REDIS_URL, on loopback; the Redis is this module's own ``redis-server``
(AOF on, never the system's). Players and spectators are spread over both nodes.
The last tests do the same on this module's own three-master Redis Cluster and on a
Redis that speaks only TLS (``rediss://``).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgpack
import pytest
from redis_server import (
    RedisClusterServers,
    RedisServer,
    TlsRedisServer,
    free_port,
    redis_cluster_or_skip,
    redis_server_or_skip,
    tls_redis_server_or_skip,
)

from protocol import messages as m
from protocol.client import CommandRefused, GameConnection, Kondavo
from server.store.redis import keys_of

REPO = Path(__file__).resolve().parents[2]


class Node:
    """One ``python -m server`` process; ``kill`` is SIGKILL to its own pid only."""

    def __init__(self, redis_url: str, env: dict[str, str] | None = None):
        self.redis_url = redis_url
        self.extra_env = env or {}  # more of the process's environment
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        """The node process's environment: this test's, plus the node's settings."""
        env = dict(os.environ)
        env.update(
            KONDAVO_REDIS_URL=self.redis_url,
            KONDAVO_HOST="127.0.0.1",
            KONDAVO_PORT=str(self.port),
            KONDAVO_TICK_S="0.05",
            KONDAVO_LOBBY_REFRESH_S="0.1",
            KONDAVO_CLAIM_AFTER_S="60",
            KONDAVO_PLAYER_MESSAGES="1000000",
            KONDAVO_SPECTATOR_MESSAGES="1000000",
            KONDAVO_SOCKETS_PER_IP="0",
            KONDAVO_GAMES_PER_IP="0",
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        )
        env.update(self.extra_env)
        return env

    def start(self) -> Node:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "server"],
            cwd=REPO,
            env=self.environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"node on port {self.port} did not start")
            time.sleep(0.05)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    server = redis_server_or_skip(persistent=True)
    try:
        yield server
    finally:
        server.cleanup()


@contextmanager
def two_nodes(url: str, env: dict[str, str] | None = None) -> Iterator[list[Node]]:
    """Two started nodes on one store, stopped when the block ends."""
    nodes = [Node(url, env).start(), Node(url, env).start()]
    try:
        yield nodes
    finally:
        for node in nodes:
            node.stop()


@pytest.fixture(scope="module")
def cluster(redis_server: RedisServer) -> Iterator[list[Node]]:
    with two_nodes(redis_server.url) as nodes:
        yield nodes


@pytest.fixture
def nodes(cluster: list[Node], redis_server: RedisServer) -> list[Node]:
    """Both nodes up (a test before may have killed one) and Redis running."""
    if redis_server.process is None:
        redis_server.start()
    for node in cluster:
        if not node.alive():
            node.start()
    return cluster


def pick(conn: GameConnection) -> dict:
    return random.choice(conn.legal)


def history(conn: GameConnection) -> list[m.ServerMessage]:
    """The versioned events a socket received after its first full state, in order."""
    seen = conn.received
    first = next(i for i, msg in enumerate(seen) if isinstance(msg, m.State))
    return [msg for msg in seen[first:] if isinstance(msg, m.Event)]


def assert_in_order_once(conn: GameConnection) -> None:
    """Every version exactly once and in order (a snapshot may restate the current one)."""
    v = None
    for msg in history(conn):
        if isinstance(msg, m.State):
            assert v is None or msg.v >= v, f"a snapshot went back from {v} to {msg.v}"
        else:
            assert msg.v == v + 1, f"after v{v} came v{msg.v} ({msg.t})"
        v = msg.v
    assert conn.gaps == 0


async def game_on_both_nodes(nodes: list[Node], **options) -> tuple:
    one, two = Kondavo(nodes[0].url), Kondavo(nodes[1].url)
    options.setdefault("clock", None)
    white = await one.create(variant="english", color="white", **options)
    black = await two.join(white.game, invite=white.invite)
    return one, two, white, black


async def converge(conns: list[GameConnection], k: Kondavo, game: str, timeout: float = 10):
    """Wait until every socket's moves are the stored game's moves; return them."""
    stored = await k.game(game)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        stored = await k.game(game)
        if all(c.moves == stored["moves"] for c in conns):
            return stored
        await asyncio.sleep(0.05)
    raise AssertionError(
        f"not converged: stored {len(stored['moves'])} moves, sockets "
        f"{[len(c.moves) for c in conns]}"
    )


# --------------------------------------------------------------------------------------


async def test_players_and_spectators_on_two_nodes_see_every_event_once_in_order(nodes):
    one, two, white, black = await game_on_both_nodes(nodes)
    async with (
        one.connect(white) as a,
        two.connect(black) as b,
        one.connect(white.game) as s1,
        two.connect(white.game) as s2,
        one.connect(white.game) as s3,
        two.connect(white.game) as s4,
    ):
        everyone = [a, b, s1, s2, s3, s4]
        await asyncio.gather(a.play(pick, max_moves=15), b.play(pick, max_moves=15))
        await a.chat("good game")
        await s1.chat("watching from node 1")
        await b.resign()
        for conn in everyone:
            await conn.until(lambda c: c.status == "finished")
        final = max(conn.v for conn in everyone)
        for conn in everyone:
            await conn.until(lambda c: c.v == final)
            assert_in_order_once(conn)
        stored = await one.game(white.game)
        assert all(conn.moves == stored["moves"] for conn in everyone)
        assert len(stored["moves"]) == 30 and stored["reason"] == "resign"
        # The same event for every version, as each viewer may see it.
        by_version = {}
        for conn in everyone:
            for msg in history(conn):
                if not isinstance(msg, m.State | m.Skip):
                    assert by_version.setdefault(msg.v, msg) == msg
        # Player chat reaches players and spectators; spectator chat only spectators.
        assert any(isinstance(x, m.ChatLine) for x in history(s2))


async def test_a_player_whose_node_is_killed_continues_on_the_other_node(nodes):
    one, two, white, black = await game_on_both_nodes(
        nodes, clock={"initial_s": 120, "increment_s": 0}
    )
    started = time.monotonic()
    acked: list[str] = []
    a = await one.connect(white)
    async with two.connect(black) as b, two.connect(white.game) as watcher:

        async def white_moves(conn: GameConnection, count: int) -> None:
            for _ in range(count):
                await conn.until(lambda c: c.my_turn or c.status != "playing")
                move = pick(conn)
                await conn.move(move)
                acked.append(move["notation"])

        await asyncio.gather(white_moves(a, 5), b.play(pick, max_moves=5))
        nodes[0].kill()  # SIGKILL, this node's own pid
        await a.until(lambda c: c.close_code is not None)
        # A comes back through node 2 (the address it knows is gone) and continues.
        a2 = await two.connect(white)
        assert a2.moves == a.moves and a2.v >= a.v
        await asyncio.gather(white_moves(a2, 5), b.play(pick, max_moves=5))
        stored = await converge([b, watcher], two, white.game)
        for notation in acked:
            assert notation in stored["moves"]
        assert stored["moves"][: len(a.moves)] == a.moves
        assert len(stored["moves"]) == 20
        assert_in_order_once(b)
        assert_in_order_once(watcher)
        # Clocks: no side gained time, and none lost more than the test has lasted.
        elapsed_ms = (time.monotonic() - started) * 1000
        clocks = stored["clocks"]
        for side in ("white", "black"):
            assert 120_000 - elapsed_ms - 200 <= clocks[side] <= 120_000
        await a2.close()


async def test_a_redis_restart_loses_nothing_and_the_nodes_recover_by_themselves(
    nodes, redis_server
):
    one, two, white, black = await game_on_both_nodes(nodes)
    async with (
        one.connect(white) as a,
        two.connect(black) as b,
        one.connect(white.game) as s1,
        two.connect(white.game) as s2,
    ):
        await asyncio.gather(a.play(pick, max_moves=4), b.play(pick, max_moves=4))
        await converge([a, b, s1, s2], one, white.game)
        before = list(a.moves)
        redis_server.stop()
        mover = a if a.my_turn else b
        move = pick(mover)
        with pytest.raises(CommandRefused) as refused:
            await mover.move(move)
        assert refused.value.code == "server/busy"  # retryable, and never acked
        assert mover.moves == before
        redis_server.start()  # same port, same AOF
        for _ in range(100):
            try:
                await mover.move(move)
                break
            except CommandRefused as exc:
                assert exc.code == "server/busy"
                await asyncio.sleep(0.1)
        await asyncio.gather(b.play(pick, max_moves=3), a.play(pick, max_moves=3))
        stored = await converge([a, b, s1, s2], two, white.game)
        assert stored["moves"][: len(before)] == before
        assert len(stored["moves"]) == len(before) + 1 + 6
        for conn in (a, b, s1, s2):
            assert conn.close_code is None  # the sockets stayed open throughout


async def test_killed_pubsub_connections_still_let_every_client_converge(nodes, redis_server):
    one, two, white, black = await game_on_both_nodes(nodes)
    async with (
        one.connect(white) as a,
        two.connect(black) as b,
        one.connect(white.game) as s1,
        two.connect(white.game) as s2,
    ):
        everyone = [a, b, s1, s2]
        for _ in range(3):
            await asyncio.gather(a.play(pick, max_moves=2), b.play(pick, max_moves=2))
            await converge(everyone, one, white.game)
            killed = redis_server.client().client_kill_filter(_type="pubsub")
            assert killed >= 2  # one subscriber per node
            # A move at once, while the subscribers are coming back: its event may be lost.
            conn = a if a.my_turn else b
            await conn.move(pick(conn))
        stored = await converge(everyone, one, white.game)
        assert len(stored["moves"]) == 15
        for conn in everyone:
            assert_in_order_once(conn)


async def test_conflicting_moves_through_both_nodes_apply_exactly_one_per_version(nodes):
    """1,000 rounds: each mover's seat has a socket on each node, both move at once."""
    rounds_total, workers = 1000, 25
    results = {"rounds": 0, "games": 0}

    async def worker(index: int) -> None:
        rng = random.Random(index)
        while results["rounds"] < rounds_total:
            one, two, white, black = await game_on_both_nodes(nodes)
            results["games"] += 1
            async with (
                one.connect(white) as w1,
                two.connect(white) as w2,
                one.connect(black) as b1,
                two.connect(black) as b2,
                one.connect(white.game) as s1,
                two.connect(white.game) as s2,
            ):
                everyone = [w1, w2, b1, b2, s1, s2]
                applied = 0
                while results["rounds"] < rounds_total and w1.status == "playing":
                    top = max(c.v for c in everyone)
                    for conn in everyone:
                        await conn.until(lambda c, top=top: c.v >= top)
                    pair = (w1, w2) if w1.my_turn else (b1, b2)
                    if not pair[0].my_turn:
                        break
                    choices = pair[0].legal
                    first, second = rng.sample(choices, 2) if len(choices) > 1 else choices * 2
                    chosen_at = (pair[0].v, pair[1].v)
                    outcome = await asyncio.gather(
                        pair[0].command(m.MakeMove, path=list(first["path"]), v=chosen_at[0]),
                        pair[1].command(m.MakeMove, path=list(second["path"]), v=chosen_at[1]),
                        return_exceptions=True,
                    )
                    acks = [o for o in outcome if isinstance(o, m.Ack)]
                    refusals = [o for o in outcome if isinstance(o, CommandRefused)]
                    if first["path"] == second["path"] and chosen_at[0] == chosen_at[1]:
                        # One seat, one version, one move: one command (protocol/README.md,
                        # "Sending again"), applied once and acknowledged to both sockets.
                        assert len(acks) == 2 and acks[0].v == acks[1].v, outcome
                    else:
                        assert len(acks) == 1 and len(refusals) == 1, outcome
                        assert refusals[0].code in ("move/stale", "move/not_your_turn", "game/over")
                    applied += 1
                    results["rounds"] += 1
                    for conn in everyone:
                        await conn.until(lambda c, v=acks[0].v: c.v >= v)
                stored = await converge(everyone, one, white.game)
                assert len(stored["moves"]) == applied
                for conn in everyone:
                    assert conn.gaps == 0
                    versions = [e.v for e in history(conn) if not isinstance(e, m.State)]
                    assert len(versions) == len(set(versions))

    await asyncio.gather(*(worker(i) for i in range(workers)))
    assert results["rounds"] >= rounds_total


async def test_a_flag_falls_exactly_once_with_both_nodes_up_and_no_socket_connected(
    nodes, redis_server
):
    one, two, white, black = await game_on_both_nodes(
        nodes, clock={"initial_s": 1, "increment_s": 0}
    )
    async with one.connect(white) as a, two.connect(black) as b:
        await asyncio.gather(a.play(pick, max_moves=1), b.play(pick, max_moves=1))
        # Polled, not a.until(...): a's last event may come before b's, and a wait on
        # a's messages alone would then never see b catch up.
        for _ in range(250):
            if a.v == b.v:
                break
            await asyncio.sleep(0.02)
        assert a.v == b.v
    # Both sockets are closed; the first mover's clock runs out with nobody there.
    for _ in range(100):
        state = await one.game(white.game)
        if state["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert state["status"] == "finished" and state["reason"] == "timeout"
    await asyncio.sleep(0.5)  # time for a second node to tick it, if it were going to
    assert_fell_once(redis_server.client(), white.game)


def assert_fell_once(redis, game: str) -> None:
    """The stored log has one ``over`` (a timeout), and no deadline is left."""
    keys = keys_of(game)
    log = redis.lrange(keys.log, 0, -1)
    kinds = [msgpack.unpackb(entry)["message"]["t"] for entry in log]
    assert kinds.count("over") == 1
    assert redis.zscore(keys.deadlines, game) is None


# --- Redis Cluster ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def redis_cluster() -> Iterator[RedisClusterServers]:
    cluster = redis_cluster_or_skip()
    try:
        yield cluster
    finally:
        cluster.cleanup()


async def test_two_nodes_on_a_redis_cluster_play_relay_and_let_a_flag_fall_once(redis_cluster):
    """KONDAVO_REDIS_URL=redis+cluster://...: a game, a spectator, then a lone flag."""
    nodes = [Node(redis_cluster.url).start(), Node(redis_cluster.url).start()]
    try:
        one, two, white, black = await game_on_both_nodes(
            nodes, clock={"initial_s": 1, "increment_s": 0}
        )
        async with (
            one.connect(white) as a,
            two.connect(black) as b,
            one.connect(white.game) as watcher,
        ):
            await asyncio.gather(a.play(pick, max_moves=2), b.play(pick, max_moves=2))
            await converge([a, b, watcher], two, white.game)
            assert_in_order_once(watcher)
            assert len(watcher.moves) == 4
        # Nobody connected: white's clock (under a second left) runs out on its own.
        for _ in range(100):
            state = await two.game(white.game)
            if state["status"] == "finished":
                break
            await asyncio.sleep(0.05)
        assert state["status"] == "finished" and state["reason"] == "timeout"
        await asyncio.sleep(0.3)  # time for the other node to tick it, if it were going to
        assert_fell_once(redis_cluster.cluster_client(), white.game)
    finally:
        for node in nodes:
            node.stop()


@pytest.fixture(scope="module")
def tls_redis() -> Iterator[TlsRedisServer]:
    server = tls_redis_server_or_skip()
    try:
        yield server
    finally:
        server.cleanup()


async def test_two_nodes_on_a_tls_only_redis_play_and_relay_a_game(tls_redis):
    """KONDAVO_REDIS_URL=rediss://...: the nodes verify Redis's certificate against the
    authority named by SSL_CERT_FILE, as an operator with a private CA would set it."""
    trust = {"SSL_CERT_FILE": tls_redis.ca_file}
    nodes = [Node(tls_redis.url, trust).start(), Node(tls_redis.url, trust).start()]
    try:
        one, two, white, black = await game_on_both_nodes(nodes)
        async with (
            one.connect(white) as a,
            two.connect(black) as b,
            one.connect(white.game) as watcher,
        ):
            await asyncio.gather(a.play(pick, max_moves=3), b.play(pick, max_moves=3))
            stored = await converge([a, b, watcher], two, white.game)
            assert len(stored["moves"]) == 6
            assert_in_order_once(watcher)  # events came over the TLS pub/sub connection
        # The game is in the TLS Redis itself, read by a client of this test's own.
        assert tls_redis.client().exists(keys_of(white.game).game) == 1
    finally:
        for node in nodes:
            node.stop()


def test_a_node_that_cannot_verify_the_redis_certificate_refuses_to_start(tls_redis):
    """Without the authority the certificate is not trusted: the node will not talk to
    a server it cannot verify, and says why in one line before exiting."""
    keys_before = set(tls_redis.client().keys())
    env = Node(tls_redis.url, {"SSL_CERT_FILE": os.devnull}).environment()
    node = subprocess.run(
        [sys.executable, "-m", "server"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert node.returncode != 0
    said = [line for line in node.stderr.splitlines() if "cannot start" in line]
    assert len(said) == 1
    assert tls_redis.url in said[0] and "certificate verify failed" in said[0]
    assert set(tls_redis.client().keys()) == keys_before  # nothing was written


async def test_a_move_resent_through_the_other_node_after_a_lost_ack_is_played_once(nodes):
    """issue 31 point 2: a command's identity lives in the game's record, not a node."""
    one, two, white, black = await game_on_both_nodes(nodes)
    async with one.connect(white) as w:
        b = await one.connect(black)
        chosen = m.MakeMove(path=["11", "15"], v=b.v, ack=7)
        await b.send(chosen)
        await b.socket.close()  # the ack is lost with the socket
        await w.until(lambda c: c.moves == ["11-15"])
        moved_at = next(x.v for x in w.received if isinstance(x, m.Moved))
        async with two.connect(black) as again:
            answer = await again.resend(m.MakeMove(path=["11", "15"], v=chosen.v))
            assert answer.v >= moved_at
            await again.ping()
        stored = await two.game(white.game)
        assert stored["moves"] == ["11-15"]
        assert [x.t for x in w.received].count("moved") == 1


def lobby_changes(lobby) -> list[m.ServerMessage]:
    return [x for x in lobby.received if isinstance(x, m.LobbyChanges)]


async def test_lobby_watchers_on_two_nodes_see_the_same_changes_under_the_same_versions(nodes):
    """issue 31 point 5: the lobby's versions are Redis's, so both nodes number alike, and
    a watcher back on the other node with its version gets exactly what it missed."""
    one, two = Kondavo(nodes[0].url), Kondavo(nodes[1].url)
    async with one.watch_lobby() as a, two.watch_lobby() as b, one.watch_lobby() as away:
        await b.until(lambda c: c.v == a.v)  # each node may start at another poll
        await a.until(lambda c: c.v == b.v)
        left_at = away.listing
        await away.close()
        seeks = []
        for n in range(6):  # opened on both nodes, some taken, some cancelled
            seeks.append(await (one if n % 2 else two).create(opponent="open"))
        await two.join(seeks[0].game)
        await one.join(seeks[3].game)
        async with two.connect(seeks[1]) as creator:
            await creator.abort()
        live = {seeks[0].game, seeks[3].game}
        waiting = {s.game for s in seeks} - live - {seeks[1].game}
        for lobby in (a, b):
            await lobby.until(
                lambda c: (
                    waiting <= set(c.open_ids())
                    and live <= set(c.live_ids())
                    and seeks[1].game not in c.open_ids()
                ),
                timeout=15,
            )
        await b.until(lambda c: c.v == a.v, timeout=5)
        await a.until(lambda c: c.v == b.v, timeout=5)
        assert a.listing == b.listing
        ours = [x for x in lobby_changes(a) if x.v > left_at.v]
        theirs = [x for x in lobby_changes(b) if x.v > left_at.v]
        assert ours == theirs and ours  # the same messages, under the same versions
        assert a.gaps == b.gaps == 0

        back = await two.watch_lobby(since=left_at).open()  # on the other node
        try:
            await back.until(lambda c: c.v == a.v, timeout=5)
            assert back.received == ours and back.listing == a.listing
        finally:
            await back.close()
