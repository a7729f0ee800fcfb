"""Which pages may open a WebSocket here: the Origin allowlist (issue 7).

A browser sends ``Origin`` with every WebSocket handshake, and the same-origin
policy does not apply to WebSockets, so without this check any site a player
visits could open a socket to the game server in that player's name
(cross-site WebSocket hijacking). Starlette's CORS middleware covers HTTP only.

No ``Origin`` at all is not a browser (the test client, bots, benchmarks): allowed,
since a browser cannot leave the header out.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit


def normal_origin(text: str) -> str:
    """``scheme://host[:port]`` in lower case, without a path or a default port.

    >>> normal_origin("HTTPS://Kondavo.example:443/g/x")
    'https://kondavo.example'
    """
    parts = urlsplit(text.strip().lower())
    netloc = parts.netloc
    for scheme, port in (("http", ":80"), ("https", ":443")):
        if parts.scheme == scheme and netloc.endswith(port):
            netloc = netloc[: -len(port)]
    return f"{parts.scheme}://{netloc}"


def allowlist(configured: Iterable[str], public_url: str | None) -> frozenset[str]:
    """The configured origins (``*``: any) plus the public URL's origin."""
    origins = {o if o == "*" else normal_origin(o) for o in configured if o.strip()}
    if public_url:
        origins.add(normal_origin(public_url))
    return frozenset(origins)


def origin_allowed(
    headers: Iterable[tuple[bytes, bytes]], allowed: frozenset[str], own_host_allowed: bool
) -> bool:
    """Whether a handshake with these headers may be accepted.

    ``own_host_allowed``: a page served by this very host (Origin's host equals the
    request's Host) is allowed; that is the default when no origins are configured.
    """
    origin = host = None
    for name, value in headers:
        if name == b"origin":
            origin = value.decode("latin-1")
        elif name == b"host":
            host = value.decode("latin-1").strip().lower()
    if origin is None:
        return True
    if "*" in allowed:
        return True
    if origin == "null":  # sandboxed frames, file: pages
        return False
    normal = normal_origin(origin)
    if normal in allowed:
        return True
    if own_host_allowed and host:
        scheme, _, netloc = normal.partition("://")
        for default in (":80", ":443"):
            if host.endswith(default):
                host = host[: -len(default)]
        return scheme in ("http", "https") and netloc == host
    return False
