"""The leaderboard: the batch fit, and the bootstrap over whole duplicate sets, on small fixed
data sets."""

from __future__ import annotations

import attrs
import pytest

from arena.events.leaderboard import format_table, leaderboard, set_matrices
from tests.events.test_storage import game


def three_way_sets(sets, winner_ranks):
    games, planned = [], 0
    for set_index in range(sets):
        for entrants in [(0, 1, 2), (1, 2, 0), (2, 0, 1)]:
            ranks = tuple(winner_ranks[e] for e in entrants)
            games.append(game(planned, entrants, ranks, set_index))
            planned += 1
    return games


def test_a_dominant_order_is_found_with_full_rank_confidence():
    games = three_way_sets(6, {0: 1, 1: 2, 2: 3})
    rows = leaderboard(["a", "b", "c"], games, resamples=50, seed=1)
    assert [row.name for row in rows] == ["a", "b", "c"]
    assert [row.rank_confidence for row in rows] == [1.0, 1.0, 1.0]
    assert all(row.low - 1e-6 <= row.elo <= row.high + 1e-6 for row in rows)  # all sets alike
    assert sum(row.elo for row in rows) / 3 == pytest.approx(1500)
    assert rows[0].games == 18 and rows[0].average_rank == 1.0


def test_the_bootstrap_resamples_whole_sets_and_is_reproducible():
    games = three_way_sets(4, {0: 1, 1: 2, 2: 3}) + three_way_sets(2, {0: 3, 1: 2, 2: 1})
    games[12:] = [attrs.evolve(g, tag=attrs.evolve(g.table, set_index=g.set_index + 4))
                  for g in games[12:]]
    assert len(set_matrices(games, 3)) == 6
    first = leaderboard(["a", "b", "c"], games, resamples=100, seed=7)
    assert first == leaderboard(["a", "b", "c"], games, resamples=100, seed=7)
    a = next(row for row in first if row.name == "a")
    assert a.low < a.elo < a.high  # mixed results: a real interval
    assert 0 < a.rank_confidence < 1


def test_one_set_or_no_resamples_gives_no_intervals_and_aborted_games_do_not_count():
    games = three_way_sets(1, {0: 1, 1: 2, 2: 3}) + [game(9, aborted="internal_error")]
    rows = leaderboard(["a", "b", "c"], games, resamples=100)
    assert all(row.low is None and row.rank_confidence is None for row in rows)
    assert rows[0].games == 3
    assert "95% interval" in format_table(rows) and " - " in format_table(rows)


def test_quantiles_interpolate_between_neighbours():
    from arena.events.leaderboard import quantile

    values = [float(v) for v in range(201)]  # 0 .. 200
    assert quantile(values, 0.025) == 5.0 and quantile(values, 0.975) == 195.0
    assert quantile([1.0, 2.0], 0.5) == 1.5
