"""SPRT arithmetic on synthetic duplicate-set outcomes."""

from __future__ import annotations

import math
import random

import pytest

from arena.events.ratings import expected_score
from arena.events.sprt import (
    VARIANCE_FLOOR,
    VARIANCE_Z,
    SprtState,
    SprtTest,
    bounds,
    elo_of_score,
    llr,
    set_outcome,
    sprt_state,
)


def test_bounds_for_five_percent_errors():
    lower, upper = bounds(0.05, 0.05)
    assert upper == pytest.approx(math.log(19)) and lower == pytest.approx(-math.log(19))


def test_llr_by_hand():
    outcomes = [1.0, 0.5, 1.0, 0.0]  # mean 0.625, squared deviations 0.6875
    # above the floor 1/16, raised towards its upper bound
    variance = 0.6875 / 3 * (1 + VARIANCE_Z * math.sqrt(2 / 3))
    mu0, mu1 = 0.5, expected_score(20, 0)
    expected = 4 * (mu1 - mu0) * (2 * 0.625 - mu0 - mu1) / (2 * variance)
    assert llr(outcomes, 0, 20) == pytest.approx(expected)
    assert llr([1.0], 0, 20) == 0.0
    floored = VARIANCE_FLOOR / 3 * (1 + VARIANCE_Z)  # s^2 = 1/300 is below the floor 1/12
    assert llr([0.8, 0.9, 0.9], 0, 20) == pytest.approx(
        3 * (mu1 - mu0) * (2 * (2.6 / 3) - mu0 - mu1) / (2 * floored))


def test_no_decision_before_three_sets_and_elo0_below_elo1():
    assert sprt_state([1.0, 1.0], elo1=400).decision is None
    assert SprtState(2, 1.0, 100.0, -3.0, 3.0).decision is None  # past the bound, too early
    assert SprtState(3, 1.0, 100.0, -3.0, 3.0).decision == "H1"
    assert sprt_state([1.0, 1.0, 0.99], elo1=400).decision is None  # the floor (was H1)
    assert sprt_state([1.0, 1.0, 0.99, 1.0], elo1=400).decision == "H1"
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        SprtTest(elo0=20, elo1=20)


def test_the_elo_estimate_and_its_interval():
    state = sprt_state([0.6, 0.7, 0.5, 0.6])
    elo, low, high = state.elo_interval()
    assert elo == pytest.approx(400 * math.log10(0.6 / 0.4))
    half = 1.96 * math.sqrt(max(state.variance, VARIANCE_FLOOR / 4) / 4)  # floored as the test
    assert low == pytest.approx(elo_of_score(0.6 - half))
    assert high == pytest.approx(elo_of_score(0.6 + half))
    assert low < elo < high


def test_a_set_outcome_is_a_mean_pairwise_result():
    games = [((0, 1, 2), (1, 2, 3)), ((1, 2, 0), (1, 1, 3)), ((2, 0, 1), (2, 1, 1))]
    assert set_outcome(games) == pytest.approx((1 + 0 + 0.5) / 3)


def simulate(true_elo: float, seed: int, limit: int = 5000) -> tuple[str | None, int]:
    """The test fed one set at a time (the state sprt_state gives for the sets so far: the
    same sums in the same order, without adding them all up again after each set)."""
    rng = random.Random(seed)
    p = expected_score(true_elo, 0)
    test = SprtTest()
    while test.n < limit:
        state = test.add(sum(rng.random() < p for _ in range(6)) / 6)  # a set of 6 games
        if state.decision:
            return state.decision, test.n
    return None, test.n


def test_it_accepts_h1_for_a_clearly_stronger_bot_and_h0_for_an_equal_one():
    assert simulate(100, 1)[0] == "H1"
    assert simulate(-50, 2)[0] == "H0"
    decisions = [simulate(0, seed)[0] for seed in range(40)]
    assert decisions.count("H1") <= 6  # alpha = 5 % (with some slack for 40 runs)


def test_it_stops_early_when_the_evidence_is_strong():
    decision, sets = simulate(300, 3)
    assert decision == "H1" and sets < 30


def synthetic_set(rng: random.Random, score: float, games: int = 3, draws: float = 0.2) -> float:
    """A set of ``games`` games: each a win, a draw (share ``draws``) or a loss, A's expected
    score ``score``."""
    win = score - draws / 2
    results = []
    for _ in range(games):
        r = rng.random()
        results.append(1.0 if r < win else 0.5 if r < win + draws else 0.0)
    return sum(results) / games


