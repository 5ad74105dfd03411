"""Tournament schedules: round robin, balance, duplicate sets, gauntlet, seeds."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from arena.events.schedule import Format, groups, plan, seatings, set_size


def test_duplicate_seatings_are_every_order_up_to_three_players_and_rotations_above():
    assert sorted(seatings([4, 7, 9], True)) == sorted(itertools.permutations([4, 7, 9]))
    assert seatings([1, 2, 3, 4], True) == [(1, 2, 3, 4), (2, 3, 4, 1), (3, 4, 1, 2),
                                              (4, 1, 2, 3)]
    assert seatings([1, 2], True) == [(1, 2), (2, 1)]
    assert seatings([1, 2, 3], False) == [(1, 2, 3)]
    assert [set_size(n, True) for n in range(2, 7)] == [2, 6, 4, 5, 6]


def test_a_duplicate_set_shares_one_seed_and_every_entrant_holds_every_seat():
    tables = list(plan(5, 4, sets=5, seed="e"))
    assert len(tables) == 5 * 4 and [t.index for t in tables] == list(range(20))
    for set_index in range(5):
        members = [t for t in tables if t.set_index == set_index]
        assert len({t.seed for t in members}) == 1
        for seat in range(4):
            assert len({t.entrants[seat] for t in members}) == 4
    assert len({t.seed for t in tables}) == 5


def test_round_robin_plays_every_combination_when_it_is_small_enough():
    tables = list(plan(5, 3, sets=10, seed="e"))
    combos = Counter(tuple(sorted(t.entrants)) for t in tables if t.rotation == 0)
    assert set(combos) == set(itertools.combinations(range(5), 3))


@pytest.mark.parametrize("entrants,size,count", [(12, 4, 30), (9, 3, 20), (20, 6, 40)])
def test_a_balanced_schedule_meets_everyone_about_equally(entrants, size, count):
    assert math.comb(entrants, size) > count  # too many combinations: balanced instead
    chosen = groups(entrants, size, count, Format.ROUND_ROBIN, random.Random(1))
    played = Counter(e for g in chosen for e in g)
    met = Counter(pair for g in chosen for pair in itertools.combinations(sorted(g), 2))
    assert max(played.values()) - min(played.values()) <= 1
    pairs = [met[pair] for pair in itertools.combinations(range(entrants), 2)]
    assert max(pairs) - min(pairs) <= 2


def test_relative_seat_positions_vary_across_sets():
    tables = list(plan(4, 4, sets=12, seed="e"))
    after = Counter()  # (a, b): b sat right after a
    for t in tables:
        for seat in range(4):
            after[t.entrants[seat], t.entrants[(seat + 1) % 4]] += 1
    assert all(after[a, b] > 0 for a in range(4) for b in range(4) if a != b)


def test_without_duplicates_every_table_has_its_own_seed_and_seats_rotate():
    tables = list(plan(3, 3, sets=6, duplicate=False, seed="e"))
    assert len(tables) == 6 and len({t.seed for t in tables}) == 6
    for entrant in range(3):
        assert Counter(t.entrants.index(entrant) for t in tables) == {0: 2, 1: 2, 2: 2}
    # and who passes to whom is balanced: b sits left of (after) a as often as before it
    after = Counter((t.entrants[s], t.entrants[(s + 1) % 3]) for t in tables for s in range(3))
    assert set(after.values()) == {3}


def test_a_gauntlet_puts_the_first_entrant_at_every_table():
    tables = list(plan(6, 3, sets=10, fmt=Format.GAUNTLET, seed="e"))
    assert all(0 in t.entrants for t in tables)
    fields = {tuple(sorted(set(t.entrants) - {0})) for t in tables}
    assert fields == set(itertools.combinations(range(1, 6), 2))
    with pytest.raises(ValueError, match="needs at least 3 entrants"):
        list(plan(2, 3, sets=1, fmt=Format.GAUNTLET))


def test_the_schedule_is_reproducible_from_the_event_seed():
    assert list(plan(6, 4, sets=7, seed="x")) == list(plan(6, 4, sets=7, seed="x"))
    assert list(plan(6, 4, sets=7, seed="x")) != list(plan(6, 4, sets=7, seed="y"))


def test_fewer_bots_than_seats_sit_twice():
    (table, *_) = plan(2, 3, sets=1, seed="e")
    assert sorted(Counter(table.entrants).values()) == [1, 2]


@pytest.mark.parametrize("duplicate", [True, False])
def test_every_entrant_holds_every_seat_about_equally_often(duplicate):
    tables = list(plan(10, 3, sets=300 if not duplicate else 50, duplicate=duplicate, seed="b"))
    seats = Counter((e, seat) for t in tables for seat, e in enumerate(t.entrants))
    for entrant in range(10):
        counts = [seats[entrant, seat] for seat in range(3)]
        assert max(counts) - min(counts) <= 2, (entrant, counts)


def test_a_gauntlet_without_duplicates_moves_the_hero_around():
    tables = list(plan(5, 2, sets=8, fmt=Format.GAUNTLET, duplicate=False, seed="g"))
    assert Counter(t.entrants.index(0) for t in tables) == {0: 4, 1: 4}


def test_sets_that_are_not_whole_cycles_stay_balanced():
    tables = list(plan(4, 2, sets=8, duplicate=False, seed="c"))
    played = Counter(e for t in tables for e in t.entrants)
    assert max(played.values()) - min(played.values()) <= 1
