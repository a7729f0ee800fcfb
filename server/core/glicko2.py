"""Glicko-2 ratings, as in Mark Glickman's "Example of the Glicko-2 system" (2013).

Pure functions on plain values, no I/O: the ratings store keeps a ``Rating`` per
player identity and rule set and calls ``rate`` when a rated game ends (a rating
period of one game) or ``rate`` with several results for a longer period.

Glickman's worked example (step numbers below follow the paper):

>>> r = rate(Rating(1500, 200, 0.06),
...          [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)],
...          tau=0.5)
>>> f"{r.rating:.2f} {r.rd:.2f} {r.volatility:.6f}"
'1464.05 151.52 0.059996'

(The paper prints 1464.06 and 0.05999: it rounds its intermediate values.)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

SCALE = 173.7178  # Glicko-2 step 2: the Glicko scale over the Glicko-2 scale
DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
DEFAULT_TAU = 0.5  # system constant: how fast volatility may change (0.3 to 1.2)
EPSILON = 0.000001  # convergence tolerance of step 5.1
MIN_RD = 30.0  # keep the deviation from collapsing for frequent players (a policy, not Glicko)
MAX_RD = DEFAULT_RD


@dataclass(frozen=True)
class Rating:
    """A rating on the Glicko scale: rating, rating deviation, volatility."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    @property
    def mu(self) -> float:
        return (self.rating - DEFAULT_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.rd / SCALE

    @classmethod
    def from_glicko2(cls, mu: float, phi: float, sigma: float) -> Rating:
        return cls(mu * SCALE + DEFAULT_RATING, phi * SCALE, sigma)

    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval of the rating."""
        return self.rating - 1.96 * self.rd, self.rating + 1.96 * self.rd

    @property
    def provisional(self) -> bool:
        """Too few games to trust: lichess shows "?" above 110 (on the same scale)."""
        return self.rd > 110


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's expected score against the opponent (0..1)."""
    return _e(player.mu, opponent.mu, opponent.phi)


def _new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the Illinois-algorithm iteration for the new volatility."""
    a = math.log(sigma * sigma)
    d2 = delta * delta
    p2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (d2 - p2 - v - ex) / (2 * (p2 + v + ex) ** 2)) - (x - a) / (tau * tau)

    big_a = a
    if d2 > p2 + v:
        big_b = math.log(d2 - p2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def rate(
    player: Rating, results: Iterable[tuple[Rating, float]], tau: float = DEFAULT_TAU
) -> Rating:
    """The player's rating after one rating period.

    ``results``: (opponent's rating before the period, score 1 / 0.5 / 0). With no
    games the deviation only grows (step 6 applied alone).
    """
    games = list(results)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not games:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating.from_glicko2(mu, phi_star, sigma)
    for _, score in games:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score must be between 0 and 1, not {score!r}")
    # Step 3: the estimated variance of the rating from the game outcomes.
    v_inv = 0.0
    delta_sum = 0.0
    for opp, score in games:
        g = _g(opp.phi)
        e = _e(mu, opp.mu, opp.phi)
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1 / v_inv
    # Step 4: the estimated improvement.
    delta = v * delta_sum
    # Step 5: the new volatility.
    sigma_new = _new_volatility(phi, sigma, delta, v, tau)
    # Step 6: the pre-period deviation.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    # Step 7: the new deviation and rating.
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating.from_glicko2(mu_new, phi_new, sigma_new)


def rate_game(
    white: Rating,
    black: Rating,
    white_score: float,
    tau: float = DEFAULT_TAU,
    min_rd: float = MIN_RD,
) -> tuple[Rating, Rating]:
    """Both ratings after one game (one rating period each), ``white_score`` 1 / 0.5 / 0.

    ``min_rd`` floors the deviations so a regular player's rating keeps moving; pass
    0 for plain Glicko-2.
    """
    new_white = rate(white, [(black, white_score)], tau)
    new_black = rate(black, [(white, 1.0 - white_score)], tau)
    return _floor(new_white, min_rd), _floor(new_black, min_rd)


def _floor(r: Rating, min_rd: float) -> Rating:
    rd = min(max(r.rd, min_rd), MAX_RD)
    return r if rd == r.rd else Rating(r.rating, rd, r.volatility)
