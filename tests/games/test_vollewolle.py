"""Volle Wolle rules, through what the seats observe and the events they see.  The worked
examples of the Hungarian rules are here with their exact dice."""

from __future__ import annotations

import random

import attrs
import pytest

from arena.gameplay.driver import MatchDriver
from arena.games.base import IllegalAction, OptionsError
from arena.games.vollewolle import (
    SPEC,
    VolleWolleObservation,
    VolleWolleOptions,
    VolleWolleState,
    parse_options,
)
from protocol.codec import to_json
from tests.games.vollewolle_positions import bid_all, position

# Cards of the shipped (placeholder) deck used below:
# s39, s40: white 5 points, -3;  s33: white 4, -2;  s11: white 1, +1;  s07: white 1, +2;
# s22..s25: white 3, no modifier;  s20: white 2 with a bone symbol;  s42..s49: black sheep.


def roll_on(state, seat):
    """Answer the seat's dice decisions (keep the first die offered, decline to spend) until
    it has something else to decide or its turn is over."""
    while state.observe(seat).decision in ("keep", "reach"):
        state.apply(seat, state.legal_actions(seat)[0] if state.observe(seat).decision == "keep"
                    else "decline")


def events(state, kind):
    return [event.data for event in state.take_events() if event.kind == kind]


def test_options():
    assert parse_options({}) == VolleWolleOptions(players=4)
    assert parse_options({"players": "2"}).players == 2
    for bad in ({"players": 1}, {"players": 7}, {"players": "x"}, {"target": 3}):
        with pytest.raises(OptionsError):
            parse_options(bad)


def test_a_round_lays_out_one_card_more_than_players_and_everyone_bids_at_once():
    state = SPEC.new_state(parse_options({"players": 5}), "r", record_events=True)
    (start,) = events(state, "round_start")
    assert len(start["display"]) == 6 and start["deck_left"] == 54
    assert state.to_act() == (0, 1, 2, 3, 4)
    assert state.legal_actions(0) == [f"bid {v}" for v in range(14, 26)] + ["bid 26+"]
    state.apply(2, "bid 20")
    seen = [state.observe(seat) for seat in range(5)]
    assert seen[2].bids[2] == 20 and all(s.bids[2] is None for s in seen[:2] + seen[3:])
    assert state.to_act() == (0, 1, 3, 4) and state.take_events() == []  # nothing revealed
    with pytest.raises(IllegalAction):
        state.apply(2, "bid 21")  # one bid each


def test_konrad_keeps_the_12_then_the_7_and_reaches_24_with_his_wool_on_the_third_roll():
    # Konrad (seat 0) bids 24 with a -3 on top of his flock and one wool chip
    state = position(3, ["s22", "s23", "s24", "s25"], flocks=[["s39"], [], []], wool=[1, 2, 2],
                     dice=[12, 10, 3, 7, 3, 7])
    bid_all(state, [24, 15, 14])
    rolled = events(state, "rolled")
    assert rolled == [{"seat": 0, "attempt": 1, "kept": [], "dice": [12, 10, 3], "modifier": -3,
                       "total": 22}]  # 25 - 3 = 22, and 23 with the chip: not enough
    assert state.legal_actions(0) == ["keep d12", "keep d10", "keep d8"]
    state.apply(0, "keep d12")
    assert events(state, "rolled")[0]["total"] == 19  # 12 + 7 + 3 - 3
    assert state.legal_actions(0) == ["keep d10", "keep d8"]
    state.apply(0, "keep d10")  # the 7
    assert events(state, "rolled")[0] == {"seat": 0, "attempt": 3, "kept": ["d12", "d10"],
                                          "dice": [12, 7, 7], "modifier": -3, "total": 23}
    seen = state.observe(0)
    assert (seen.decision, seen.target, seen.attempt) == ("reach", 24, 3)
    assert state.legal_actions(0) == ["reach", "decline"]
    state.apply(0, "reach")
    (success,) = events(state, "succeeded")
    assert success == {"seat": 0, "attempt": 3, "total": 24, "bonus": 0, "wool": 1, "cards": 1}
    assert state.observe(0).wool[0] == 0
    assert state.legal_actions(0) == ["take s22", "take s23", "take s24", "take s25"]


