"""The chochlik boss's own parts: its fast copy of the heuristic, its pass-aware sampler."""

from __future__ import annotations

import json
import random

from arena.games.chochlik import ChochlikOptions, ChochlikState, info
from protocol.codec import to_json
from reference_bots.boss.chochlik_rollout import heuristic_card
from reference_bots.chochlik_heuristic import ChochlikHeuristic


def test_the_rollouts_heuristic_chooses_as_the_heuristic_over_many_seeded_positions():
    heuristic = ChochlikHeuristic()
    heuristic.learn_cards(info(ChochlikOptions()))
    compared = differ_from_lowest = 0
    for seed in range(60):
        players = 3 + seed % 2
        rng = random.Random(seed)
        state = ChochlikState(ChochlikOptions(players, target=None, hands=2), f"fast{seed}")
        while not state.is_over():
            seat = min(state.to_act())
            legal = state.legal_actions(seat)
            if state.phase.value == "play":
                observation = json.loads(to_json(state.observe(seat)))
                cards = [int(token.split()[1]) for token in legal]
                expected = heuristic.play(observation, cards)
                assert heuristic_card(state, seat) == expected, (seed, observation)
                compared += 1
                differ_from_lowest += expected != min(cards)
            # half the cards the heuristic's (its kind of positions), half at random
            action = rng.choice(legal) if rng.random() < 0.5 else legal[0]
            state.apply(seat, action)
    assert compared > 1500 and differ_from_lowest > 300
