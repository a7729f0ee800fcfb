"""The lobby by increments: the changes that take one listing to the next, and a
client's way to fold them into the listing it holds.

A listing (``messages.Lobby``) has two lists, ``open`` and ``live``, of game lines
(maps with an ``id``), each newest first: by ``created_at``, then the greater ``id``.
Between two listings the server sends at most three messages, in this order, each one
lobby version on: ``removed`` (ids), ``changed`` (whole lines, replacing those of their
ids), ``added`` (whole lines). Folding them in order, and keeping each list in that
order, gives the second listing exactly (``tests/protocol/test_lobby_increments.py``).

>>> before = Lobby(v=4, open=[{"id": "a", "created_at": 1}])
>>> after = Lobby(open=[{"id": "b", "created_at": 2}])
>>> [(c.t, c.v) for c in changes(before, after)]
[('removed', 5), ('added', 6)]
>>> fold(fold(before, changes(before, after)[0]), changes(before, after)[1]).open
[{'id': 'b', 'created_at': 2}]
"""

from __future__ import annotations

from typing import Any

from protocol.messages import Lobby, LobbyAdded, LobbyChange, LobbyChanged, LobbyRemoved

LISTS = ("open", "live")


def newest_first(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``lines`` in the lobby's order: newest ``created_at`` first, then the greater id."""
    return sorted(lines, key=lambda line: (line.get("created_at") or 0, line["id"]), reverse=True)


def changes(before: Lobby, after: Lobby) -> list[LobbyChange]:
    """What takes ``before`` to ``after``: a ``removed``, a ``changed`` and an ``added``
    message, each only if it has something, numbered on from ``before.v``."""
    removed: dict[str, list[str]] = {}
    changed: dict[str, list[dict[str, Any]]] = {}
    added: dict[str, list[dict[str, Any]]] = {}
    for name in LISTS:
        old = {line["id"]: line for line in getattr(before, name)}
        new = {line["id"]: line for line in getattr(after, name)}
        removed[name] = [game for game in old if game not in new]
        changed[name] = [line for game, line in new.items() if game in old and old[game] != line]
        added[name] = [line for game, line in new.items() if game not in old]
    found: list[LobbyChange] = []
    v = before.v
    for kind, parts in ((LobbyRemoved, removed), (LobbyChanged, changed), (LobbyAdded, added)):
        if any(parts.values()):
            v += 1
            found.append(kind(v=v, **parts))
    return found


def fold(listing: Lobby, change: LobbyChange) -> Lobby:
    """``listing`` with ``change`` applied, at the change's version. The caller checks
    that ``change.v`` is ``listing.v + 1`` (else it missed one: resync)."""
    lists: dict[str, list[dict[str, Any]]] = {}
    for name in LISTS:
        lines = getattr(listing, name)
        part = getattr(change, name)
        if not part:
            lists[name] = lines
            continue
        if isinstance(change, LobbyRemoved):
            gone = set(part)
            lists[name] = [line for line in lines if line["id"] not in gone]
        else:
            by_id = {line["id"]: line for line in lines}
            for line in part:
                by_id[line["id"]] = line
            lists[name] = newest_first(list(by_id.values()))
    return Lobby(v=change.v, open=lists["open"], live=lists["live"])
