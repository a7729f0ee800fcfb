"""The room without sockets: every command and every refusal, with time injected."""

from __future__ import annotations

import copy

import pytest

from engine import Game, get_rules
from protocol import messages as m
from protocol.messages import ErrorCode
from server.core import lag, permissions, room
from server.core.commands import (
    Connect,
    Disconnect,
    Fresh,
    Join,
    Sent,
    Tick,
)
from server.core.record import GameRecord

WHITE, BLACK, INVITE = "w" * 22, "b" * 22, "i" * 22
T0 = 1_000_000


def make(
    variant: str = "english",
    clock: tuple[int, int] | None = (60_000, 2_000),
    fen: str | None = None,
    opponent: str = "friend",
    joined: bool = True,
    connected: bool = True,
    first_move_ms: int = 0,  # the first-move abort has its own tests (test_room_takeback)
) -> GameRecord:
    record = room.new_game(
        game_id="g1",
        variant=variant,
        now=T0,
        creator="white",
        creator_token=WHITE,
        creator_name="Ada",
        invite=INVITE if opponent == "friend" else None,
        opponent=opponent,  # type: ignore[arg-type]
        initial_ms=clock[0] if clock else None,
        increment_ms=clock[1] if clock else 0,
        start_fen=fen,
        claim_after_ms=30_000,
        first_move_ms=first_move_ms,
    )
    if joined:
        record = ok(record, Join(token=BLACK, invite=INVITE, name="Bo"))
    if connected:
        for side in ("white", "black"):
            if record.seat(side) is not None:
                record = ok(record, Connect(side))
    return record


def run(record: GameRecord, command, now: int = T0) -> room.Outcome:
    before = copy.deepcopy(record)
    outcome = room.handle(record, command, now)
    assert record == before, "the room must never modify the record it is given"
    versions = [e.v for e in outcome.events]
    assert versions == list(range(record.version + 1, record.version + 1 + len(versions)))
    assert outcome.record.version == record.version + len(versions)
    return outcome


def ok(record: GameRecord, command, now: int = T0) -> GameRecord:
    outcome = run(record, command, now)
    assert outcome.refusal is None, outcome.refusal
    return outcome.record


def refused(record: GameRecord, command, code: ErrorCode, now: int = T0) -> room.Refusal:
    outcome = run(record, command, now)
    assert outcome.refusal is not None and outcome.refusal.code == code, outcome.refusal
    assert outcome.events == [] and outcome.record == record
    return outcome.refusal


def tags(outcome: room.Outcome) -> list[str]:
    return [e.message.t for e in outcome.events]


def to_move(record: GameRecord) -> str:
    return record.side_to_move


def first_legal(record: GameRecord) -> list[str]:
    game = Game.replay(get_rules(record.variant), record.start_fen, record.moves)
    return game.legal_moves()[0].to_dict()["path"]


def play(record: GameRecord, path: list[str] | None = None, now: int = T0, **kw) -> GameRecord:
    path = path or first_legal(record)
    return ok(record, Sent(to_move(record), m.MakeMove(path=list(path), **kw)), now)


# --- seats ----------------------------------------------------------------------------


def test_a_new_game_waits_with_only_the_creator_seated():
    record = make(joined=False, connected=False)
    assert record.status == "waiting"
    assert record.seat("white").token == WHITE and record.seat("black") is None


def test_the_friend_with_the_invite_takes_the_free_seat_and_the_game_starts():
    record = make(joined=False, connected=False)
    outcome = run(record, Join(token=BLACK, invite=INVITE, name="Bo"))
    assert tags(outcome) == ["joined"]
    assert outcome.record.status == "playing"
    assert outcome.record.seat("black").name == "Bo"


def test_a_wrong_invite_is_refused():
    refused(make(joined=False), Join(token=BLACK, invite="guess"), ErrorCode.SEAT_BAD_INVITE)


def test_an_open_game_needs_no_invite():
    record = make(opponent="open", joined=False, connected=False)
    assert ok(record, Join(token=BLACK)).status == "playing"


def test_a_third_visitor_finds_both_seats_taken():
    refused(make(), Join(token="x" * 22, invite=INVITE), ErrorCode.SEAT_TAKEN)


