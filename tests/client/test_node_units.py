"""The client's pure helpers (model, move matching, clocks, premoves, hints) have unit
tests under Node's own test runner in client-js/tests/; this runs them with the rest."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "client-js"


def test_the_client_unit_tests_pass_under_node() -> None:
    node = shutil.which("node")
    assert node is not None, "Node.js (20 or later) is needed to test the client"
    tests = sorted(str(p) for p in (CLIENT / "tests").glob("*.test.js"))
    assert tests, "no client unit tests found"
    result = subprocess.run([node, "--test", *tests], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout
