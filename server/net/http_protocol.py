"""uvicorn's HTTP protocol (httptools), less the reference cycle it leaves at every
WebSocket upgrade.

The protocol object hands its transport to the WebSocket protocol and is dropped,
but its parser still holds it (httptools calls back into the protocol's bound
methods), so each handshake left a cycle of about 25 objects that only the
garbage collector's older generations could free (gc.DEBUG_SAVEALL under
bench/relay.py's load). With no cycles, the node can run its full collections
rarely (``server.__main__.GC_THRESHOLDS``) without growing meanwhile. uvicorn
itself drops the parser when an HTTP connection is lost, which an upgraded
connection never reports to this object.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class UpgradeReleasingHttpToolsProtocol(HttpToolsProtocol):
    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # Nothing reads the parser after the upgrade: data_received returns right after
        # this call, and the transport now feeds the WebSocket protocol.
        self.parser = None  # type: ignore[assignment]