def test_seat_of_knows_each_token_and_nobody_else():
    record = make()
    assert room.seat_of(record, WHITE) == "white"
    assert room.seat_of(record, BLACK) == "black"
    assert room.seat_of(record, "w" * 21) is None
    assert room.seat_of(record, None) is None
    assert room.seat_of(record, "") is None


# --- moves ----------------------------------------------------------------------------


def test_english_starts_with_black_and_a_legal_move_by_path_is_played():
    record = make()
    assert to_move(record) == "black"
    outcome = run(record, Sent("black", m.MakeMove(path=["11", "15"], ack=1)))
    assert tags(outcome) == ["moved"]
    moved = outcome.events[0].message
    assert isinstance(moved, m.Moved)
    assert (moved.notation, moved.path, moved.captured, moved.by) == (
        "11-15",
        ["11", "15"],
        [],
        "black",
    )
    assert moved.side_to_move == "white" and moved.legal and moved.fen.startswith("W:")
    assert outcome.record.moves == ["11-15"] and outcome.acked


def test_a_move_may_be_given_as_notation():
    assert ok(make(), Sent("black", m.MakeMove(notation="11-15"))).moves == ["11-15"]


def test_a_move_out_of_turn_is_refused_and_nothing_changes():
    refused(make(), Sent("white", m.MakeMove(path=["22", "18"])), ErrorCode.MOVE_NOT_YOUR_TURN)


def test_an_illegal_move_is_refused_with_the_engines_reason_in_words():
    refusal = refused(make(), Sent("black", m.MakeMove(path=["11", "18"])), ErrorCode.MOVE_ILLEGAL)
    assert "11" in refusal.sentence and len(refusal.sentence) > 15


def test_a_path_through_a_square_that_does_not_exist_is_invalid():
    refused(make(), Sent("black", m.MakeMove(path=["11", "99"])), ErrorCode.MOVE_INVALID)
    refused(make(), Sent("black", m.MakeMove(path=["11"])), ErrorCode.MOVE_INVALID)
    refused(make(), Sent("black", m.MakeMove(notation="hello")), ErrorCode.MOVE_INVALID)
    refused(make(), Sent("black", m.MakeMove()), ErrorCode.MOVE_INVALID)


def test_a_spectator_can_never_move_offer_resign_abort_or_claim():
    record = make()
    for command in (
        Sent(None, m.MakeMove(path=["11", "15"])),
        Sent(None, m.OfferDraw()),
        Sent(None, m.AcceptDraw()),
        Sent(None, m.Resign()),
        Sent(None, m.Abort()),
        Sent(None, m.ClaimVictory()),
        Sent(None, m.OfferRematch()),
    ):
        refused(record, command, ErrorCode.SEAT_SPECTATOR)


def test_nobody_moves_before_the_opponent_has_joined():
    refused(
        make(joined=False, connected=False),
        Sent("white", m.MakeMove(path=["22", "18"])),
        ErrorCode.MOVE_NO_OPPONENT,
    )


def test_a_move_made_against_an_older_position_is_stale_and_asks_for_a_resync():
    record = play(make())
    refusal = refused(
        record,
        Sent("white", m.MakeMove(path=["22", "18"], v=record.position_version - 1)),
        ErrorCode.MOVE_STALE,
    )
    assert refusal.resync


def test_events_other_than_moves_do_not_make_a_move_stale():
    record = ok(make(), Sent("white", m.SendChat(text="hi")))
    move = Sent("black", m.MakeMove(path=["11", "15"], v=record.version - 1))
    assert ok(record, move).moves == ["11-15"]


def test_a_move_resent_at_the_version_it_was_chosen_at_is_acked_again_and_played_once():
    start = make()
    first = run(start, Sent("black", m.MakeMove(path=["11", "15"], v=start.version, ack=7)))
    # The ack id is only a label: a resend after a reconnect may carry another one.
    again = run(first.record, Sent("black", m.MakeMove(path=["11", "15"], v=start.version, ack=1)))
    assert again.acked and again.refusal is None and again.events == []
    assert again.acked_v == first.acked_v == first.record.version
    assert again.record.moves == ["11-15"]


