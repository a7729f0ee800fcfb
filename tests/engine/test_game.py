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


def draws_fired(game: Game) -> list[Reason]:
    """The draw rules that fired so far in a game replayed without automatic draws."""
    return [reason for _, reason in game.draws_passed]


def walk(game: Game, plies: int, keep: frozenset[int] = frozenset()) -> None:
    """Play ``plies`` moves, none with a piece on ``keep`` if it can be helped: one after
    which the opponent has no capture, to a position not reached before if there is one
    (kings wander on without giving pieces away or repeating themselves)."""
    seen = {game.position.key()}
    for _ in range(plies):
        if game.is_over:
            return
        moves = [m for m in game.legal_moves() if m.start not in keep] or game.legal_moves()
        after = [(m, game.position.play(m)) for m in moves]
        safe = [(m, p) for m, p in after if not any(r.captured for r in p.legal_moves())]
        fresh = [m for m, p in safe or after if p.key() not in seen]
        game.play((fresh or [m for m, _ in safe] or moves)[0])
        seen.add(game.position.key())


def captures(game: Game) -> int:
    return sum(1 for m in game.moves if m.captured)


def test_repetitions_are_counted_afresh_after_a_man_moves_and_after_a_capture():
    g = Game(get_rules("english"), "W:WK29,22:BK4,K14")
    shuffle(g, ("29-25", "25-29"), ("4-8", "8-4"), 4)  # each position seen twice
    assert not g.is_over
    g.play("22-18")  # a man forward: the position after it is seen once
    g.play("14x23")  # a capture: once again
    shuffle(g, ("29-25", "25-29"), ("4-8", "8-4"), 4)
    assert not g.is_over  # the position after the capture is back: twice
    shuffle(g, ("29-25", "25-29"), ("4-8", "8-4"), 4)
    assert g.reason is Reason.THREEFOLD and len(g.moves) == 4 + 2 + 8


def test_english_fifty_moves_each_without_progress_is_a_draw():
    # Replayed without automatic draws, the kings walk on past repetitions; the rule
    # fires on the hundredth ply without a capture or a man move, not before.
    g = Game(get_rules("english"), "W:WK29,K30,K31:BK1,K2", automatic_draws=False)
    walk(g, 99)
    assert Reason.NO_PROGRESS_50 not in draws_fired(g)
    walk(g, 1)
    assert captures(g) == 0 and (100, Reason.NO_PROGRESS_50) in g.draws_passed


def test_man_move_resets_the_no_progress_count():
    rules = get_rules("english")
    man = frozenset({rules.squares_by_name["25"]})
    g = Game(rules, "W:WK29,K30,K31,25:BK1,K2", automatic_draws=False)
    walk(g, 98, keep=man)
    g.play("25-22")  # a man moves: the count starts again
    man = frozenset({rules.squares_by_name["22"]})
    walk(g, 99, keep=man)
    assert Reason.NO_PROGRESS_50 not in draws_fired(g)
    walk(g, 1, keep=man)
    white = g.fen().split(":")[1].removeprefix("W").split(",")
    assert "22" in white, "the man stayed on 22: only kings moved after it"
    assert captures(g) == 0 and (98 + 1 + 100, Reason.NO_PROGRESS_50) in g.draws_passed


def test_fmjd_five_move_rule_king_against_lone_king():
    g = Game(get_rules("international"), "W:WK46,K5:BK28", automatic_draws=False)
    assert not g.is_over
    walk(g, 12)
    assert Reason.FMJD_5 in draws_fired(g) or g.reason in (Reason.NO_PIECES, Reason.NO_MOVES)


def test_fmjd64_lone_king_rule_in_russian():
    g = Game(get_rules("russian"), "W:WKa1,Kh8:BKd4", automatic_draws=False)
    plies = 0
    while not g.is_over and plies < 40 and Reason.FMJD64_LONE_KING_5 not in draws_fired(g):
        moves = [m for m in g.legal_moves() if not m.captured] or g.legal_moves()
        g.play(moves[0])
        plies += 1
    assert Reason.FMJD64_LONE_KING_5 in draws_fired(g) or g.reason is Reason.NO_PIECES


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
