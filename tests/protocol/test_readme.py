"""protocol/README.md and ``protocol.messages.schema()`` say the same, both ways (issue
31 point 6): every message of each direction, every field, and for the client's
messages each field's type, whether it may be left out, and its length limit; every
error code and every close code. A field, a message or a code added on one side only
fails here."""

from __future__ import annotations

import re
from pathlib import Path

from protocol import messages as m

README = (Path(__file__).resolve().parents[2] / "protocol" / "README.md").read_text()
SCHEMA = m.schema()
# How the README writes the schema's type names.
WORDS = {
    "an integer": "int",
    "a string": "str",
    "bool": "bool",
    "a list of strings": "[str]",
    "a list": "list",
    "a map": "map",
    "a number": "number",
    "anything": "any",
}
FIELD = re.compile(r"`(\w+)`(?:\s+([\w\[\]|]+))?(\?)?(?:\s+≤(\d+))?")


def section(title: str, end: str = "\n## ") -> str:
    start = README.index(title)
    stop = README.find(end, start + len(title))
    return README[start : stop if stop != -1 else None]


def table_rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if line.startswith("| `") and not line.startswith("| `t` |"):  # not the header
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def tag_of(cell: str) -> str:
    return cell.strip("`")


def readme_type(type_name: str) -> tuple[str, bool]:
    """The README's word for a schema type, and whether it may be nil."""
    parts = type_name.replace("true or false", "bool").split(" or ")
    nullable = "nil" in parts
    return "|".join(WORDS.get(p, p) for p in parts if p != "nil"), nullable


def test_the_client_table_lists_every_message_field_type_and_limit_of_the_schema():
    rows = table_rows(section("## Client to server"))
    documented = {tag_of(row[0]): row[1] for row in rows}
    assert set(documented) == set(SCHEMA["client_to_server"])
    for tag, fields in SCHEMA["client_to_server"].items():
        found = {
            name: (word, optional, limit)
            for name, word, optional, limit in FIELD.findall(documented[tag])
        }
        assert set(found) == set(fields), tag
        for name, spec in fields.items():
            word, optional, limit = found[name]
            expected, nullable = readme_type(spec["type"])
            assert word == expected, f"{tag}.{name}: README {word!r}, schema {expected!r}"
            may_be_left_out = nullable or not spec["required"]
            assert bool(optional) == may_be_left_out, f"{tag}.{name}: '?' is wrong"
            assert (int(limit) if limit else None) == spec.get("max_len"), f"{tag}.{name}"
            assert spec.get("min", 0) == 0  # "All integers are ≥ 0", as the README says
    assert "All integers are ≥ 0" in section("## Client to server")


def test_the_server_tables_list_every_message_and_field_of_the_schema():
    text = section("## Server to client")
    rows = table_rows(text)
    documented = {tag_of(row[0]): row[1] for row in rows}
    assert set(documented) == set(SCHEMA["server_to_client"])
    for tag, fields in SCHEMA["server_to_client"].items():
        if tag == "state":
            names = state_fields(section("### `state`", "\n### "))
        else:
            names = {name for name, *_ in FIELD.findall(documented[tag])}
            if issubclass(m.SERVER_MESSAGES[tag], m.Event):
                names |= {"v", "may"}  # "Room events (all carry `v`, and `may`? ...)"
        assert names == set(fields), tag


def state_fields(text: str) -> set[str]:
    """The top-level names of the ``state`` block: what is inside brackets is their parts."""
    block = text.split("```")[1]
    for _ in range(4):  # peel nested (...), {...}, [...] from the inside out
        block = re.sub(r"\([^()]*\)|\{[^{}]*\}|\[[^\[\]]*\]", "", block)
    names = set()
    for piece in re.split(r"[,\n]", block):
        word = re.match(r"\s*(\w+)", piece)
        if word and word.group(1) not in ("nil",):
            names.add(word.group(1))
    return names


def test_the_error_table_lists_every_error_code_and_no_other():
    documented = set(re.findall(r"`([a-z]+/[a-z_]+)`", section("## Error codes")))
    assert documented == set(SCHEMA["error_codes"])


def test_the_close_table_lists_every_close_code_and_no_other():
    documented = {
        int(row[0].strip("`"))
        for row in (
            line.strip("|").split("|")
            for line in section("## Close codes").splitlines()
            if re.match(r"\| \d{4} \|", line)
        )
    }
    assert documented == set(SCHEMA["close_codes"].values())


def test_required_fields_are_reported_and_enforced():
    hello = SCHEMA["client_to_server"]["hello"]
    assert hello["proto"]["required"] and not hello["token"]["required"]
    assert SCHEMA["client_to_server"]["chat"]["text"]["required"]
    for tag, name in (("hello", "proto"), ("chat", "text")):
        body = {"t": tag, "ack": 3} if tag == "chat" else {"t": tag}
        try:
            m.decode_client(m.packer().pack(body))
        except m.ProtocolError as refused:
            assert refused.code == m.ErrorCode.MSG_MISSING_FIELD
        else:
            raise AssertionError(f"{tag} without {name} was accepted")
    # Everything the server sends is always there (nil when it has no value).
    assert all(
        spec["required"]
        for fields in SCHEMA["server_to_client"].values()
        for spec in fields.values()
    )
