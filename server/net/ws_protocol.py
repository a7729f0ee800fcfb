"""uvicorn's WebSocket protocol (websockets' sans-I/O), less the reference cycle each
closed socket leaves behind.

The ``websockets`` connection under it parses with a generator that holds the
connection itself. After a close frame it parses with ``discard``, which waits for
the end of the stream; uvicorn never reports that end to it (``eof_received`` does
nothing), so the generator stays suspended and the connection, its reader, its
frames and logger stay alive in a cycle that only a full garbage collection frees.
The node runs those rarely (``server.__main__.GC_THRESHOLDS``): a node on the memory
store grew by about 3 MiB per 1,000 finished games until one ran (bench/forget.py).
Once the connection is lost nothing will be parsed, so the parser is dropped.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class ParserReleasingWebSocketProtocol(WebSocketsSansIOProtocol):
    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # No data arrives after this: the parser is never resumed again.
        self.conn.parser = None  # type: ignore[assignment]
