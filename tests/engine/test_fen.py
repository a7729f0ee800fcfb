"""FEN in the PDN 3.0 form, per rule set, and the errors bad FEN gets."""

import pytest

from engine import VARIANTS, InvalidFenError, Position, get_rules


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_start_fen_round_trips(variant):
    rules = get_rules(variant)
    assert Position.from_fen(rules, rules.start_fen) == Position.start(rules)
    assert Position.start(rules).fen() == rules.start_fen


def test_international_start_fen_is_the_standard_one():
    assert get_rules("international").start_fen == (
        "W:W" + ",".join(map(str, range(31, 51))) + ":B" + ",".join(map(str, range(1, 21)))
    )


def test_english_black_moves_first():
    assert get_rules("english").start_fen.startswith("B:W21,")


def test_colour_lists_may_come_in_either_order():
    rules = get_rules("english")
    assert Position.from_fen(rules, "W:B1,2:W30,K31") == Position.from_fen(rules, "W:W30,K31:B1,2")


def test_ranges_are_read_for_numeric_squares():
    rules = get_rules("international")
    assert Position.from_fen(rules, "W:W31-50:B1-20") == Position.start(rules)


@pytest.mark.parametrize("variant", ["russian", "brazilian"])
def test_russian_and_brazilian_accept_lidraughts_numeric_squares(variant):
    rules = get_rules(variant)
    numeric = Position.from_fen(
        rules, "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )
    assert numeric == Position.start(rules)
    assert Position.from_fen(rules, "W:WK32:B1") == Position.from_fen(rules, "W:WKg1:Bb8")


def test_lidraughts_extra_fields_are_ignored():
    rules = get_rules("russian")
    assert Position.from_fen(rules, rules.start_fen + ":H0:F1") == Position.start(rules)


def test_kings_are_written_with_k():
    rules = get_rules("italian")
    assert Position.from_fen(rules, "W:WK22:BK18,10").fen() == "W:WK22:B10,K18"


@pytest.mark.parametrize(
    "fen, says",
    [
        ("", "not a FEN"),
        ("W", "not a FEN"),
        ("X:W21:B1", "side to move"),
        ("W:W21:W22", "listed twice"),
        ("W:W21:X1", "starts with 'W' or 'B'"),
        ("W:W21", "not a FEN"),
        ("W:W21:B21", "listed twice"),
        ("W:W33:B1", "not a square"),
        ("W:W0:B1", "not a square"),
        ("W:Wfoo:B1", "not a square"),
        ("W:W1:B30", "crowning row"),
        ("W:W21:B29", "crowning row"),
        ("W:W30-21:B1", "runs backwards"),
        ("W:" + "W1," * 600 + ":B1", "too long"),
    ],
)
def test_bad_fen_raises_invalid_fen_error_quoting_the_input(fen, says):
    with pytest.raises(InvalidFenError, match=says):
        Position.from_fen(get_rules("english"), fen)


def test_algebraic_fen_refuses_a_light_square():
    with pytest.raises(InvalidFenError, match="not a playing square"):
        Position.from_fen(get_rules("brazilian"), "W:Wa2:Bb8")


def test_turkish_fen_refuses_numbers():
    with pytest.raises(InvalidFenError, match="algebraic"):
        Position.from_fen(get_rules("turkish"), "W:W1:B2")


def test_fen_must_be_text():
    with pytest.raises(InvalidFenError):
        Position.from_fen(get_rules("english"), None)  # type: ignore[arg-type]