def test_a_move_is_still_a_resend_after_the_opponent_replied():
    start = make()
    mine = Sent("black", m.MakeMove(path=["11", "15"], v=start.version))
    first = run(start, mine)
    replied = play(first.record)
    again = run(replied, mine)
    assert again.acked and again.acked_v == first.acked_v and again.events == []


def test_a_different_move_under_an_old_ack_id_is_judged_as_the_move_it_is():
    record = ok(make(), Sent("black", m.MakeMove(path=["11", "15"], ack=7)))
    # issue 31: it used to be answered ack (and never played), even out of turn.
    again = Sent("black", m.MakeMove(path=["9", "13"], ack=7))
    refused(record, again, ErrorCode.MOVE_NOT_YOUR_TURN)
    record = play(record)
    moved = run(record, Sent("black", m.MakeMove(path=["9", "13"], ack=7)))
    assert tags(moved) == ["moved"] and moved.record.moves[-1] == "9-13"


def test_another_move_chosen_at_the_same_version_is_not_a_resend():
    start = make()
    record = ok(start, Sent("black", m.MakeMove(path=["11", "15"], v=start.version)))
    refused(
        record,
        Sent("black", m.MakeMove(path=["9", "13"], v=start.version)),
        ErrorCode.MOVE_NOT_YOUR_TURN,
    )


def test_draw_offers_and_resignations_resent_get_their_first_ack():
    start = make()
    offer = Sent("white", m.OfferDraw(v=start.version))
    offered = run(start, offer)
    again = run(offered.record, offer)
    assert again.refusal is None and again.acked_v == offered.acked_v and again.events == []
    resign = Sent("black", m.Resign(v=offered.record.version))
    resigned = run(offered.record, resign)
    again = run(resigned.record, resign)
    assert again.refusal is None and again.acked_v == resigned.acked_v and again.events == []
    # Without v a command has no identity: the same resignation is judged again.
    refused(resigned.record, Sent("black", m.Resign()), ErrorCode.GAME_OVER)


def test_a_command_from_a_version_the_game_has_not_reached_is_refused_with_a_resync():
    record = make()
    refusal = refused(
        record,
        Sent("black", m.MakeMove(path=["11", "15"], v=record.version + 1)),
        ErrorCode.GAME_BAD_VERSION,
    )
    assert refusal.resync and str(record.version + 1) in refusal.sentence


def test_a_capture_lists_the_captured_squares():
    record = make(fen="B:W18:B14", clock=None)
    moved = run(record, Sent("black", m.MakeMove(path=["14", "23"]))).events[0].message
    assert moved.captured == ["18"] and moved.notation == "14x23"


def test_capturing_the_last_piece_wins_the_game():
    outcome = run(make(fen="B:W18:B14", clock=None), Sent("black", m.MakeMove(path=["14", "23"])))
    assert tags(outcome) == ["moved", "over"]
    over = outcome.events[-1].message
    assert (over.result, over.reason) == ("black", "no_pieces")
    assert outcome.record.status == "finished"


def test_a_move_after_the_game_ended_is_refused():
    record = ok(make(fen="B:W18:B14", clock=None), Sent("black", m.MakeMove(path=["14", "23"])))
    refused(record, Sent("white", m.MakeMove(path=["23", "19"])), ErrorCode.GAME_OVER)


def test_threefold_repetition_is_declared_with_its_reason():
    record = make(fen="B:WK29,K32:BK1,K4", clock=None)
    shuffle = [("1", "5"), ("29", "25"), ("5", "1"), ("25", "29")] * 2
    outcome = None
    for path in shuffle:
        outcome = run(record, Sent(to_move(record), m.MakeMove(path=list(path))))
        record = outcome.record
        if record.over:
            break
    assert record.result == "draw" and record.reason == "threefold"
    assert tags(outcome)[-1] == "over"


# --- clocks ---------------------------------------------------------------------------


def test_no_clock_runs_before_each_side_has_made_its_first_move():
    record = make()
    assert record.running_clock() is None and room.deadline(record) is None
    record = play(record, now=T0 + 50_000)  # black's first move: untimed
    assert record.remaining_ms == {"white": 60_000, "black": 60_000}
    assert record.running_clock() is None
    record = play(record, now=T0 + 90_000)  # white's first move: untimed
    assert record.running_clock() == "black"
    # Its flag falls at its zero plus the lag credit its move could still be given.
    grace = lag.grace_ms(None, lag.gain_ms(60_000, 2_000))
    assert room.deadline(record) == T0 + 90_000 + 60_000 + grace


