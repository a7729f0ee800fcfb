"""Takebacks and the first-move abort in the room, with time injected (issue 30 points 3-4)."""

from __future__ import annotations

from test_room import BLACK, T0, WHITE, first_legal, make, ok, play, refused, run, tags

from protocol import messages as m
from protocol.messages import ErrorCode
from server.core import room
from server.core.commands import Join, Sent, Tick
from server.core.record import GameRecord, SeatRecord

ASK_WHITE = Sent("white", m.AskTakeback())
ASK_BLACK = Sent("black", m.AskTakeback())

# --- takebacks --------------------------------------------------------------------------


def four_plies(record: GameRecord) -> GameRecord:
    """English: Black moves first, so Black plays plies 1 and 3, White 2 and 4."""
    for n in range(4):
        record = play(record, now=T0 + (n + 1) * 10_000)
    return record


def test_a_takeback_waits_for_the_opponent_and_undoes_only_the_askers_last_move():
    record = four_plies(make())
    asked = ok(record, ASK_WHITE, T0 + 41_000)
    assert asked.takeback_offer == "white" and asked.moves == record.moves
    outcome = run(asked, Sent("black", m.AcceptTakeback()), T0 + 42_000)
    (back,) = [e.message for e in outcome.events]
    assert isinstance(back, m.TakenBack) and (back.by, back.plies, back.ply) == ("white", 1, 3)
    assert outcome.record.moves == record.moves[:3] and outcome.record.side_to_move == "white"
    assert back.legal and back.side_to_move == "white" and outcome.record.takeback_offer is None


def test_when_the_opponent_has_replied_the_last_full_move_is_taken_back():
    record = four_plies(make())  # Black to move: White replied to Black's last move
    asked = ok(record, ASK_BLACK, T0 + 41_000)
    outcome = run(asked, Sent("white", m.AcceptTakeback()), T0 + 42_000)
    back = outcome.events[-1].message
    assert (back.plies, back.ply) == (2, 2) and outcome.record.moves == record.moves[:2]
    assert outcome.record.side_to_move == "black"


def test_takeback_restores_both_clocks_to_what_they_were_before_the_taken_moves():
    record = make()  # 60 s + 2 s; each side's clock starts after its own first move
    record = play(record, now=T0 + 10_000)  # black, untimed
    record = play(record, now=T0 + 20_000)  # white, untimed
    before_third = dict(record.remaining_ms)
    record = play(record, now=T0 + 35_000)  # black thinks 15 s: 60 - 15 + 2 = 47
    record = play(record, now=T0 + 50_000)  # white thinks 15 s: 47
    assert record.remaining_ms == {"white": 47_000, "black": 47_000}
    asked = ok(record, ASK_BLACK, T0 + 55_000)
    outcome = run(asked, Sent("white", m.AcceptTakeback()), T0 + 56_000)
    assert outcome.record.remaining_ms == before_third == {"white": 60_000, "black": 60_000}
    # Black is to move again, its clock running from the takeback on, with its old time.
    assert outcome.events[-1].message.clocks == {
        "white": 60_000,
        "black": 60_000,
        "running": "black",
    }
    assert outcome.record.flag_time() == T0 + 56_000 + 60_000


def test_takeback_forgets_the_repetitions_of_the_taken_back_moves():
    # Two kings shuffle: the start position comes back after every four plies.
    shuffle = ["1-5", "32-28", "5-1", "28-32"] * 2
    record = make(fen="B:WK32:BK1")

    def moved(record: GameRecord, notation: str) -> GameRecord:
        return ok(record, Sent(record.side_to_move, m.MakeMove(notation=notation)))

    for notation in shuffle[:7]:
        record = moved(record, notation)
    asked = ok(record, ASK_WHITE)
    record = ok(asked, Sent("black", m.AcceptTakeback()))
    assert record.moves == shuffle[:5]
    # Played again, plies 6 and 7 reach their positions a second time, not a third.
    for notation in shuffle[5:7]:
        record = moved(record, notation)
        assert record.status == "playing"
    record = moved(record, shuffle[7])  # the start position for the third time
    assert (record.status, record.result, record.reason) == ("finished", "draw", "threefold")


def test_takeback_voids_a_draw_offer_and_lets_a_declined_one_be_made_again():
    record = four_plies(make())
    record = ok(record, Sent("white", m.OfferDraw()))
    record = ok(record, Sent("black", m.DeclineDraw()))
    record = play(record, now=T0 + 45_000)  # black
    record = ok(record, Sent("black", m.OfferDraw()))
    record = ok(record, ASK_WHITE, T0 + 46_000)
    record = ok(record, Sent("black", m.AcceptTakeback()), T0 + 47_000)
    assert record.draw_offer is None and len(record.moves) == 3
    assert "draw_offered" in tags(run(record, Sent("white", m.OfferDraw())))


def english(**options) -> GameRecord:
    """A new English game made at T0 by White (Black moves first)."""
    return room.new_game(
        game_id="g1", variant="english", now=T0, creator="white", creator_token=WHITE, **options
    )


def rated_game(first_move_ms: int = 0) -> GameRecord:
    """An English open game, rated, both seats taken by players with public ids."""
    record = english(
        opponent="open",
        rated=True,
        creator_player="ada-public-id-000001",
        first_move_ms=first_move_ms,
    )
    return ok(record, Join(token=BLACK, player="bob-public-id-000001"))


def test_a_rated_game_refuses_takebacks_with_a_clear_error():
    record = four_plies(rated_game())
    refusal = refused(record, ASK_WHITE, ErrorCode.TAKEBACK_RATED)
    assert "rated" in refusal.sentence


