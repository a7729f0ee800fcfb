"""Game affinity as the operator's router does it: nginx's ``hash $game_id consistent``
(``server/deploy/nginx.conf``), in Python, and a real nginx to check it against.

``Ring`` is nginx's consistent hash (ngx_http_upstream_hash_module, the ketama layout of
Cache::Memcached::Fast): each server gets 160 points per unit of weight, point ``j``
being ``crc32(host + "\\0" + port + previous point as 4 little-endian bytes)`` (the
first with 4 zero bytes); the points are sorted, and a key goes to the server of the
first point at or above ``crc32(key)``, wrapping round to the lowest. ``host`` and
``port`` are the ``server`` line's name as written (``node1:8000``, ``127.0.0.1:8001``),
so the ring depends on the names, not on their order. A server that is down is skipped
for the next point's (not modelled here: the benchmarks' nodes are all up).

``Nginx`` runs the real thing (``nginx`` from Debian's ``nginx-light``) on
``server/deploy/nginx.conf`` with the nodes' addresses written in for ``node1:8000`` and
``node2:8000``, and logs each request's game id and the node it went to, so a run can
compare where nginx sent each game's sockets with what ``Ring`` says
(``bench/routing.py``).
"""

from __future__ import annotations

import bisect
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "server" / "deploy" / "nginx.conf"
POINTS_PER_WEIGHT = 160


class Ring:
    """nginx's ``hash ... consistent`` over ``servers`` (``host:port`` as written in
    the upstream); ``Ring(servers)(key)`` is the index of the server ``key`` goes to."""

    def __init__(self, servers: list[str], weights: list[int] | None = None):
        points: dict[int, int] = {}
        for index, server in enumerate(servers):
            host, _, port = server.rpartition(":") if ":" in server else (server, "", "")
            base = host.encode() + b"\0" + port.encode()
            previous = 0
            for _ in range(POINTS_PER_WEIGHT * (weights[index] if weights else 1)):
                point = zlib.crc32(base + previous.to_bytes(4, "little"))
                points.setdefault(point, index)  # a duplicate point: nginx keeps one
                previous = point
        self._hashes = sorted(points)
        self._servers = [points[h] for h in self._hashes]

    def __call__(self, key: str) -> int:
        at = bisect.bisect_left(self._hashes, zlib.crc32(key.encode()))
        return self._servers[at % len(self._hashes)]


def ring_of(urls: list[str]) -> Ring:
    """The ring an nginx upstream listing these nodes (``http://host:port``) makes."""
    return Ring([url.split("://", 1)[1].rstrip("/") for url in urls])


def installed() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None
    )


class Nginx:
    """A real nginx on the deployed configuration, in front of ``nodes`` (two
    ``host:port``), listening on ``port``; its own files in a temporary folder."""

    def __init__(self, nodes: list[str], port: int):
        binary = installed()
        if binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
        self.port = port
        self.folder = Path(tempfile.mkdtemp(prefix="kondavo-nginx-"))
        site = CONFIG.read_text()
        for name, node in zip(("node1:8000", "node2:8000"), nodes, strict=True):
            site = site.replace(f"server {name} ", f"server {node} ")
        site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
        (self.folder / "site.conf").write_text(site)
        self.log = self.folder / "routed.log"
        (self.folder / "nginx.conf").write_text(
            f"""daemon off;
pid {self.folder}/nginx.pid;
error_log {self.folder}/error.log;
worker_processes 1;
events {{ worker_connections 16384; }}
http {{
    log_format routed '$uri|$game_id|$upstream_addr|$status';
    access_log {self.log} routed;
    client_body_temp_path {self.folder}/body;
    proxy_temp_path {self.folder}/proxy;
    include {self.folder}/site.conf;
}}
"""
        )
        test = subprocess.run(
            [binary, "-t", "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
            capture_output=True,
            text=True,
        )
        self.checked = test.stderr.strip()
        if test.returncode:
            raise RuntimeError(f"nginx -t: {self.checked}")
        self.process = subprocess.Popen(
            [binary, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1):
                    break
            except urllib.error.HTTPError:
                break  # nginx answered (what the node said does not matter here)
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("nginx did not answer") from None
                time.sleep(0.05)

    def routes(self) -> list[tuple[str, str, str, str]]:
        """(path, game id, upstream addresses, status) of every request finished so far
        (nginx logs a socket when it closes)."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        out = []
        for line in lines:
            parts = line.split("|")
            if len(parts) == 4:
                out.append((parts[0], parts[1], parts[2], parts[3]))
        return out

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finishes and writes logs
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
