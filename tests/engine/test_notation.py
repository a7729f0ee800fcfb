"""Move text: full paths, start and end, ambiguity, and errors that say why."""

import random

import pytest

from engine import (
    VARIANTS,
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    Position,
    get_rules,
)


def pos(variant, fen=None):
    rules = get_rules(variant)
    return Position.from_fen(rules, fen) if fen else Position.start(rules)


def test_numeric_step_and_capture_notation():
    p = pos("english", "B:W14,15,22:B10")
    assert str(p.parse_move("10x19")) == "10x19"
    assert str(p.parse_move("10x17x26")) == "10x17x26"


def test_start_and_end_are_enough_when_unambiguous():
    p = pos("english", "B:W14,15,22:B10")
    assert str(p.parse_move("10x26")) == "10x17x26"


def test_russian_captures_are_written_with_colons_and_read_with_any_separator():
    p = pos("russian", "W:Wb6:Bc7,f6")
    assert {str(m) for m in p.legal_moves()} == {"b6:d8:g5", "b6:d8:h4"}
    assert str(p.parse_move("b6xd8xh4")) == "b6:d8:h4"
    assert str(p.parse_move("b6:h4")) == "b6:d8:h4"


def test_turkish_uses_algebraic_squares():
    p = pos("turkish")
    assert "d3-d4" in {str(m) for m in p.legal_moves()}
    assert str(p.parse_move("d3-d4")) == "d3-d4"


def test_ambiguous_start_and_end_lists_the_candidates():
    p = pos("international", "B:W20,29,37,39,45,49:B5,6,10,22,K48")
    with pytest.raises(AmbiguousMoveError) as e:
        p.parse_move("48x41")
    assert "48x34x23x41" in str(e.value) and "48x25x14x41" in str(e.value)
    assert str(p.parse_move("48x34x41")) == "48x34x23x41"


def test_a_capture_is_compulsory():
    p = pos("english", "B:W14,15,22:B10")
    with pytest.raises(IllegalMoveError, match="capture is compulsory"):
        p.parse_move("10-14")


def test_a_longer_capture_must_be_taken_under_the_majority_rule():
    p = pos("brazilian", "B:Wc5,e5,c3:Bd6")
    with pytest.raises(IllegalMoveError, match="longer capture exists; it takes 2 pieces"):
        p.parse_move("d6xf4")


def test_a_man_may_not_capture_a_king_in_italian_says_so():
    p = pos("italian", "W:W22:BK18,19")
    with pytest.raises(IllegalMoveError, match="a man may not capture a king in Italian"):
        p.parse_move("22x13")


def test_a_capture_must_be_completed():
    p = pos("russian", "B:Wc5,e5,c3:Bd6")
    with pytest.raises(IllegalMoveError, match="not finished"):
        p.parse_move("d6:b4")


def test_moving_the_opponents_piece_is_refused():
    with pytest.raises(IllegalMoveError, match="not yours"):
        pos("english").parse_move("21-17")


def test_moving_from_an_empty_square_is_refused():
    with pytest.raises(IllegalMoveError, match="no piece on 13"):
        pos("english").parse_move("13-17")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "11",
        "11-",
        "-15",
        "11--15",
        "hello",
        "11-99",
        "a9-b8",
        "0-4",
        "x" * 500,
        "11 15",
        "z1-z2",
    ],
)
def test_malformed_move_text_raises_invalid_move_error(text):
    with pytest.raises(InvalidMoveError):
        pos("english").parse_move(text)


def test_a_light_square_is_not_a_playing_square():
    with pytest.raises(InvalidMoveError, match="not a playing square"):
        pos("brazilian").parse_move("b1-c2")


def test_non_text_is_refused_with_invalid_move_error():
    with pytest.raises(InvalidMoveError):
        pos("english").parse_move(None)  # type: ignore[arg-type]


def test_errors_are_value_errors_and_quote_the_input():
    with pytest.raises(ValueError, match="'13-17'"):
        pos("english").parse_move("13-17")


def test_move_to_dict_gives_labels():
    p = pos("italian", "W:WK22:BK18,10,19,K11")
    assert p.legal_moves()[0].to_dict() == {
        "notation": "22x13x6x15x22",
        "path": ["22", "13", "6", "15", "22"],
        "captured": ["18", "10", "11", "19"],
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_wire_notation_of_a_move_is_its_written_notation(variant):
    # Random games of each rule set: steps and captures, men and kings, every board.
    rng = random.Random(variant)
    seen = 0
    for _ in range(6):
        p = pos(variant)
        for _ in range(120):
            moves = p.legal_moves()
            if not moves:
                break
            for move in moves:
                assert move.to_dict()["notation"] == str(move)
                seen += 1
            p = p.play(rng.choice(moves))
    assert seen > 500


def test_numbering_of_every_board():
    layout = dict((label, (c, r)) for label, c, r in get_rules("english").board_layout())
    assert layout["1"] == (1, 0) and layout["4"] == (7, 0) and layout["5"] == (0, 1)
    assert layout["29"] == (0, 7) and layout["32"] == (6, 7)
    layout = dict((label, (c, r)) for label, c, r in get_rules("international").board_layout())
    assert layout["1"] == (1, 0) and layout["5"] == (9, 0) and layout["46"] == (0, 9)
    assert layout["50"] == (8, 9)
    layout = dict((label, (c, r)) for label, c, r in get_rules("spanish").board_layout())
    assert layout["1"] == (7, 7) and layout["4"] == (1, 7) and layout["5"] == (6, 6)
    assert layout["32"] == (0, 0)
    layout = dict((label, (c, r)) for label, c, r in get_rules("italian").board_layout())
    assert layout["1"] == (0, 0) and layout["4"] == (6, 0) and layout["5"] == (1, 1)
    assert layout["29"] == (1, 7) and layout["32"] == (7, 7)
    assert len(get_rules("turkish").board_layout()) == 64
