"""The positions in RULES.md that pin the capture rules: the exact set of legal moves,
from both move generators (the pure-Python one and the compiled one; see conftest.py)."""

import pytest

from engine import Position, get_rules


@pytest.fixture
def legal(legal_moves_of):
    """(variant, FEN) -> the legal moves' notation, from the backend under test."""

    def moves(variant: str, fen: str) -> set[str]:
        return {str(m) for m in legal_moves_of(Position.from_fen(get_rules(variant), fen))}

    return moves


def test_brazilian_man_passing_the_last_row_is_crowned_only_where_it_stops(legal):
    assert legal("brazilian", "W:Wb6:Bc7,f6") == {"b6xd8"}


def test_russian_man_crowned_mid_capture_continues_as_a_king(legal):
    assert legal("russian", "W:Wb6:Bc7,f6") == {"b6:d8:g5", "b6:d8:h4"}


def test_brazilian_majority_rule_forces_the_longer_capture(legal):
    assert legal("brazilian", "B:Wc5,e5,c3:Bd6") == {"d6xb4xd2"}


def test_russian_free_choice_allows_the_shorter_capture(legal):
    assert legal("russian", "B:Wc5,e5,c3:Bd6") == {"d6:f4", "d6:b4:d2"}


def test_english_free_choice_between_captures(legal):
    assert legal("english", "B:W14,15,22:B10") == {"10x17x26", "10x19"}


def test_english_crowning_ends_the_move(legal):
    assert legal("english", "B:W26,27:B22") == {"22x31"}


def test_man_may_not_take_king_in_italian(legal):
    assert legal("italian", "W:W22:BK18,19") == {"22x15"}


def test_italian_king_must_capture_rather_than_a_man(legal):
    assert legal("italian", "W:W21,K28:B18,23") == {"28x19"}


def test_italian_king_takes_the_king(legal):
    assert legal("italian", "W:WK22:B18,K19") == {"22x15"}


def test_italian_loop_that_meets_a_king_first_is_the_only_legal_one(legal, legal_moves_of):
    assert legal("italian", "W:WK22:BK18,10,19,K11") == {"22x13x6x15x22"}
    move = legal_moves_of(Position.from_fen(get_rules("italian"), "W:WK22:BK18,10,19,K11"))[0]
    assert [get_rules("italian").square_name(s) for s in move.captured] == ["18", "10", "11", "19"]


def test_spanish_quality_law_makes_the_man_take_the_king(legal):
    assert legal("spanish", "W:W11:BK15,14") == {"11x20"}


def test_turkish_man_reaching_the_last_row_is_crowned_and_stops(legal, legal_moves_of):
    assert legal("turkish", "W:Wd6:Bd7,f8") == {"d6xd8"}
    pos = Position.from_fen(get_rules("turkish"), "W:Wd6:Bd7,f8")
    after = pos.play(legal_moves_of(pos)[0])
    assert after.fen() == "B:WKd8:Bf8"


def test_turkish_king_never_turns_back(legal):
    assert legal("turkish", "W:WKa4:Ba6,a2") == {"a4xa7", "a4xa8", "a4xa1"}


def test_turkish_captured_pieces_leave_at_once(legal):
    assert legal("turkish", "W:WKd2:Bd4,f6,g5,c4") == {"d2xd6xg6xg4xb4", "d2xd6xg6xg4xa4"}


@pytest.mark.parametrize("variant", ["brazilian", "russian"])
def test_flying_king_must_land_where_the_capture_goes_on(legal, variant):
    # FMJD 4.10: after c3 the king must stop on d4, from where it takes e3; not e5..h8.
    sep = get_rules(variant).capture_separator
    assert legal(variant, "W:WKa1:Bc3,e3") == {f"a1{sep}d4{sep}f2", f"a1{sep}d4{sep}g1"}


def test_flying_king_lands_anywhere_beyond_when_the_capture_ends(legal):
    assert legal("russian", "W:WKa1:Bc3") == {"a1:d4", "a1:e5", "a1:f6", "a1:g7", "a1:h8"}


def test_men_capture_backward_in_international_but_not_in_english(legal):
    assert legal("international", "W:W28:B33") == {"28x39"}
    assert legal("english", "B:W10:B14") == {"14-17", "14-18"}
