"""The vollewolle heuristic bot: sensible single decisions, and clearly stronger than random."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import pytest

from arena.games import get_game
from arena.games.vollewolle import VolleWolleOptions, VolleWolleState, info
from arena.launch.runner import BotSpec, run_match
from protocol.codec import to_json
from reference_bots.vollewolle_heuristic import RollPlan, VolleWolleHeuristic

BIDS = [f"bid {v}" for v in range(14, 26)] + ["bid 26+"]
KEEPS = ["keep d12", "keep d10", "keep d8"]
GOOD = ["dog1", "s51", "s39", "s37"]  # a first dog, a second 3-7-0 (with s50 held), two 5s
BLACK = ["s49", "s48", "s47", "s46"]  # four black sheep: -5, -3, -3, -2


def bot(rate: float = 0.0, seed: int = 0, players: int = 3) -> VolleWolleHeuristic:
    policy = VolleWolleHeuristic(rate, seed)
    policy.on_message({"type": "game_start", "seat": 0,
                       "info": info(VolleWolleOptions(players=players))})
    return policy


def observation(**fields: Any) -> dict[str, Any]:
    """Seat 0 of three, in round 3, holding one 3-7-0 sheep; ``fields`` override."""
    obs: dict[str, Any] = {
        "seat": 0, "round": 3, "decision": "bid", "display": GOOD, "deck_left": 40,
        "wool": [2, 2, 2], "flocks": [["s50"], [], []], "dogs": [0, 0, 0], "bone_holder": None,
        "sheep_numbers": [50, 2, 3], "modifiers": [0, 0, 0], "start_player": 0,
        "bids": [None, None, None], "order": [], "turn": None, "attempt": None, "dice": None,
        "kept": [], "target": None, "reach_for": None, "wool_needed": None, "to_take": 0,
        "take_from": None}
    obs.update(fields)
    return obs


def rolling(decision: str, **fields: Any) -> dict[str, Any]:
    """Seat 0 rolls first with a bid of 24."""
    return observation(**{"decision": decision, "bids": [24, 20, 18], "order": [0, 1, 2],
                          "turn": 0, "target": 24, **fields})


def ask(policy: VolleWolleHeuristic, legal: list[str], obs: dict[str, Any]) -> str:
    return policy.choose({"legal": legal, "observation": obs})


def reveal(policy: VolleWolleHeuristic, bids: list[int], times: int = 20) -> None:
    for _ in range(times):
        policy.on_message({"type": "event", "kind": "bids_revealed",
                           "data": {"bids": bids, "paid": [], "sheep_numbers": [50, 2, 3],
                                    "order": [0, 1, 2]}})


def test_its_bids_follow_what_the_opponents_are_seen_to_bid():
    low = bot()
    reveal(low, [20, 14, 14])  # the opponents always bid 14: a low bid is enough to go first
    assert BIDS.index(ask(low, BIDS, observation())) <= BIDS.index("bid 17")
    high = bot()
    reveal(high, [20, 25, 25])  # they bid 25: it must bid higher to get the dog first
    assert BIDS.index(ask(high, BIDS, observation())) >= BIDS.index("bid 25")


def test_it_bids_high_to_roll_first_and_miss_when_only_black_sheep_are_shown():
    # bidding low would make it the last player, who takes whatever black sheep are left
    assert BIDS.index(ask(bot(), BIDS, observation(display=BLACK))) >= BIDS.index("bid 24")


def test_it_never_bids_26_plus_without_wool():
    legal = BIDS[:-1]
    assert ask(bot(), legal, observation(display=BLACK, wool=[0, 2, 2])) in legal


def test_it_keeps_the_die_that_makes_success_likely_when_the_cards_are_good():
    assert ask(bot(), KEEPS, rolling("keep", attempt=1, dice=[12, 3, 2])) == "keep d12"
    assert ask(bot(), KEEPS[:2], rolling("keep", attempt=2, dice=[12, 9, 2],
                                         kept=["d8"])) == "keep d12"


def test_it_misses_on_purpose_when_only_black_sheep_are_shown():
    # keeping the 12 would likely force it to take two black sheep
    obs = rolling("keep", display=BLACK, attempt=1, dice=[12, 9, 1])
    assert ask(bot(), KEEPS, obs) != "keep d12"


def test_it_spends_wool_only_for_cards_worth_it():
    # 12 + 9 + 2 = 23 against 24: one wool chip reaches it on the first attempt (3 cards)
    obs = rolling("reach", attempt=1, dice=[12, 9, 2], reach_for="bid", wool_needed=1)
    assert ask(bot(), ["reach", "decline"], obs) == "reach"
    obs = rolling("reach", display=BLACK, attempt=1, dice=[12, 9, 2], reach_for="bid",
                  wool_needed=1)
    assert ask(bot(), ["reach", "decline"], obs) == "decline"


def test_it_lifts_a_failed_roll_to_14_only_when_the_black_sheep_cost_more_than_the_wool():
    def lift(display: list[str]) -> str:
        obs = rolling("reach", display=display, attempt=3, dice=[5, 4, 3], kept=["d12", "d10"],
                      target=14, reach_for="black_sheep",
                      wool_needed=2)  # 12 < 14: two chips avoid the black sheep
        return ask(bot(), ["reach", "decline"], obs)

    assert lift(["s49", "s11"]) == "reach"  # -5 is worse than two chips
    assert lift(["s42", "s11"]) == "decline"  # -1 is not


def test_it_takes_the_best_cards_and_puts_the_best_modifier_on_top():
    policy = bot()
    # dog1 (a first dog), s37 (5, -2), s41 (5, -3), s42 (black -1): take three
    obs = observation(decision="take", display=["s41", "dog1", "s37", "s42"], to_take=3,
                      take_from="display", flocks=[[], [], []])
    taken = []
    for _ in range(3):
        token = ask(policy, [f"take {c}" for c in obs["display"]], obs)
        card = token.split()[1]
        taken.append(card)
        obs["display"] = [c for c in obs["display"] if c != card]
        obs["to_take"] -= 1
        if card.startswith("dog"):
            obs["dogs"] = [1, 0, 0]
        else:
            obs["flocks"] = [[card] + obs["flocks"][0], [], []]
    assert sorted(taken) == ["dog1", "s37", "s41"]
    assert taken[-1] == "s37"  # the -2 lies on top, not the -3


def test_it_avoids_a_second_dog_unless_it_holds_the_bone():
    obs = observation(decision="take", display=["dog2", "s22"], to_take=1, take_from="display",
                      dogs=[1, 0, 0], flocks=[["s50"], [], []])
    assert ask(bot(), ["take dog2", "take s22"], obs) == "take s22"
    obs.update(dogs=[3, 0, 0], bone_holder=0)  # a fourth dog is worth 4 with the bone
    assert ask(bot(), ["take dog2", "take s22"], obs) == "take dog2"


def test_the_last_of_two_takes_good_cards_and_rolls_to_leave_bad_ones():
    def choice(display: list[str]) -> str:
        obs = observation(decision="roll_or_take", display=display, wool=[2, 2],
                          flocks=[["s50"], []], dogs=[0, 0], sheep_numbers=[50, 2],
                          bids=[18, 20], order=[1, 0], turn=0)
        return ask(bot(players=2), ["roll", "take all"], obs)

    assert choice(["dog1", "s51", "s39"]) == "take all"
    assert choice(["s49", "s48", "s47"]) == "roll"  # what it leaves goes to the other player


def test_the_roll_plan_counts_the_dice_exactly():
    # success worth 2 and failure 1 (the chip, no black sheep): the value is 1 + P(success)
    def chance(bid: int, modifier: int, free: tuple[int, ...] = (0, 1, 2), kept: int = 0):
        plan = RollPlan((12, 10, 8), bid, modifier, 0, {1: 2.0, 2: 2.0, 3: 2.0}, 0.0)
        return plan.expect(free, kept) - 1

    assert chance(22, 0, (2,), 18) == pytest.approx(5 / 8)  # the d8 must show 4+
    assert chance(22, -3, (2,), 18) == pytest.approx(2 / 8)  # the malus counts: 7+
    first_roll = sum(a + b + c >= 14 for a in range(1, 13) for b in range(1, 11)
                     for c in range(1, 9)) / 960
    assert first_roll < chance(14, 0) < 1  # three attempts beat one
    assert chance(14, 2) > chance(14, 0) > chance(14, -2)


def test_random_rate_one_is_uniform_and_out_of_range_is_refused():
    with pytest.raises(ValueError, match="random rate must be between 0 and 1"):
        VolleWolleHeuristic(1.5)
    policy = bot(1.0, seed=3)
    picks = {ask(policy, BIDS, observation()) for _ in range(200)}
    assert len(picks) > 8


def duel(games: int, rate: float) -> float:
    """The bot's share of wins in 3-player games against two random players, in process."""
    wins = 0.0
    options = VolleWolleOptions(players=3)
    for game in range(games):
        policy, rng, hero = bot(rate, game), random.Random(game), game % 3
        policy.seat = hero
        state = VolleWolleState(options, f"duel:{game}")
        while state.to_act():
            acting = state.to_act()
            seat = hero if hero in acting else acting[0]
            legal = state.legal_actions(seat)
            if seat == hero:
                obs = json.loads(to_json(state.observe(seat)))
                action = ask(policy, legal, obs)
            else:
                action = rng.choice(legal)
            state.apply(seat, action)
        result = state.result()
        assert result is not None
        if hero in result.winners:
            wins += 1 / len(result.winners)
    return wins / games


def test_it_clearly_beats_random_players_and_random_rate_weakens_it():
    strong, diluted = duel(9, 0.0), duel(9, 0.9)
    assert strong >= 0.6  # random play would win about a third
    assert diluted < strong


async def test_it_plays_a_match_over_tcp_without_errors(tmp_path):
    spec = get_game("vollewolle")
    command = (f"{sys.executable} -m reference_bots.vollewolle_heuristic --host {{host}} "
               f"--port {{port}} --name {{name}} --token-file {{token_file}}")
    random_bot = (f"{sys.executable} -m reference_bots.random --host {{host}} --port {{port}} "
                  f"--name {{name}} --token-file {{token_file}}")
    bots = [BotSpec("heuristic", command), BotSpec("random-1", random_bot),
            BotSpec("random-2", random_bot)]
    report = await run_match(spec, spec.parse_options({"players": 3}), bots, games=1,
                             seed="e2e", move_timeout=5, log_dir=tmp_path)
    assert report.ok, report.table()
    row = report.rows()[0]
    assert row["games"] == 1 and row["errors"] == 0 and row["defaults"] == 0
