"""The optional compiled accelerator, ``engine._accel`` (issue 33 point 4).

``pip install -e .`` builds it from ``engine/_accel/*.c`` where a C compiler is found;
where none is, the install goes on without it and everything runs in pure Python, which
stays the reference: the C move generator must give exactly ``engine/movegen.py``'s
moves, in the same order (tests/engine/test_accel.py checks it on every rule set).

``KONDAVO_ENGINE=python`` turns the accelerator off even when it is built.

The C tables are filled from ``engine/tables.py``'s ``Tables`` (rules as data): the
board's mask and rays, the promotion rows, the direction lists and the capture rules'
fields. C sees no rule set's name.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from .evaluation import Evaluator
from .move import Move
from .position import Position
from .rules import CrowningInCapture, Rules
from .tables import Tables, tables_for


def sources_fingerprint(folder: Path) -> str:
    """A digest of the C sources in ``folder`` (engine/_accel/); setup.py compiles the
    same digest into the module, so a module built from other sources is told apart.
    (setup.py has its own copy of these lines: it runs before the package imports.)"""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.c")) + sorted(folder.glob("*.h")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# Why the accelerator is not used, when it is not: shown by every error that needs it.
_why_not = "engine._accel is not built: reinstall with a C compiler (pip install -e .)"
_accel: ModuleType | None
try:
    from . import _accel

    _sources = Path(__file__).parent / "_accel"
    # Without the compiled module, the sources' folder engine/_accel/ imports as an
    # empty namespace package: that is "not built" too.
    if not hasattr(_accel, "perft"):
        _accel = None
    elif _sources.is_dir() and sources_fingerprint(_sources) != getattr(_accel, "SOURCES", ""):
        # C sources changed since the build (a pull, an edit): the old module could
        # disagree with the Python beside it, so the engine runs in pure Python.
        _why_not = (
            "engine._accel was built from other C sources than engine/_accel/ holds now: "
            "rebuild it (pip install -e .)"
        )
        warnings.warn(_why_not, RuntimeWarning, stacklevel=1)
        _accel = None
except ImportError:  # not built: no C compiler when the package was installed
    _accel = None

# Rules.crowning_in_capture and Rules.capture_precedence as accel.h numbers them.
_CROWNING = {
    CrowningInCapture.ENDS_MOVE: 0,
    CrowningInCapture.CONTINUES_AS_KING: 1,
    CrowningInCapture.PASSES: 2,
}
_PRECEDENCE = {"pieces": 0, "with_king": 1, "kings": 2, "earliest_king": 3}

_CACHE: dict[str, object] = {}


def built() -> bool:
    """Whether the extension was compiled and imports."""
    return _accel is not None


def available() -> bool:
    """Whether the engine may use the accelerator: built, and not turned off by
    ``KONDAVO_ENGINE=python``."""
    return _accel is not None and os.environ.get("KONDAVO_ENGINE", "").strip() != "python"


def _module() -> ModuleType:
    if _accel is None:
        raise RuntimeError(_why_not)
    return _accel


def c_tables(rules: Rules) -> object:
    """The C tables of ``rules`` (an ``engine._accel.Tables``), built once."""
    ct = _CACHE.get(rules.id)
    if ct is None:
        ct = _CACHE[rules.id] = _build(tables_for(rules))
    return ct


def _build(t: Tables) -> object:
    # rays[sq]: the ray along each king direction, in t.king_dirs' order (a ghost
    # square has none). C derives the men's jumps, the short kings' jumps and the
    # flying kings' rays from them, in the order engine/tables.py lists them.
    size = len(t.king_rays)
    rays: list[tuple[tuple[int, ...], ...]] = [()] * size
    for sq in t.rules.board.squares:
        by_dir = dict(t.king_rays[sq])
        rays[sq] = tuple(by_dir.get(d, ()) for d in t.king_dirs)
    flags = (
        int(t.flying),
        int(t.removed_at_once),
        int(t.no_turning_back),
        int(t.men_capture_kings),
        _CROWNING[t.crowning],
    )
    ct: object = _module().Tables(
        t.mask,
        t.promotion,
        flags,
        tuple(_PRECEDENCE[c] for c in t.precedence),
        t.step_dirs,
        t.capture_dirs,
        t.king_dirs,
        rays,
    )
    return ct


def _sides(pos: Position) -> tuple[int, int]:
    return (pos.white, pos.black) if pos.turn == 0 else (pos.black, pos.white)


def legal_moves(pos: Position, keep_duplicates: bool = False) -> list[Move]:
    """``pos.legal_moves()`` (or ``legal_moves_keeping_duplicates()``) from C: the same
    moves, paths, captured orders and crownings, in the same order."""
    rules = pos.rules
    own, opp = _sides(pos)
    found: list[tuple[tuple[int, ...], tuple[int, ...], int, bool]] = _module().legal_moves(
        c_tables(rules), own, opp, pos.kings, pos.turn, keep_duplicates
    )
    return [Move(rules, path, caps, capmask, promotes) for path, caps, capmask, promotes in found]


def count_legal_moves(pos: Position, keep_duplicates: bool = False) -> int:
    own, opp = _sides(pos)
    n: int = _module().count_moves(
        c_tables(pos.rules), own, opp, pos.kings, pos.turn, keep_duplicates
    )
    return n


def has_capture(pos: Position) -> bool:
    own, opp = _sides(pos)
    found: bool = _module().has_capture(c_tables(pos.rules), own, opp, pos.kings, pos.turn)
    return found


def perft(pos: Position, depth: int, keep_duplicates: bool = False, table_bits: int = 0) -> int:
    """Leaf count at ``depth``, all in C, bulk-counted at the last ply: every node
    visited (``table_bits`` 0), or with a transposition table of ``2**table_bits``
    entries of 64 bytes (whole positions as keys, so the count stays exact)."""
    own, opp = _sides(pos)
    n: int = _module().perft(
        c_tables(pos.rules), own, opp, pos.kings, pos.turn, depth, keep_duplicates, table_bits
    )
    return n


def evaluation(evaluator: Evaluator) -> Any:
    """The compiled twin of ``evaluator`` (an ``engine._accel.Evaluation``): its
    ``score(white, black, kings, turn)`` is ``evaluator.score``, read from the
    evaluator's unpacked per-square tables (engine/_accel/eval.c)."""
    return _module().Evaluation(evaluator)


def search(rules: Rules, evaluator: Evaluator, tt_size: int) -> Any:
    """A compiled search (an ``engine._accel.Search``, engine/_accel/search.c) for
    ``rules`` scoring with ``evaluator``; ``engine.search.Searcher`` keeps one and
    drives it, so its table lasts over a game."""
    return _module().Search(c_tables(rules), evaluation(evaluator), tt_size)
