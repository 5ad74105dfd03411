"""The leaderboard's interval (``arena.events.intervals``): the t quantile against tables, and
its coverage in a small seeded simulation where the old percentile bootstrap falls short.
(``benchmarks/studies/rating_coverage.py`` measures it at length.)"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.events.intervals import sets_per_entrant, t_intervals, t_quantile
from arena.events.ratings import (
    SetWins,
    TableResult,
    fit_strengths,
    resampled_elo,
    to_elo,
)
from arena.events.schedule import plan

#: Printed tables' t(0.975, df) (and the normal's 1.95996 for a large df).
T_TABLE = {1: 12.7062, 2: 4.3027, 3: 3.1824, 9: 2.2622, 30: 2.0423, 60: 2.0003, 120: 1.9799,
           100000: 1.9600}


@pytest.mark.parametrize("df", sorted(T_TABLE))
def test_t_quantiles_match_the_printed_tables(df):
    assert t_quantile(0.975, df) == pytest.approx(T_TABLE[df], abs=1e-4)


def test_the_interval_is_the_bootstrap_sd_times_the_corrected_t_quantile():
    resampled = np.array([[1490.0, 1510.0], [1510.0, 1490.0], [1500.0, 1500.0]])
    low, high = t_intervals([1500.0, 1500.0], resampled, [10, 1])
    half = 2.2622 * math.sqrt(10 / 9) * 10.0  # sd of (-10, 10, 0) is 10
    assert low[0] == pytest.approx(1500 - half, abs=1e-2)
    assert high[0] == pytest.approx(1500 + half, abs=1e-2)
    assert (low[1], high[1]) == (-math.inf, math.inf)  # one set: no spread to measure


def test_sets_per_entrant_counts_the_sets_a_bot_played_in():
    sets = SetWins.of([[TableResult((0, 1), (1, 2))], [TableResult((1, 2), (1, 1))],
                       [TableResult((1, 0), (2, 1)), TableResult((0, 1), (1, 2))]], 4)
    assert sets_per_entrant(sets).tolist() == [2, 3, 1, 0]


TRUE_ELO = (1300.0, 1400.0, 1500.0, 1600.0, 1700.0)
LUCK = 100.0
#: The fit's limit under this luck (benchmarks/studies/rating_coverage.py's pseudo_truth).
TRUTH = (1323.0, 1411.7, 1500.0, 1588.3, 1677.0)


def duplicate_sets(sets: int, trial: int) -> SetWins:
    """Ten duplicate sets of a table of 3 among five bots; each deal gives each seat a luck
    term (so duplicates can cancel it), rankings drawn from Plackett-Luce by seeded bots."""
    rng = random.Random(trial)
    by_set: dict[int, list[TableResult]] = {}
    luck: dict[int, list[float]] = {}
    for table in plan(5, 3, sets=sets, seed=f"coverage {trial}"):
        seat_luck = luck.setdefault(table.set_index, [rng.gauss(0, LUCK) for _ in range(3)])
        weights = [10 ** ((TRUE_ELO[e] + seat_luck[s]) / 400)
                   for s, e in enumerate(table.entrants)]
        left, ranks = [0, 1, 2], [0, 0, 0]
        for place in (1, 2, 3):
            seat = rng.choices(left, weights=[weights[s] for s in left])[0]
            ranks[seat] = place
            left.remove(seat)
        by_set.setdefault(table.set_index, []).append(TableResult(table.entrants, tuple(ranks)))
    return SetWins.of(list(by_set.values()), 5)


def test_the_new_interval_covers_at_ten_sets_where_the_percentiles_fall_short():
    old = new = total = 0
    for trial in range(120):
        sets = duplicate_sets(10, trial)
        strengths = fit_strengths(sets.total())
        elo = to_elo(strengths)
        resampled = resampled_elo(sets, strengths, resamples=100, seed=trial)
        old_low, old_high = np.quantile(resampled, [0.025, 0.975], axis=0)  # the old interval
        low, high = t_intervals(elo, resampled, sets_per_entrant(sets).tolist())
        for k, truth in enumerate(TRUTH):
            old += old_low[k] <= truth <= old_high[k]
            new += low[k] <= truth <= high[k]
            total += 1
    assert 0.93 <= new / total <= 0.995, (old, new, total)  # measured: 589 of 600
    assert old / total <= 0.91, (old, new, total)  # the old one's shortfall: 523 of 600
