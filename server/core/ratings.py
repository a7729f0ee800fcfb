"""Ratings: a Glicko-2 rating per rule set for every player identity, applied once.

Identities:

- a person is the anonymous id its browser keeps (16-64 URL-safe characters, sent
  as ``player``). That id is a bearer secret: whoever sends it plays as that
  person. So it is never stored or shown; ratings are kept under its public id
  (``public_id``: a hash of it), which is what seats, views and leaderboards carry.
- a computer level is ``computer-N``, with the level's fixed rating (``Level.rating``,
  the same in every rule set), which games never change.

A rated game is settled once: ``settle`` reads both ratings, computes the Glicko-2
update, and hands it to the ratings store's ``commit``, which is a compare-and-set
on the two entries *and* on the game id (a store remembers every game it applied,
with its rating changes). A retry, a second node, or a crash between the ratings
commit and the game record's ``MarkRated`` therefore never applies a game twice; the
game record's ``rated_applied`` flag (set by ``MarkRated``) and its deadline
(``room.deadline``) make sure it is applied at least once.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

from engine.levels import LEVELS
from server.core.glicko2 import Rating, rate_game
from server.core.record import SIDES, Side

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
COMPUTER_ID = re.compile(r"computer-([1-9][0-9]?)")
COMPUTER_RD = 50.0  # the computer's fixed deviation: well known, never provisional
LEADERBOARD_MAX = 100
_ATTEMPTS = 10  # optimistic retries when another game of the same player lands first


def valid_player_id(value: object) -> bool:
    """The browser's secret id: 16 to 64 URL-safe characters."""
    return isinstance(value, str) and PLAYER_ID.fullmatch(value) is not None


def public_id(secret: str) -> str:
    """The id others see for the browser id ``secret``; one way, 20 hex digits.

    >>> public_id("0123456789abcdef0123456789abcdef")
    'p654559ec9867c2a6bc81'
    """
    digest = hashlib.sha256(b"kondavo-player:" + secret.encode()).hexdigest()
    return "p" + digest[:20]


def computer_id(level: int) -> str:
    return f"computer-{level}"


def computer_level(player: str) -> int | None:
    """The level a ``computer-N`` id names, or None."""
    found = COMPUTER_ID.fullmatch(player)
    if found is None or int(found.group(1)) not in LEVELS:
        return None
    return int(found.group(1))


def valid_public_id(value: str) -> bool:
    """An id ``GET /api/players/{id}`` accepts: a public id or ``computer-N``."""
    return PLAYER_ID.fullmatch(value) is not None or computer_level(value) is not None


@dataclass(frozen=True)
class Entry:
    """One identity's rating in one rule set."""

    rating: Rating = Rating()
    games: int = 0
    name: str | None = None

    def to_json(self) -> str:
        """Canonical text (a store compares it byte for byte in its compare-and-set)."""
        return json.dumps(
            {
                "r": self.rating.rating,
                "rd": self.rating.rd,
                "vol": self.rating.volatility,
                "games": self.games,
                "name": self.name,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Entry:
        body = json.loads(text)
        return cls(Rating(body["r"], body["rd"], body["vol"]), body["games"], body.get("name"))

    def shown(self) -> dict[str, Any]:
        """As the API shows it: whole points, and whether it is still provisional."""
        return {
            "rating": round(self.rating.rating),
            "rd": round(self.rating.rd),
            "games": self.games,
            "provisional": self.rating.provisional,
        }


def computer_entry(level: int) -> Entry:
    return Entry(Rating(float(LEVELS[level].rating), COMPUTER_RD), 0, f"Computer level {level}")


class Ratings(Protocol):
    """Where ratings live: ``MemoryRatings`` now, ``RedisRatings`` on a shared Redis."""

    name: str

    async def load(self, variant: str, players: list[str]) -> dict[str, Entry | None]:
        """The stored entries of ``players`` in ``variant`` (None: never rated there)."""
        ...

    async def commit(
        self,
        game_id: str,
        variant: str,
        expected: dict[str, Entry | None],
        new: dict[str, Entry],
        changes: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Apply game ``game_id`` once.

        If the game was applied before, change nothing and return the changes stored
        then. Else, if every entry in ``expected`` is still as given, write ``new``,
        remember ``changes`` for the game and return them; otherwise (another game of
        one of these players landed first) change nothing and return None.
        """
        ...

    async def top(self, variant: str, limit: int) -> list[tuple[str, Entry]]:
        """The highest rated players of ``variant`` (public id, entry), best first."""
        ...

    async def of_player(self, player: str) -> dict[str, Entry]:
        """Every rule set ``player`` has a rating in."""
        ...

    async def close(self) -> None: ...


# --- reading ----------------------------------------------------------------------------


async def current(ratings: Ratings, variant: str, player: str) -> Entry:
    """``player``'s rating in ``variant`` now (a newcomer's is 1500 +- 350)."""
    level = computer_level(player)
    if level is not None:
        return computer_entry(level)
    return (await ratings.load(variant, [player]))[player] or Entry()


async def player_ratings(ratings: Ratings, player: str) -> dict[str, Entry]:
    from engine import VARIANTS

    level = computer_level(player)
    if level is not None:
        return {variant: computer_entry(level) for variant in VARIANTS}
    return await ratings.of_player(player)


# --- settling a rated game -----------------------------------------------------------


def score_of(result: str) -> float:
    return {"white": 1.0, "black": 0.0, "draw": 0.5}[result]


async def rate(
    ratings: Ratings,
    game_id: str,
    variant: str,
    players: dict[Side, str],
    names: dict[Side, str | None],
    white_score: float,
) -> dict[str, Any]:
    """Apply one game to both ratings exactly once; the changes per side.

    Computer levels keep their fixed rating; a person's entry changes by the
    Glicko-2 update of one rating period holding this one game.
    """
    for _ in range(_ATTEMPTS):
        humans = [p for p in players.values() if computer_level(p) is None]
        stored = await ratings.load(variant, humans)
        before: dict[Side, Entry] = {}
        for side in SIDES:
            player = players[side]
            level = computer_level(player)
            before[side] = (
                computer_entry(level) if level is not None else (stored[player] or Entry())
            )
        white, black = rate_game(before["white"].rating, before["black"].rating, white_score)
        after_rating = {"white": white, "black": black}
        new: dict[str, Entry] = {}
        changes: dict[str, Any] = {}
        for side in SIDES:
            player, old = players[side], before[side]
            if computer_level(player) is None:
                entry = Entry(after_rating[side], old.games + 1, names[side] or old.name)
                new[player] = entry
            else:
                entry = old
            changes[side] = {
                "before": round(old.rating.rating),
                "after": round(entry.rating.rating),
                "diff": round(entry.rating.rating) - round(old.rating.rating),
                "provisional": entry.rating.provisional,
            }
        applied = await ratings.commit(
            game_id, variant, {p: stored[p] for p in humans}, new, changes
        )
        if applied is not None:
            return applied
    raise RuntimeError(f"game {game_id}: the ratings kept changing under this update")