def test_a_timed_move_spends_the_thinking_time_and_earns_the_increment():
    record = play(play(make()))
    record = play(record, now=T0 + 10_000)
    assert record.remaining_ms["black"] == 60_000 - 10_000 + 2_000
    assert record.clocks(T0 + 10_000) == {"white": 60_000, "black": 52_000, "running": "white"}


def test_the_flag_falls_on_a_tick_with_nobody_connected():
    record = play(play(make()))
    for side in ("white", "black"):
        record = ok(record, Disconnect(side))
    grace = lag.grace_ms(None, lag.gain_ms(60_000, 2_000))  # a delayed move may come
    assert "over" not in tags(run(record, Tick(), now=T0 + 60_000 + grace - 1))
    outcome = run(record, Tick(), now=T0 + 60_000 + grace)
    over = outcome.events[-1].message
    assert (over.t, over.result, over.reason) == ("over", "white", "timeout")
    assert over.clocks == {"white": 60_000, "black": 0, "running": None}
    assert room.deadline(outcome.record) is None


def test_a_move_that_arrives_after_the_flag_does_not_count():
    record = play(play(make()))
    outcome = run(record, Sent("black", m.MakeMove(path=first_legal(record))), now=T0 + 61_000)
    assert outcome.refusal.code == ErrorCode.GAME_OVER
    assert tags(outcome) == ["over"]
    assert outcome.record.reason == "timeout" and len(outcome.record.moves) == 2


def test_an_untimed_game_never_flags():
    record = play(play(make(clock=None)))
    assert room.deadline(record) is None
    assert run(record, Tick(), now=T0 + 10**9).events == []


# --- draws, resignation, abort --------------------------------------------------------


def test_a_draw_offer_is_broadcast_and_its_acceptance_ends_the_game():
    record = ok(make(), Sent("white", m.OfferDraw()))
    assert record.draw_offer == "white"
    outcome = run(record, Sent("black", m.AcceptDraw()))
    assert outcome.events[-1].message.reason == "agreement"
    assert outcome.record.result == "draw"


def test_a_declined_offer_is_broadcast_and_cannot_be_repeated_before_a_move():
    record = ok(make(), Sent("white", m.OfferDraw()))
    outcome = run(record, Sent("black", m.DeclineDraw()))
    assert tags(outcome) == ["draw_declined"] and outcome.record.draw_offer is None
    refused(outcome.record, Sent("white", m.OfferDraw()), ErrorCode.DRAW_TOO_SOON)
    record = play(outcome.record)
    assert ok(record, Sent("white", m.OfferDraw())).draw_offer == "white"


def test_an_offer_lapses_when_the_other_side_moves_instead_of_answering():
    record = ok(make(), Sent("white", m.OfferDraw()))
    outcome = run(record, Sent("black", m.MakeMove(path=["11", "15"])))
    assert tags(outcome) == ["draw_lapsed", "moved"]
    assert outcome.record.draw_offer is None


def test_an_offer_stands_when_the_offerer_moves():
    record = ok(make(), Sent("black", m.OfferDraw()))
    assert play(record).draw_offer == "black"


def test_two_crossing_offers_make_a_draw():
    record = ok(make(), Sent("white", m.OfferDraw()))
    assert ok(record, Sent("black", m.OfferDraw())).reason == "agreement"


def test_offers_that_do_not_exist_cannot_be_answered_or_repeated():
    refused(make(), Sent("black", m.AcceptDraw()), ErrorCode.DRAW_NO_OFFER)
    refused(make(), Sent("black", m.DeclineDraw()), ErrorCode.DRAW_NO_OFFER)
    offered = ok(make(), Sent("white", m.OfferDraw()))
    refused(offered, Sent("white", m.OfferDraw()), ErrorCode.DRAW_ALREADY_OFFERED)
    refused(
        ok(make(), Sent("white", m.OfferDraw())),
        Sent("white", m.AcceptDraw()),
        ErrorCode.DRAW_NO_OFFER,
    )