def run_test(rng: random.Random, true_elo: float, elo0: float, elo1: float) -> str | None:
    test = SprtTest(elo0=elo0, elo1=elo1)
    score = expected_score(true_elo, 0)
    for _ in range(100_000):
        decision = test.add(synthetic_set(rng, score)).decision
        if decision:
            return decision
    return None


#: 2,000 runs each way: the binomial standard error of a 5 % rate is 0.49 %, so +-1.5 % is
#: three standard errors.  With these seeds the old test (plug-in variance shrunk towards 1/12)
#: gave 6.95 % false positives and 6.55 % misses, failing it; the raised variance (Z 1.5, no
#: floor) gave 5.35 % and 4.5 %; the floored one (Z 0.5) gives 5.0 % and 4.6 %.
RUNS, TOLERANCE = 2000, 0.015


def test_error_rates_are_nominal_in_a_seeded_simulation():
    rng = random.Random(20)
    elo0, elo1 = 0.0, 50.0
    false_positives = sum(run_test(rng, elo0, elo0, elo1) == "H1" for _ in range(RUNS))
    misses = sum(run_test(rng, elo1, elo0, elo1) == "H0" for _ in range(RUNS))
    assert abs(false_positives / RUNS - 0.05) <= TOLERANCE, false_positives / RUNS
    assert abs(misses / RUNS - 0.05) <= TOLERANCE, misses / RUNS


def test_the_watch_reads_sets_in_schedule_order_whatever_order_games_end_in():
    from types import SimpleNamespace

    from arena.events.sprt import SprtWatch

    rng = random.Random(5)
    games = [SimpleNamespace(planned=2 * s + r, set_index=s, entrants=(0, 1),
                             ranks=(1, 2) if rng.random() < 0.7 else (2, 1),
                             aborted="crashed" if (s, r) == (4, 0) else None)
             for s in range(60) for r in range(2)]

    def verdict(order):
        watch = SprtWatch(2, elo0=0, elo1=60, alpha=0.05, beta=0.05)
        reads = [watch.game_over(game) for game in order]
        return watch.state, [state.sets for state in reads if state is not None]

    in_order, reads = verdict(games)
    assert in_order is not None and in_order.decision == "H1"
    assert reads == list(range(1, in_order.sets + 1))  # set 4 aborted: no outcome
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    assert verdict(shuffled)[0] == in_order  # concurrent games, or a resumed run's stored ones
    late = [g for g in games if g.set_index != 2] + [g for g in games if g.set_index == 2]
    state, reads = verdict(late)  # set 2 ends last: nothing after set 1 is read before it
    assert state == in_order and reads[:2] == [1, 2] and reads[2] > 2


@pytest.mark.parametrize("score", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_sets_that_score_identically_at_the_start_do_not_decide(score):
    # The wypas boss's runs (H0 0, H1 +150): sets that score alike leave the sample variance
    # zero (or nearly), and the LLR used to jump to about +-1e10 after 3 sets, either way
    states = [sprt_state([score] * n, elo0=0, elo1=150) for n in range(1, 4)]
    assert all(state.decision is None for state in states), states
    assert all(abs(state.llr) < state.upper for state in states), states
    # two alike, the third a little off: a tiny variance from two degrees of freedom
    assert sprt_state([0.75, 0.75, 0.875], elo0=0, elo1=150).decision is None
    assert sprt_state([0.5, 0.5, 0.4375], elo0=0, elo1=150).decision is None


def test_sets_that_keep_scoring_alike_decide_in_the_end():
    # a variance that stays zero is evidence too: all-won sets accept H1, even sets H0
    assert sprt_state([1.0] * 12, elo0=0, elo1=150).decision == "H1"
    assert sprt_state([0.5] * 12, elo0=0, elo1=150).decision == "H0"


def test_the_printed_interval_after_identical_sets_is_not_a_point():
    """Issue 30: after sets that all scored alike, ``arena sprt`` printed "+0 Elo (+0 to +0)"
    while the test itself floors the variance (VARIANCE_FLOOR / N); the interval uses the
    same floor, so it narrows as sets come, never to nothing after a few."""
    three = sprt_state([0.5, 0.5, 0.5])
    elo, low, high = three.elo_interval()
    assert elo == 0.0 and low < -100 and high > 100
    many = sprt_state([0.5] * 300)
    _, low_many, high_many = many.elo_interval()
    assert low < low_many < -1 and 1 < high_many < high
