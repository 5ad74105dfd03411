"""chochlik rules, one test per rule, including every tricky case of the rules digest."""

from __future__ import annotations

import json
import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.base import IllegalAction, OptionsError, Result
from arena.games.chance import ScriptedChance
from arena.games.chochlik import (
    COINS,
    COLOUR,
    DECK,
    RED,
    SPEC,
    START_PRICE,
    YELLOW,
    ChochlikObservation,
    ChochlikOptions,
    ChochlikState,
    deal_script,
    parse_options,
)
from protocol.codec import to_json
from tests.games.chochlik_positions import play, position


def events_of(state: ChochlikState, kind: str) -> list[dict]:
    return [e.data for e in state.take_events() if e.kind == kind]


# --- the card table --------------------------------------------------------------------------


def test_deck_is_the_classic_table():
    assert len(DECK) == 36 and START_PRICE not in DECK and set(DECK) == set(range(1, 38)) - {19}
    for colour in range(3):
        numbers = [n for n in DECK if COLOUR[n] == colour]
        assert len(numbers) == 12
        assert [COINS[n] for n in numbers] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert sum(COINS[n] for n in DECK) == 126
    # spot checks against the digest's table (§1.1)
    assert (COLOUR[15], COINS[15]) == (YELLOW, 4)
    assert (COLOUR[14], COINS[14]) == (RED, 1)
    assert [n for n in DECK if COLOUR[n] == YELLOW] == [1, 2, 3, 5, 7, 9, 12, 15, 18, 22, 25, 28]


# --- options ---------------------------------------------------------------------------------


def test_options_defaults_and_parsing():
    assert parse_options({}) == ChochlikOptions(players=3, target=200, hands=None)
    assert parse_options({"players": "4", "target": "0", "hands": "8"}) == ChochlikOptions(
        players=4, target=None, hands=8)
    # a number of hands alone means exactly that many hands; both: whichever comes first
    assert parse_options({"hands": 9}) == ChochlikOptions(players=3, target=None, hands=9)
    assert parse_options({"hands": 9, "target": 150}) == ChochlikOptions(3, 150, 9)


@pytest.mark.parametrize("raw", [
    {"players": 2}, {"players": 5}, {"players": "x"}, {"target": -1}, {"colour": 1},
    {"target": 0, "hands": 0},
])
def test_bad_options_are_refused(raw):
    with pytest.raises(OptionsError):
        parse_options(raw)


# --- deal and passing ------------------------------------------------------------------------


@pytest.mark.parametrize("players,size", [(3, 12), (4, 9)])
def test_the_whole_deck_is_dealt(players, size):
    state = ChochlikState(ChochlikOptions(players=players), "deal")
    assert [len(hand) for hand in state.hands] == [size] * players
    assert sorted(card for hand in state.hands for card in hand) == list(DECK)


def dealing(hands) -> ScriptedChance:
    return ScriptedChance(shuffles={"deal": [deal_script(hands)]})


def split_deck(players: int) -> list[list[int]]:
    size = 36 // players
    return [list(DECK[i * size:(i + 1) * size]) for i in range(players)]


