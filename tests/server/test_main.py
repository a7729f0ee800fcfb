"""``python -m server`` as a real process: ``--host`` and ``--port`` override the
environment's KONDAVO_HOST and KONDAVO_PORT, and any other argument is refused with
exit code 2 and a sentence naming where the other settings are."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def environment(**settings: str) -> dict[str, str]:
    env = {**os.environ, "KONDAVO_BOT_WORKERS": "0", "KONDAVO_ANALYSIS_WORKERS": "0", **settings}
    env.pop("KONDAVO_REDIS_URL", None)  # the memory store
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def page(url: str, process: subprocess.Popen[str]) -> bytes:
    """``url``'s body once the server answers (it is starting); fails if it exits."""
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise AssertionError(f"the server exited ({process.returncode}) before answering")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                assert response.status == 200
                body: bytes = response.read()
                return body
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture
def server_on_the_given_port() -> Iterator[tuple[int, subprocess.Popen[str]]]:
    port, elsewhere = free_port(), free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        # The environment says elsewhere: the arguments win.
        env=environment(KONDAVO_HOST="0.0.0.0", KONDAVO_PORT=str(elsewhere)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        yield port, process
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_server_listens_on_the_port_given_as_an_argument(server_on_the_given_port):
    port, process = server_on_the_given_port
    home = page(f"http://127.0.0.1:{port}/", process)
    assert b"<html" in home.lower()
    lobby = page(f"http://127.0.0.1:{port}/api/lobby", process)
    assert lobby.startswith(b"{")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        cwd=REPO,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "others"),
    [
        (["--workers", "4"], "--workers 4"),
        (["8000"], "8000"),
        (["--port", "8000", "--debug"], "--debug"),
        (["--po", "8000"], "--po 8000"),  # no abbreviations
    ],
)
def test_any_other_argument_is_refused_with_a_sentence_naming_the_settings(args, others):
    refused = run(*args)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        f"python -m server: error: it takes only --host and --port, not {others!r}:"
        " every other setting is a KONDAVO_* environment variable (README, Configuration)"
    )


def test_a_port_that_is_not_a_port_is_refused():
    refused = run("--port", "eighty")
    assert refused.returncode == 2
    assert "--port: must be a whole number from 0 to 65535, not 'eighty'" in refused.stderr


def test_help_lists_host_and_port_and_where_the_other_settings_are():
    helped = run("--help")
    assert helped.returncode == 0
    assert "--host HOST" in helped.stdout and "--port PORT" in helped.stdout
    assert "overrides KONDAVO_HOST" in helped.stdout and "overrides KONDAVO_PORT" in helped.stdout
    assert "KONDAVO_* environment variable" in helped.stdout
