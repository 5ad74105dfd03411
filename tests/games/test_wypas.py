"""Wypas rules through what the seats observe and the events they see: the lot, auctions,
redyk, shearing, the end of the game and the turn cap."""

from __future__ import annotations

import random

import pytest

from arena.games.base import IllegalAction, OptionsError
from arena.games.wypas import SPEC, WypasOptions, parse_options
from tests.games.wypas_positions import game, position


def events(state, kind=None):
    return [(e.kind, dict(e.data), e.audience) for e in state.take_events()
            if kind is None or e.kind == kind]


def data(state, kind):
    return [d for _, d, _ in events(state, kind)]


def play(state, *moves):
    for seat, action in moves:
        state.apply(seat, action)


def test_options():
    assert parse_options({}) == WypasOptions(players=4, turn_cap=60, bluff=False,
                                             strict_bleating=False)
    assert parse_options({"players": "6", "bluff": "true", "turn_cap": "5"}).bluff
    for bad in ({"players": 2}, {"players": 7}, {"turn_cap": 0}, {"bluff": "maybe"},
                {"hands": 1}):
        with pytest.raises(OptionsError):
            parse_options(bad)


def test_five_cards_each_and_the_baca_draws_three_lot_cards_and_hides_one():
    state = game(4, [[]] * 4, ["sheep-red-1#0", "thief#0", "sheep-green-5#0"], baca=2)
    dealt = data(state, "dealt")
    assert [len(d["cards"]) for d in dealt] == [5] * 4
    assert state.to_act() == (2,) and state.observe(2).decision == "hide"
    assert all(state.observe(seat).lot == () for seat in range(4))  # not laid out yet
    assert state.legal_actions(2) == ["hide sheep-red-1#0", "hide thief#0",
                                      "hide sheep-green-5#0"]
    state.apply(2, "hide thief#0")
    seen = events(state)
    lot = next(d for k, d, _ in seen if k == "lot_laid")
    assert lot == {"face_up": ["sheep-red-1#0", "sheep-green-5#0"], "face_down": 1}
    assert ("face_down_card", {"card": "thief#0"}, frozenset({2})) in seen  # the baca only
    # the first auction opens left of the baca, who names the card
    assert state.to_act() == (3,) and state.observe(3).decision == "name"
    assert state.legal_actions(3) == ["name sheep-red-1#0", "name sheep-green-5#0",
                                      "name hidden"]
    assert state.observe(2).hidden_card == "thief#0"
    assert all(state.observe(s).hidden_card is None for s in (0, 1, 3))


def test_with_three_players_the_lot_has_two_cards():
    state = game(3, [[]] * 3, ["sheep-red-1#0", "sheep-red-2#0"])
    state.apply(0, "hide sheep-red-2#0")
    assert data(state, "lot_laid")[0] == {"face_up": ["sheep-red-1#0"], "face_down": 1}


def lot_game():
    hands = [["sheep-violet-6#0", "sheep-violet-5#0"], ["sheep-red-4#0", "sheep-red-1#0"],
             ["sheep-green-3#0", "sheep-yellow-1#0"], ["sheep-yellow-2#0"]]
    state = game(4, hands, ["sheep-green-5#0", "sheep-yellow-3#0", "wolf#0"])
    state.apply(0, "hide wolf#0")
    state.take_events()
    return state


def test_an_auction_goes_clockwise_stakes_add_up_and_every_bid_card_is_discarded():
    state = lot_game()
    play(state, (1, "name sheep-green-5#0"))
    assert data(state, "auction_start") == [{"opener": 1, "card": "sheep-green-5#0"}]
    assert state.to_act() == (1,) and "commit" not in state.legal_actions(1)
    play(state, (1, "add sheep-red-1#0"), (1, "commit"))  # stake 1
    play(state, (2, "add sheep-yellow-1#0"))  # 1 does not beat 1: no commit yet
    assert "commit" not in state.legal_actions(2)
    play(state, (2, "add sheep-green-3#0"), (2, "commit"))  # stake 4
    play(state, (3, "pass"))
    play(state, (0, "add sheep-violet-5#0"), (0, "commit"))  # stake 5
    assert state.observe(1).stakes == (5, 1, 4, 0)
    play(state, (1, "add sheep-red-4#0"))
    assert state.observe(1).stakes[1] == 5 and "commit" not in state.legal_actions(1)
    with pytest.raises(IllegalAction):
        state.apply(1, "commit")  # 1 + 4 = 5 does not beat 5
    play(state, (1, "pass"))
    assert state.observe(0).passed == (False, True, False, True)