def test_passing_is_simultaneous_and_delivered_after_everyone_chose():
    deal = split_deck(3)  # seat 0: 1..13, seat 1: 14..26, seat 2: 27..37
    state = ChochlikState(ChochlikOptions(), "p", record_events=True, chance=dealing(deal))
    assert state.to_act() == (0, 1, 2)
    assert state.legal_actions(0) == [f"imp {c}" for c in deal[0]]
    with pytest.raises(IllegalAction):
        state.apply(0, "left 1")  # the Imp card comes first
    state.apply(0, "imp 1")
    state.apply(0, "left 2")
    state.apply(0, "right 3")
    assert state.to_act() == (1, 2)
    assert state.legal_actions(0) == []
    assert 2 not in state.hands[1] and len(state.hands[1]) == 12  # nothing delivered yet
    for seat, (imp, left, right) in ((1, deal[1][:3]), (2, deal[2][:3])):
        state.apply(seat, f"imp {imp}")
        assert f"left {imp}" not in state.legal_actions(seat)  # a chosen card is gone
        state.apply(seat, f"left {left}")
        state.apply(seat, f"right {right}")
    assert state.to_act() == (1,)  # the seat after the dealer (seat 0) leads
    assert sorted(state.imp_pile) == sorted([1, deal[1][0], deal[2][0]])
    assert 2 in state.hands[1] and 3 in state.hands[2]  # left = next seat, right = previous
    assert deal[1][1] in state.hands[2] and deal[1][2] in state.hands[0]
    assert [len(hand) for hand in state.hands] == [11, 11, 11]
    seen = state.observe(1)  # seat 1's right neighbour is seat 0, its left one seat 2
    assert (seen.received_from_right, seen.received_from_left) == (2, deal[2][2])
    assert (seen.imp_card, seen.passed_left, seen.passed_right) == tuple(deal[1][:3])
    passed = [e for e in state.take_events() if e.kind == "passed"]
    assert len(passed) == 6
    for event in passed:
        assert event.audience == frozenset((event.data["from"], event.data["to"]))


def test_a_received_card_cannot_be_passed_on():
    deal = split_deck(4)
    state = ChochlikState(ChochlikOptions(players=4), "p", chance=dealing(deal))
    state.apply(3, f"imp {deal[3][0]}")
    state.apply(3, f"left {deal[3][1]}")  # to seat 0
    state.apply(3, f"right {deal[3][2]}")
    assert f"imp {deal[3][1]}" not in state.legal_actions(0)
    with pytest.raises(IllegalAction):
        state.apply(0, f"imp {deal[3][1]}")
    for seat in range(3):
        for verb, card in zip(("imp", "left", "right"), deal[seat]):
            state.apply(seat, f"{verb} {card}")
    assert deal[3][1] in state.hands[0] and deal[3][2] in state.hands[2]
    assert [len(hand) for hand in state.hands] == [8, 8, 8, 8]


# --- tricks ----------------------------------------------------------------------------------


def test_worked_example_from_the_rules():
    """Price 19; Adam 24, Beata 15, Krzysztof 17, Dorota 32: the 17 wins trick and bottle."""
    adam, beata, krzysztof, dorota = 0, 1, 2, 3
    state = position([[24, 1], [15, 2], [17, 3], [32, 5]], leader=adam)
    play(state, 24, 15, 17, 32)
    assert state.owner == krzysztof
    assert state.price == 17
    assert state.to_act() == (krzysztof,)  # the winner leads next
    assert sorted(state.won[krzysztof]) == [15, 24, 32]  # the 17 lies under the bottle
    assert state.won[beata] == [] and state.won[adam] == [] and state.won[dorota] == []
    (won,) = events_of(state, "trick_won")
    assert won["seat"] == krzysztof and won["bottle"] and won["price"] == 17


def test_off_colour_low_card_wins_the_bottle():
    # red 16 led (below the price); seat 1 has no red and plays yellow 18: the highest card
    # below the price wins, whatever its colour.
    state = position([[16, 30], [18, 1], [33, 2]])
    play(state, 16, 18, 33)
    assert state.owner == 1 and state.price == 18
    assert sorted(state.won[1]) == [16, 33]


def test_all_cards_above_the_price_highest_wins_whatever_its_colour():
    state = position([[22, 1], [34, 4], [21, 11]])  # yellow 22 led; blue 34 and red 21 void
    play(state, 22, 34, 21)
    assert state.owner is None and state.price == START_PRICE
    assert sorted(state.won[1]) == [21, 22, 34]
    assert state.to_act() == (1,)


