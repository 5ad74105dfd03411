"""The live rating (openskill's Plackett-Luce on the Elo scale), with plain values: a stronger
simulated bot rises, ties move tied bots alike, the order of seats and of unrelated games does
not matter, names never seen get a newcomer's estimate."""

from __future__ import annotations

import json
import random

import pytest

from arena.events.live_rating import START_ELO, LiveRating, format_ranking
from arena.gameplay.records import GameRecord


def game(names, ranks, aborted=None, entrants=None):
    return GameRecord(
        number=0, game_id="g", entrants=entrants if entrants is not None else
        tuple(range(len(ranks))), names=tuple(names), seed="s", scores=tuple(ranks),
        ranks=tuple(ranks), winners=(), aborted=aborted, defaults=(0,) * len(ranks),
        errors=(0,) * len(ranks), rounds=1, log_path=None, seconds=0.0)


def plackett_luce(rng, elo):
    """Ranks of one simulated table: seats drawn best-first with odds 10^(Elo/400)."""
    left, order = list(range(len(elo))), []
    while left:
        weights = [10 ** (elo[seat] / 400) for seat in left]
        seat = rng.choices(left, weights)[0]
        order.append(seat)
        left.remove(seat)
    return tuple(order.index(seat) + 1 for seat in range(len(elo)))


def test_a_stronger_simulated_bot_rises_and_the_scale_is_elo():
    rng = random.Random(7)
    true = {"weak": 1400.0, "mid": 1500.0, "strong": 1600.0, "field": 1500.0}
    live = LiveRating(players=4)
    for _ in range(1500):
        names = rng.sample(sorted(true), 4)
        live.add(game(names, plackett_luce(rng, [true[n] for n in names])))
    mean = {name: live.estimate(name)[0] for name in true}
    assert mean["strong"] > mean["mid"] > mean["weak"]
    gap = mean["strong"] - mean["weak"]  # 200 Elo apart: the scale is Elo's, within noise
    assert 130 < gap < 270, mean
    assert [row.name for row in live.ranking()][0] == "strong"
    assert live.estimate("strong")[1] < live.estimate("never-played")[1] / 3


def test_names_never_seen_get_a_newcomers_estimate():
    live = LiveRating(players=2)
    newcomer = live.estimate("nobody")
    assert newcomer[0] == START_ELO and newcomer[1] == pytest.approx(246, abs=1)
    live.add(game(["a", "b"], (1, 2)))
    assert live.estimate("nobody") == newcomer
    assert [(row.name, row.games) for row in live.ranking(["nobody"])] == [
        ("a", 1), ("nobody", 0), ("b", 1)]
    assert LiveRating(players=4).estimate("x")[1] == pytest.approx(174, abs=1)


def test_a_tie_moves_the_tied_bots_alike_and_leaves_equal_bots_equal():
    live = LiveRating(players=3)
    live.add(game(["a", "b", "c"], (1, 1, 3)))
    a, b, c = (live.estimate(name) for name in "abc")
    assert a == pytest.approx(b) and a[0] > START_ELO > c[0]
    level = LiveRating(players=2)
    level.add(game(["a", "b"], (1, 1)))
    assert level.estimate("a") == pytest.approx(level.estimate("b"))
    assert level.estimate("a")[0] == pytest.approx(START_ELO)
    assert level.estimate("a")[1] < level.estimate("new")[1]  # a tie is information too


def test_seat_order_and_unrelated_games_commute():
    one, two = LiveRating(players=3), LiveRating(players=3)
    first = game(["a", "b", "c"], (2, 1, 3))
    second = game(["d", "e", "f"], (1, 3, 2))
    one.add(first)
    one.add(second)
    two.add(game(["f", "e", "d"], (2, 3, 1)))  # second, its seats in another order
    two.add(game(["c", "a", "b"], (3, 2, 1)))
    assert one.ranking() == two.ranking()
    # games sharing a bot do not commute (an online rating's nature), and the result says so
    three = LiveRating(players=3)
    three.add(game(["a", "b", "c"], (1, 2, 3)))
    three.add(first)
    four = LiveRating(players=3)
    four.add(first)
    four.add(game(["a", "b", "c"], (1, 2, 3)))
    assert three.estimate("a") != four.estimate("a")


def test_aborted_games_and_single_bot_tables_are_not_rated():
    live = LiveRating(players=2, names=["a", "b"])
    assert not live.add(game(["a", "b"], (1, 2), aborted="server error"))
    assert not live.add(game(["a", "a"], (1, 2), entrants=(0, 0)))
    assert live.ranking() == [] and (live.rated, live.seen) == (0, 2)
    assert live.add(game([], (2, 1), entrants=(0, 1)))  # names by entrant number
    assert live.estimate("b")[0] > live.estimate("a")[0]


def test_a_bot_at_two_seats_is_updated_once():
    live = LiveRating(players=3)
    live.add(game(["field", "a", "field"], (1, 2, 3)))
    assert [row.games for row in live.ranking()] == [1, 1]
    with pytest.raises(ValueError, match="no names"):
        live.add(game([], (1, 2), entrants=(0, 5)))


def test_the_ranking_prints_as_a_table():
    live = LiveRating(players=2)
    live.add(game(["alpha", "b"], (1, 2)))
    text = format_ranking(live.ranking(["c"]), top=2)
    lines = text.splitlines()
    assert lines[1].split()[:2] == ["1", "alpha"] and lines[-1].strip() == "... and 1 more"
    assert int(lines[1].split()[2]) > START_ELO


def test_a_copy_keeps_the_ratings_of_its_moment_and_the_state_comes_back_exact():
    rating = LiveRating(2)
    rating.add(game(["a", "b"], (1, 2)))
    copy = rating.copy()
    before = copy.ranking()
    rating.add(game(["b", "c"], (1, 2)))  # learnt after the copy: not in it
    assert copy.ranking() == before and copy.seen == 1 and "c" not in copy.played
    assert rating.ranking() != before and rating.played["b"] == 2
    again = LiveRating(2)
    again.restore(json.loads(json.dumps(rating.state())))
    assert again.ranking() == rating.ranking() and again.state() == rating.state()
    again.add(game(["a", "c"], (2, 1)))
    rating.add(game(["a", "c"], (2, 1)))
    assert again.state() == rating.state()  # it learns on as the original would