def test_a_raise_adds_to_the_cards_laid_before():
    state = lot_game()
    play(state, (1, "name sheep-green-5#0"), (1, "add sheep-red-1#0"), (1, "commit"),
         (2, "add sheep-green-3#0"), (2, "commit"), (3, "pass"), (0, "pass"))
    assert state.to_act() == (1,)
    play(state, (1, "add sheep-red-4#0"))  # 1 + 4 = 5 beats 3
    assert state.observe(1).stakes == (0, 5, 3, 0)
    play(state, (1, "commit"), (2, "pass"))
    won = data(state, "auction_won")
    assert won == [{"seat": 1, "card": "sheep-green-5#0", "stake": 5,
                    "discarded": ["sheep-red-1#0", "sheep-red-4#0", "sheep-green-3#0"]}]
    seen = state.observe(0)
    assert "sheep-green-5#0" in state.observe(1).hand and seen.hand_sizes[1] == 4
    assert seen.discard_size == 3 and seen.stakes == (0, 0, 0, 0)
    # the next auction opens left of the previous opener
    assert state.to_act() == (2,) and state.observe(2).decision == "name"


def test_a_card_nobody_bids_on_goes_to_the_baca_and_the_face_down_one_stays_hidden():
    state = lot_game()
    play(state, (1, "name hidden"))
    assert state.observe(3).auction_card == "hidden"
    play(state, (1, "pass"), (2, "pass"), (3, "pass"), (0, "pass"))
    seen = events(state)
    won = next(d for k, d, _ in seen if k == "auction_won")
    assert won == {"seat": 0, "card": "hidden", "stake": 0, "discarded": []}
    assert ("received", {"seat": 0, "card": "wolf#0"}, frozenset({0})) in seen
    assert "wolf#0" in state.observe(0).hand


def test_the_last_seat_in_may_still_bid_when_nobody_has():
    state = lot_game()
    play(state, (1, "name sheep-yellow-3#0"), (1, "pass"), (2, "pass"), (3, "pass"))
    assert state.to_act() == (0,)
    play(state, (0, "add sheep-violet-5#0"), (0, "commit"))
    assert data(state, "auction_won")[0]["seat"] == 0


def test_a_joker_bid_in_an_open_auction_declares_its_value():
    state = game(4, [[], ["super_dolly#0"], [], []], ["sheep-green-5#0", "sheep-yellow-3#0",
                                                       "wolf#0"])
    play(state, (0, "hide wolf#0"), (1, "name hidden"), (1, "add super_dolly#0"))
    assert state.observe(1).decision == "joker_value"
    assert state.legal_actions(1) == [f"value {v}" for v in range(1, 7)]
    play(state, (1, "value 4"))
    assert data(state, "bid_card") == [{"seat": 1, "card": "super_dolly#0", "value": 4,
                                        "stake": 4}]


def test_a_seat_without_sheep_is_still_asked_and_may_only_pass():
    state = game(4, [["sheep-red-1#0"], ["wolf#1", "dog#0", "wolf#3", "wolf#2", "dog#1"],
                     [], []], ["sheep-green-5#0", "sheep-yellow-3#0", "wolf#0"])
    play(state, (0, "hide wolf#0"), (1, "name hidden"))
    assert state.to_act() == (1,) and state.legal_actions(1) == ["pass"]


