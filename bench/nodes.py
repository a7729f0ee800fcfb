"""What the benches share: a revision's code checked out with ``git archive``, and a
``python -m server`` node started on a free loopback port and stopped.

Import it as the other bench helpers are (``bench/`` on ``sys.path``, as it is for a
script run from there): ``from nodes import checkout, start_node, stop_node``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from loadgen import free_port, wait_http

REPO = Path(__file__).resolve().parent.parent


def checkout(revision: str, into: Path, *folders: str) -> str:
    """REV's ``folders`` (``engine``, ``server``, ...) extracted into ``into`` (``git
    archive``: the working tree and its worktrees are untouched); returns the revision's
    short hash."""
    short = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", revision],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", short, *folders],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return short


def checkout_engine(revision: str, into: Path) -> tuple[str, bool]:
    """REV's ``engine/`` extracted into ``into`` with its C accelerator built in place
    when REV has one (its ``setup.py``) and this machine a compiler, so a baseline
    searches as it does when installed, not in pure Python (thirty times fewer nodes
    a second would measure the build, not the change). Returns the short hash and
    whether the accelerator was built."""
    short = checkout(revision, into, "engine")
    has_setup = (
        subprocess.run(
            ["git", "-C", str(REPO), "cat-file", "-e", f"{short}:setup.py"],
            capture_output=True,
        ).returncode
        == 0
    )
    if not has_setup or not (into / "engine" / "_accel").is_dir():
        return short, False
    checkout(short, into, "setup.py")
    # Without pyproject.toml: the extension needs nothing from it, and this
    # environment's setuptools may be older than the one pip builds the project with
    # and refuse its metadata.
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=into,
        capture_output=True,
    )
    return short, any((into / "engine").glob("_accel*.so"))


def start_node(
    redis_url: str | None = None, tree: Path = REPO, **settings: str
) -> tuple[str, subprocess.Popen[bytes]]:
    """``python -m server`` of ``tree`` (this one, or a ``checkout``) on a free loopback
    port, without the per-player and per-address limits a load would hit: the memory
    store, or Redis at ``redis_url``; ``settings`` are more ``KONDAVO_*`` variables.
    Returns its URL once ``/healthz`` answers, and its process (``stop_node``)."""
    port = free_port()
    env = dict(os.environ)
    env.pop("KONDAVO_REDIS_URL", None)
    env.update(
        KONDAVO_HOST="127.0.0.1",
        KONDAVO_PORT=str(port),
        KONDAVO_PLAYER_MESSAGES="1000000",
        KONDAVO_SPECTATOR_MESSAGES="1000000",
        KONDAVO_SOCKETS_PER_IP="0",
        KONDAVO_GAMES_PER_IP="0",
        PYTHONPATH=os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")])),
        **settings,
    )
    if redis_url:
        env["KONDAVO_REDIS_URL"] = redis_url
    process = subprocess.Popen(
        [sys.executable, "-m", "server"],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    wait_http(url + "/healthz", process)
    return url, process


def stop_node(process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """SIGTERM (the server's own shutdown), then SIGKILL if it is not gone in ``seconds``."""
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