def test_resigning_gives_the_game_to_the_opponent():
    outcome = run(make(), Sent("black", m.Resign()))
    assert (outcome.record.result, outcome.record.reason) == ("white", "resign")
    refused(outcome.record, Sent("white", m.Resign()), ErrorCode.GAME_OVER)


def test_a_game_may_be_aborted_until_both_sides_have_moved():
    record = play(make())
    outcome = run(record, Sent("white", m.Abort()))
    assert outcome.record.status == "aborted" and outcome.record.result is None
    assert outcome.events[-1].message.reason == "aborted"
    refused(play(record), Sent("white", m.Abort()), ErrorCode.ABORT_TOO_LATE)


def test_the_creator_may_abort_a_game_nobody_joined():
    assert ok(make(joined=False), Sent("white", m.Abort())).status == "aborted"
    refused(make(joined=False), Sent("white", m.Resign()), ErrorCode.MOVE_NO_OPPONENT)


# --- presence and claims --------------------------------------------------------------


def test_presence_counts_every_socket_and_says_gone_only_after_the_last():
    record = make(connected=False)
    outcome = run(record, Connect("white"))
    assert [(e.message.t, e.message.present) for e in outcome.events] == [("presence", True)]
    record = ok(outcome.record, Connect("white"))  # a second tab
    assert record.seats["white"].sockets == 2
    # Closing one tab is an event too, so the lower count reaches the store; still present.
    outcome = run(record, Disconnect("white"))
    assert [(e.message.t, e.message.present) for e in outcome.events] == [("presence", True)]
    record = outcome.record
    assert run(record, Disconnect("white"), now=T0 + 1).events[0].message.present is False


def started(**options) -> GameRecord:
    """A game both sides have moved in: one that may be claimed."""
    return play(play(make(**options)))


def test_the_opponent_may_claim_once_the_absent_player_has_been_gone_long_enough():
    record = ok(started(), Disconnect("black"), now=T0)
    refusal = refused(
        record,
        Sent("white", m.ClaimVictory()),
        ErrorCode.CLAIM_TOO_EARLY,
        now=T0 + 10_000,
    )
    assert "20 seconds" in refusal.sentence
    assert room.deadline(record) == T0 + 30_000
    ticked = run(record, Tick(), now=T0 + 30_000)
    assert [e.message.t for e in ticked.events] == ["claimable"]
    assert ticked.events[0].message.by == "white"
    outcome = run(ticked.record, Sent("white", m.ClaimVictory()), now=T0 + 31_000)
    assert (outcome.record.result, outcome.record.reason) == ("white", "abandoned")


def test_a_claim_may_ask_for_a_draw_instead():
    record = ok(started(), Disconnect("black"))
    assert ok(record, Sent("white", m.ClaimDraw()), now=T0 + 30_000).result == "draw"


def test_a_claim_is_refused_while_the_opponent_is_connected_or_without_a_clock():
    refused(
        started(),
        Sent("white", m.ClaimVictory()),
        ErrorCode.CLAIM_OPPONENT_PRESENT,
        now=T0 + 40_000,
    )
    record = ok(started(clock=None), Disconnect("black"))
    refused(record, Sent("white", m.ClaimVictory()), ErrorCode.CLAIM_NO_CLOCK, now=T0 + 10**6)


def test_coming_back_closes_the_claim():
    record = ok(started(), Disconnect("black"))
    record = ok(record, Connect("black"), now=T0 + 40_000)
    refused(
        record,
        Sent("white", m.ClaimVictory()),
        ErrorCode.CLAIM_OPPONENT_PRESENT,
        now=T0 + 41_000,
    )


def test_a_game_nobody_started_cannot_be_claimed_only_aborted():
    # A friend joins a minute after the game was made; its creator never came.
    record = make(variant="international", joined=False, connected=False, first_move_ms=30_000)
    joined = T0 + 60_000
    record = ok(record, Join(token=BLACK, invite=INVITE, name="Bo"), now=joined)
    record = ok(record, Connect("black"), now=joined)
    refused(record, Sent("black", m.ClaimVictory()), ErrorCode.CLAIM_NOT_STARTED, now=joined)
    assert permissions.may(record)["black"] == ["abort", "draw_offer", "resign"]
    # No claim opens: the only deadline is White's first move, which aborts the game.
    assert room.deadline(record) == joined + 30_000
    assert tags(run(record, Tick(), now=joined + 1_000)) == []
    ticked = run(record, Tick(), now=joined + 30_000)
    assert tags(ticked) == ["over"] and ticked.record.reason == "no_first_move"


