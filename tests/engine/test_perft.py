"""Perft from the start position of every rule set, against the published counts.

The plain generator (Move objects, public API) runs the small depths; the fast
perft (raw bitboards + transposition table) must agree with it and runs the deep
ones. Depths that take more than a few seconds are marked slow.
"""

from pathlib import Path

import pytest

from engine import Position, get_rules
from engine.perft import perft, perft_fast, perft_public

DATA = Path(__file__).parent / "data" / "perft.txt"


def _cases():
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        variant, depth, nodes, *flags = line.split()
        yield variant, int(depth), int(nodes), "keep" in flags


CASES = list(_cases())
# Plain generator up to ~40k leaves; everything through the fast perft.
PLAIN = [c for c in CASES if c[2] <= 40_000]
FAST = [c for c in CASES if c[2] <= 1_100_000]
DEEP = [c for c in CASES if c[2] > 1_100_000]


def _id(case):
    variant, depth, _, keep = case
    return f"{variant}-d{depth}{'-keep' if keep else ''}"


@pytest.mark.parametrize("case", PLAIN, ids=_id)
def test_plain_perft_matches_published_count(case):
    variant, depth, nodes, keep = case
    assert perft(Position.start(get_rules(variant)), depth, keep) == nodes


@pytest.mark.parametrize("case", [c for c in PLAIN if c[2] <= 10_000 and not c[3]], ids=_id)
def test_public_api_perft_matches_published_count(case):
    variant, depth, nodes, _ = case
    assert perft_public(Position.start(get_rules(variant)), depth) == nodes


@pytest.mark.parametrize("case", FAST, ids=_id)
def test_fast_perft_matches_published_count(case):
    variant, depth, nodes, keep = case
    assert perft_fast(Position.start(get_rules(variant)), depth, keep) == nodes


@pytest.mark.slow
@pytest.mark.parametrize("case", DEEP, ids=_id)
def test_deep_perft_matches_published_count(case):
    variant, depth, nodes, keep = case
    assert perft_fast(Position.start(get_rules(variant)), depth, keep) == nodes
