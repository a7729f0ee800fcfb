"""Fixtures shared by the engine's tests: the move generator's two backends.

The pure-Python generator is the reference; the compiled one (engine/_accel, built by
``pip install -e .`` where a C compiler is found) must give the same moves, so the rules
tests run against both. The C backend is left out only when the accelerator is not built
and ``KONDAVO_ENGINE=python`` says so on purpose; otherwise a missing build fails.
"""

import os
from collections.abc import Callable

import pytest

from engine import Move, Position, accel

BACKENDS = ["python", "c"]
if not accel.built() and os.environ.get("KONDAVO_ENGINE", "").strip() == "python":
    BACKENDS = ["python"]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def legal_moves_of(backend) -> Callable[[Position], list[Move]]:
    """Position -> its legal moves, from the backend under test."""
    if backend == "python":
        return Position.legal_moves
    return accel.legal_moves
