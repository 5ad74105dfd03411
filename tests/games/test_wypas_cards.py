"""Wypas's deck, row rules and the scoring table, including every worked example of the rules
digest (§3.6 and §4)."""

from __future__ import annotations

import pytest

from arena.games.wypas.cards import Kind, fits, load_deck, parse_deck, shear, sheep_in


def red(value):
    return (f"sheep-red-{value}#0", "red", value)


def test_the_shipped_deck_is_the_digest_proposal():
    cards = load_deck()
    assert len(cards) == 103  # 84 sheep (jokers included) + 19 specials; baca, juhas set aside
    by_kind = {kind: sum(card.kind is kind for card in cards) for kind in Kind}
    assert by_kind == {Kind.SHEEP: 76, Kind.DOLLY: 4, Kind.SUPER_DOLLY: 4, Kind.THIEF: 5,
                       Kind.DOG: 5, Kind.WOLF: 5, Kind.BLACK_SHEEP: 4}
    ids = [card.id for card in cards]
    assert ids[:3] == ["sheep-yellow-1#0", "sheep-yellow-1#1", "sheep-yellow-1#2"]
    assert {"sheep-red-3#4", "dolly-green#0", "super_dolly#3", "thief#4", "black_sheep#0",
            "sheep-violet-6#2"} <= set(ids)
    reds = sorted(card.value for card in cards if card.colour == "red" and card.kind is Kind.SHEEP)
    assert sorted(set(reds)) == [1, 2, 3, 4]  # red sheep are 1-4, as the rules say


def test_a_deck_file_with_a_bad_row_is_refused_by_row():
    with pytest.raises(ValueError, match="row 2"):
        parse_deck("kind,colour,value,copies\nsheep,red,,2\n")
    with pytest.raises(ValueError, match="row 3"):
        parse_deck("kind,colour,value,copies\nthief,,,1\nunicorn,,,1\n")
    assert [c.id for c in parse_deck("kind,colour,value,copies\nbaca,,,1\nwolf,,,2\n")] == [
        "wolf#0", "wolf#1"]


def test_a_colour_row_ascends_by_one_from_any_value():
    assert fits([], "green", 3)
    row = [("g3", "green", 3), ("g4", "green", 4)]
    assert fits(row, "green", 5)  # 3, 4, 5
    assert not fits([("g3", "green", 3)], "green", 5)  # 3, 5: a gap
    assert not fits(row, "green", 2)  # never downwards
    assert not fits(row, "red", 5) and not fits(row, "red", 4)
    assert not fits([("g6", "green", 6)], "green", 7)  # nothing is worth 7


def test_a_value_row_takes_each_colour_once():
    row = [("r4", "red", 4), ("g4", "green", 4)]
    assert fits(row, "violet", 4)
    assert not fits(row, "green", 4) and not fits(row, "violet", 5)


def test_a_one_sheep_pen_may_become_either_row():
    pen = [("y2", "yellow", 2)]
    assert fits(pen, "yellow", 3) and fits(pen, "red", 2)
    assert not fits(pen, "yellow", 2) and not fits(pen, "red", 3)


def test_a_black_sheep_is_a_filler_without_colour_or_value():
    # the rules' example: black sheep + green 3 takes other 3s or the next green
    pen = [("black_sheep#0", None, 0), ("g3", "green", 3)]
    assert fits(pen, "green", 4) and fits(pen, "red", 3) and fits(pen, "yellow", 3)
    assert not fits(pen, "green", 3) and not fits(pen, "red", 4)
    # red 1, 2, B, 4 (the black sheep took the red 3) goes on with red 5
    holed = [red(1), red(2), ("black_sheep#0", None, 0), red(4)]
    assert fits(holed, "red", 5) and not fits(holed, "red", 3)
    assert sheep_in(holed) == 3


@pytest.mark.parametrize("pen,points,fleece,discarded", [
    ([red(3)], 0, (), ("sheep-red-3#0",)),  # 1 card: used pile, not a fleece
    ([red(3), red(4)], 3, ("sheep-red-3#0",), ("sheep-red-4#0",)),  # 2: the lower scores
    ([red(1), red(2), red(3)], 6, 3, ()),  # 3: the sum (digest: yellow 1-3 is 6)
    ([red(1), red(2), red(3), red(4)], 11, 4, ()),  # 4: sum + 1
    ([(f"v{v}", "violet", v) for v in range(1, 6)], 15 + 2, 5, ()),  # 5: sum + 2
    ([(f"v{v}", "violet", v) for v in range(1, 7)], 21 + 3, 6, ()),  # 6: sum + 3 (24)
    ([(f"c{v}", c, 4) for v, c in enumerate(("red", "green", "violet", "yellow"))], 17, 4, ()),
])
def test_every_row_of_the_scoring_table(pen, points, fleece, discarded):
    outcome = shear(pen, wolf=False)
    assert outcome.points == points
    assert len(outcome.fleece) == (fleece if isinstance(fleece, int) else len(fleece))
    assert outcome.discarded == discarded


def test_seven_or_more_cards_score_the_sum_plus_n_minus_3():
    pen = [("black_sheep#0", None, 0)] + [(f"v{v}", "violet", v) for v in range(1, 7)]
    assert shear(pen, wolf=False).points == 21 + 4


def test_the_wolf_eats_the_highest_sheep_first():
    outcome = shear([red(1), red(2), red(3), red(4)], wolf=True)
    assert outcome.eaten == "sheep-red-4#0" and outcome.points == 6  # the digest's example
    # of equal values it eats the first placed; the score is the same either way
    tie = [("r4", "red", 4), ("g4", "green", 4), ("v4", "violet", 4)]
    outcome = shear(tie, wolf=True)
    assert outcome.eaten == "r4" and outcome.points == 4 and outcome.discarded == ("v4",)
    # never a black sheep: it eats the sheep and leaves the black sheep alone (not a fleece)
    outcome = shear([("black_sheep#0", None, 0), red(2)], wolf=True)
    assert outcome.eaten == "sheep-red-2#0" and outcome.fleece == () and outcome.points == 0


def test_a_black_sheep_counts_as_a_card_worth_nothing():
    holed = [red(1), red(2), ("black_sheep#0", None, 0), red(4)]
    assert shear(holed, wolf=False).points == 1 + 2 + 0 + 4 + 1  # 8, the digest's example
    two = shear([("black_sheep#0", None, 0), red(3)], wolf=False)
    assert two.points == 0 and two.fleece == ("black_sheep#0",)  # a fleece worth 0
