"""Volle Wolle: a plus bonus is the top card's whole value, added whole or not at all.

The Hungarian rules: "if the top sheep of your flock is positive, you may add it to the roll"
(azt hozzáadhatod) and "you may use your bonus and wool chips at any time to reach 14"; nothing
lets a player add part of it.  Scripted dice, through what the seat observes and the events."""

from __future__ import annotations

import random

import pytest

from arena.games.vollewolle import CARDS, INDEX, VolleWolleOptions, VolleWolleState
from tests.games.vollewolle_positions import bid_all, position

# s07: white 1, +2;  s11: white 1, +1;  s44: black -2;  s22, s23: white 3, no modifier.
DISPLAY = ["s44", "s22", "s23"]
THIRD_ROLL_13 = [3, 3, 3, 3, 3, 7]  # 9, keep d12; 9, keep d10; 3 + 3 + 7 = 13


def events(state, kind):
    return [event.data for event in state.take_events() if event.kind == kind]


def thirteen_on_the_third_roll(top: str, wool: int, bid: int = 15) -> VolleWolleState:
    """Two players; seat 0 (top card ``top``, ``wool`` chips) bids ``bid`` and rolls 13 on its
    third roll, declining every earlier question."""
    state = position(2, DISPLAY, flocks=[[top], []], wool=[wool, 2], dice=THIRD_ROLL_13)
    bid_all(state, [bid, 14])
    for die in ("keep d12", "keep d10"):
        while state.observe(0).decision == "reach":  # only with chips: 9 + 2 + 2 < 15
            state.apply(0, "decline")
        state.apply(0, die)
    assert state.observe(0).dice == (3, 3, 7)
    return state


def test_the_whole_plus_2_reaches_a_bid_of_15_from_13_one_card_and_no_chip():
    state = thirteen_on_the_third_roll("s07", wool=0)
    seen = state.observe(0)
    assert (seen.decision, seen.reach_for, seen.target, seen.wool_needed) == (
        "reach", "bid", 15, 0)
    state.take_events()
    state.apply(0, "reach")
    assert events(state, "succeeded") == [
        {"seat": 0, "attempt": 3, "total": 15, "bonus": 2, "wool": 0, "cards": 1}]
    assert state.observe(0).wool[0] == 0  # no failure chip


def test_declining_the_bid_does_not_add_part_of_the_bonus_to_reach_14():
    # the whole +2 would make the bid just declined: no lift to 14 with it, no chip to lift
    state = thirteen_on_the_third_roll("s07", wool=0)
    state.take_events()
    state.apply(0, "decline")
    assert state.observe(0).decision != "reach"
    assert events(state, "failed") == [
        {"seat": 0, "total": 13, "bonus": 0, "wool": 0, "black_sheep": True}]
    assert state.observe(0).flocks[0] == ("s44", "s07") and state.observe(0).wool[0] == 1


def test_after_declining_the_bid_one_chip_without_the_bonus_lifts_13_to_14():
    state = thirteen_on_the_third_roll("s07", wool=1)
    assert state.observe(0).wool_needed == 0  # the bid: the bonus alone
    state.apply(0, "decline")
    seen = state.observe(0)
    assert (seen.decision, seen.reach_for, seen.target, seen.wool_needed) == (
        "reach", "black_sheep", 14, 1)
    state.take_events()
    state.apply(0, "reach")
    assert events(state, "failed") == [
        {"seat": 0, "total": 14, "bonus": 0, "wool": 1, "black_sheep": False}]
    assert state.observe(0).wool[0] == 1  # spent one, got the failure chip
    assert state.observe(0).flocks[0] == ("s07",)


def test_a_plus_1_that_cannot_make_the_bid_lifts_13_to_14_whole():
    state = thirteen_on_the_third_roll("s11", wool=0)  # 13 + 1 = 14 < 15: no bid question
    seen = state.observe(0)
    assert (seen.decision, seen.reach_for, seen.wool_needed) == ("reach", "black_sheep", 0)
    state.take_events()
    state.apply(0, "reach")
    assert events(state, "failed") == [
        {"seat": 0, "total": 14, "bonus": 1, "wool": 0, "black_sheep": False}]


