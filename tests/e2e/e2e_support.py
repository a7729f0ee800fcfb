"""Helpers for the browser tests: a person at a page, a breakable network, artifacts."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def artifacts_dir() -> Path:
    """tests/e2e/artifacts/ (git-ignored): screenshots and the server log."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


class Player:
    """One person's page; the methods do what a person does with the mouse."""

    def __init__(self, page: object):
        self.page = page

    def square(self, label: str) -> object:
        return self.page.locator(f'svg.board rect[data-square="{label}"]')

    def click(self, label: str) -> None:
        self.square(label).click()

    def wait_turn(self, ply: int) -> None:
        """Wait until ``ply - 1`` moves are known and this page may move."""
        self.page.wait_for_function(
            """ply => { const k = window.kondavo; return k && k.state && !k.pending
                   && k.state.moves.length === ply - 1 && k.state.legal.length > 0; }""",
            arg=ply,
        )

    def play(self, path: list[str], ply: int, every_square: bool = False) -> None:
        """Click the piece, then the landing squares (all of them, or just the last)."""
        self.wait_turn(ply)
        self.click(path[0])
        for label in path[1:] if every_square else path[-1:]:
            self.click(label)
        self.wait_ply(ply)

    def wait_ply(self, ply: int) -> None:
        self.page.locator(f'.movelist [data-ply="{ply}"]:not(:empty)').wait_for()

    def moves(self) -> list[str]:
        return [t for t in self.page.locator(".movelist .mv").all_text_contents() if t]

    def legal(self) -> list[dict[str, object]]:
        return self.page.evaluate("window.kondavo.state.legal")

    def banner(self) -> object:
        return self.page.locator(".banner.result")


class KillableProxy:
    """A TCP proxy in front of the server whose connections can be cut at once,
    like a network that drops: no WebSocket close frame, just a dead socket."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.connections: list[socket.socket] = []
        self.lock = threading.Lock()
        self.refusing = False
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.connections += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_RDWR)

    def cut(self, refuse: bool = True) -> None:
        """Drop every open connection; with ``refuse``, turn new ones away until ``heal``."""
        self.refusing = refuse
        with self.lock:
            doomed, self.connections = self.connections, []
        for sock in doomed:
            with contextlib.suppress(OSError):
                # SO_LINGER 0: close with a reset, as a broken network would; shutdown
                # first, so the threads blocked reading this socket wake up.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def heal(self) -> None:
        self.refusing = False

    def close(self) -> None:
        self.running = False
        self.cut()
        self.listener.close()