def test_old_price_card_returns_to_the_previous_owner():
    state = position([[15, 30], [22, 31], [12, 33]], price=17, owner=2)
    play(state, 15, 22, 12)  # 15 and 12 are below 17: the 15 buys the bottle
    assert state.owner == 0 and state.price == 15
    assert sorted(state.won[0]) == [12, 22]
    assert state.won[2] == [17]  # back to the one who played it
    (won,) = events_of(state, "trick_won")
    assert won["returned_card"] == 17 and won["returned_to"] == 2


def test_the_owner_may_buy_the_bottle_again():
    state = position([[13, 1], [30, 2], [24, 3]], price=17, owner=0)
    play(state, 13, 30, 24)
    assert state.owner == 0 and state.price == 13
    assert sorted(state.won[0]) == [17, 24, 30]


def test_follow_colour_is_mandatory_and_undercutting_is_not():
    state = position([[30, 1], [4, 18, 34], [6, 8]])
    play(state, 30)  # blue led
    assert state.legal_actions(1) == ["play 4", "play 34"]  # both blue; 18 (yellow) is not
    with pytest.raises(IllegalAction):
        state.apply(1, "play 18")
    state.apply(1, "play 34")  # going over the price is allowed even holding a low card
    assert state.legal_actions(2) == ["play 6", "play 8"]


def test_a_void_seat_may_play_anything_and_the_leader_may_lead_low():
    state = position([[4, 30], [1, 2], [33, 36]])
    assert state.legal_actions(0) == ["play 4", "play 30"]
    play(state, 4)
    assert state.legal_actions(1) == ["play 1", "play 2"]  # void in blue
    with pytest.raises(IllegalAction):
        state.apply(2, "play 33")  # not seat 2's turn


def test_hand_scoring_owner_loses_imp_coins_and_scores_nothing_else():
    imp = [1, 25, 37]  # coins 1 + 6 + 6 = 13
    state = position([[30], [33], [35]], price=17, owner=1, imp=imp,
                     won=[[2, 3], [36, 20], [14]], hands_limit=1)
    play(state, 30, 33, 35)  # all above 17: the 35 wins, the bottle stays with seat 1
    (end,) = events_of(state, "hand_end")
    assert end["hand_scores"] == [1 + 2, -13, 1 + 5 + 5 + 5]
    assert end["bottle_owner"] == 1 and end["bottle_card"] == 17 and end["imp_coins"] == 13
    assert state.is_over()
    result = state.result()
    assert result.scores == (3, -13, 16) and result.winners == (2,) and result.ranks == (2, 3, 1)


# --- a whole match ---------------------------------------------------------------------------


def random_playout(state: ChochlikState, rng: random.Random) -> None:
    while not state.is_over():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_first_dealer_is_seat_0_and_the_deal_rotates():
    state = ChochlikState(ChochlikOptions(players=4, target=None, hands=5), 7, record_events=True)
    random_playout(state, random.Random(1))
    starts = [e.data for e in state.take_events() if e.kind == "hand_start"]
    assert [s["dealer"] for s in starts] == [0, 1, 2, 3, 0]
    assert [s["leader"] for s in starts] == [1, 2, 3, 0, 1]


def test_match_ends_after_the_hand_that_reaches_the_target():
    state = ChochlikState(ChochlikOptions(target=60), 3, record_events=True)
    random_playout(state, random.Random(3))
    ends = [e.data for e in state.take_events() if e.kind == "hand_end"]
    assert max(ends[-1]["scores"]) >= 60
    assert all(max(end["scores"]) < 60 for end in ends[:-1])
    assert list(state.result().scores) == ends[-1]["scores"]


@pytest.mark.parametrize("target,hands,expected_hands", [(None, 2, 2), (100000, 1, 1)])
def test_a_number_of_hands_ends_the_match_whichever_comes_first(target, hands, expected_hands):
    state = ChochlikState(ChochlikOptions(target=target, hands=hands), 5)
    random_playout(state, random.Random(5))
    assert state.hand_number == expected_hands