def test_nine_eight_five_minus_three_plus_one_wool_makes_twenty():
    state = position(3, ["s22", "s23", "s24", "s25"], flocks=[["s40"], [], []], wool=[1, 2, 2],
                     dice=[9, 8, 5])
    bid_all(state, [20, 15, 14])
    assert events(state, "rolled")[0]["total"] == 19
    state.apply(0, "reach")
    assert events(state, "succeeded") == [
        {"seat": 0, "attempt": 1, "total": 20, "bonus": 0, "wool": 1, "cards": 3}]


def test_kati_declines_three_cards_and_takes_exactly_two_with_bonus_and_both_chips():
    display = ["s22", "s23", "s45", "dog1"]  # she wants neither the black sheep nor the dog
    state = position(3, display, flocks=[[], ["s11"], []], wool=[2, 2, 2],
                     dice=[9, 4, 8, 4, 8])
    bid_all(state, [14, 24, 15])  # Kati is seat 1
    assert events(state, "rolled")[0]["total"] == 21
    assert state.observe(1).decision == "reach"  # 21 + 1 bonus + 2 chips would make 24
    state.apply(1, "decline")
    state.apply(1, "keep d12")
    assert events(state, "rolled")[0]["total"] == 21
    state.apply(1, "reach")
    assert events(state, "succeeded") == [
        {"seat": 1, "attempt": 2, "total": 24, "bonus": 1, "wool": 2, "cards": 2}]
    state.apply(1, "take s22")
    state.apply(1, "take s23")
    seen = state.observe(1)
    assert seen.flocks[1] == ("s23", "s22", "s11") and seen.wool[1] == 0


def test_robert_below_14_after_the_third_roll_takes_both_black_sheep_and_one_chip():
    display = ["s22", "s44", "s47", "s23"]
    state = position(3, display, flocks=[[], [], ["s33"]], wool=[2, 2, 0],
                     dice=[5, 4, 3, 5, 5, 6])
    bid_all(state, [14, 15, 18])  # Robert (seat 2) rolls first
    state.apply(2, "keep d10")  # he sets the 4 aside so as not to succeed too early
    state.apply(2, "keep d12")  # one of the fives
    rolled = events(state, "rolled")[-1]
    assert rolled["dice"] == [5, 4, 6] and rolled["total"] == 13
    seen = state.observe(2)
    assert (seen.decision, seen.to_take, seen.take_from) == ("take", 2, "black_sheep")
    assert state.legal_actions(2) == ["take s44", "take s47"]
    state.apply(2, "take s47")
    assert state.observe(2).flocks[2] == ("s44", "s47", "s33")  # the last one taken is on top
    assert state.observe(2).wool[2] == 1  # one chip, not two


def test_a_failed_roll_that_even_the_bonus_cannot_lift_to_14_takes_the_black_sheep():
    state = position(3, ["s22", "s44", "s23", "s24"], flocks=[["s07"], [], []], wool=[0, 2, 2],
                     dice=[3, 4, 2, 1, 1, 1])
    bid_all(state, [20, 15, 14])
    state.apply(0, "keep d12")
    state.apply(0, "keep d10")  # dice 3 + 1 + 1 = 5, and 7 with the +2 bonus
    assert events(state, "failed")[-1] == {"seat": 0, "total": 5, "bonus": 0, "wool": 0,
                                           "black_sheep": True}
    assert state.observe(0).flocks[0] == ("s44", "s07")


