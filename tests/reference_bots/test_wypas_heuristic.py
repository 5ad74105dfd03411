"""The wypas heuristic bot: sensible single decisions, and clearly stronger than random."""

from __future__ import annotations

import json
import random

import pytest

from arena.games.wypas import SPEC, WypasOptions, info, parse_options
from protocol.codec import to_json
from reference_bots.wypas_heuristic import WypasHeuristic, fits
from tests.games.wypas_positions import position


def bot(seat: int = 0, rate: float = 0.0, seed: int = 0) -> WypasHeuristic:
    policy = WypasHeuristic(rate, seed)
    policy.on_message({"type": "game_start", "seat": seat,
                       "info": json.loads(to_json(info(WypasOptions())))})
    return policy


def ask(policy, state, seat):
    obs = json.loads(to_json(state.observe(seat)))
    return policy.choose({"legal": state.legal_actions(seat), "observation": obs})


def test_its_row_rule_is_the_engines():
    from arena.games.wypas.cards import fits as engine_fits
    rng = random.Random(1)
    colours = ["yellow", "red", "green", "violet"]
    for _ in range(500):
        pen = [[f"c{i}", rng.choice(colours + [None]), rng.randint(0, 6)]
               for i in range(rng.randint(0, 3))]
        pen = [[c, colour, 0 if colour is None else max(v, 1)] for c, colour, v in pen]
        colour, value = rng.choice(colours), rng.randint(1, 7)
        assert fits(pen, colour, value) == engine_fits([tuple(p) for p in pen], colour, value)


def test_it_extends_its_rows_and_keeps_lone_cards():
    state = position(4, hands=[["sheep-red-3#0", "sheep-violet-1#0"], [], [], []],
                     pens={(0, 0): [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2)]},
                     phase="redyk")
    policy = bot()
    assert ask(policy, state, 0) == "place sheep-red-3#0 0"
    state.apply(0, "place sheep-red-3#0 0")
    assert ask(policy, state, 0) == "done"  # a lone violet 1 waits for a partner


def test_it_shears_a_row_that_cannot_grow_and_waits_with_one_that_can():
    row = [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2), ("sheep-red-3#0", "red", 3)]
    state = position(4, hands=[["sheep-red-4#0"], [], [], []], pens={(0, 0): row})
    assert ask(bot(), state, 0) == "done"  # the red 4 is still to come
    state = position(4, hands=[["sheep-green-4#0"], [], [], []], pens={(0, 0): row})
    assert ask(bot(), state, 0) == "shear 0"


def test_it_sends_a_wolf_to_the_biggest_opponent_pen_and_answers_specials_aimed_at_it():
    big = [("sheep-violet-1#0", "violet", 1), ("sheep-violet-2#0", "violet", 2),
           ("sheep-violet-3#0", "violet", 3)]
    green = [("sheep-green-1#0", "green", 1), ("sheep-green-2#0", "green", 2),
             ("sheep-green-3#0", "green", 3)]
    state = position(4, hands=[["sheep-red-3#0"], [], ["wolf#0"], ["dog#0"]],
                     pens={(1, 1): big, (3, 0): green}, phase="redyk")
    state.apply(0, "place sheep-red-3#0 0")
    wolf = bot(seat=2)
    assert ask(wolf, state, 2) == "play wolf#0"
    state.apply(2, "play wolf#0")
    choice = ask(wolf, state, 2)
    assert choice in ("target 1 1", "target 3 0")
    state.apply(2, "target 3 0")
    assert ask(bot(seat=3), state, 3) == "play dog#0"  # the wolf is aimed at seat 3


def test_random_rate_one_is_uniform_and_out_of_range_is_refused():
    with pytest.raises(ValueError, match="random rate must be between 0 and 1"):
        WypasHeuristic(-0.1)
    state = position(4, hands=[["sheep-red-3#0", "sheep-violet-1#0", "sheep-green-2#0"],
                               [], [], []], phase="redyk")
    policy = bot(rate=1.0, seed=3)
    assert len({ask(policy, state, 0) for _ in range(100)}) == 4


def duel(games: int, rate: float, players: int = 4) -> float:
    """The bot's share of wins against random players, in process."""
    wins = 0.0
    for game in range(games):
        hero = game % players
        policy, rng = bot(hero, rate, game), random.Random(game)
        state = SPEC.new_state(parse_options({"players": players, "turn_cap": 30}), f"d{game}")
        while state.to_act():
            acting = state.to_act()
            seat = hero if hero in acting else acting[0]
            legal = state.legal_actions(seat)
            action = ask(policy, state, seat) if seat == hero else rng.choice(legal)
            state.apply(seat, action)
        result = state.result()
        assert result is not None
        if hero in result.winners:
            wins += 1 / len(result.winners)
    return wins / games


def test_it_clearly_beats_random_players_and_random_rate_weakens_it():
    strong, diluted = duel(8, 0.0), duel(8, 0.95)
    assert strong >= 0.75  # random play would win a quarter
    assert diluted < strong
