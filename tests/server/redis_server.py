"""A private ``redis-server`` for tests: a free loopback port, no data of anyone else.

Never the system's Redis: each test module starts its own and stops it afterwards.
``persistent=True`` turns on the AOF in a temporary directory, so a restart keeps
what was written (``restart``).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import redis

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, persistent: bool = False):
        self.port = free_port()
        self.persistent = persistent
        self.dir = tempfile.mkdtemp(prefix="kondavo-redis-")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def start(self) -> RedisServer:
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
            if self.persistent
            else ["--appendonly", "no", "--save", ""]
        )
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                self.dir,
                "--protected-mode",
                "yes",
                "--loglevel",
                "warning",
                *persistence,
            ],  # fmt: skip
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                if self.client().ping():
                    return self
            except redis.exceptions.RedisError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: with AOF on, everything fsynced stays
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self, down_s: float = 0.0) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def redis_server_or_skip(persistent: bool = False) -> RedisServer:
    if not shutil.which("redis-server") and not shutil.os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    return RedisServer(persistent).start()
