"""The rules pages show their rule set on boards (issue 29 point 9): the start position
and worked examples (a capture that sets the rule set apart, crowning), drawn by the
game's own board module from the server's boards, in English and in German."""

from __future__ import annotations

import pytest

from server.core import examples

VARIANTS = ["english", "international", "brazilian", "russian", "spanish", "italian", "turkish"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_each_rules_page_draws_its_start_position_and_worked_examples(open_page, variant, locale):
    page = open_page(f"/rules/{variant}", locale=locale, width=1280, height=720)
    expected = examples.examples(variant)
    page.locator(".rules .example").first.wait_for()
    start = page.locator(".rules .start svg.board")
    assert start.locator(".piece").count() == len(expected["start"])

    shown = page.locator(".rules .example")
    assert shown.count() == len(expected["examples"]) >= 2
    language = locale[:2]
    table = page.evaluate(f"async () => (await import('/static/i18n/{language}.js')).default")
    for i, example in enumerate(expected["examples"]):
        block = shown.nth(i)
        assert block.get_attribute("data-example") == example["id"]
        caption = block.locator(".caption").inner_text()
        assert caption == table["rules_examples"][variant][example["id"]]
        assert example["move"]["notation"] in caption  # the sentence names the move shown
        before, after = block.locator("svg.board").nth(0), block.locator("svg.board").nth(1)
        # Before: the move's squares lit and the pieces it takes marked.
        lit = before.locator("rect.sq.last").evaluate_all("rs => rs.map(r => r.dataset.square)")
        assert set(lit) == set(example["move"]["path"])
        marked = before.locator("[data-must]").evaluate_all("cs => cs.map(c => c.dataset.must)")
        assert sorted(marked) == sorted(example["move"]["captured"])
        # After: the piece stands on its landing square, and the captured ones are gone.
        landing = example["move"]["path"][-1]
        assert after.locator(f'.piece[data-square="{landing}"]').count() == 1
        for square in example["move"]["captured"]:
            assert after.locator(f'.piece[data-square="{square}"]').count() == 0
    crowned = page.locator('.rules .example[data-example="crowning"] svg.board').nth(1)
    crowning = next(e for e in expected["examples"] if e["id"] == "crowning")
    landing = crowning["move"]["path"][-1]
    assert crowned.locator(f'.piece.king[data-square="{landing}"]').count() == 1
