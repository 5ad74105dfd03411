"""SPRT arithmetic on synthetic duplicate-set outcomes."""

from __future__ import annotations

import math
import random

import pytest

from arena.events.ratings import expected_score
from arena.events.sprt import bounds, llr, set_outcome, sprt_state


def test_bounds_for_five_percent_errors():
    lower, upper = bounds(0.05, 0.05)
    assert upper == pytest.approx(math.log(19)) and lower == pytest.approx(-math.log(19))


def test_llr_by_hand():
    outcomes = [1.0, 0.5, 1.0, 0.0]  # mean 0.625, squared deviations 0.6875
    variance = (0.6875 + 1 / 12) / 5  # with the prior pseudo-outcome
    mu0, mu1 = 0.5, expected_score(20, 0)
    expected = 4 * (mu1 - mu0) * (2 * 0.625 - mu0 - mu1) / (2 * variance)
    assert llr(outcomes, 0, 20) == pytest.approx(expected)
    assert llr([1.0], 0, 20) == 0.0


def test_a_set_outcome_is_a_mean_pairwise_result():
    games = [((0, 1, 2), (1, 2, 3)), ((1, 2, 0), (1, 1, 3)), ((2, 0, 1), (2, 1, 1))]
    assert set_outcome(games) == pytest.approx((1 + 0 + 0.5) / 3)


def simulate(true_elo: float, seed: int, limit: int = 5000) -> tuple[str | None, int]:
    rng = random.Random(seed)
    p = expected_score(true_elo, 0)
    outcomes: list[float] = []
    while len(outcomes) < limit:
        outcomes.append(sum(rng.random() < p for _ in range(6)) / 6)  # a set of 6 games
        state = sprt_state(outcomes)
        if state.decision:
            return state.decision, len(outcomes)
    return None, len(outcomes)


def test_it_accepts_h1_for_a_clearly_stronger_bot_and_h0_for_an_equal_one():
    assert simulate(100, 1)[0] == "H1"
    assert simulate(-50, 2)[0] == "H0"
    decisions = [simulate(0, seed)[0] for seed in range(40)]
    assert decisions.count("H1") <= 6  # alpha = 5 % (with some slack for 40 runs)


def test_it_stops_early_when_the_evidence_is_strong():
    decision, sets = simulate(300, 3)
    assert decision == "H1" and sets < 30
