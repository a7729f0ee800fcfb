"""End-to-end fixtures: a real Kondavo server (``python -m server``, memory store) on
a free loopback port, and Debian's Chromium driven by Playwright.

Playwright cannot download browsers here, so the browser is ``/usr/bin/chromium``
(``.ci/run`` installs it with apt when it is missing). Every page is watched for
uncaught errors and Content-Security-Policy violations: either fails the test.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from e2e_support import KillableProxy, Player, artifacts_dir

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("KONDAVO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

playwright_sync = pytest.importorskip("playwright.sync_api")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(url: str, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=1) as response:
            if response.status == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"the server did not answer {url} within {timeout} s")


@contextlib.contextmanager
def kondavo_server(
    output: IO[bytes] | int, cwd: str | Path = REPO, **settings: str
) -> Iterator[str]:
    """``python -m server`` of ``cwd`` on a free loopback port, the memory store and this
    checkout's client, with ``settings`` (more ``KONDAVO_*`` variables) and its output
    to ``output``; yields its base URL once it answers, and stops it after."""
    port = free_port()
    env = {
        **os.environ,
        "KONDAVO_HOST": "127.0.0.1",
        "KONDAVO_PORT": str(port),
        "KONDAVO_GAMES_PER_IP": "0",  # every browser here is 127.0.0.1
        "KONDAVO_CLIENT_DIR": str(REPO / "client-js"),
        **settings,
    }
    env.pop("KONDAVO_REDIS_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "server"], cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/healthz", process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Base URL of a real server with the memory store; short claim delay for tests."""
    # KONDAVO_E2E_SERVER_DIR: run the server from another checkout (the client stays this one).
    server_dir = os.environ.get("KONDAVO_E2E_SERVER_DIR", str(REPO))
    with (
        open(artifacts_dir() / "server.log", "wb") as log,
        kondavo_server(log, server_dir, KONDAVO_CLAIM_AFTER_S="3") as base,
    ):
        yield base


# Module scope: Playwright's sync API keeps its own event loop running while it is
# started, which would break the pytest-asyncio tests collected after tests/e2e.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        pytest.fail(f"no Chromium at {CHROMIUM}; install Debian's chromium package (.ci/run does)")
    with playwright_sync.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class PageErrors:
    """Uncaught exceptions and CSP violations seen on the pages of one test."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: object) -> None:
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        page.on("console", self._console)

    def _console(self, message: object) -> None:
        text = message.text
        if message.type == "error" and ("Content Security Policy" in text or "Refused to" in text):
            self.errors.append(f"csp: {text}")
        elif message.type == "error" and "Uncaught" in text:
            self.errors.append(f"console: {text}")


@pytest.fixture
def open_page(browser: object, server: str) -> Iterator[object]:
    """open_page(path="/", locale="en-GB", width=1280, height=900) -> a page in a new context.

    Each call is a separate browser context: its own storage, like another person.
    """
    contexts: list[object] = []
    errors = PageErrors()

    def make(path: str = "/", locale: str = "en-GB", width: int = 1280, height: int = 900):
        context = browser.new_context(
            locale=locale, viewport={"width": width, "height": height}, base_url=server
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        errors.watch(page)
        page.goto(path)
        return page

    yield make
    for context in contexts:
        with contextlib.suppress(Exception):
            context.close()
    assert not errors.errors, "\n".join(errors.errors)


# --------------------------------------------------------------------------------------
# helpers shared by the tests: a person at a browser page
# --------------------------------------------------------------------------------------


@pytest.fixture
def new_game(open_page):
    """new_game(variant, colour="white", clock="none") -> (creator, friend, invite URL).

    The creator uses the home page like a person would; the friend opens the invite.
    """

    def make(variant: str, colour: str = "white", clock: str = "none", **page_options):
        creator = open_page("/", **page_options)
        creator.locator(f'[data-choice="variant:{variant}"]').click()
        creator.locator(f'[data-choice="clock:{clock}"]').click()
        creator.locator(f'[data-choice="colour:{colour}"]').click()
        creator.locator('[data-choice="opponent:friend"]').click()
        creator.locator("button.play").click()
        creator.wait_for_url("**/g/*")
        invite = creator.locator("input.invite-url").input_value()
        friend = open_page(invite, **page_options)
        return Player(creator), Player(friend), invite

    return make


@pytest.fixture
def proxy(server: str) -> Iterator[KillableProxy]:
    port = int(server.rsplit(":", 1)[1])
    running = KillableProxy(port)
    yield running
    running.close()


@pytest.fixture(scope="session")
def static_site() -> Iterator[str]:
    """client-js/ served as plain files under /static/ (no game server), for board tests."""
    import functools
    import http.server
    import threading

    client = REPO / "client-js"

    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path: str) -> str:
            path = path.split("?", 1)[0]
            if path.startswith("/static/"):
                return str(client / path[len("/static/") :])
            return str(Path(__file__).resolve().parent / "blank.html")

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
