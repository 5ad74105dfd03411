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


def trio_sets(sets, trio, winner_first, first_planned=0):
    """Duplicate sets of one trio's three rotations; ``winner_first``: best to worst."""
    games, planned = [], first_planned
    rank = {entrant: place for place, entrant in enumerate(winner_first, start=1)}
    for set_index in range(sets):
        for shift in range(3):
            entrants = trio[shift:] + trio[:shift]
            games.append(game(planned, entrants, tuple(rank[e] for e in entrants),
                              set_index + first_planned))
            planned += 1
    return games


def test_two_trios_that_never_met_are_two_groups_each_with_its_own_average():
    games = (trio_sets(6, (0, 1, 2), (0, 1, 2))
             + trio_sets(6, (3, 4, 5), (5, 4, 3), first_planned=100))
    names = ["a", "b", "c", "d", "e", "f"]
    rows = leaderboard(names, games, resamples=50, seed=1)
    assert [(row.group, row.place, row.name) for row in rows] == [
        (1, 1, "a"), (1, 2, "b"), (1, 3, "c"), (2, 1, "f"), (2, 2, "e"), (2, 3, "d")]
    for group in (1, 2):
        mine = [row.elo for row in rows if row.group == group]
        assert sum(mine) / 3 == pytest.approx(1500)
    text = format_table(rows).splitlines()
    assert text[0] == ("group 1 of 2: these bots never met the others; "
                       "their ratings are not comparable")
    assert text[6] == ("group 2 of 2: these bots never met the others; "
                       "their ratings are not comparable")
    assert [line.split()[:2] for line in text[2:5] + text[8:11]] == [
        ["1", "a"], ["2", "b"], ["3", "c"], ["1", "f"], ["2", "e"], ["3", "d"]]


def test_one_game_across_the_trios_makes_one_group_and_one_table():
    games = (trio_sets(6, (0, 1, 2), (0, 1, 2))
             + trio_sets(6, (3, 4, 5), (5, 4, 3), first_planned=100)
             + [game(200, (2, 3, 4), (1, 2, 3), set_index=200)])
    rows = leaderboard(["a", "b", "c", "d", "e", "f"], games, resamples=0)
    assert {row.group for row in rows} == {1}
    assert "group" not in format_table(rows)


def test_a_thin_event_prints_the_caveat_and_no_intervals_nor_rank_confidence():
    games = trio_sets(3, (0, 1, 2), (0, 1, 2))  # 3 sets, 9 games a bot
    rows = leaderboard(["a", "b", "c"], games, resamples=50)
    assert all(row.thin and row.low is None and row.rank_confidence is None for row in rows)
    table = format_table(rows)
    assert table.splitlines()[-1] == (
        "caveat: thin data (a bot under 12 games, 2 opponents or 2 sets, a group under 4 "
        "sets): "
        "no 95% interval for it, no rank confidence in its group")
    assert "%" not in "".join(table.splitlines()[1:4])


def test_one_thin_bot_loses_its_interval_and_the_group_its_rank_confidence():
    games = trio_sets(6, (0, 1, 2), (0, 1, 2)) + [game(50, (0, 3, 1), (1, 3, 2), 50)]
    rows = {row.name: row for row in leaderboard(["a", "b", "c", "d"], games, resamples=50)}
    assert rows["d"].thin and rows["d"].low is None and rows["d"].games == 1
    assert not rows["a"].thin and rows["a"].low is not None
    assert all(row.rank_confidence is None for row in rows.values())
    assert "caveat" in format_table(list(rows.values()))


def test_enough_data_has_no_caveat():
    rows = leaderboard(["a", "b", "c"], trio_sets(4, (0, 1, 2), (0, 1, 2)), resamples=20)
    assert not any(row.thin for row in rows) and "caveat" not in format_table(rows)
    assert [row.opponents for row in rows] == [2, 2, 2]
