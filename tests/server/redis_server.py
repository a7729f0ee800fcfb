"""A private ``redis-server`` for tests: a free loopback port, no data of anyone else.

Never the system's Redis: each test module starts its own and stops it afterwards.
``persistent=True`` turns on the AOF in a temporary directory, so a restart keeps
what was written (``restart``).
"""

from __future__ import annotations

import os
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

    def clients(self) -> list[redis.Redis]:
        """A client per server: just the one."""
        return [self.client()]

    def listen(self) -> list[str]:
        """redis-server's options for where it listens."""
        return ["--port", str(self.port)]

    def start(self) -> RedisServer:
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
            if self.persistent
            else ["--appendonly", "no", "--save", ""]
        )
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                *self.listen(),
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


OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"


class TlsRedisServer(RedisServer):
    """A private ``redis-server`` that speaks only TLS, with a certificate for
    ``localhost`` and 127.0.0.1 signed by a certificate authority made for it alone
    (``ca_file``: whoever trusts that file can verify the server)."""

    def __init__(self) -> None:
        super().__init__()
        self.ca_file = os.path.join(self.dir, "ca.pem")
        self._make_certificates()

    @property
    def url(self) -> str:
        return f"rediss://localhost:{self.port}/0"

    def listen(self) -> list[str]:
        return [
            "--port", "0",  # no plain-text port at all
            "--tls-port", str(self.port),
            "--tls-cert-file", os.path.join(self.dir, "redis.pem"),
            "--tls-key-file", os.path.join(self.dir, "redis.key"),
            "--tls-ca-cert-file", self.ca_file,
            "--tls-auth-clients", "no",
        ]  # fmt: skip

    def client(self) -> redis.Redis:
        return redis.Redis(
            host="localhost", port=self.port, ssl=True, ssl_ca_certs=self.ca_file, socket_timeout=5
        )

    def _make_certificates(self) -> None:
        def openssl(*args: str) -> None:
            subprocess.run(
                [OPENSSL, *args],
                cwd=self.dir,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

        openssl(
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-subj",
            "/CN=kondavo test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        )
        openssl(
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "redis.key",
            "-out",
            "redis.csr",
            "-subj",
            "/CN=localhost",
        )
        with open(os.path.join(self.dir, "redis.ext"), "w") as ext:
            ext.write(
                "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                "basicConstraints=CA:FALSE\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\n"
                "extendedKeyUsage=serverAuth\n"
                "authorityKeyIdentifier=keyid\n"
            )
        openssl(
            "x509",
            "-req",
            "-in",
            "redis.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-out",
            "redis.pem",
            "-extfile",
            "redis.ext",
        )


def tls_redis_server_or_skip() -> TlsRedisServer:
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    return TlsRedisServer().start()


def redis_server_or_skip(persistent: bool = False) -> RedisServer:
    if not shutil.which("redis-server") and not shutil.os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    return RedisServer(persistent).start()


REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"


class RedisClusterServers:
    """A private Redis Cluster: three masters (no replicas) on free loopback ports.

    Each ``redis-server --cluster-enabled yes`` keeps its node file in one temporary
    directory; ``redis-cli --cluster create`` hands out the 16384 slots, and ``start``
    waits until every node reports ``cluster_state:ok``.
    """

    def __init__(self, masters: int = 3):
        self.ports = [free_port() for _ in range(masters)]
        # The cluster bus of each node; named, since the default (port + 10000) may be
        # above 65535 or taken.
        self.bus_ports = [free_port() for _ in range(masters)]
        self.dir = tempfile.mkdtemp(prefix="kondavo-redis-cluster-")
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def client(self, port: int | None = None) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port or self.ports[0], socket_timeout=5)

    def clients(self) -> list[redis.Redis]:
        """A plain client per master (for CLIENT KILL and the like)."""
        return [self.client(port) for port in self.ports]

    def cluster_client(self) -> redis.RedisCluster:
        return redis.RedisCluster(host="127.0.0.1", port=self.ports[0], socket_timeout=5)

    def start(self) -> RedisClusterServers:
        for port, bus_port in zip(self.ports, self.bus_ports, strict=True):
            self.processes.append(
                subprocess.Popen(
                    [
                        REDIS_SERVER,
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--dir",
                        self.dir,
                        "--cluster-enabled",
                        "yes",
                        "--cluster-port",
                        str(bus_port),
                        "--cluster-config-file",
                        f"nodes-{port}.conf",
                        "--cluster-node-timeout",
                        "2000",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--loglevel",
                        "warning",
                        "--logfile",
                        f"redis-{port}.log",
                    ],  # fmt: skip
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port, process in zip(self.ports, self.processes, strict=True):
            try:
                _wait_for_ping(self.client(port), process)
            except RuntimeError:
                with open(os.path.join(self.dir, f"redis-{port}.log")) as logged:
                    raise RuntimeError(f"redis-server on {port}: {logged.read()[-2000:]}") from None
        subprocess.run(
            [
                REDIS_CLI,
                "--cluster",
                "create",
                *(f"127.0.0.1:{port}" for port in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],  # fmt: skip
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )
        deadline = time.monotonic() + 20
        while not all(
            b"cluster_state:ok" in self.client(port).execute_command("CLUSTER", "INFO")
            for port in self.ports
        ):
            if time.monotonic() > deadline:
                raise RuntimeError("redis cluster did not reach cluster_state:ok")
            time.sleep(0.05)
        return self

    def flushall(self) -> None:
        for port in self.ports:
            self.client(port).flushall()
        self.drain_pubsub()

    def drain_pubsub(self, timeout_s: float = 10.0) -> None:
        """Wait until every message published so far has reached every master.

        A PUBLISH on a cluster reaches the other masters over the cluster bus, later
        and, on a loaded machine, much later: a message an earlier test published on
        ``g1``'s channel could reach a listener the next test subscribed there. Each
        master's bus link to another is one ordered stream, so once a marker published
        on every master has been heard on every master, nothing older is in flight.
        """
        channel = f"drain:{time.monotonic_ns()}"
        listeners = []
        for port in self.ports:
            pubsub = self.client(port).pubsub()
            pubsub.subscribe(channel)
            listeners.append(pubsub)
        deadline = time.monotonic() + timeout_s
        try:
            for pubsub in listeners:  # subscribed everywhere before the markers go out
                while pubsub.get_message(timeout=0.1) is None:
                    if time.monotonic() > deadline:
                        raise TimeoutError("a master did not confirm the subscription")
            for port in self.ports:
                self.client(port).publish(channel, str(port))
            for pubsub in listeners:
                heard: set[bytes] = set()
                while len(heard) < len(self.ports):
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"the cluster bus did not drain: {heard}")
                    message = pubsub.get_message(timeout=0.1)
                    if message is not None and message["type"] == "message":
                        heard.add(message["data"])
        finally:
            for pubsub in listeners:
                pubsub.close()

    def cleanup(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
        shutil.rmtree(self.dir, ignore_errors=True)


def _wait_for_ping(client: redis.Redis, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while True:
        try:
            if client.ping():
                return
        except redis.exceptions.RedisError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError("redis-server did not start")
        time.sleep(0.02)


def redis_cluster_or_skip() -> RedisClusterServers:
    for tool in (REDIS_SERVER, REDIS_CLI):
        if not shutil.os.path.exists(tool):
            pytest.skip(f"{tool} is not installed (.ci/run installs redis-server)")
    return RedisClusterServers().start()
