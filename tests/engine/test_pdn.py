"""PDN games: GameType per rule set, tags, results, and bad input."""

import pytest

from engine import VARIANTS, InvalidPdnError, get_rules
from engine.game import Game, Reason, Result


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pdn_carries_the_gametype_of_its_rule_set(variant):
    game = Game(get_rules(variant))
    game.play(game.legal_moves()[0])
    text = game.pdn()
    assert f'[GameType "{get_rules(variant).gametype}"]' in text
    assert Game.from_pdn(text).rules.id == variant


def test_english_pdn_numbers_moves_from_black():
    game = Game(get_rules("english"))
    game.play("11-15")
    game.play("23-19")
    game.play("8-11")
    assert "1. 11-15 23-19 2. 8-11 *" in game.pdn()


def test_pdn_from_a_fen_starts_there_and_numbers_the_second_player_with_dots():
    game = Game(get_rules("english"), "W:W18:B14,5")
    game.play("18x9")
    text = game.pdn()
    assert '[FEN "W:W18:B5,14"]' in text and "1... 18x9" in text


def test_pdn_reads_comments_variations_nags_and_draughts_result_forms():
    text = """[GameType "20"]
[Result "2-0"]
1. 32-28 {a comment} 19-23 (1... 18-23 2. 28x19) 2. 28x19 $1 14x23 2-0"""
    game = Game.from_pdn(text)
    assert game.notation == ["32-28", "19-23", "28x19", "14x23"]
    assert game.result is Result.WHITE_WINS and game.reason is Reason.RECORDED


def test_pdn_without_gametype_uses_the_given_rules():
    game = Game.from_pdn("1. c3-d4 f6-g5 *", get_rules("russian"))
    assert game.rules.id == "russian" and len(game.moves) == 2


@pytest.mark.parametrize(
    "text, says",
    [
        ('[GameType "99"]\n1. 32-28', "not one Kondavo plays"),
        ('[GameType "20"\n', "not a PDN tag"),
        ('[GameType "20"]\n1. 32-26', "move 1"),
        ('[GameType "20"]\n1. 99-98', "move 1"),
        ('[GameType "20"]\n[FEN "nonsense"]\n', "FEN tag"),
        ('[GameType "21"]\n[FEN "B:W18:B14"]\n1. 14x23 26-22', "after the game ended"),
    ],
)
def test_bad_pdn_raises_invalid_pdn_error(text, says):
    with pytest.raises(InvalidPdnError, match=says):
        Game.from_pdn(text)


def test_pdn_gametype_must_match_the_rules_asked_for():
    with pytest.raises(InvalidPdnError, match="International"):
        Game.from_pdn('[GameType "20"]\n*', get_rules("english"))
