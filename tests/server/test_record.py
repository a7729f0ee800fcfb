"""The stored game record: copies and plain-data round trips."""

from __future__ import annotations

import dataclasses

import msgpack

from engine import Reason
from server.core.record import GameRecord, SeatRecord


def full_record() -> GameRecord:
    """A record with every field away from its default, every container filled."""
    return GameRecord(
        id="g1", variant="russian", created_at=1, start_fen="W:Wc3:Bf6", moves=["c3-d4", "f6-e5"],
        fen="W:Wd4:Be5", side_to_move="white", status="playing", opponent="open", level=3,
        rated=True, invite="i" * 22,
        seats={"white": SeatRecord(token="w" * 22, name="Ada", sockets=1, player="p1"),
               "black": None},
        initial_ms=60_000, increment_ms=1_000, remaining_ms={"white": 5, "black": 6},
        turn_started=9, draw_offer="black", draw_declined_at={"white": 2}, rematch_offer="white",
        chat=[{"by": "white", "text": "gg", "audience": "all"}], turn_since=9, version=7,
        position_version=6,
    )  # fmt: skip


def containers(value: object) -> list[object]:
    """Every list, dict and dataclass instance inside ``value``, itself included."""
    found: list[object] = []
    if isinstance(value, list | dict) or dataclasses.is_dataclass(value):
        found.append(value)
    if isinstance(value, dict):
        for item in value.values():
            found += containers(item)
    elif isinstance(value, list):
        for item in value:
            found += containers(item)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            found += containers(getattr(value, f.name))
    return found


def test_a_copy_equals_the_record_and_shares_no_container_with_it():
    record = full_record()
    twin = record.copy()
    assert twin == record
    assert twin.to_dict() == record.to_dict()
    mine = {id(c) for c in containers(record)}
    assert not any(id(c) in mine for c in containers(twin))


def test_changing_a_copy_leaves_the_record_as_it_was():
    record = full_record()
    before = record.to_dict()
    twin = record.copy()
    twin.moves.append("d4xf6")
    twin.seats["white"].sockets = 0  # type: ignore[union-attr]
    twin.remaining_ms["white"] = 0
    twin.draw_declined_at["black"] = 3
    twin.chat[0]["text"] = "changed"
    twin.version = 8
    assert record.to_dict() == before


def test_every_field_that_holds_a_container_has_a_default_factory():
    # GameRecord.copy shares every other field with the copy as an immutable leaf.
    record = full_record()
    for f in dataclasses.fields(GameRecord):
        if f.default_factory is dataclasses.MISSING:
            assert not containers(getattr(record, f.name)), f.name


def test_a_record_survives_its_plain_data():
    record = full_record()
    assert GameRecord.from_dict(record.to_dict()) == record


def test_an_ended_records_reason_comes_back_as_the_engines_reason_through_msgpack():
    record = dataclasses.replace(full_record(), status="aborted", reason=Reason.WITHDRAWN)
    stored = msgpack.unpackb(msgpack.packb(record.to_dict()))
    assert stored["reason"] == "withdrawn"
    assert GameRecord.from_dict(stored).reason is Reason.WITHDRAWN
