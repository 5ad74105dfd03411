"""Rating arithmetic against hand-computed values, and the numpy fit and bootstrap against the
pure-Python ones they replaced."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.events.ratings import (
    SetWins,
    TableResult,
    _one_blas_thread,
    _openblas_thread_setters,
    add,
    bootstrap,
    elo_ratings,
    expected_score,
    fit_strengths,
    likelihood_of_superiority,
    online_update,
    pairwise_wins,
    resample_blocks,
    resample_indices,
    to_elo,
)


def test_a_table_gives_one_comparison_per_pair_and_ties_are_half_wins():
    wins = pairwise_wins([TableResult((0, 1, 2), (1, 2, 2))], 3)
    assert wins == [[0, 1, 1], [0, 0, 0.5], [0, 0.5, 0]]


def test_seats_held_by_the_same_entrant_do_not_compare():
    wins = pairwise_wins([TableResult((0, 1, 0), (1, 2, 3))], 2)
    assert wins == [[0, 1], [1, 0]]


def test_three_wins_to_one_is_a_strength_ratio_of_three_without_the_prior():
    p = fit_strengths([[0, 3], [1, 0]], prior_draws=0)
    assert p[0] / p[1] == pytest.approx(3.0)
    elo = to_elo(p)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3))  # 190.85
    assert sum(elo) / 2 == pytest.approx(1500)


def test_three_players_in_a_cycle_are_equal():
    results = [TableResult((0, 1, 2), (1, 2, 3)), TableResult((1, 2, 0), (1, 2, 3)),
               TableResult((2, 0, 1), (1, 2, 3))]
    assert elo_ratings(results, 3) == pytest.approx([1500, 1500, 1500])


def test_the_prior_keeps_an_unbeaten_bot_finite_and_shrinks_small_samples():
    p = fit_strengths([[0, 2], [0, 0]])
    assert math.isfinite(p[0]) and p[0] > p[1]
    # hand-computed: with one virtual draw each against strength 1, the fixed point of
    # p0 = 2.5 / (2/(p0+p1) + 1/(p0+1)) and p1 = 0.5 / (2/(p0+p1) + 1/(p0+1))
    p0, p1 = p
    assert p0 == pytest.approx(2.5 / (2 / (p0 + p1) + 1 / (p0 + 1)))
    assert p1 == pytest.approx(0.5 / (2 / (p0 + p1) + 1 / (p1 + 1)))
    assert to_elo(p)[0] - to_elo(p)[1] < 400 * math.log10(10)


def test_an_anchor_fixes_one_entrant_at_1500():
    elo = to_elo([1.0, 10.0], anchor=0)
    assert elo == pytest.approx([1500, 1900])


def test_expected_score_on_the_elo_scale():
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)


def test_online_elo_moves_by_k_times_the_surprise():
    elo = [1500.0, 1500.0, 1500.0]
    online_update(elo, TableResult((0, 1, 2), (1, 2, 2)))
    # 0 beat both (+8 each); 1 and 2 drew each other (0) and lost to 0 (-8 each)
    assert elo == pytest.approx([1516, 1492, 1492])
    assert sum(elo) == pytest.approx(4500)


def test_likelihood_of_superiority_from_decisive_results():
    los = likelihood_of_superiority([[0, 9, 5], [1, 0, 5], [5, 5, 0]])
    # 9 wins to 1: z = 8 / sqrt(10) = 2.53, Phi = 0.9943
    assert los[0][1] == pytest.approx(0.99429, abs=1e-4)
    assert los[1][0] == pytest.approx(1 - los[0][1])
    assert los[0][2] == 0.5 and los[2][2] == 0.5


def test_draws_do_not_count_for_the_likelihood_of_superiority():
    results = [TableResult((0, 1), (1, 2))] * 10 + [TableResult((0, 1), (1, 1))] * 90
    decisive = pairwise_wins(results, 2, tie=0.0)
    assert decisive == [[0, 10], [0, 0]]
    assert likelihood_of_superiority(decisive)[0][1] == pytest.approx(0.99922, abs=1e-4)
    assert pairwise_wins(results, 2) == [[0, 55], [45, 0]]  # for the fit, draws are halves


# --- the numpy fit and bootstrap against the pure-Python ones they replaced (the oracle) ---

def _old_fit_strengths(wins, prior_draws=1.0, tolerance=1e-10, start=None):
    n = len(wins)
    total_wins = [sum(row) + prior_draws / 2 for row in wins]
    games = [[wins[i][j] + wins[j][i] for j in range(n)] for i in range(n)]
    theta = [math.log(x) for x in start] if start is not None else [0.0] * n
    for _ in range(200):
        gradient = list(total_wins)
        hessian = [[0.0] * n for _ in range(n)]
        for i in range(n):
            if prior_draws:
                s = 1.0 / (1.0 + math.exp(-theta[i]))
                gradient[i] -= prior_draws * s
                hessian[i][i] -= prior_draws * s * (1 - s)
            for j in range(n):
                if j == i or not games[i][j]:
                    continue
                s = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
                gradient[i] -= games[i][j] * s
                curvature = games[i][j] * s * (1 - s)
                hessian[i][i] -= curvature
                hessian[i][j] += curvature
        if not prior_draws:
            hessian[0] = [1.0] + [0.0] * (n - 1)
            gradient[0] = 0.0
        step = _old_solve(hessian, [-g for g in gradient])
        largest = max((abs(x) for x in step), default=0.0)
        if largest > 5.0:
            step = [x * 5.0 / largest for x in step]
        theta = [t + x for t, x in zip(theta, step)]
        if largest < tolerance:
            break
    if not prior_draws:
        mean = sum(theta) / n
        theta = [t - mean for t in theta]
    return [math.exp(t) for t in theta]


def _old_solve(matrix, vector):
    n = len(vector)
    rows = [list(row) + [value] for row, value in zip(matrix, vector)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        if abs(rows[column][column]) < 1e-300:
            continue
        for r in range(column + 1, n):
            factor = rows[r][column] / rows[column][column]
            if factor:
                for c in range(column, n + 1):
                    rows[r][c] -= factor * rows[column][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(rows[r][r]) < 1e-300:
            continue
        x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
    return x


def _old_places(elo):
    order = sorted(range(len(elo)), key=lambda i: -elo[i])
    places = [0] * len(elo)
    for place, i in enumerate(order, start=1):
        places[i] = place
    return places


def _old_quantile(ordered, q):
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def _old_leaderboard(sets, n, resamples, seed, anchor):
    """The leaderboard's fit and bootstrap before numpy: (elo, low, high, rank confidence)."""
    matrices = [pairwise_wins(results, n) for results in sets]
    total = [[0.0] * n for _ in range(n)]
    for matrix in matrices:
        total = add(total, matrix)
    strengths = _old_fit_strengths(total)
    elo = to_elo(strengths, anchor)
    places = _old_places(elo)
    rng = random.Random(str(seed))
    samples = []
    for _ in range(resamples):
        drawn = [[0.0] * n for _ in range(n)]
        for _ in matrices:
            drawn = add(drawn, rng.choice(matrices))
        samples.append(to_elo(_old_fit_strengths(drawn, tolerance=1e-6, start=strengths),
                              anchor))
    low, high, confidence = [], [], []
    for i in range(n):
        values = sorted(sample[i] for sample in samples)
        low.append(_old_quantile(values, 0.025))
        high.append(_old_quantile(values, 0.975))
        confidence.append(sum(_old_places(s)[i] == places[i] for s in samples) / resamples)
    return elo, low, high, confidence


