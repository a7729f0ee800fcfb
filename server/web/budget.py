"""What a socket lets a client send: its message budget and its strikes.

Each frame is counted against the socket's ``SocketLimits`` (``web.limits``); past
the budget the client is told ``rate/limited`` and the socket closes with 1008. A
frame that breaks the protocol is a strike: the client is told why, and after
``MAX_STRIKES`` of them the socket closes with 4029. Either answer carries the
``ack`` of the frame that caused it, when it had one.
"""

from __future__ import annotations

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode
from server.web.limits import SocketLimits
from server.web.outbox import Outbox

MAX_STRIKES = 50  # bad frames before the socket is closed


class Budget:
    def __init__(self, limits: SocketLimits, outbox: Outbox):
        self.limits = limits
        self.outbox = outbox
        self.strikes = 0

    def admit(self, message: m.ClientMessage | None, ack: int | None = None) -> bool:
        """Count the frame (``None``: one that did not decode); past the socket's budget:
        say so and close with 1008."""
        if self.limits.admit(message):
            return True
        too_many = m.sentence(ErrorCode.RATE_LIMITED, what="messages")
        refusal = m.Error(code=ErrorCode.RATE_LIMITED, message=too_many, ack=ack)
        self.outbox.send(refusal)
        self.outbox.close_after(CloseCode.POLICY)
        return False

    def strike(self, code: ErrorCode, sentence: str, ack: int | None = None) -> None:
        """Refuse a frame that broke the protocol; close with 4029 after too many."""
        self.strikes += 1
        self.outbox.send(m.Error(code=code, message=sentence, ack=ack))
        if self.strikes >= MAX_STRIKES:
            self.outbox.close_after(CloseCode.TOO_MANY_ERRORS)
