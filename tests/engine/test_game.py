"""Game end: no pieces, no moves, threefold repetition and each rule set's no-progress rules."""

import pytest

from engine import GameOverError, IllegalMoveError, get_rules
from engine.game import Game, Reason, Result, Status


def shuffle(game: Game, white: tuple[str, str], black: tuple[str, str], moves: int) -> None:
    """Move two kings back and forth; stops early if the game ends."""
    for i in range(moves):
        pair = white if game.side_to_move.value == "white" else black
        if game.is_over:
            return
        game.play(pair[(i // 2) % 2])


def test_side_without_pieces_loses():
    g = Game(get_rules("english"), "B:W18:B14")
    g.play("14x23")
    assert (g.status, g.result, g.reason) == (Status.FINISHED, Result.BLACK_WINS, Reason.NO_PIECES)


def test_blocked_side_loses_with_no_moves():
    # Black's only man, on 28 (h2), is blocked by White's man on 32 (g1) and cannot jump it.
    g = Game(get_rules("english"), "B:W32,23:B28")
    assert g.is_over and g.reason is Reason.NO_MOVES and g.result is Result.WHITE_WINS


def test_threefold_repetition_is_a_draw():
    g = Game(get_rules("english"), "W:WK29:BK4")
    shuffle(g, ("29-25", "25-29"), ("4-8", "8-4"), 20)
    assert g.result is Result.DRAW and g.reason is Reason.THREEFOLD
    assert len(g.moves) == 8


def test_a_turkish_man_stepping_sideways_and_back_repeats_the_position():
    g = Game(get_rules("turkish"), "W:Wa3,h2:Bb6,g7")
    shuffle(g, ("a3-b3", "b3-a3"), ("b6-c6", "c6-b6"), 20)
    assert g.result is Result.DRAW and g.reason is Reason.THREEFOLD
    assert len(g.moves) == 8


def test_no_repetition_counts_across_a_capture_or_a_man_moving_forward():
    g = Game(get_rules("english"), "W:WK29,22:BK4,K14")
    shuffle(g, ("29-25", "25-29"), ("4-8", "8-4"), 4)  # each position seen twice
    assert len(g._seen) == 4 and not g.is_over
    g.play("22-18")  # a man forward: nothing before it can come back
    assert len(g._seen) == 1
    g.play("14x23")  # a capture
    assert len(g._seen) == 1


def test_english_fifty_moves_each_without_progress_is_a_draw():
    g = Game(get_rules("english"), "W:WK29,K30,K31:BK1,K2")
    # Walk kings around without repeating: count plies until the draw.
    g._seen.clear()  # repetition is tested elsewhere; look at the no-progress counter only
    while not g.is_over:
        g._seen.clear()
        g.play(g.legal_moves()[0] if len(g.moves) % 2 else g.legal_moves()[-1])
    assert g.reason in (Reason.NO_PROGRESS_50, Reason.THREEFOLD)
    if g.reason is Reason.NO_PROGRESS_50:
        assert len(g.moves) == 100


def test_man_move_resets_the_no_progress_count():
    g = Game(get_rules("english"), "W:WK29,25:BK1,5")
    g._no_progress = 99
    g.play("25-22")
    assert not g.is_over and g._no_progress == 0


def test_fmjd_five_move_rule_king_against_lone_king():
    g = Game(get_rules("international"), "W:WK46,K5:BK28")
    assert not g.is_over
    for _ in range(12):
        if g.is_over:
            break
        g._seen.clear()
        g.play(g.legal_moves()[0])
    assert g.is_over and g.reason in (Reason.FMJD_5, Reason.NO_PIECES, Reason.NO_MOVES)


def test_fmjd64_lone_king_rule_in_russian():
    g = Game(get_rules("russian"), "W:WKa1,Kh8:BKd4")
    plies = 0
    while not g.is_over and plies < 40:
        g._seen.clear()
        moves = [m for m in g.legal_moves() if not m.captured] or g.legal_moves()
        g.play(moves[0])
        plies += 1
    assert g.reason in (Reason.FMJD64_LONE_KING_5, Reason.NO_PIECES)


def test_moves_after_the_end_are_refused():
    g = Game(get_rules("english"), "B:W18:B14")
    g.play("14x23")
    with pytest.raises(GameOverError):
        g.play("23-27")
    assert g.legal_moves() == []


def test_illegal_move_changes_nothing():
    g = Game(get_rules("english"))
    before = g.fen()
    with pytest.raises(IllegalMoveError):
        g.play("21-17")
    assert g.fen() == before and g.moves == []


def test_replay_rebuilds_a_game_from_its_notation():
    g = Game(get_rules("russian"))
    for text in ("c3-d4", "f6-g5", "g3-f4", "g5-h4", "d4-c5", "b6:d4"):
        g.play(text)
    again = Game.replay(get_rules("russian"), None, g.notation)
    assert again.fen() == g.fen() and again.notation == g.notation


def test_finish_records_an_outside_result():
    g = Game(get_rules("turkish"))
    g.finish(Result.BLACK_WINS, Reason.RESIGN)
    assert g.is_over and g.result is Result.BLACK_WINS and g.reason is Reason.RESIGN
    with pytest.raises(GameOverError):
        g.finish(Result.DRAW, Reason.AGREEMENT)