def test_bidding_out_of_turn_or_illegally_changes_nothing():
    state = lot_game()
    with pytest.raises(IllegalAction):
        state.apply(2, "name hidden")
    with pytest.raises(IllegalAction):
        state.apply(1, "name wolf#0")  # that one is face down: "name hidden"
    play(state, (1, "name hidden"))
    with pytest.raises(IllegalAction):
        state.apply(1, "add sheep-violet-6#0")  # not in seat 1's hand
    assert state.observe(1).stakes == (0, 0, 0, 0)


def redyk(hands, pens=None, **kw):
    return position(4, hands=hands, pens=pens or {}, phase="redyk", **kw)


def test_redyk_places_sheep_into_both_pens_one_at_a_time_from_the_baca():
    state = redyk([["sheep-red-1#0", "sheep-red-2#0", "sheep-green-4#0"], [], [], []])
    assert state.to_act() == (0,) and state.observe(0).decision == "place"
    # two empty pens are alike: only pen 0 is offered
    assert state.legal_actions(0) == ["place sheep-red-1#0 0", "place sheep-red-2#0 0",
                                      "place sheep-green-4#0 0", "done"]
    play(state, (0, "place sheep-red-1#0 0"))
    assert state.legal_actions(0) == ["place sheep-red-2#0 0", "place sheep-red-2#0 1",
                                      "place sheep-green-4#0 1", "done"]
    play(state, (0, "place sheep-green-4#0 1"), (0, "place sheep-red-2#0 0"))
    assert data(state, "placed")[-1] == {"seat": 0, "pen": 0, "card": "sheep-red-2#0",
                                         "colour": "red", "value": 2}
    assert state.observe(3).pens[0] == ((("sheep-red-1#0", "red", 1),
                                         ("sheep-red-2#0", "red", 2)),
                                        (("sheep-green-4#0", "green", 4),))
    play(state, (0, "done"))
    assert state.to_act() == (1,) and state.legal_actions(1) == ["done"]  # asked all the same


def test_with_both_pens_taken_no_new_row_can_start():
    state = redyk([["sheep-yellow-1#0", "sheep-red-3#0"], [], [], []],
                  {(0, 0): [("sheep-red-1#1", "red", 1)],
                   (0, 1): [("sheep-green-5#0", "green", 5)]})
    assert state.legal_actions(0) == ["place sheep-yellow-1#0 0", "done"]


def test_a_dolly_takes_any_value_of_its_colour_even_above_the_colour_range():
    state = redyk([["dolly-red#0", "super_dolly#0"], [], [], []],
                  {(0, 0): [("sheep-red-3#0", "red", 3), ("sheep-red-4#0", "red", 4)],
                   (0, 1): [("sheep-yellow-2#0", "yellow", 2)]})
    assert state.legal_actions(0) == ["place dolly-red#0 0", "place dolly-red#0 1",
                                      "place super_dolly#0 0", "place super_dolly#0 1", "done"]
    play(state, (0, "place dolly-red#0 0"))
    assert state.observe(0).decision == "declare" and state.observe(0).placing == "dolly-red#0"
    assert state.legal_actions(0) == ["as red-5"]  # red has no 5; a red Dolly may be one
    play(state, (0, "as red-5"), (0, "place super_dolly#0 1"))
    assert state.legal_actions(0) == ["as yellow-3", "as red-2", "as green-2", "as violet-2"]
    play(state, (0, "as green-2"))
    assert state.observe(1).pens[0][1][-1] == ("super_dolly#0", "green", 2)


def shearing(pens, **kw):
    kw.setdefault("hands", [[], [], [], []])
    return position(4, pens=pens, **kw)