def random_event(rng, bots, sets):
    """Duplicate sets of 2-6 players (every rotation of a random table), random ranks with
    ties; some bots stronger than others so the ratings spread."""
    strength = [rng.gauss(0, 1) for _ in range(bots)]
    event = []
    for _ in range(sets):
        players = rng.sample(range(bots), rng.randint(2, min(6, bots)))
        tables = []
        for turn in range(len(players)):
            seated = players[turn:] + players[:turn]
            noise = [round(strength[p] + rng.gauss(0, 1.5)) for p in seated]
            ranks = tuple(1 + sum(x > mine for x in noise) for mine in noise)
            tables.append(TableResult(tuple(seated), ranks))
        event.append(tables)
    return event


@pytest.mark.parametrize("seed", range(6))
def test_the_numpy_fit_equals_the_pure_python_one(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 12)
    wins = [[0.0 if i == j else rng.randint(0, 6) / 2 for j in range(n)] for i in range(n)]
    start = [math.exp(rng.gauss(0, 1)) for _ in range(n)]
    for prior in (1.0, 0.0):
        assert fit_strengths(wins, prior) == pytest.approx(_old_fit_strengths(wins, prior),
                                                           rel=1e-12)
    assert fit_strengths(wins, tolerance=1e-6, start=start) == pytest.approx(
        _old_fit_strengths(wins, tolerance=1e-6, start=start), rel=1e-12)