def test_a_plus_1_with_a_chip_reaches_15_and_declining_lifts_with_the_bonus_alone():
    state = thirteen_on_the_third_roll("s11", wool=1)
    assert (state.observe(0).reach_for, state.observe(0).wool_needed) == ("bid", 1)
    state.apply(0, "decline")  # 13 + 1 = 14 stays below the bid: the bonus may lift it
    assert (state.observe(0).reach_for, state.observe(0).wool_needed) == ("black_sheep", 0)
    state.take_events()
    state.apply(0, "reach")
    assert events(state, "failed") == [
        {"seat": 0, "total": 14, "bonus": 1, "wool": 0, "black_sheep": False}]
    assert state.observe(0).wool[0] == 2


def test_a_bonus_larger_than_needed_is_added_whole_and_the_total_shows_it():
    state = position(2, DISPLAY, flocks=[["s07"], []], wool=[0, 2], dice=[6, 4, 4])
    bid_all(state, [15, 14])  # 14: one short, the +2 makes 16
    state.take_events()
    state.apply(0, "reach")
    assert events(state, "succeeded") == [
        {"seat": 0, "attempt": 1, "total": 16, "bonus": 2, "wool": 0, "cards": 3}]


def test_a_lift_to_14_with_the_whole_bonus_may_pass_14():
    state = thirteen_on_the_third_roll("s07", wool=0, bid=20)  # 15 < 20: the bid is failed
    assert (state.observe(0).reach_for, state.observe(0).wool_needed) == ("black_sheep", 0)
    state.take_events()
    state.apply(0, "reach")
    assert events(state, "failed") == [
        {"seat": 0, "total": 15, "bonus": 2, "wool": 0, "black_sheep": False}]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_in_random_games_a_bonus_is_spent_whole_or_not_at_all(players):
    """Every reach in many random games: the bonus spent is 0 or the top card's whole bonus,
    a success's total is the roll plus what was spent and reaches the bid, and a lift to 14
    never reaches the bid."""
    spent_whole = partial = 0
    for game in range(60):
        rng = random.Random(game)
        state = VolleWolleState(VolleWolleOptions(players=players), f"bonus:{game}",
                                record_events=True)
        bids: list[int | None] = []
        last_roll: dict = {}
        while state.to_act():
            seat = rng.choice(state.to_act())
            # reach more often than not, so that many reaches are seen
            legal = state.legal_actions(seat)
            action = "reach" if "reach" in legal and rng.random() < 0.7 else rng.choice(legal)
            flock_top = state.flocks[seat][-1] if state.flocks[seat] else None
            bonus_now = max(CARDS[flock_top].modifier, 0) if flock_top is not None else 0
            state.apply(seat, action)
            for event in state.take_events():
                data = event.data
                if event.kind == "bids_revealed":
                    bids = data["bids"]
                elif event.kind == "rolled":
                    last_roll = data
                elif event.kind in ("succeeded", "failed") and (data["bonus"] or data["wool"]):
                    assert action == "reach" and data["seat"] == seat
                    assert data["bonus"] in (0, bonus_now), (data, bonus_now)
                    assert data["total"] == last_roll["total"] + data["bonus"] + data["wool"]
                    if event.kind == "succeeded":
                        assert data["total"] >= bids[seat]
                        assert data["wool"] == 0 or data["total"] - 1 < bids[seat]  # fewest
                    else:
                        assert 14 <= data["total"] < bids[seat]
                        assert data["wool"] == 0 or data["total"] == 14
                    spent_whole += data["bonus"] == bonus_now > 0
                    partial += 0 < data["bonus"] < bonus_now
        assert state.is_over()
    assert spent_whole > 20 and partial == 0


def test_the_scripted_cards_are_what_the_tests_say():
    assert CARDS[INDEX["s07"]].modifier == 2 and CARDS[INDEX["s11"]].modifier == 1
    assert CARDS[INDEX["s44"]].points == -2 and CARDS[INDEX["s44"]].modifier == 0