def test_shearing_scores_at_once_and_a_single_card_is_not_a_fleece():
    state = shearing({(0, 0): [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2),
                               ("sheep-red-3#0", "red", 3), ("sheep-red-4#0", "red", 4)],
                      (0, 1): [("sheep-green-2#0", "green", 2)],
                      (2, 0): [("sheep-red-3#1", "red", 3), ("sheep-red-4#1", "red", 4)]})
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ["shear 0", "shear 1", "done"]
    play(state, (0, "shear 0"))
    (shorn,) = data(state, "sheared")
    assert shorn["points"] == 11 and shorn["fleeces"] == 1 and shorn["score"] == 11
    play(state, (0, "shear 1"))
    (single,) = data(state, "sheared")
    assert single["fleece"] == [] and single["points"] == 0 and single["fleeces"] == 1
    assert single["discarded"] == ["sheep-green-2#0"]
    # seat 0 has nothing left to shear; seat 1 has no pens: seat 2 is next
    assert state.to_act() == (2,)
    play(state, (2, "shear 0"))
    assert data(state, "sheared")[0]["points"] == 3
    assert state.observe(1).scores == (11, 0, 3, 0) and state.observe(1).fleeces == (1, 0, 1, 0)


def test_a_wolf_eats_the_highest_sheep_when_the_pen_is_shorn():
    state = shearing({(0, 0): [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2),
                               ("sheep-red-3#0", "red", 3), ("sheep-red-4#0", "red", 4)]},
                     wolves={(0, 0): "wolf#0"})
    play(state, (0, "shear 0"))
    (shorn,) = data(state, "sheared")
    assert shorn["wolf"] == "wolf#0" and shorn["eaten"] == "sheep-red-4#0"
    assert shorn["points"] == 6 and state.observe(0).wolves[0] == (None, None)
    assert state.observe(0).discard_size == 2  # the wolf and its meal


def five_in_a_row(colour, seat_cards):
    return [(card, colour, value) for value, card in enumerate(seat_cards, start=1)]


def test_a_fifth_fleece_ends_the_game_with_plus_4_and_plus_2_in_the_final_shearing():
    two = [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2)]
    pens = {(1, 0): [("sheep-green-1#0", "green", 1), ("sheep-green-2#0", "green", 2)],
            (1, 1): [("sheep-green-3#0", "green", 3), ("sheep-green-4#0", "green", 4)],
            (2, 0): two, (0, 0): [("sheep-yellow-1#0", "yellow", 1),
                                  ("sheep-yellow-2#0", "yellow", 2)]}
    state = shearing(pens, fleeces=[4, 4, 4, 0], scores=[10, 10, 10, 0], baca=1)
    assert state.to_act() == (1,)  # the baca shears first
    play(state, (1, "shear 0"))
    shorn = data(state, "sheared")[0]
    assert shorn["fleeces"] == 5 and shorn["bonus"] == 4 and shorn["score"] == 10 + 1 + 4
    assert state.observe(0).end_triggered_by == 1 and state.observe(0).phase == "final_shearing"
    play(state, (1, "shear 1"))  # a 6th fleece still scores
    assert data(state, "sheared")[0]["points"] == 3 and state.observe(0).scores[1] == 18
    # seat 1 has no pen left, so its step is over; then one final step each, clockwise from
    # the trigger player's left: 2, then 0
    assert state.to_act() == (2,)
    play(state, (2, "shear 0"))
    assert data(state, "sheared")[0]["bonus"] == 2
    play(state, (0, "done"))
    assert state.is_over() and state.result().scores == (10, 18, 13, 0)
    assert data(state, "game_over") == [{"reason": "fifth_fleece", "scores": [10, 18, 13, 0],
                                         "fleeces": [4, 6, 5, 0]}]


def test_players_who_already_sheared_this_phase_get_a_final_step_too():
    pens = {(0, 0): [("sheep-yellow-1#0", "yellow", 1), ("sheep-yellow-2#0", "yellow", 2)],
            (0, 1): [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2)],
            (1, 0): [("sheep-green-1#0", "green", 1), ("sheep-green-2#0", "green", 2)]}
    state = shearing(pens, fleeces=[0, 4, 0, 0])
    play(state, (0, "shear 0"), (0, "done"), (1, "shear 0"))  # seat 1 ends the game
    # seats 2 and 3 have no pens: the final step goes to seat 0, who acted before
    assert state.to_act() == (0,) and state.legal_actions(0) == ["shear 1", "done"]
    play(state, (0, "shear 1"))
    assert state.is_over()


