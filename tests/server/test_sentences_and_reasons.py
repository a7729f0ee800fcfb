"""Refusal sentences live once: ``protocol.messages.SENTENCES``, one per error code;
end reasons too: ``engine.Reason``, which the protocol's README lists.

The server and the protocol's decoder name a code and fill its sentence's slots; a
sentence written beside a code anywhere else is caught here by reading the source.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import string
from pathlib import Path

import pytest

from engine import Reason
from protocol import messages as m
from protocol.messages import ErrorCode, ProtocolError

ROOT = Path(__file__).resolve().parents[2]


def test_every_error_code_has_one_sentence():
    assert set(m.SENTENCES) == set(ErrorCode)
    for code, words in m.SENTENCES.items():
        assert words.endswith("."), code  # whole sentences, as a client may show them


@pytest.mark.parametrize("code", list(ErrorCode))
def test_each_sentence_reads_whole_once_its_slots_are_filled(code):
    slots = {name for _, name, _, _ in string.Formatter().parse(m.SENTENCES[code]) if name}
    filled = m.sentence(code, **{name: f"<{name}>" for name in slots})
    assert "{" not in filled and all(f"<{name}>" in filled for name in slots)


def test_a_protocol_error_says_its_codes_sentence():
    with pytest.raises(ProtocolError) as caught:
        m.decode_client(b"\x81\xa1t\xa4nope")
    assert caught.value.code is ErrorCode.MSG_UNKNOWN_TYPE
    assert caught.value.sentence == "Unknown message type 'nope'."


def _sentence_beside_a_code(call: ast.Call) -> bool:
    """A call naming an ``ErrorCode`` member with a sentence of its own beside it."""
    values = [*call.args, *(k.value for k in call.keywords)]
    # A slot's value (``why="..."``) is not a sentence; an argument in its place is.
    said = [*call.args, *(k.value for k in call.keywords if k.arg in ("message", "sentence"))]
    names_code = any(
        isinstance(v, ast.Attribute)
        and isinstance(v.value, ast.Name | ast.Attribute)
        and (v.value.id if isinstance(v.value, ast.Name) else v.value.attr) == "ErrorCode"
        for v in values
    )
    words = any(
        isinstance(v, ast.JoinedStr) or (isinstance(v, ast.Constant) and isinstance(v.value, str))
        for v in said
    )
    return names_code and words


def test_no_module_writes_a_refusal_sentence_of_its_own():
    found = []
    for folder in ("server", "protocol"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _sentence_beside_a_code(node):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_the_check_catches_a_planted_sentence():
    planted = ast.parse('raise BadRequest(ErrorCode.API_BAD_FIELD, "Name is wrong.")')
    call = next(n for n in ast.walk(planted) if isinstance(n, ast.Call))
    assert _sentence_beside_a_code(call)


def test_the_protocol_readme_lists_every_end_reason_and_no_other():
    text = (ROOT / "protocol" / "README.md").read_text()
    section = text.split("### Reasons", 1)[1].split("\n#", 1)[0]
    listed = re.findall(r"`([a-z0-9_*]+)`", section)
    values = [reason.value for reason in Reason]
    assert all(any(fnmatch.fnmatch(value, name) for name in listed) for value in values)
    assert all(any(fnmatch.fnmatch(value, name) for value in values) for name in listed)
