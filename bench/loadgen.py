"""The load generator shared by ``bench/relay.py`` and ``bench/load.py``.

Lean on purpose, so the generator is not what is measured: raw ``websockets``
connections, msgpack decoded into plain dicts, no per-message objects; many sockets
per asyncio loop, and several client processes when asked. Servers run as their own
processes (``python -m server``, or the bare echo app below on the same uvicorn
configuration), with the open-file limit raised in every process.

Relay latency: from the mover's send to the opponent's receipt of ``moved``.
Frames delivered: every frame any client received from the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import http.client
import json
import multiprocessing as mp
import os
import random
import resource
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

NO_LIMITS = {
    "KONDAVO_PLAYER_MESSAGES": "0",
    "KONDAVO_SPECTATOR_MESSAGES": "0",
    "KONDAVO_SOCKETS_PER_IP": "0",
    "KONDAVO_GAMES_PER_IP": "0",
    "KONDAVO_HELLO_TIMEOUT_S": "60",
}


def raise_open_files() -> int:
    """Raise this process's open-file limit to its hard cap; returns the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{url}: the process exited") from None
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer")


# --------------------------------------------------------------------------------------
# servers
# --------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]

    @property
    def ws_url(self) -> str:
        return "ws" + self.url[4:]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far."""
        return cpu_seconds(self.process.pid)

    def rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0


def start_kondavo(redis_url: str | None = None, **env_extra: str) -> Server:
    """``python -m server`` on a free port: the memory store, or Redis at ``redis_url``."""
    port = free_port()
    env = dict(os.environ)
    env.pop("KONDAVO_REDIS_URL", None)
    env.update(NO_LIMITS)
    env.update(KONDAVO_HOST="127.0.0.1", KONDAVO_PORT=str(port), **env_extra)
    if redis_url:
        env["KONDAVO_REDIS_URL"] = redis_url
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    code = (
        "import resource, sys; s, h = resource.getrlimit(resource.RLIMIT_NOFILE); "
        "resource.setrlimit(resource.RLIMIT_NOFILE, (h, h)); "
        "import logging; from server.__main__ import main; "
        "logging.disable(logging.INFO); sys.exit(main())"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code], cwd=REPO, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    wait_http(url + "/healthz", process)
    return Server(url, process)


ECHO_APP = """
import resource, sys
s, h = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (h, h))
import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from server.net.serve import uvicorn_config
from server.config import Settings

async def echo(websocket):
    await websocket.accept()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        await websocket.send_bytes(message["bytes"])

async def ok(request):
    return PlainTextResponse("ok")

app = Starlette(routes=[WebSocketRoute("/echo", echo), Route("/healthz", ok)])
settings = Settings(port=int(sys.argv[1]))
uvicorn.Server(uvicorn_config(settings, app, log_level="warning", access_log=False)).run()
"""


def start_echo() -> Server:
    """The floor: a bare Starlette WebSocket echo on the same uvicorn configuration."""
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-c", ECHO_APP, str(port)], cwd=REPO, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    wait_http(url + "/healthz", process)
    return Server(url, process)


# --------------------------------------------------------------------------------------
# clients
# --------------------------------------------------------------------------------------


@dataclass
class Tally:
    frames: int = 0
    moves: int = 0
    latencies: list[float] = field(default_factory=list)
    games: int = 0
    refused: int = 0
    measuring: bool = False


class Http:
    """HTTP connections, one per node, kept open from one request to the next as a
    browser keeps its connection to a site; a table keeps one from game to game.
    Opening a TCP connection for each of a game's two requests cost the server more
    than either request's handling, and is not what players' browsers do. Used from
    one thread at a time (a table's requests follow each other)."""

    def __init__(self) -> None:
        self._conns: dict[str, http.client.HTTPConnection] = {}

    def post(self, url: str, body: dict) -> dict:
        parts = urllib.parse.urlsplit(url)
        data = json.dumps(body).encode()
        dropped = busy = 0
        while True:
            conn = self._conns.get(parts.netloc)
            if conn is None:
                conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
                self._conns[parts.netloc] = conn
            try:
                conn.request(
                    "POST", parts.path, body=data, headers={"content-type": "application/json"}
                )
                response = conn.getresponse()
                answer = response.read()
            except (http.client.HTTPException, OSError):
                # Most likely the server closed the connection while it was idle: once
                # more on a new one.
                conn.close()
                del self._conns[parts.netloc]
                dropped += 1
                if dropped == 2:
                    raise
                continue
            if response.status == 503 and busy < 20:
                # server/busy (the store did not answer in time: a loaded machine) is
                # retryable, and a browser's client retries it too.
                busy += 1
                time.sleep(0.1 * busy)
                continue
            if response.status >= 400:
                raise RuntimeError(f"POST {url}: {response.status} {answer[:200]!r}")
            return json.loads(answer)

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()


async def _open(ws_url: str, game: str, token: str | None):
    ws = await connect(
        f"{ws_url}/ws/games/{game}", subprotocols=["kondavo.v1"],  # type: ignore[list-item]
        max_size=None, compression=None, ping_interval=None, open_timeout=120,
    )  # fmt: skip
    await ws.send(msgpack.packb({"t": "hello", "proto": 1, "token": token}))
    return ws


class _Seat:
    """One player's socket: follows the game and moves (at ``pace`` s per move) when to move."""

    def __init__(self, table: _Table, side: str, ws):
        self.table, self.side, self.ws = table, side, ws

    async def run(self) -> None:
        table, tally = self.table, self.table.tally
        async for frame in self.ws:
            tally.frames += 1
            msg = msgpack.unpackb(frame)
            t = msg.get("t")
            if t == "moved":
                if msg["by"] != self.side:
                    sent = table.sent.pop(msg["ply"], None)
                    if sent is not None and tally.measuring:
                        tally.latencies.append(time.perf_counter() - sent)
                        tally.moves += 1
                self._maybe_move(msg["ply"], msg["side_to_move"], msg["legal"])
            elif t == "state":
                if msg["status"] == "playing":
                    self._maybe_move(len(msg["moves"]), msg["side_to_move"], msg["legal"])
            elif t == "joined":
                self._maybe_move(0, msg["side_to_move"], msg["legal"])
            elif t == "over":
                table.over.set()
            elif t == "error":
                tally.refused += 1

    def _maybe_move(self, ply: int, side_to_move: str, legal: list) -> None:
        if side_to_move != self.side or not legal or (ply + 1) in self.table.sent:
            return
        path = random.choice(legal)["path"]
        self.table.sent[ply + 1] = 0.0  # reserved: one move per ply
        asyncio.get_running_loop().create_task(self._send(ply, path))

    async def _send(self, ply: int, path: list[str]) -> None:
        if self.table.pace:
            await asyncio.sleep(max(0.0, self.table.next_at - time.monotonic()))
            self.table.next_at = max(self.table.next_at + self.table.pace, time.monotonic())
        self.table.sent[ply + 1] = time.perf_counter()
        with contextlib.suppress(Exception):
            await self.ws.send(msgpack.packb({"t": "move", "path": path, "v": None}))


async def _watch(ws, tally: Tally) -> None:
    with contextlib.suppress(Exception):
        async for _ in ws:
            tally.frames += 1


class _Table:
    """One game after another between two scripted players, watched by spectators."""

    def __init__(
        self,
        urls: list[str],
        spectators: int,
        tally: Tally,
        pace: float,
        until: float,
        route: Any = None,
    ):
        self.urls, self.spectators, self.tally = urls, spectators, tally
        self.route = route  # game id -> index in urls for all its sockets; None: spread
        self.pace, self.until = pace, until
        self.sent: dict[int, float] = {}
        self.over = asyncio.Event()
        self.next_at = 0.0
        self.http = Http()

    async def run(self, ready: asyncio.Event | None = None) -> None:
        try:
            await self._games(ready)
        finally:
            self.http.close()

    async def _games(self, ready: asyncio.Event | None) -> None:
        while time.monotonic() < self.until:
            first, last = self.urls[0], self.urls[-1]
            created = await asyncio.to_thread(
                self.http.post,
                first + "/api/games",
                {"variant": "english", "clock": None, "color": "white"},
            )
            urls = self.urls
            if self.route is not None:  # the game's node, as the router picks it
                urls = [self.urls[self.route(created["id"])]]
                last = urls[0]
            joined = await asyncio.to_thread(
                self.http.post, f"{last}/api/games/{created['id']}/join",
                {"invite": created["invite_url"].split("#invite=")[1]})  # fmt: skip
            game = created["id"]
            self.sent, self.over = {}, asyncio.Event()
            wsu = ["ws" + u[4:] for u in urls]
            sockets = [
                await _open(wsu[0], game, created["seat"]["token"]),
                await _open(wsu[-1], game, joined["seat"]["token"]),
            ]
            sockets += [await _open(wsu[i % len(wsu)], game, None) for i in range(self.spectators)]
            # Each game keeps its own phase of the pace from its start: set at construction,
            # every game of a process would be behind it once all were set up, and the
            # stalls of setting up would bunch their moves into a few phases.
            self.next_at = time.monotonic() + random.random() * self.pace
            seats = [_Seat(self, "white", sockets[0]), _Seat(self, "black", sockets[1])]
            tasks = [asyncio.create_task(s.run()) for s in seats]
            tasks += [asyncio.create_task(_watch(ws, self.tally)) for ws in sockets[2:]]
            if ready is not None:
                ready.set()
                ready = None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.over.wait(), max(0.1, self.until - time.monotonic()))
            self.tally.games += 1
            for ws in sockets:
                with contextlib.suppress(Exception):
                    await ws.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def play(
    urls: list[str],
    games: int,
    spectators: int,
    seconds: float,
    pace: float = 0.0,
    warmup: float = 3.0,
    routed: bool = False,
    together: Any = None,
) -> dict:
    """Run ``games`` tables for ``seconds`` after a warm-up; the tally as plain numbers.

    ``routed``: all of a game's sockets (and its join) on the node its id hashes to, as
    ``server/deploy/nginx.conf`` routes them (``affinity.Ring``); otherwise White on the
    first node, Black on the last, spectators in turn.

    ``together``: a barrier shared with the other client processes of the run, so all
    measure the same window and none stops its games while another still measures
    (the server closing a process's thousands of sockets delayed the others' moves).
    """
    tally = Tally()
    until = time.monotonic() + warmup + seconds + 600  # tables stop when told, below
    route = None
    if routed:
        from affinity import ring_of

        route = ring_of(urls)
    tables = [_Table(urls, spectators, tally, pace, until, route) for _ in range(games)]
    readies = [asyncio.Event() for _ in tables]
    tasks = []
    for table, ready in zip(tables, readies, strict=True):
        tasks.append(asyncio.create_task(table.run(ready)))
        await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 600)
    await asyncio.sleep(warmup)
    if together is not None:
        await asyncio.to_thread(together.wait, 600)
    # The generator's own garbage collector would stop its loop for hundreds of ms
    # with thousands of sockets open (seen as relay spikes that were not the server's);
    # it is the instrument, not what is measured, so it does not collect in the window.
    gc.collect()
    gc.disable()
    try:
        # That collection stopped this loop (0.4 s with 3,000 sockets): moves sent
        # before it and received after it would be charged to the server.
        await asyncio.sleep(1.0)
        cpu, window_start = time.process_time(), time.monotonic()
        tally.measuring, tally.frames, started = True, 0, time.perf_counter()
        await asyncio.sleep(seconds)
        tally.measuring, elapsed = False, time.perf_counter() - started
    finally:
        gc.enable()
    frames, client_cpu, window_end = tally.frames, time.process_time() - cpu, time.monotonic()
    if together is not None:
        await asyncio.to_thread(together.wait, 600)
    for table in tables:
        table.until = 0
        table.over.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "elapsed": elapsed,
        "frames": frames,
        "moves": tally.moves,
        "latencies": tally.latencies,
        "games": tally.games,
        "refused": tally.refused,
        "client_cpu": client_cpu / elapsed,
        "window": (window_start, window_end),
    }


