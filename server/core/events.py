"""A room's events as the nodes pass them on: the message, who may see it, and its
bytes on the wire.

Speed work, kept by ``bench/relay.py`` (moves/s and relay latency): an event is
encoded once for those who see it and once (a bare version step) for those who do
not, not once per socket, since every local socket and the store are handed the same
object; a stored event keeps the bytes it was read from (``from_frame``). The
frozen dataclass's own ``__init__`` is bypassed, as it cost twice the making of the
event on every command.

Kept by ``bench/capacity.py`` (two nodes' CPU per move against one's): an event
another node committed reaches this node as its frame, and is relayed as those bytes
(``undecoded``); its message is decoded, and checked, only if something reads it.
Decoding and checking every such event, to send the very bytes it came as, was the
largest part of what a second node added to each move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, cast

from protocol import messages as m
from server.core.record import Side

# Who may see an event: everyone, only the seated players, only spectators, or one seat.
Audience = Literal["all", "players", "spectators", "white", "black"]


@dataclass(frozen=True, init=False)
class RoomEvent:
    message: m.Event
    audience: Audience = "all"
    # The encoded frame for those who see it (True) and for the others (False): made
    # once per event, not once per socket, as every local socket is handed this object.
    _frames: dict[bool, bytes] = field(default_factory=dict, compare=False, repr=False)
    # The message's version and type tag (``m.Moved.t``...), known without the message.
    v: int = field(default=0, compare=False, repr=False)
    tag: str = field(default="", compare=False, repr=False)

    def __init__(self, message: m.Event, audience: Audience = "all"):
        # Not the frozen dataclass's own (see the module's docstring).
        self.__dict__.update(
            message=message, audience=audience, _frames={}, v=message.v, tag=message.t
        )

    @classmethod
    def undecoded(cls, frame: bytes, audience: Audience, tag: str, v: int) -> RoomEvent:
        """The event whose ``frame()`` is ``frame``, of type ``tag`` and version ``v`` (the
        caller read them from the frame): its message is decoded when first read."""
        event = object.__new__(cls)
        event.__dict__.update(audience=audience, _frames={True: frame}, v=v, tag=tag)
        return event

    if not TYPE_CHECKING:  # to the type checker, ``message`` is the plain field it is

        def __getattr__(self, name: str) -> m.Event:
            # Only an ``undecoded`` event lacks its message until it is read.
            if name != "message" or True not in self.__dict__.get("_frames", ()):
                raise AttributeError(name)
            message = m.decode_server(self._frames[True])
            assert isinstance(message, m.Event)
            self.__dict__["message"] = message
            return message

    def seen_by(self, side: Side | None) -> bool:
        """Whether a socket in ``side``'s seat (None: a spectator) may see this event."""
        if self.audience == "all":
            return True
        if self.audience == "players":
            return side is not None
        if self.audience == "spectators":
            return side is None
        return self.audience == side

    def for_viewer(self, side: Side | None) -> m.Event:
        """The message itself, or a bare version step for those who may not see it."""
        return self.message if self.seen_by(side) else m.Skip(v=self.v)

    def frame_for(self, side: Side | None) -> bytes:
        """``for_viewer(side)`` as the bytes of a binary frame, encoded once per audience."""
        seen = self.seen_by(side)
        frame = self._frames.get(seen)
        if frame is None:
            frame = self.frame() if seen else m.encode(m.Skip(v=self.v))
            self._frames[seen] = frame
        return frame

    def frame(self) -> bytes:
        """The message itself as the bytes of a binary frame (encoded once)."""
        frame = self._frames.get(True)
        if frame is None:
            frame = self._frames[True] = m.encode(self.message)
        return frame

    @classmethod
    def from_frame(cls, frame: bytes, audience: Audience) -> RoomEvent:
        """The event whose ``frame()`` is ``frame``."""
        message = m.decode_server(frame)
        assert isinstance(message, m.Event)
        event = cls(message, audience)
        event._frames[True] = frame
        return event

    def to_dict(self) -> dict[str, object]:
        return {"audience": self.audience, "message": self.message.to_dict()}

    @classmethod
    def from_dict(cls, body: dict[str, object]) -> RoomEvent:
        message = m.from_dict(body["message"], m.SERVER_MESSAGES)
        assert isinstance(message, m.Event)
        # Written by ``to_dict`` above, so one of the audiences.
        return cls(message=message, audience=cast(Audience, body["audience"]))
