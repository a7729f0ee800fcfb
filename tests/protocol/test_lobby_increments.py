"""The lobby's increments (``protocol.lobby``): folding the changes between two
listings into the first gives the second, whatever the two are."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol import lobby
from protocol import messages as m

IDS = st.sampled_from([f"g{n}" for n in range(12)])
LINE = st.fixed_dictionaries(
    {"id": IDS, "created_at": st.integers(0, 5), "moves": st.integers(0, 2)}
)


def listing(v: int = 0):
    lines = st.lists(LINE, max_size=8, unique_by=lambda line: line["id"])
    return st.builds(
        lambda open_, live: m.Lobby(
            v=v, open=lobby.newest_first(open_), live=lobby.newest_first(live)
        ),
        lines,
        lines,
    )


@given(before=listing(v=7), after=listing())
def test_folding_the_changes_in_order_gives_the_next_listing(before, after):
    found = lobby.changes(before, after)
    assert [c.v for c in found] == ([8] if found else [])  # one message, one version
    held = before
    for change in found:
        assert change == m.decode_server(m.encode(change))  # as sent
        held = lobby.fold(held, change)
    assert (held.open, held.live) == (after.open, after.live)
    assert held.v == before.v + len(found)


def test_the_same_listing_has_no_changes():
    same = m.Lobby(v=3, open=[{"id": "a", "created_at": 1}])
    assert lobby.changes(same, m.Lobby(open=same.open)) == []
