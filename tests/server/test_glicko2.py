"""Glicko-2 against Glickman's paper, and the properties a rating list relies on."""

import pytest

from server.core.glicko2 import (
    DEFAULT_RD,
    Rating,
    expected_score,
    rate,
    rate_game,
)


def test_glickmans_worked_example_is_reproduced():
    # "Example of the Glicko-2 system", Glickman 2013: a 1500/200/0.06 player beats a
    # 1400/30 and loses to 1550/100 and 1700/300, tau = 0.5.
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = rate(player, results, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.02)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_glicko2_scale_conversion_matches_step_2():
    r = Rating(1500, 200, 0.06)
    assert r.mu == 0
    assert r.phi == pytest.approx(1.1513, abs=0.0001)
    assert Rating(1400, 30).mu == pytest.approx(-0.5756, abs=0.0001)


def test_a_period_without_games_only_widens_the_deviation():
    r = Rating(1700, 80, 0.06)
    after = rate(r, [])
    assert after.rating == pytest.approx(1700)
    assert after.rd > r.rd
    assert after.volatility == r.volatility


def test_winner_gains_and_loser_drops_by_the_same_amount_between_equals():
    white, black = rate_game(Rating(), Rating(), 1.0)
    assert white.rating > 1500 > black.rating
    assert white.rating - 1500 == pytest.approx(1500 - black.rating)
    assert white.rd < DEFAULT_RD and black.rd < DEFAULT_RD


def test_a_draw_between_equals_changes_no_rating():
    white, black = rate_game(Rating(1600, 100), Rating(1600, 100), 0.5)
    assert white.rating == pytest.approx(1600)
    assert black.rating == pytest.approx(1600)


def test_beating_a_stronger_player_gains_more_than_beating_a_weaker_one():
    me = Rating(1500, 100)
    up = rate(me, [(Rating(1800, 60), 1.0)]).rating - 1500
    down = rate(me, [(Rating(1200, 60), 1.0)]).rating - 1500
    assert up > down > 0


def test_expected_score_is_a_half_between_equals_and_favours_the_stronger():
    assert expected_score(Rating(1500, 50), Rating(1500, 50)) == pytest.approx(0.5)
    assert expected_score(Rating(1900, 50), Rating(1500, 50)) > 0.9


def test_deviation_is_floored_so_regular_players_keep_moving():
    white, black = Rating(1500, 30), Rating(1500, 30)
    for _ in range(50):
        white, black = rate_game(white, black, 0.5, min_rd=30)
    assert white.rd >= 30 and black.rd >= 30


@pytest.mark.parametrize("score", [-0.5, 1.5])
def test_a_score_outside_zero_to_one_is_refused(score):
    with pytest.raises(ValueError, match="between 0 and 1"):
        rate(Rating(), [(Rating(), score)])