async def echo(
    url: str,
    sockets: int,
    seconds: float,
    payload: int = 300,
    warmup: float = 1.0,
    pace: float = 0.0,
    senders: int | None = None,
) -> dict:
    """``sockets`` connections each sending a frame and awaiting its echo, for ``seconds``.

    With ``pace``: only ``senders`` of them send, each a frame every ``pace`` seconds
    from its own random phase (the paced games' pattern: the others stay open and idle),
    and each round trip's time is kept, as ``latencies``.
    """
    conns = []
    for _ in range(sockets):
        conns.append(
            await connect(
                url, max_size=None, compression=None, ping_interval=None, open_timeout=120
            )
        )
    body = os.urandom(payload)
    count = [0]
    latencies: list[float] = []
    state = {"measuring": False, "stop": False}

    async def loop(ws) -> None:
        while not state["stop"]:
            await ws.send(body)
            await ws.recv()
            if state["measuring"]:
                count[0] += 1

    async def paced_loop(ws) -> None:
        next_at = time.monotonic() + random.random() * pace
        while not state["stop"]:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            next_at = max(next_at + pace, time.monotonic())
            sent = time.perf_counter()
            await ws.send(body)
            await ws.recv()
            if state["measuring"]:
                latencies.append(time.perf_counter() - sent)
                count[0] += 1

    if pace:
        every = max(1, sockets // (senders or sockets))
        tasks = [asyncio.create_task(paced_loop(ws)) for ws in conns[::every]]
    else:
        tasks = [asyncio.create_task(loop(ws)) for ws in conns]
    await asyncio.sleep(warmup)
    if pace:  # as in ``play``: the generator's collector stays out of the window
        gc.collect()
        gc.disable()
        await asyncio.sleep(1.0)
    try:
        cpu, window_start = time.process_time(), time.monotonic()
        state["measuring"], started = True, time.perf_counter()
        await asyncio.sleep(seconds)
        state["measuring"], elapsed = False, time.perf_counter() - started
    finally:
        gc.enable()
    round_trips, client_cpu = count[0], time.process_time() - cpu
    state["stop"] = True
    await asyncio.gather(*tasks, return_exceptions=True)
    for ws in conns:
        with contextlib.suppress(Exception):
            await ws.close()
    return {
        "elapsed": elapsed,
        "round_trips": round_trips,
        "client_cpu": client_cpu / elapsed,
        "window": (window_start, time.monotonic()),
        "latencies": latencies,
    }


# --------------------------------------------------------------------------------------
# several client processes
# --------------------------------------------------------------------------------------


def _worker(kind: str, args: tuple, out: mp.Queue, together: Any) -> None:
    raise_open_files()
    if kind == "play":
        out.put(asyncio.run(play(*args, together=together)))
    elif kind == "echo":
        out.put(asyncio.run(echo(*args)))
    elif kind == "hold":
        out.put(asyncio.run(hold(*args)))


def in_processes(kind: str, per_process: list[tuple]) -> list[dict]:
    """Run ``kind`` once per argument tuple, each in its own client process."""
    if len(per_process) == 1:
        raise_open_files()
        runner = {"play": play, "echo": echo, "hold": hold}[kind]
        return [asyncio.run(runner(*per_process[0]))]
    ctx = mp.get_context("spawn")
    out: mp.Queue = ctx.Queue()
    together = ctx.Barrier(len(per_process))
    workers = [ctx.Process(target=_worker, args=(kind, a, out, together)) for a in per_process]
    for w in workers:
        w.start()
    results = [out.get(timeout=1800) for _ in workers]
    for w in workers:
        w.join(60)
    return results


async def hold(ws_url: str, games: list[str], sockets: int, seconds: float) -> dict:
    """Open ``sockets`` spectator sockets spread over ``games`` and keep them ``seconds``."""
    conns = []
    readers = []
    failed = 0

    async def one(i: int) -> None:
        nonlocal failed
        try:
            ws = await _open(ws_url, games[i % len(games)], None)
        except Exception:
            failed += 1
            return
        conns.append(ws)
        # Read from the start, as a browser does: a socket left unread while the others
        # open fills its client queue, stops answering pings and is closed by the server.
        readers.append(asyncio.create_task(_watch(ws, Tally())))

    for start in range(0, sockets, 200):
        await asyncio.gather(*(one(i) for i in range(start, min(sockets, start + 200))))
    await asyncio.sleep(seconds)
    held = sum(1 for ws in conns if ws.close_code is None)
    for ws in conns:
        with contextlib.suppress(Exception):
            await ws.close()
    for task in readers:
        task.cancel()
    return {"opened": len(conns), "held": held, "failed": failed}


def merged(runs: list[dict]) -> dict:
    """One tally from several client processes' ``play`` runs (windows overlapping)."""
    return {
        "elapsed": max(r["elapsed"] for r in runs),
        "frames": sum(r["frames"] for r in runs),
        "moves": sum(r["moves"] for r in runs),
        "latencies": [x for r in runs for x in r["latencies"]],
        "games": sum(r["games"] for r in runs),
        "refused": sum(r["refused"] for r in runs),
        "client_cpu": sum(r["client_cpu"] for r in runs),
        "window": (max(r["window"][0] for r in runs), min(r["window"][1] for r in runs)),
    }


def quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class CpuSampler:
    """Samples a server's CPU time in a thread, to read its use over any window later."""

    def __init__(self, servers: list[Server], every_s: float = 0.2):
        import threading

        self.servers = servers
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every_s,), daemon=True)
        self._thread.start()

    def _run(self, every_s: float) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError, ValueError, IndexError):
                total = sum(s.cpu_seconds() for s in self.servers)
                self.samples.append((time.monotonic(), total))
            self._stop.wait(every_s)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def share(self, window: tuple[float, float]) -> float:
        """CPU seconds per second (1.0 = one core busy) within ``window``."""
        inside = [s for s in self.samples if window[0] <= s[0] <= window[1]]
        if len(inside) < 2:
            return 0.0
        (t0, c0), (t1, c1) = inside[0], inside[-1]
        return (c1 - c0) / (t1 - t0) if t1 > t0 else 0.0
