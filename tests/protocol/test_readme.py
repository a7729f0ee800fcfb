"""protocol/README.md and ``protocol.messages.schema()`` say the same, both ways (issue
31 point 6): every message of each direction, every field, each field's type, whether
it may be left out (client) or be nil (server), and its limits; every error code and
every close code. A field, a message, a type or a limit changed on one side only fails
here."""

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
# `name` type? ≤N; a server table may write literal types ("white"|"black", its pipes
# escaped for the table) and ``side`` for "white"|"black".
FIELD = re.compile(r"`(\w+)`(?:\s+([\w\[\]|\"\\\\]+))?(\?)?(?:\s+≤(\d+))?")
SIDE = '"white"|"black"'


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


def server_type(word: str) -> str:
    """A server table's type word as ``readme_type`` writes the schema's."""
    word = word.replace("\\|", "|")
    return SIDE if word == "side" else word


def schema_type(type_name: str) -> tuple[str, bool]:
    expected, nullable = readme_type(type_name)
    return expected.replace("'", '"'), nullable


def assert_fields_match(where: str, cell: str, fields: dict, left_out: set[str]) -> None:
    """The fields written in ``cell`` are the schema's (but ``left_out``), each with the
    schema's type, nil-ability and length limit."""
    found = {name: rest for name, *rest in FIELD.findall(cell)}
    assert set(found) == set(fields) - left_out, where
    for name, (word, nil, limit) in found.items():
        expected, nullable = schema_type(fields[name]["type"])
        assert server_type(word) == expected, (
            f"{where}.{name}: README {word!r}, schema {expected!r}"
        )
        assert bool(nil) == nullable, f"{where}.{name}: '?' is wrong"
        assert (int(limit) if limit else None) == fields[name].get("max_len"), f"{where}.{name}"


def test_the_server_tables_list_every_message_field_type_and_limit_of_the_schema():
    messages_text = section("## Server to client", "\n### `state`")
    documented = {tag_of(row[0]): row[1] for row in table_rows(messages_text)}
    assert set(documented) == set(SCHEMA["server_to_client"])
    # "Room events (all carry `v` int, and `may` map? ...)": the fields every event has.
    carried = re.search(r"Room events \(all carry (.*?) when", messages_text)
    assert carried is not None
    event_fields = {"v", "may"}
    for tag, fields in SCHEMA["server_to_client"].items():
        if tag == "state":
            rows = table_rows(section("### `state`", "\n### "))
            assert_fields_match(tag, " ".join(row[0] for row in rows), fields, set())
        elif issubclass(m.SERVER_MESSAGES[tag], m.Event):
            assert_fields_match(tag, carried.group(1), fields, set(fields) - event_fields)
            assert_fields_match(tag, documented[tag], fields, event_fields)
        else:
            assert_fields_match(tag, documented[tag], fields, set())


def test_every_server_integer_has_the_lower_bound_the_readme_gives():
    """ "All integers are ≥ 0 ..., except `rating`": the schema's ``min`` says the same,
    field by field; no server field has any other limit the README does not show."""
    said = re.search(
        r"All integers are ≥ 0 \(`min` 0 in\s+`schema\(\)`\), except ([^.]*)\.",
        section("## Server to client"),
    )
    assert said is not None
    unbounded = set(re.findall(r"`(\w+)`", said.group(1)))
    for tag, fields in SCHEMA["server_to_client"].items():
        for name, spec in fields.items():
            limits = {k: v for k, v in spec.items() if k not in ("type", "required")}
            if schema_type(spec["type"])[0] == "int" and name not in unbounded:
                assert limits == {"min": 0}, f"{tag}.{name}: {limits}"
            else:
                assert limits == {}, f"{tag}.{name}: {limits}"


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
