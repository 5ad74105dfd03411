"""Rating arithmetic against hand-computed values."""

from __future__ import annotations

import math

import pytest

from arena.events.ratings import (
    TableResult,
    elo_ratings,
    expected_score,
    fit_strengths,
    likelihood_of_superiority,
    online_update,
    pairwise_wins,
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