def test_a_declined_takeback_may_be_asked_again_only_after_a_growing_pause():
    record = four_plies(make())
    record = ok(record, ASK_WHITE, T0 + 41_000)
    outcome = run(record, Sent("black", m.DeclineTakeback()), T0 + 42_000)
    declined = outcome.events[-1].message
    assert (declined.t, declined.by, declined.retry_at) == (
        "takeback_declined",
        "black",
        T0 + 42_000 + 15_000,
    )
    record = outcome.record
    refusal = refused(record, ASK_WHITE, ErrorCode.TAKEBACK_TOO_SOON, T0 + 50_000)
    assert "7 seconds" in refusal.sentence
    record = ok(record, ASK_WHITE, T0 + 57_000)
    outcome = run(record, Sent("black", m.DeclineTakeback()), T0 + 58_000)
    assert outcome.events[-1].message.retry_at == T0 + 58_000 + 30_000  # doubled
    refused(outcome.record, ASK_WHITE, ErrorCode.TAKEBACK_TOO_SOON, T0 + 87_999)
    assert "takeback_offered" in tags(run(outcome.record, ASK_WHITE, T0 + 88_000))


def test_takeback_requests_that_make_no_sense_are_refused_and_change_nothing():
    fresh = make()
    refused(fresh, ASK_WHITE, ErrorCode.TAKEBACK_NOTHING)
    refused(fresh, Sent(None, m.AskTakeback()), ErrorCode.SEAT_SPECTATOR)
    record = four_plies(fresh)
    refused(record, Sent("black", m.AcceptTakeback()), ErrorCode.TAKEBACK_NO_OFFER)
    asked = ok(record, ASK_WHITE)
    refused(asked, ASK_WHITE, ErrorCode.TAKEBACK_ALREADY_ASKED)
    refused(asked, ASK_BLACK, ErrorCode.TAKEBACK_PENDING)
    refused(asked, Sent("white", m.AcceptTakeback()), ErrorCode.TAKEBACK_NO_OFFER)  # not one's own
    over = ok(record, Sent("black", m.Resign()))
    refused(over, ASK_WHITE, ErrorCode.GAME_OVER)


def test_a_move_instead_of_an_answer_lets_the_request_lapse():
    record = four_plies(make())  # black to move
    asked = ok(record, ASK_WHITE, T0 + 41_000)
    record = play(asked, now=T0 + 43_000)
    assert record.takeback_offer is None and len(record.moves) == 5
    lapsed = run(asked, Sent("black", m.MakeMove(path=first_legal(asked))), T0 + 43_000)
    assert tags(lapsed)[:2] == ["takeback_lapsed", "moved"]


def computer_game(first_move_ms: int = 0) -> GameRecord:
    record = english(opponent="computer", level=1, first_move_ms=first_move_ms)
    record.seats["black"] = SeatRecord(token="c" * 22, name="Computer", bot=True)
    record.status = "playing"
    return record


def test_the_computer_grants_a_takeback_at_once_and_it_takes_its_reply_too():
    record = computer_game()
    record = play(record, now=T0 + 1_000)  # the computer (black) moves first
    record = play(record, now=T0 + 2_000)  # white
    record = play(record, now=T0 + 3_000)  # the computer replies
    outcome = run(record, ASK_WHITE, T0 + 4_000)
    assert tags(outcome) == ["taken_back"] and outcome.events[0].message.plies == 2
    assert outcome.record.moves == record.moves[:1] and outcome.record.side_to_move == "white"


# --- the first-move abort ---------------------------------------------------------------


def test_a_first_move_not_made_in_time_aborts_the_game_with_no_result():
    record = make(first_move_ms=30_000)  # black (to move) has 30 s from the join
    assert room.deadline(record) == room.abort_at(record) == T0 + 30_000
    assert tags(run(record, Tick(), T0 + 29_999)) == []
    outcome = run(record, Tick(), T0 + 30_000)
    over = outcome.events[-1].message
    assert (over.t, over.result, over.reason) == ("over", None, "no_first_move")
    assert outcome.record.status == "aborted" and room.deadline(outcome.record) is None


def test_each_side_has_its_own_first_move_deadline_and_then_none():
    record = make(first_move_ms=30_000)
    record = play(record, now=T0 + 20_000)  # black's first move, in time
    assert room.abort_at(record) == T0 + 20_000 + 30_000  # white's turn to make its first
    record = play(record, now=T0 + 45_000)  # white's first move, in time
    assert room.abort_at(record) is None
    assert room.deadline(record) == room.flag_falls_at(record)


def test_the_first_move_abort_is_sent_with_the_moves_and_the_state():
    record = make(first_move_ms=30_000)
    outcome = run(record, Sent("black", m.MakeMove(path=first_legal(record))), T0 + 5_000)
    assert outcome.events[-1].message.abort_at == T0 + 35_000


def test_untimed_games_and_the_computers_turn_have_no_first_move_deadline():
    untimed = make(clock=None, first_move_ms=30_000)
    assert room.abort_at(untimed) is None and tags(run(untimed, Tick(), T0 + 10**9)) == []
    computer = computer_game(first_move_ms=30_000)  # the computer (black) is to move
    assert room.abort_at(computer) is None
    computer = play(computer, now=T0 + 1_000)
    assert room.abort_at(computer) == T0 + 1_000 + 30_000


def test_a_rated_game_aborted_for_its_first_move_changes_no_rating():
    record = rated_game(first_move_ms=30_000)
    aborted = ok(record, Tick(), T0 + 30_000)
    assert aborted.status == "aborted" and not room.needs_rating(aborted)