def test_lift_to_14_is_a_decision_and_declining_takes_the_black_sheep():
    for answer, black in (("reach", False), ("decline", True)):
        state = position(3, ["s22", "s44", "s23", "s24"], flocks=[["s07"], [], []],
                         wool=[1, 2, 2], dice=[6, 3, 2, 3, 2, 2])
        bid_all(state, [22, 15, 14])
        state.apply(0, "keep d12")
        state.apply(0, "keep d10")
        seen = state.observe(0)
        assert (seen.decision, seen.target, seen.dice) == ("reach", 14, (6, 3, 2))  # 11: +2 +1
        state.apply(0, answer)
        failed = events(state, "failed")[-1]
        assert failed["black_sheep"] is black
        assert state.observe(0).wool[0] == (1 if black else 0) + 1  # spent 1, got the chip
        assert ("s44" in state.observe(0).flocks[0]) is black


def test_a_success_without_bonus_or_wool_must_be_taken_in_full():
    state = position(3, ["s44", "s45", "s46", "s22"], flocks=[["s07"], [], []], wool=[2, 2, 2],
                     dice=[12, 10, 8])
    bid_all(state, [16, 15, 14])
    assert events(state, "succeeded")[0]["cards"] == 3 and state.observe(0).decision == "take"
    assert "decline" not in state.legal_actions(0)


def test_a_plus_bonus_is_optional_and_declining_rolls_again():
    state = position(3, ["s22", "s23", "s24", "s25"], flocks=[["s07"], [], []], wool=[0, 2, 2],
                     dice=[6, 6, 6, 6, 6])
    bid_all(state, [20, 15, 14])
    assert state.legal_actions(0) == ["reach", "decline"]  # 18 + 2 bonus
    state.apply(0, "decline")
    assert state.observe(0).decision == "keep"


def test_turn_order_highest_bid_first_and_ties_go_to_the_lower_sheep_number():
    state = position(4, ["s22", "s23", "s24", "s25", "s26"],
                     flocks=[["s30"], [], ["s07"], []], bid_backs=[4, 5, 6, 1])
    bid_all(state, [20, 20, 20, 25])
    (revealed,) = events(state, "bids_revealed")
    assert revealed["sheep_numbers"] == [30, 5, 7, 1]
    assert revealed["order"] == [3, 1, 2, 0]  # 25 first; then the 20s by sheep number


def test_bid_26_plus_costs_a_chip_targets_26_and_needs_a_chip():
    state = position(3, ["s22", "s23", "s24", "s25"], wool=[0, 1, 2], bid_backs=[3, 1, 2],
                     dice=[12, 10, 4])
    assert "bid 26+" not in state.legal_actions(0) and "bid 26+" in state.legal_actions(1)
    with pytest.raises(IllegalAction):
        state.apply(0, "bid 26+")
    bid_all(state, [14, "26+", "26+"])
    seen = state.take_events()
    (revealed,) = [e.data for e in seen if e.kind == "bids_revealed"]
    assert revealed["bids"] == [14, 26, 26] and revealed["paid"] == [1, 2]
    assert revealed["order"][:2] == [1, 2]  # both 26+, bid backs decide
    assert state.observe(0).wool == (0, 0, 1)
    assert [e.data["total"] for e in seen if e.kind == "succeeded"] == [26]


def test_an_empty_display_ends_the_round_nobody_else_rolls_or_gets_wool():
    state = position(4, ["s22", "s23", "s24", "s25", "s07"], wool=[2, 2, 2, 2],
                     dice=[12, 10, 8, 12, 10, 8])
    bid_all(state, [25, 24, 23, 14])
    for card in ("s22", "s23", "s24"):
        state.apply(0, f"take {card}")
    state.apply(1, "take s25")  # seat 1 wins 3, only 2 are left: it takes both
    seen = state.take_events()
    rolled = [e.data["seat"] for e in seen if e.kind == "rolled"]
    assert rolled == [0, 1]  # seat 2 found the display empty
    assert "round_end" in [e.kind for e in seen]
    assert state.observe(2).wool == (2, 2, 2, 2) and state.observe(0).round == 2


