"""The loop of a bench driver behind a pipe: one JSON request a line on stdin, one JSON
answer a line on stdout, flushed at once (``bench/strength.py`` waits for each).

Stdlib only: ``pyd_driver.py`` runs under py-draughts' own interpreter, and
``baseline_driver.py`` imports another revision's ``engine``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


def serve(answer: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Answer every request with ``answer(request)``; a request that raises is answered
    ``{"error": "..."}`` and the driver keeps going (the bench reports it)."""
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
