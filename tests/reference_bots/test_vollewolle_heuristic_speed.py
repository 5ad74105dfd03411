"""The vollewolle heuristic's fast bid calculation (issue 18 item 4) chooses exactly what the
bot chose before it: the bot as it was is kept beside this file as the oracle
(``vollewolle_heuristic_oracle.py``), and both answer the same requests, recorded from whole
games at every table size.  Speed is measured by benchmarks/vollewolle_heuristic_speed.py."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena.games.vollewolle import VolleWolleOptions, VolleWolleState, info
from protocol.codec import to_json
from reference_bots.vollewolle_heuristic import (
    RollPlan,
    VolleWolleHeuristic,
    best_choice,
    fast_expect,
)
from tests.reference_bots import vollewolle_heuristic_oracle as oracle


def ready(cls: Any, players: int, rate: float = 0.0, seed: int = 0) -> Any:
    policy = cls(rate, seed)
    policy.on_message({"type": "game_start", "seat": 0,
                       "info": info(VolleWolleOptions(players=players))})
    return policy


def recorded(players: int, game: int) -> list[tuple[dict[str, Any], list[int]]]:
    """Every request seat 0 gets in one game (the heuristic, one move in five random, against
    random players), with the opponents' bids it had counted by then."""
    policy, rng = ready(VolleWolleHeuristic, players, 0.2, game), random.Random(game)
    state = VolleWolleState(VolleWolleOptions(players=players), f"same:{players}:{game}",
                            record_events=True)
    requests = []
    while state.to_act():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        if seat == 0:
            request = {"legal": legal, "observation": json.loads(to_json(state.observe(0)))}
            requests.append((request, list(policy.bid_counts)))
            action = policy.choose(request)
        else:
            action = rng.choice(legal)
        state.apply(seat, action)
        for event in state.take_events():
            policy.on_message({"type": "event", "kind": event.kind,
                               "data": json.loads(to_json(event.data))})
    return requests


#: Bid requests of each game both bots answer, spread over the game (the oracle takes 0.2 to
#: 0.4 s a bid; every other request is compared).
BIDS_COMPARED = 6


@pytest.mark.parametrize("players,game", [(2, 1), (3, 2), (4, 3), (6, 4)])
def test_the_fast_bot_chooses_what_the_old_bot_chose(players, game):
    old, new = ready(oracle.VolleWolleHeuristic, players), ready(VolleWolleHeuristic, players)
    requests = recorded(players, game)
    decisions = {r["observation"]["decision"] for r, _ in requests}
    assert {"bid", "keep", "take"} <= decisions
    bids = [i for i, (r, _) in enumerate(requests) if r["observation"]["decision"] == "bid"]
    skipped = set(bids) - set(bids[::-(-len(bids) // BIDS_COMPARED)])  # the oracle's are slow
    differ = []
    for request, counts in (pair for i, pair in enumerate(requests) if i not in skipped):
        old.bid_counts, new.bid_counts = list(counts), list(counts)
        before, now = old.choose(request), new.choose(request)
        if before != now:
            differ.append((request["observation"]["decision"], before, now))
    assert not differ


def test_the_fast_bot_chooses_what_the_old_bot_chose_on_random_bid_requests():
    """Bids in made-up positions: any display, flocks with any top card, any wool."""
    rng = random.Random(7)
    old, new = ready(oracle.VolleWolleHeuristic, 3), ready(VolleWolleHeuristic, 3)
    cards = list(new.cards)
    sheep = [c for c in cards if new.cards[c]["kind"] not in ("dog", "bone")]
    for _ in range(12):
        wool = [rng.randint(0, 5) for _ in range(3)]
        display = rng.sample(cards, 4)
        flocks = [rng.sample([c for c in sheep if c not in display], rng.randint(0, 4))
                  for _ in range(3)]
        obs = {"seat": 0, "round": 4, "decision": "bid", "display": display,
               "deck_left": rng.randint(4, 40), "wool": wool, "flocks": flocks,
               "dogs": [rng.randint(0, 2) for _ in range(3)], "bone_holder": None,
               "sheep_numbers": rng.sample(range(1, 58), 3), "modifiers": [0, 0, 0],
               "start_player": 0, "bids": [None] * 3, "order": [], "turn": None,
               "attempt": None, "dice": None, "kept": [], "target": None, "reach_for": None,
               "wool_needed": None, "to_take": 0, "take_from": None}
        legal = [f"bid {v}" for v in range(14, 26)] + (["bid 26+"] if wool[0] else [])
        counts = [rng.randint(1, 6) for _ in range(13)]
        old.bid_counts, new.bid_counts = list(counts), list(counts)
        request = {"legal": legal, "observation": obs}
        assert old.choose(request) == new.choose(request)


def test_the_fast_calculation_is_the_exact_one_within_1e_9():
    rng = random.Random(3)
    for _ in range(150):
        args = ((12, 10, 8), rng.randint(14, 26), rng.choice([-3, -2, -1, 0, 1, 2]),
                rng.randint(0, 6), {n: rng.uniform(-15, 30) for n in (1, 2, 3)},
                rng.choice([0.0, rng.uniform(-12, 0)]))
        assert fast_expect(*args) == pytest.approx(RollPlan(*args).expect(), abs=1e-9)


def test_near_ties_are_weighed_exactly():
    calls = []

    def exact(token):
        calls.append(token)
        return {"a": 1.0, "b": 1.0, "c": 0.0}[token]

    fast = {"a": 1.0, "b": 1.0 + 1e-12, "c": 0.5}.get
    assert best_choice(["a", "b", "c"], fast, exact) == "a"  # the first of equals, as max()
    assert sorted(calls) == ["a", "b"]  # only the close ones are weighed again
    calls.clear()
    assert best_choice(["a", "c"], fast, exact) == "a" and calls == []  # no tie: no exact
