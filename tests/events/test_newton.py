"""The resampled fits' predicted starts (``arena.events.newton.WarmStart``): closer to each
resample's maximum than the full fit is, never far from the full fit, and the fits reach the
same maximum from them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.events.newton import MAX_PREDICTED_MOVE, newton
from arena.events.ratings import (
    PRIOR_DRAWS,
    SetWins,
    fit_strengths,
    refit_elo,
    resample_indices,
    resampled_elo,
)
from tests.events.test_ratings import random_event


def event_sets(seed: int, bots: int, sets: int) -> tuple[SetWins, list[float]]:
    wins = SetWins.of(random_event(random.Random(seed), bots, sets), bots)
    return wins, fit_strengths(wins.total())


def resample_counts(sets: SetWins, resamples: int, seed: int) -> np.ndarray:
    return np.stack([np.bincount(row, minlength=sets.sets)
                     for row in resample_indices(seed, sets.sets, resamples)])


def maxima(sets: SetWins, counts: np.ndarray) -> np.ndarray:
    """Each resample's log-strengths, fitted to the last bit."""
    wins = np.stack([sets.summed(row.astype(float)) for row in counts])
    starts = np.zeros((len(counts), sets.entrants))
    return newton(wins, starts, PRIOR_DRAWS, 1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_the_predicted_start_is_much_closer_to_the_maximum_than_the_full_fit(seed):
    sets, strengths = event_sets(seed, 12, 300)
    counts = resample_counts(sets, 20, seed)
    best = maxima(sets, counts)
    full = np.log(strengths)
    predicted = sets.warm_start(strengths).starts(counts)
    assert np.abs(predicted - best).max() < 0.3 * np.abs(full - best).max()  # 0.13-0.2 seen


def test_a_resample_unlike_the_event_starts_from_the_full_fit(monkeypatch):
    """(Weights far from the event's: the straight line predicts a move of more than
    MAX_PREDICTED_MOVE, where the maximum has moved by 0.24.)"""
    sets, strengths = event_sets(7, 6, 40)
    counts = np.zeros((2, sets.sets), dtype=np.int64)
    counts[0] = 1  # the event itself
    counts[1, 0] = 100 * sets.sets  # one set, drawn many times
    warm = sets.warm_start(strengths)
    assert np.abs(warm.theta - np.log(strengths)).max() == 0
    starts = warm.starts(counts)
    assert np.abs(starts[0] - warm.theta).max() < 1e-9
    assert np.array_equal(starts[1], warm.theta)
    assert np.abs(maxima(sets, counts)[1] - warm.theta).max() < MAX_PREDICTED_MOVE
    monkeypatch.setattr("arena.events.newton.MAX_PREDICTED_MOVE", np.inf)
    assert np.abs(warm.starts(counts)[1] - warm.theta).max() > MAX_PREDICTED_MOVE
    assert np.abs(refit_elo(sets, strengths, counts) - refit_elo(
        sets, strengths, counts, warm=warm)).max() < 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_fits_from_the_predicted_starts_reach_the_same_elo(seed):
    sets, strengths = event_sets(seed, random.Random(seed).randint(3, 15), 60)
    counts = resample_counts(sets, 30, seed)
    cold = refit_elo(sets, strengths, counts)
    warm = refit_elo(sets, strengths, counts, warm=sets.warm_start(strengths))
    assert np.abs(cold - warm).max() < 1e-9
    assert np.array_equal(resampled_elo(sets, strengths, resamples=30, seed=seed),
                          refit_elo(sets, strengths, counts, warm=sets.warm_start(strengths)))