def test_a_claim_waits_for_both_sides_to_have_moved():
    # White moved, then left: Black's first move is due, not a claim.
    record = play(make(variant="international", first_move_ms=30_000), now=T0)
    record = ok(record, Disconnect("white"), now=T0)
    refused(record, Sent("black", m.ClaimDraw()), ErrorCode.CLAIM_NOT_STARTED, now=T0 + 29_000)
    assert room.deadline(record) == T0 + 30_000
    assert tags(run(record, Tick(), now=T0 + 30_000)) == ["over"]  # aborted, not claimable
    # Black moves in time: White has been gone 29 s, so the claim opens a second later.
    begun = play(record, now=T0 + 29_000)
    assert room.deadline(begun) == T0 + 30_000
    assert tags(run(begun, Tick(), now=T0 + 30_000)) == ["claimable"]


def test_an_open_game_whose_creator_stays_away_is_withdrawn_from_the_lobby():
    record = make(opponent="open", joined=False, connected=False)  # never connected
    assert room.deadline(record) == T0 + room.SEEK_GRACE_MS
    ticked = run(record, Tick(), now=T0 + room.SEEK_GRACE_MS)
    assert tags(ticked) == ["over"]
    assert (ticked.record.status, ticked.record.reason) == ("aborted", "withdrawn")
    assert room.deadline(ticked.record) is None
    # A late joiner is told the game is over; the state it may load says why (withdrawn).
    refused(ticked.record, Join(token=BLACK), ErrorCode.GAME_OVER, now=T0 + 10**6)


def test_a_join_that_comes_after_the_grace_finds_the_game_withdrawn_even_before_a_tick():
    record = make(opponent="open", joined=False, connected=False)
    outcome = run(record, Join(token=BLACK), now=T0 + room.SEEK_GRACE_MS + 1)
    assert outcome.refusal is not None and outcome.refusal.code == ErrorCode.GAME_OVER
    assert outcome.record.reason == "withdrawn"  # the withdrawal itself is kept


def test_an_open_game_stays_while_its_creator_is_connected_or_comes_back_in_time():
    record = ok(make(opponent="open", joined=False, connected=False), Connect("white"))
    assert room.deadline(record) is None
    away = ok(record, Disconnect("white"), now=T0 + 1_000)
    assert room.deadline(away) == T0 + 1_000 + room.SEEK_GRACE_MS
    back = ok(away, Connect("white"), now=T0 + 30_000)  # a reload
    assert room.deadline(back) is None
    assert ok(back, Tick(), now=T0 + 10**6).status == "waiting"
    assert ok(back, Join(token=BLACK), now=T0 + 10**6).status == "playing"


def test_the_lobby_hides_an_open_game_while_its_creator_is_away_and_shows_it_on_return():
    never = make(opponent="open", joined=False, connected=False)
    assert room.seek_listed(never)  # made over the API: nothing says the creator left
    here = ok(never, Connect("white"), now=T0 + 500)
    assert room.seek_listed(here)
    away = ok(here, Disconnect("white"), now=T0 + 1_000)
    assert not room.seek_listed(away) and away.status == "waiting"
    assert room.seek_listed(ok(away, Connect("white"), now=T0 + 2_000))
    assert not room.seek_listed(make(opponent="open"))  # joined: playing, not waiting


def test_an_invitation_to_a_friend_waits_however_long_its_creator_is_away():
    record = make(joined=False, connected=False)
    assert room.deadline(record) is None
    joined = ok(record, Join(token=BLACK, invite=INVITE), now=T0 + 10**8)
    assert joined.status == "playing"


# --- rematch --------------------------------------------------------------------------

FRESH = Fresh(game_id="g2", white_token="W2" * 11, black_token="B2" * 11)


