"""The wire format shared by the server and its clients: msgpack messages tagged by ``t``."""

from .messages import (
    CLIENT_MESSAGES,
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    SUBPROTOCOL,
    CloseCode,
    ErrorCode,
    ProtocolError,
    decode_client,
    decode_server,
    encode,
)

__all__ = [
    "CLIENT_MESSAGES",
    "MAX_FRAME_BYTES",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGES",
    "SUBPROTOCOL",
    "CloseCode",
    "ErrorCode",
    "ProtocolError",
    "decode_client",
    "decode_server",
    "encode",
]
