"""Volle Wolle's deck file and final scoring, each rule at its edges."""

from __future__ import annotations

import pytest

from arena.games.vollewolle.cards import Kind, load_deck, parse_deck, score_player, score_table

DECK = {card.id: card for card in load_deck()}


def cards(*ids):
    return [DECK[card_id] for card_id in ids]


def test_the_shipped_placeholder_deck():
    deck = load_deck()
    count = {kind: sum(card.kind is kind for card in deck) for kind in Kind}
    assert len(deck) == 60
    assert count == {Kind.WHITE: 35, Kind.BLACK: 8, Kind.TRIO_370: 4, Kind.TRIO_007: 4,
                     Kind.DOG: 8, Kind.BONE: 1}
    numbers = [card.sheep_number for card in deck if card.is_sheep]
    assert sorted(numbers) == list(range(7, 58))
    assert sum(card.bone_symbol for card in deck) == 5


@pytest.mark.parametrize("text,problem", [
    ("id,kind,points,modifier,bone_symbol,sheep_number\na,cat,1,0,0,7\nbone,bone,0,0,0,\n",
     "row 2"),
    ("id,kind,points,modifier,bone_symbol,sheep_number\na,white,1,0,0,\nbone,bone,0,0,0,\n",
     "no sheep number"),
    ("id,kind,points,modifier,bone_symbol,sheep_number\na,white,1,0,0,7\n", "one bone"),
    ("id,kind,points,modifier,bone_symbol,sheep_number\na,white,1,0,0,7\na,white,1,0,0,8\n"
     "bone,bone,0,0,0,\n", "unique"),
])
def test_a_bad_deck_file_is_refused_with_the_reason(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_deck(text)


def test_the_rules_scoring_example_totals_42():
    # white 27, 0-0-7 once (0), 3-7-0 twice (14), black -10, most dogs (4) -5, bone 4 x 4 = 16
    flock = cards("s37", "s38", "s39", "s30", "s31", "s32", "s54", "s50", "s51", "s49", "s47",
                  "s44")
    scoring = score_player(flock, dogs=4, has_bone=True, wool=0, most_dogs=True)
    assert (scoring.white, scoring.trio_007, scoring.trio_370, scoring.black) == (27, 0, 14, -10)
    assert (scoring.dogs, scoring.most_dogs, scoring.bone) == (0, -5, 16)
    assert scoring.total == 42


@pytest.mark.parametrize("count,points", [(0, 0), (1, 3), (2, 14), (3, 0), (4, 3)])
def test_3_7_0_counts_3_then_14_then_nothing_and_a_fourth_starts_again(count, points):
    flock = cards("s50", "s51", "s52", "s53")[:count]
    assert score_player(flock, 1, False, 0, False).trio_370 == points


@pytest.mark.parametrize("count,points", [(0, 0), (1, 0), (2, 0), (3, 21), (4, 21)])
def test_0_0_7_counts_21_per_complete_trio(count, points):
    flock = cards("s54", "s55", "s56", "s57")[:count]
    assert score_player(flock, 1, False, 0, False).trio_007 == points


def test_trio_rules_continue_past_the_deck_for_other_decks():
    trio_370 = DECK["s50"]
    trio_007 = DECK["s54"]
    assert [score_player([trio_370] * n, 1, False, 0, False).trio_370 for n in range(1, 8)] == [
        3, 14, 0, 3, 14, 0, 3]
    assert [score_player([trio_007] * n, 1, False, 0, False).trio_007 for n in range(1, 8)] == [
        0, 0, 21, 21, 21, 42, 42]


@pytest.mark.parametrize("dogs,bone,expected", [
    (1, False, 9), (1, True, 9 + 4), (2, False, 0), (2, True, 8), (4, False, 0), (4, True, 16),
    (0, True, 0),
])
def test_dogs_and_the_bone(dogs, bone, expected):
    scoring = score_player(cards("s22"), dogs, bone, 0, False)
    assert scoring.dogs + scoring.bone == expected


def test_without_a_dog_the_two_cheapest_white_sheep_go_back_to_the_box():
    flock = cards("s41", "s07", "s22", "s49", "s50", "s54", "s14")
    scoring = score_player(flock, dogs=0, has_bone=False, wool=0, most_dogs=False)
    assert scoring.returned == ("s07", "s14")  # 1 and 2 points; black and specials never
    assert scoring.white == 5 + 3
    assert score_player(cards("s49", "s22"), 0, False, 0, False).returned == ("s22",)
    assert score_player(cards("s49", "s50"), 0, False, 0, False).returned == ()
    assert score_player(cards("s22", "s23"), 1, False, 0, False).returned == ()


def test_every_player_tied_for_most_dogs_loses_5_and_wool_counts_one_each():
    flocks = [cards("s22")] * 4
    table = score_table(flocks, dogs=[3, 3, 1, 1], bone_holder=2, wool=[0, 1, 2, 5])
    assert [s.most_dogs for s in table] == [-5, -5, 0, 0]
    assert [s.wool for s in table] == [0, 1, 2, 5]
    assert table[2].bone == 4 and table[2].dogs == 9
    assert [s.total for s in table] == [3 - 5, 3 - 5 + 1, 3 + 9 + 4 + 2, 3 + 9 + 5]


def test_nobody_is_most_dogs_without_a_dog():
    table = score_table([cards("s22")] * 2, dogs=[0, 0], bone_holder=None, wool=[0, 0])
    assert [s.most_dogs for s in table] == [0, 0]
