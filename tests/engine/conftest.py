"""Fixtures shared by the engine's tests: the move generator's and the search's two
backends.

The pure-Python generator is the reference; the compiled one (engine/_accel, built by
``pip install -e .`` where a C compiler is found) must give the same moves, so the rules
tests run against both; the search tests run against both searches the same way. The
C backend is left out only when the accelerator is not built and ``KONDAVO_ENGINE=python``
says so on purpose; otherwise a missing build fails.
"""

import os
from collections.abc import Callable

import pytest

from engine import Move, Position, accel, evaluation, patterns

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


@pytest.fixture
def search_backend(backend, monkeypatch) -> str:
    """The test runs with ``backend``'s search: ``KONDAVO_ENGINE`` names it, and
    ``Searcher`` (so every level) searches in C exactly when the accelerator is available."""
    monkeypatch.setenv("KONDAVO_ENGINE", backend)
    assert accel.available() == (backend == "c")
    return backend


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """The evaluation reads its weights files from an empty folder (``tmp_path``) and
    its pattern tables from an empty folder beside them (``tmp_path / "patterns"``):
    a test writes the files it wants there, and sees only those. The loaders' caches
    are cleared on the way in and out, so no other test sees these files."""
    monkeypatch.setattr(evaluation, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(patterns, "PATTERNS_DIR", tmp_path / "patterns")
    evaluation._fitted.cache_clear()
    patterns._load.cache_clear()
    yield tmp_path
    monkeypatch.undo()
    evaluation._fitted.cache_clear()
    patterns._load.cache_clear()
