"""The vollewolle boss's fast heuristic makes the reference heuristic's choices, faster."""

from __future__ import annotations

import json
import random

from arena.games import GAMES
from protocol.codec import to_json
from reference_bots.boss.vollewolle_fast import FastHeuristic, batched_expect
from reference_bots.vollewolle_heuristic import RollPlan, VolleWolleHeuristic


def test_the_batched_turn_values_are_the_exact_ones():
    rng = random.Random(3)
    bids = list(range(14, 27))
    for _ in range(6):
        hauls = {1: rng.uniform(-5, 10), 2: rng.uniform(-5, 15), 3: rng.uniform(-5, 20)}
        black, modifier = rng.choice([0.0, rng.uniform(-10, 0)]), rng.randint(-3, 2)
        wools = [max(rng.randint(0, 4) - (bid == 26), 0) for bid in bids]
        found = batched_expect((12, 10, 8), bids, modifier, wools, hauls, black)
        for i, bid in enumerate(bids):
            exact = RollPlan((12, 10, 8), bid, modifier, wools[i], hauls, black).expect()
            assert abs(found[i] - exact) < 1e-9


def test_the_fast_heuristic_chooses_what_the_heuristic_chooses():
    spec = GAMES["vollewolle"]
    decisions = set()
    for game, players in enumerate((3, 2, 4)):
        state = spec.new_state(spec.parse_options({"players": players}), f"fast{game}",
                               record_events=True)
        info = json.loads(to_json(spec.info(state.options)))
        pairs = [(VolleWolleHeuristic(0.0, 1), FastHeuristic(0.0, 1)) for _ in range(players)]
        for seat, pair in enumerate(pairs):
            for bot in pair:
                bot.on_message({"type": "game_start", "seat": seat, "info": info,
                                "options": {"players": players}})
        rng = random.Random(game)
        while not state.is_over():
            for event in state.take_events():
                message = {"type": "event", "kind": event.kind,
                           "data": json.loads(to_json(dict(event.data)))}
                for bot in (bot for pair in pairs for bot in pair):
                    bot.on_message(message)
            seat = min(state.to_act())
            request = {"observation": json.loads(to_json(state.observe(seat))),
                       "legal": state.legal_actions(seat)}
            plain, fast = (bot.choose(request) for bot in pairs[seat])
            assert plain == fast, request
            decisions.add(request["observation"]["decision"])
            # off the heuristic's path now and then, for positions it would not reach
            state.apply(seat, plain if rng.random() < 0.8 else rng.choice(request["legal"]))
    assert {"bid", "keep", "reach", "take", "roll_or_take"} <= decisions
