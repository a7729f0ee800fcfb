"""Clocks fair under lag: a move's network time is given back, within a quota.

A player's clock runs from the moment the server sent the opponent's move until its
own move arrives, so it pays for the network both ways. The client measures its round
trip (its pings' answers) and reports it with each move (``move.lag``); the server
credits the mover that much, but never more than the seat's quota, nor more than the
move's turn lasted. The quota starts at three gains, grows by one gain with each timed
move and is capped at seven, so a steady honest lag is always paid back, while a client
that lies about its lag gains at most the quota over a whole game. The gain scales with
the game's length: 0.2 s for games of 15 s or less, 1 s for three minutes or more
(counting 40 moves of increment), in a straight line between. The idea, a quota that
grows per move, is lichess's LagTracker's; the numbers here are ours.

The flag is judged after the credit, as lichess does: a move sent in time that arrives
after the mover's clock reached zero is still played if its credit covers the overrun,
so the flag falls only ``grace_ms`` (what the quota could still give) after the zero.
"""

from __future__ import annotations

SHORT_S, LONG_S = 15, 180  # estimated game lengths at which the gain stops changing
SHORT_GAIN_MS, LONG_GAIN_MS = 200, 1_000
START_GAINS, MAX_GAINS = 3, 7
MOVES_COUNTED = 40  # moves of increment counted into a game's estimated length


def gain_ms(initial_ms: int, increment_ms: int) -> int:
    """How much quota each timed move adds, for a clock of ``initial_ms`` + ``increment_ms``.

    >>> gain_ms(10_000, 0), gain_ms(300_000, 3_000), gain_ms(60_000, 0)
    (200, 1000, 418)
    """
    seconds = (initial_ms + MOVES_COUNTED * increment_ms) / 1000
    if seconds <= SHORT_S:
        return SHORT_GAIN_MS
    if seconds >= LONG_S:
        return LONG_GAIN_MS
    share = (seconds - SHORT_S) / (LONG_S - SHORT_S)
    return round(SHORT_GAIN_MS + share * (LONG_GAIN_MS - SHORT_GAIN_MS))


def credit(
    quota_ms: int | None, gain: int, reported_ms: int | None, spent_ms: int
) -> tuple[int, int]:
    """``(credit, quota after)`` for a timed move whose turn lasted ``spent_ms`` on the
    server's clock and whose client reported a round trip of ``reported_ms``.
    ``quota_ms`` None: the seat's first timed move (it starts at three gains).

    >>> credit(None, 200, 300, 1_000)  # quota 600: all 300 ms given back
    (300, 500)
    >>> credit(100, 200, 5_000, 1_000)  # a lie: no more than the quota
    (100, 200)
    >>> credit(600, 200, 300, 120)  # never more than the turn lasted
    (120, 680)
    """
    quota = START_GAINS * gain if quota_ms is None else quota_ms
    given = max(0, min(reported_ms or 0, quota, spent_ms))
    return given, min(quota - given + gain, MAX_GAINS * gain)


def grace_ms(quota_ms: int | None, gain: int) -> int:
    """How long after its clock reaches zero a seat's move may still arrive and be
    played: the most its next move can be credited (the quota as it stands).

    >>> grace_ms(None, 200), grace_ms(450, 200)
    (600, 450)
    """
    return START_GAINS * gain if quota_ms is None else quota_ms