def test_equal_totals_share_the_win():
    result = Result.from_scores([5, 7, 7])
    assert result.ranks == (3, 1, 1) and result.winners == (1, 2)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.sampled_from([3, 4]))
def test_cards_and_coins_are_conserved_every_hand(seed, players):
    """Every card ends in exactly one place; the 19 is never won; scores add up."""
    state = ChochlikState(ChochlikOptions(players=players, target=None, hands=2), seed,
                          record_events=True)
    random_playout(state, random.Random(seed))
    totals = [0] * players
    for end in (e.data for e in state.take_events() if e.kind == "hand_end"):
        cards = sorted([c for pile in end["won"] for c in pile] + end["imp_pile"]
                       + [end["bottle_card"]])
        assert cards == list(DECK)
        assert len(end["imp_pile"]) == players
        owner = end["bottle_owner"]
        for seat in range(players):
            expected = (-end["imp_coins"] if seat == owner
                        else sum(COINS[c] for c in end["won"][seat]))
            assert end["hand_scores"][seat] == expected
            totals[seat] += expected
        assert end["scores"] == totals


def test_requests_carry_only_the_seats_own_hand():
    from arena.gameplay.driver import MatchDriver
    from protocol.codec import encode
    from protocol.messages import Request

    deal = [list(range(1, 13)), list(range(13, 19)) + list(range(20, 26)), list(range(26, 38))]
    state = ChochlikState(ChochlikOptions(), "r", record_events=True, chance=dealing(deal))
    driver = MatchDriver(SPEC, ChochlikOptions(), "r", ["a", "b", "c"], game_id="g", table=1,
                         move_timeout=5.0, state=state)
    requests = [o for o in driver.start(0.0) if isinstance(o.message, Request)]
    assert len(requests) == 3
    for o in requests:
        assert list(o.message.observation.hand) == deal[o.seat]
        others = {card for seat, hand in enumerate(deal) if seat != o.seat for card in hand}
        assert not others & set(json.loads(encode(o.message))["observation"]["hand"])


def test_same_seed_same_deal_every_hand_whatever_the_players_did():
    """Duplicate play: each hand's deal depends on the seed and the hand number only."""
    def deals(rng_seed):
        state = ChochlikState(ChochlikOptions(target=None, hands=3), "dup", record_events=True)
        random_playout(state, random.Random(rng_seed))
        return [e.data for e in state.take_events() if e.kind == "dealt"]

    first, second = deals(1), deals(2)
    assert len(first) == 9 and first == second
    other = ChochlikState(ChochlikOptions(target=None, hands=3), "other", record_events=True)
    assert [e.data for e in other.take_events() if e.kind == "dealt"] != first[:3]


def test_no_decision_is_a_reaction_window():
    """Every chochlik decision gets the move time limit: passing, playing, choosing."""
    state = SPEC.new_state(parse_options({"players": 3, "hands": 1}), "react")
    rng = random.Random(3)
    while not state.is_over():
        assert not any(state.is_reaction(seat) for seat in range(3))
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


@pytest.mark.parametrize("players", [3, 4])
def test_observations_are_whole_snapshots_from_views_kept_in_step(players):
    """observe builds its value without __init__, from views the state keeps up to date (the
    piles won, the scores): every observation has exactly the class's fields, equals that of a
    copy whose views are rebuilt from the fields, and stays as it was while the game goes on."""
    names = {field.name for field in attrs.fields(ChochlikObservation)}
    state = ChochlikState(ChochlikOptions(players=players, target=None, hands=2), players)
    rng = random.Random(players)
    taken = []
    while state.to_act():
        rebuilt = state.clone()
        rebuilt._refresh_views()
        for seat in range(players):
            observation = state.observe(seat)
            assert set(vars(observation)) == names and attrs.evolve(observation) == observation
            assert observation == rebuilt.observe(seat)
            taken.append((observation, to_json(observation)))
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.hand_number == 2 and len(taken) > 100
    assert all(to_json(observation) == text for observation, text in taken)
