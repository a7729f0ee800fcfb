"""The rules pages' worked examples are true: each move is legal in its position, the
move the rule set refuses there is refused, the one it also allows is allowed, and each
crowning example crowns. The HTTP answer gives boards a client draws without a rule."""

from __future__ import annotations

import pytest

from engine import VARIANTS, Game, IllegalMoveError, get_rules
from protocol.client import HttpError, Kondavo
from server.core import examples

RULE_SETS = list(VARIANTS)


@pytest.mark.parametrize("variant", RULE_SETS)
def test_every_rule_set_has_a_capture_example_and_a_crowning_example(variant: str) -> None:
    shown = examples.examples(variant)["examples"]
    assert len(shown) >= 2
    assert any(e["move"]["captured"] for e in shown)
    crowning = [e for e in shown if e["id"] == "crowning"]
    assert crowning
    for example in crowning:
        landing = example["move"]["path"][-1]
        assert [landing, example["side_to_move"], True] in example["after"]


@pytest.mark.parametrize("variant", RULE_SETS)
def test_each_example_holds_in_the_engine(variant: str) -> None:
    rules = get_rules(variant)
    for example in examples.examples(variant)["examples"]:
        game = Game(rules, example["fen"])
        legal = {str(m) for m in game.legal_moves()}
        assert example["move"]["notation"] in legal, example["id"]
        if example["refused"]:
            with pytest.raises(IllegalMoveError):
                Game(rules, example["fen"]).play(example["refused"])
        if example["also_legal"]:
            assert example["also_legal"] in legal


def test_the_precedence_examples_show_what_each_rule_set_refuses() -> None:
    refused = {
        v: [e["refused"] for e in examples.examples(v)["examples"] if e["refused"]]
        for v in ("international", "spanish", "italian")
    }
    assert refused == {"international": ["16x7"], "spanish": ["14x23"], "italian": ["11x4"]}
    # English leaves the choice to the player: the shorter capture is shown, the longer allowed.
    english = examples.examples("english")["examples"][0]
    assert english["move"]["notation"] == "4x11" and english["also_legal"] == "7x14x21"


async def test_the_examples_are_served_for_each_rule_set_and_unknown_ones_refused(k: Kondavo):
    answer = await k.request("GET", "/api/rules/russian/examples")
    assert answer["variant"] == "russian" and answer["board"]["cols"] == 8
    assert len(answer["start"]) == 24
    mid = answer["examples"][0]
    assert mid["move"] == {
        "notation": "b6:d8:h4",
        "path": ["b6", "d8", "h4"],
        "captured": ["c7", "g5"],
    }
    assert ["h4", "white", True] in mid["after"]  # crowned on d8, it went on as a king
    with pytest.raises(HttpError) as info:
        await k.request("GET", "/api/rules/chess/examples")
    assert info.value.status == 404 and info.value.code == "api/bad_variant"