def test_the_last_player_does_not_roll_and_takes_the_rest_in_the_order_it_chooses():
    state = position(3, ["s22", "s23", "s24", "dog1"], wool=[0, 0, 0], dice=[1] * 12)
    bid_all(state, [14, 15, 25])  # seats 2 and 1 roll and fail; seat 0 is last
    roll_on(state, 2)
    roll_on(state, 1)
    assert [e["seat"] for e in events(state, "failed")] == [2, 1]
    assert state.observe(0).decision == "take" and state.observe(0).to_take == 4
    state.apply(0, "take s23")
    state.apply(0, "take s22")  # s24 and the dog: the order cannot matter, both are taken
    seen = state.observe(0)
    assert seen.flocks[0] == ("s24", "s22", "s23") and seen.dogs[0] == 1
    assert seen.wool == (0, 1, 1)  # failures get a chip, the last player none
    assert seen.round == 2


def test_a_bone_symbol_takes_the_bone_from_its_holder():
    state = position(3, ["s20", "s22", "s23", "s24"], dogs=[0, 2, 0], bone_holder=1,
                     dice=[12, 10, 8])
    bid_all(state, [25, 15, 14])
    state.apply(0, "take s20")
    assert events(state, "took")[0] == {"seat": 0, "card": "s20", "bone_from": 1}
    assert state.observe(2).bone_holder == 0


def test_two_players_the_last_chooses_to_roll_or_to_take_all():
    state = position(2, ["s22", "s23", "s24"], wool=[0, 0], dice=[1] * 6 + [12, 10, 8])
    bid_all(state, [25, 14])  # seat 0 rolls and fails; seat 1 is last
    roll_on(state, 0)
    assert state.legal_actions(1) == ["roll", "take all"]
    assert state.default_action(1) == "take all"
    twin = state.clone()
    twin.apply(1, "take all")
    assert not [e for e in twin.take_events() if e.kind == "rolled" and e.data["seat"] == 1]
    state.apply(1, "roll")
    assert events(state, "succeeded")[0] == {"seat": 1, "attempt": 1, "total": 30, "bonus": 0,
                                             "wool": 0, "cards": 3}


def test_two_players_what_the_last_roller_leaves_goes_to_the_other():
    state = position(2, ["s22", "s23", "s24"], wool=[0, 2],
                     dice=[1] * 6 + [5, 1, 1, 6, 1, 3])
    bid_all(state, [25, 14])
    roll_on(state, 0)
    state.apply(1, "roll")
    state.apply(1, "keep d12")  # 5 + 6 + 1 = 12: +2 chips would reach 14
    assert state.legal_actions(1) == ["reach", "decline"]
    state.apply(1, "decline")
    state.apply(1, "keep d10")  # 5 + 6 + 3 = 14: one card, forced
    state.apply(1, "take s22")
    assert state.observe(0).decision == "take" and state.observe(0).to_take == 2
    state.apply(0, "take s24")
    took = [(e["seat"], e["card"]) for e in events(state, "took")]
    assert took == [(1, "s22"), (0, "s24"), (0, "s23")]
    assert state.observe(0).wool == (1, 2) and state.observe(0).round == 2


def test_six_players_play_eight_rounds_of_seven_cards_and_a_last_round_of_four():
    state = SPEC.new_state(parse_options({"players": 6}), 3, record_events=True)
    rng = random.Random(3)
    sizes = []
    while state.to_act():
        sizes += [len(e["display"]) for e in events(state, "round_start")]
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert sizes == [7] * 8 + [4]
    assert state.result().rounds == 9


def test_every_card_ends_in_a_flock_or_beside_one():
    for players in range(2, 7):
        state = SPEC.new_state(parse_options({"players": players}), players, record_events=True)
        rng = random.Random(players)
        while state.to_act():
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        seen = state.observe(0)
        assert seen.display == () and seen.deck_left == 0
        sheep = sum(len(flock) for flock in seen.flocks)
        assert sheep == 51 and sum(seen.dogs) == 8 and seen.bone_holder is not None
        took = [e for e in state.take_events() if e.kind == "took"]
        assert len(took) == 60


