"""What a seat may send now (``server/core/permissions``) is what the room accepts.

Random games are walked command by command (moves, offers and answers, sockets coming
and going, time passing, the end and a rematch); after every step each seat's list is
compared with the room's verdict on every command it names, made at the same instant.
The events of each step carry the new lists whenever they changed.
"""

from __future__ import annotations

import random

import pytest

from protocol import messages as m
from server.core import commands as c
from server.core import permissions, replay, room, wire
from server.core.record import GameRecord

INVITE = "I" * 22
FRESH = c.Fresh(game_id="g2", white_token="W" * 22, black_token="B" * 22)


def command_for(tag: str, side: str) -> c.Command:
    """The protocol's own message for ``tag``, as the socket hands it to the room."""
    message = m.CLIENT_MESSAGES[tag]()
    return c.Sent(side, message, fresh=lambda: FRESH)  # type: ignore[arg-type]


def assert_lists_match_the_room(record: GameRecord, now: int) -> None:
    allowed = permissions.may(record)
    for side, listed in allowed.items():
        for tag in permissions.COMMANDS:
            outcome = room.handle(record, command_for(tag, side), now)
            # A takeback asked during the pause after a decline is listed and refused
            # with how long is left: the lists know no time.
            waiting = outcome.refusal is not None and outcome.refusal.code == "takeback/too_soon"
            accepted = outcome.refusal is None or waiting
            assert accepted == (tag in listed), (tag, side, record.status, outcome.refusal)


def random_command(rng: random.Random, record: GameRecord) -> c.Command:
    side = rng.choice(["white", "black"])
    roll = rng.random()
    if roll < 0.55 and record.status == "playing":
        game = replay.replay(record.variant, record.start_fen, record.moves)
        legal = wire.legal(game)
        if legal:
            move = rng.choice(legal)
            return c.Sent(record.side_to_move, m.MakeMove(path=list(move["path"])))
    if roll < 0.65:
        return rng.choice([c.Connect(by=side), c.Disconnect(by=side)])
    if roll < 0.72:
        return c.Tick()
    return command_for(rng.choice(permissions.COMMANDS), side)


@pytest.mark.parametrize("seed", range(40))
def test_each_seat_is_told_exactly_the_commands_the_room_accepts(seed: int) -> None:
    rng = random.Random(seed)
    record = room.new_game(
        game_id="g1",
        variant=rng.choice(["english", "international", "italian"]),
        now=0,
        creator="white",
        creator_token="T" * 22,
        invite=INVITE,
        initial_ms=rng.choice([None, 60_000]),
        increment_ms=0,
        claim_after_ms=2_000,
    )
    now = 0
    assert_lists_match_the_room(record, now)
    if rng.random() < 0.9:
        record = room.handle(record, c.Join(token="J" * 22, invite=INVITE), now).record
    for _ in range(60):
        now += rng.choice([0, 100, 1_500])
        before = record
        outcome = room.handle(record, random_command(rng, record), now)
        if outcome.events:
            record = outcome.record
            # The change in what each seat may send travels with the events.
            if permissions.may(record) != permissions.may(before):
                carried = [e.message.may for e in outcome.events if e.message.may is not None]
                assert carried == [permissions.may(record)]
        assert_lists_match_the_room(record, now)


def test_the_state_lists_the_viewers_commands_and_a_move_closes_the_abort_window() -> None:
    from server.core import views

    record = room.new_game(
        game_id="g1",
        variant="english",
        now=0,
        creator="black",
        creator_token="T" * 22,
        invite=INVITE,
        initial_ms=None,
    )
    record = room.handle(record, c.Join(token="J" * 22, invite=INVITE), 0).record
    state = views.state_for(record, "black", 0, 0)
    assert state.may == {
        "white": ["abort", "draw_offer", "resign"],
        "black": ["abort", "draw_offer", "resign"],
    }
    record = room.handle(record, c.Sent("black", m.MakeMove(path=["9", "13"])), 1).record
    second = room.handle(record, c.Sent("white", m.MakeMove(path=["24", "19"])), 2)
    moved = [e.message for e in second.events if isinstance(e.message, m.Moved)]
    # Both have moved: no abort any more, and each may ask to take its move back.
    assert moved[0].may == {
        "white": ["draw_offer", "takeback_ask", "resign"],
        "black": ["draw_offer", "takeback_ask", "resign"],
    }


def test_the_listed_commands_are_the_rooms_commands_but_moves_and_chat() -> None:
    handled = {message.t for message in room._SENT_HANDLERS}
    assert set(permissions.COMMANDS) == handled - {m.MakeMove.t, m.SendChat.t}
    assert len(permissions.COMMANDS) == len(set(permissions.COMMANDS))