def test_a_rematch_swaps_colours_and_gives_both_players_new_seats():
    record = ok(make(), Sent("black", m.Resign()))
    record = ok(record, Sent("white", m.OfferRematch(), fresh=lambda: FRESH))
    outcome = run(record, Sent("black", m.AcceptRematch(), fresh=lambda: FRESH))
    assert tags(outcome) == ["rematch"] and outcome.events[0].message.game == "g2"
    spawn = outcome.spawn
    assert spawn.id == "g2" and spawn.status == "playing"
    assert (spawn.seat("white").name, spawn.seat("black").name) == ("Bo", "Ada")
    assert (spawn.seat("white").token, spawn.seat("black").token) == (
        FRESH.white_token,
        FRESH.black_token,
    )
    assert spawn.remaining_ms == {"white": 60_000, "black": 60_000}
    refused(
        outcome.record,
        Sent("white", m.OfferRematch(), fresh=lambda: FRESH),
        ErrorCode.REMATCH_DONE,
    )


def test_a_rematch_needs_a_finished_game_and_an_offer_to_accept():
    refused(make(), Sent("white", m.OfferRematch(), fresh=lambda: FRESH), ErrorCode.GAME_NOT_OVER)
    over = ok(make(), Sent("black", m.Resign()))
    refused(over, Sent("black", m.AcceptRematch(), fresh=lambda: FRESH), ErrorCode.REMATCH_NO_OFFER)
    offered = ok(over, Sent("white", m.OfferRematch(), fresh=lambda: FRESH))
    refused(
        offered,
        Sent("white", m.OfferRematch(), fresh=lambda: FRESH),
        ErrorCode.REMATCH_ALREADY_OFFERED,
    )
    declined = run(offered, Sent("black", m.DeclineRematch()))
    assert tags(declined) == ["rematch_declined"] and declined.record.rematch_offer is None


def test_crossing_rematch_offers_start_the_rematch():
    offered = ok(
        ok(make(), Sent("black", m.Resign())),
        Sent("white", m.OfferRematch(), fresh=lambda: FRESH),
    )
    assert run(offered, Sent("black", m.OfferRematch(), fresh=lambda: FRESH)).spawn is not None


# --- chat -----------------------------------------------------------------------------


def test_players_chat_reaches_players_only():
    event = run(make(), Sent("white", m.SendChat(text="good luck"))).events[0]
    assert event.audience == "players" and event.message.channel == "players"
    assert event.message.name == "Ada"
    assert event.for_viewer(None) == m.Skip(v=event.v)
    assert event.for_viewer("black") == event.message


def test_spectators_chat_never_reaches_players_while_the_game_runs():
    event = run(make(), Sent(None, m.SendChat(text="nice move"), "Cy")).events[0]
    assert event.audience == "spectators" and event.message.by == "spectator"
    assert event.for_viewer("white").t == "skip"
    after = run(ok(make(), Sent("white", m.Resign())), Sent(None, m.SendChat(text="gg"))).events[0]
    assert after.audience == "all"


def test_chat_is_plain_text_of_at_most_140_characters():
    line = (
        run(
            make(),
            Sent("white", m.SendChat(text="  hi\x00\x1b[31m\n there\u202e ")),
        )
        .events[0]
        .message
    )
    assert line.text == "hi[31m there"
    refused(make(), Sent("white", m.SendChat(text="x" * 141)), ErrorCode.CHAT_TOO_LONG)
    refused(make(), Sent("white", m.SendChat(text=" \n\t")), ErrorCode.CHAT_EMPTY)
    assert ok(make(), Sent("white", m.SendChat(text="x" * 140))).chat[-1]["text"] == "x" * 140


# --- records --------------------------------------------------------------------------


def test_a_record_survives_its_dict_form():
    record = ok(play(make()), Sent("white", m.SendChat(text="hi")))
    assert GameRecord.from_dict(record.to_dict()) == record


@pytest.mark.parametrize(
    "variant", ["english", "international", "brazilian", "russian", "spanish", "italian", "turkish"]
)
def test_every_rule_set_starts_and_plays_a_move(variant: str):
    record = make(variant)
    record = play(record)
    assert len(record.moves) == 1 and record.version == record.position_version