def test_a_silent_bot_bids_14_and_never_spends_wool():
    """Every decision of every seat times out: the defaults play the whole game."""
    options = parse_options({"players": 4})
    driver = MatchDriver(SPEC, options, "silent", ["a", "b", "c", "d"], game_id="g", table=1,
                         move_timeout=1.0)
    driver.start(0.0)
    now = 0.0
    while not driver.finished:
        now += 1.0
        driver.expire(now)
    records = driver.log.records
    bids = [r["data"]["bids"] for r in records if r.get("kind") == "bids_revealed"]
    assert bids and all(b == [14, 14, 14, 14] for b in bids)
    spent = [r["data"]["wool"] for r in records if r.get("kind") in ("succeeded", "failed")]
    assert spent and not any(spent)
    actions = [r["action"] for r in records if r["type"] == "action"]
    assert "reach" not in actions and all(r["by"] == "default" for r in records
                                          if r["type"] == "action")


def test_same_seed_same_cards_and_same_dice_in_the_same_situation():
    """Duplicate play: two tables with one seed, players acting differently, see the same
    display every round, and the same dice whenever a roll happens in the same place."""
    options = parse_options({"players": 4})

    def play(rng_seed):
        state = SPEC.new_state(options, "dup", record_events=True)
        rng = random.Random(rng_seed)
        while state.to_act():
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        displays, rolls, order = [], {}, []
        for event in state.take_events():
            data = event.data
            if event.kind == "round_start":
                displays.append(data["display"])
            elif event.kind == "bids_revealed":
                order = data["order"]
            elif event.kind == "rolled":
                where = (len(displays), order.index(data["seat"]), data["attempt"],
                         tuple(data["kept"]))
                rolls[where] = data["dice"]
        return displays, rolls

    displays_a, rolls_a = play(1)
    displays_b, rolls_b = play(2)
    assert displays_a == displays_b
    shared = set(rolls_a) & set(rolls_b)
    assert len(shared) > 5
    for where in shared:  # the dice set aside came from earlier rolls: compare the new ones
        kept = {"d12": 0, "d10": 1, "d8": 2}
        fresh = [i for i in range(3) if i not in {kept[d] for d in where[3]}]
        assert [rolls_a[where][i] for i in fresh] == [rolls_b[where][i] for i in fresh]
    assert displays_a != play_with_seed_displays(options, "other")


def play_with_seed_displays(options, seed):
    state = SPEC.new_state(options, seed, record_events=True)
    return [e.data["display"] for e in state.take_events() if e.kind == "round_start"]


def test_clone_copies_everything_a_game_changes():
    state = SPEC.new_state(parse_options({"players": 3}), 1)
    rng = random.Random(1)
    for _ in range(30):
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    twin: VolleWolleState = state.clone()
    before = state.observe(0)
    while twin.to_act():
        seat = rng.choice(twin.to_act())
        twin.apply(seat, rng.choice(twin.legal_actions(seat)))
    assert state.observe(0) == before


def test_no_decision_is_a_reaction_window():
    """Every vollewolle decision gets the move time limit: bids, dice, taking, cards."""
    state = SPEC.new_state(parse_options({"players": 3}), "react")
    rng = random.Random(3)
    while not state.is_over():
        assert not any(state.is_reaction(seat) for seat in range(3))
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


@pytest.mark.parametrize("players", [2, 4, 6])
def test_observations_are_whole_snapshots_from_views_kept_in_step(players):
    """observe builds its value without __init__, from views the state keeps up to date as
    cards are laid out and taken, wool changes and bids are revealed: every observation has
    exactly the class's fields, equals that of a copy whose views are rebuilt from the fields,
    and stays as it was while the game goes on."""
    names = {field.name for field in attrs.fields(VolleWolleObservation)}
    state = SPEC.new_state(parse_options({"players": players}), players)
    rng = random.Random(players)
    taken = []
    while state.to_act():
        rebuilt = state.clone()
        rebuilt._rebuild_views()
        for seat in range(players):
            observation = state.observe(seat)
            assert set(vars(observation)) == names and attrs.evolve(observation) == observation
            assert observation == rebuilt.observe(seat)
            taken.append((observation, to_json(observation)))
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.result() is not None and len(taken) > 100
    assert all(to_json(observation) == text for observation, text in taken)
