"""The lobby by increments: what changed between two listings, in one message, and a
client's way to fold it into the listing it holds.

A listing (``messages.Lobby``) has two lists, ``open`` and ``live``, of game lines
(maps with an ``id``), each newest first: by ``created_at``, then the greater ``id``.
Between two listings the server sends one ``changes`` message, one lobby version on:
``removed`` (ids), ``changed`` (whole lines, replacing those of their ids) and
``added`` (whole lines), each with a list per lobby list. Folding it in that order,
keeping each list in the lobby's order, gives the second listing exactly
(``tests/protocol/test_lobby_increments.py``).

>>> before = Lobby(v=4, open=[{"id": "a", "created_at": 1}])
>>> after = Lobby(open=[{"id": "b", "created_at": 2}])
>>> [(c.v, c.removed, c.added) for c in changes(before, after)]
[(5, {'open': ['a'], 'live': []}, {'open': [{'id': 'b', 'created_at': 2}], 'live': []})]
>>> fold(before, changes(before, after)[0]).open
[{'id': 'b', 'created_at': 2}]
"""

from __future__ import annotations

from typing import Any

from protocol.messages import Lobby, LobbyChange, LobbyChanges

LISTS = ("open", "live")


def newest_first(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``lines`` in the lobby's order: newest ``created_at`` first, then the greater id."""
    return sorted(lines, key=lambda line: (line.get("created_at") or 0, line["id"]), reverse=True)


def changes(before: Lobby, after: Lobby) -> list[LobbyChange]:
    """What takes ``before`` to ``after``: one ``changes`` message at ``before.v + 1``,
    or none when they list the same."""
    removed: dict[str, list[str]] = {}
    changed: dict[str, list[dict[str, Any]]] = {}
    added: dict[str, list[dict[str, Any]]] = {}
    for name in LISTS:
        old = {line["id"]: line for line in getattr(before, name)}
        new = {line["id"]: line for line in getattr(after, name)}
        removed[name] = [game for game in old if game not in new]
        changed[name] = [line for game, line in new.items() if game in old and old[game] != line]
        added[name] = [line for game, line in new.items() if game not in old]
    if not any(part for parts in (removed, changed, added) for part in parts.values()):
        return []
    return [LobbyChanges(v=before.v + 1, removed=removed, changed=changed, added=added)]


def fold(listing: Lobby, change: LobbyChange) -> Lobby:
    """``listing`` with ``change`` applied, at the change's version. The caller checks
    that ``change.v`` is ``listing.v + 1`` (else it missed one: resync)."""
    lists: dict[str, list[dict[str, Any]]] = {}
    for name in LISTS:
        gone = set(change.removed.get(name, ()))
        lines = [line for line in getattr(listing, name) if line["id"] not in gone]
        new = [*change.changed.get(name, ()), *change.added.get(name, ())]
        if new:
            by_id = {line["id"]: line for line in lines}
            for line in new:
                by_id[line["id"]] = line
            lines = newest_first(list(by_id.values()))
        lists[name] = lines
    return Lobby(v=change.v, open=lists["open"], live=lists["live"])