def test_an_entrant_with_no_games_and_no_prior_stays_put():
    wins = [[0, 3, 0], [1, 0, 0], [0, 0, 0]]
    assert fit_strengths(wins, prior_draws=0) == pytest.approx(
        _old_fit_strengths(wins, prior_draws=0), rel=1e-12)


@pytest.mark.parametrize("sets", [1, 2, 3, 7, 255, 256, 257, 1000, 65537])
def test_resample_indices_are_the_draws_of_random_choice(sets):
    rng = random.Random(str(42))
    expected = [[rng.choice(range(sets)) for _ in range(sets)] for _ in range(3)]
    assert resample_indices(42, sets, 3).tolist() == expected


@pytest.mark.parametrize("seed", range(5))
def test_ratings_intervals_and_rank_confidence_equal_the_old_implementation(seed):
    rng = random.Random(seed)
    bots = rng.randint(3, 9)
    event = random_event(rng, bots, rng.randint(2, 40))
    anchor = rng.choice([None, 0])
    elo, low, high, confidence = _old_leaderboard(event, bots, 60, seed, anchor)
    sets = SetWins.of(event, bots)
    strengths = fit_strengths(sets.total())
    assert to_elo(strengths, anchor) == pytest.approx(elo, abs=1e-9, rel=0)
    spread = bootstrap(sets, strengths, resamples=60, seed=seed, anchor=anchor)
    assert spread.low == pytest.approx(low, abs=1e-9, rel=0)
    assert spread.high == pytest.approx(high, abs=1e-9, rel=0)
    assert spread.rank_confidence == confidence


def test_sparse_set_wins_sum_to_the_pairwise_matrix():
    rng = random.Random(9)
    event = random_event(rng, 7, 25)
    sets = SetWins.of(event, 7)
    assert sets.total() == pairwise_wins([t for tables in event for t in tables], 7)
    assert len(sets.cells) <= sum(len(t.entrants) ** 2 for tables in event for t in tables)


@pytest.mark.parametrize("rows", [1, 2, 7])
def test_resample_blocks_continue_the_same_stream(rows):
    blocks = list(resample_blocks(5, 300, 10, rows))
    assert [len(block) for block in blocks] == [rows] * (10 // rows) + (
        [10 % rows] if 10 % rows else [])
    assert np.concatenate(blocks).tolist() == resample_indices(5, 300, 10).tolist()


def test_the_fit_runs_on_one_blas_thread_and_gives_the_threads_back():
    setters = _openblas_thread_setters()
    if not setters:
        pytest.skip("no OpenBLAS loaded here")
    before = [get() for get, _ in setters]
    with _one_blas_thread():
        assert [get() for get, _ in setters] == [1] * len(setters)
    assert [get() for get, _ in setters] == before


@pytest.mark.parametrize("seed", range(4))
def test_distinct_is_np_unique(seed):
    from arena.events.ratings import distinct

    values = np.random.default_rng(seed).integers(-50, 50, seed * 40)
    assert distinct(values).tolist() == np.unique(values).tolist()