def test_the_turn_cap_ends_the_game_without_an_end_bonus():
    state = shearing({(0, 0): [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2)]},
                     fleeces=[4, 0, 0, 0], turn=3, turn_cap=3)
    play(state, (0, "done"))
    assert state.is_over() and data(state, "game_over")[0]["reason"] == "turn_cap"
    assert state.result().rounds == 3


def test_after_shearing_three_cards_each_then_the_baca_passes_left():
    state = shearing({}, baca=3, deck=[f"sheep-violet-{v}#0" for v in range(1, 7)]
                     + [f"sheep-green-{v}#0" for v in range(1, 6)]
                     + ["thief#0"] + [f"sheep-red-{v}#0" for v in range(1, 5)]
                     + ["dog#0", "wolf#0", "black_sheep#0", "super_dolly#0"])
    seen = events(state)
    dealt = [d for k, d, _ in seen if k == "dealt"]
    assert [len(d["cards"]) for d in dealt] == [3, 3, 3, 3]
    # one card at a time from the baca's left: seat 0 gets the first card drawn (the last id)
    assert dealt[0]["cards"][0] == "super_dolly#0"
    assert state.observe(0).baca == 0 and state.observe(0).turn == 2
    assert [d for k, d, _ in seen if k == "turn_start"] == [{"turn": 2, "baca": 0}]


def test_an_empty_deck_is_refilled_from_the_used_pile():
    state = shearing({(0, 0): [("sheep-red-3#0", "red", 3), ("sheep-red-4#0", "red", 4)],
                      (1, 0): [("sheep-red-1#0", "red", 1)]}, deck=[])
    play(state, (0, "shear 0"), (1, "shear 0"))
    seen = events(state)
    assert [d for k, d, _ in seen if k == "reshuffled"] == [{"deck_size": 2}]  # red 4, red 1
    # the two cards are dealt, and then there is nothing left to draw, not even a lot
    assert sum(len(d["cards"]) for k, d, _ in seen if k == "dealt") == 2
    assert [d for k, d, _ in seen if k == "lot_laid"] == [{"face_up": [], "face_down": 0}]


def test_strict_bleating_scores_only_a_bleated_shear():
    pens = {(0, 0): [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2),
                     ("sheep-red-3#0", "red", 3)],
            (0, 1): [("sheep-green-1#0", "green", 1), ("sheep-green-2#0", "green", 2),
                     ("sheep-green-3#0", "green", 3)]}
    state = shearing(pens, strict_bleating=True)
    assert state.legal_actions(0) == ["shear 0 meee", "shear 0", "shear 1 meee", "shear 1",
                                      "done"]
    play(state, (0, "shear 0"), (0, "shear 1 meee"))
    silent, bleated = data(state, "sheared")
    assert (silent["bleated"], silent["points"]) == (False, 0)
    assert (bleated["bleated"], bleated["points"]) == (True, 6)
    assert state.observe(0).scores[0] == 6 and state.observe(0).fleeces[0] == 2


def test_a_silent_seat_spends_nothing():
    state = SPEC.new_state(parse_options({"players": 3, "turn_cap": 3}), 7)
    while not state.is_over():
        seat = state.to_act()[0]
        action = state.default_action(seat)
        state.apply(seat, action if action is not None else state.legal_actions(seat)[0])
    assert state.result().scores == (0, 0, 0)


@pytest.mark.parametrize("players,options", [(3, {}), (6, {}),
                                             (4, {"bluff": True, "strict_bleating": True})])
def test_random_games_end_by_a_fifth_fleece_or_the_cap(players, options):
    rng = random.Random(players)
    for seed in range(10):
        state = SPEC.new_state(parse_options({"players": players, **options}), seed)
        while not state.is_over():
            seat = rng.choice(state.to_act())
            legal = state.legal_actions(seat)
            assert 0 < len(legal) < 100
            default = state.default_action(seat)
            assert default is None or default in legal
            state.apply(seat, rng.choice(legal))
        assert state.result().rounds <= 60
