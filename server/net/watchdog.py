"""One timer for every socket's sends: cuts off a socket whose send has waited too long.

A send only waits while the peer's buffers and ours are full: it stopped reading.
Each socket used to re-arm a timer of its own every few seconds. On a busy node that
was tens of thousands of timer objects living seconds each, which the garbage
collector walked again and again (issue 7: its young collections were the paced
relay's tail). One sweep over the node's sockets costs a walk of a set instead, and
a socket marks a send with a timestamp, not a timer.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Sending(Protocol):
    # When the send now waiting began (``time.monotonic()``); None: no send waiting.
    sending_since: float | None

    def cut_off(self) -> None: ...


class SendWatchdog:
    def __init__(self, limit_s: float):
        self.limit_s = limit_s
        self._sockets: set[Sending] = set()

    def add(self, socket: Sending) -> None:
        self._sockets.add(socket)

    def discard(self, socket: Sending) -> None:
        self._sockets.discard(socket)

    def __len__(self) -> int:
        return len(self._sockets)

    def sweep(self, now: float) -> list[Sending]:
        """Cut off (and forget) each socket whose send has waited ``limit_s`` by ``now``."""
        stuck = [
            s
            for s in self._sockets
            if s.sending_since is not None and now - s.sending_since >= self.limit_s
        ]
        for socket in stuck:
            self._sockets.discard(socket)
            socket.cut_off()  # its blocked send fails; its writer and reader then stop
        return stuck

    async def run(self) -> None:
        """Sweep every quarter of the limit: a stuck send is cut off within 1.25x it."""
        while True:
            await asyncio.sleep(self.limit_s / 4)
            self.sweep(time.monotonic())
