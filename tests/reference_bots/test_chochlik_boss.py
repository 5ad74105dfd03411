"""The chochlik boss's own parts: its fast copy of the heuristic, its pass-aware sampler."""

from __future__ import annotations

import json
import random

from arena.games import GAMES
from arena.games.chance import RelabelledChance, SeededChance
from arena.games.chochlik import ChochlikOptions, ChochlikState, info
from protocol.codec import to_json
from reference_bots.boss.chochlik import ChochlikBoss, WorldSampler, tricks_and_voids
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


# -- the passes: worlds where the others passed as the heuristic does -------------------------


def heuristic_game(seed: int, hands: int = 1, passing: str = "heuristic"):
    """(state, seat, observation, legal) at every play decision of a three-player game the
    heuristic plays (``passing="highest"``: every seat passes its three highest cards)."""
    heuristic = ChochlikHeuristic()
    heuristic.learn_cards(info(ChochlikOptions()))
    state = ChochlikState(ChochlikOptions(3, target=None, hands=hands), f"passes{seed}")
    while not state.is_over():
        seat = min(state.to_act())
        observation = json.loads(to_json(state.observe(seat)))
        legal = state.legal_actions(seat)
        if state.phase.value == "play":
            yield state, seat, observation, legal
            action = heuristic.choose({"observation": observation, "legal": legal})
        else:
            action = legal[0] if passing == "heuristic" else legal[-1]
        state.apply(seat, action)


def originals(world: ChochlikState, seat: int) -> list[int]:
    """A seat's hand before the passes, in a world: what it holds, played and passed, less
    what it received."""
    n = world.n
    held = set(world.hands[seat]) | set(world.pass_choice[seat]) | played_by(world, seat)
    received = {world.pass_choice[(seat + 1) % n][2], world.pass_choice[(seat - 1) % n][1]}
    return sorted(held - received)


def played_by(world: ChochlikState, seat: int) -> set[int]:
    observation = json.loads(to_json(world.observe(seat)))
    return tricks_and_voids(observation)[2][seat]


def test_pass_model_worlds_look_the_same_and_the_others_passed_as_the_heuristic():
    checked = 0
    for seed in range(4):
        for state, seat, observation, legal in heuristic_game(seed):
            sampler = WorldSampler(observation, state.options)
            assert sampler.model is not None  # heuristic passes always fit
            left, right = (seat + 1) % 3, (seat - 1) % 3
            real = (state.pass_choice[left][1], state.pass_choice[right][2],
                    state.pass_choice[left][0], state.pass_choice[right][0])
            assert real in sampler.model.tuples  # the real deal is one the model allows
            rng = random.Random(seed)
            for _ in range(3):
                world = sampler(rng)
                assert json.loads(to_json(world.observe(seat))) == observation
                assert world.legal_actions(seat) == legal
                for other in (left, right):  # each passed its three lowest, in order
                    assert originals(world, other)[:3] == world.pass_choice[other]
                checked += 1
    assert checked > 300


def test_passes_the_heuristic_would_not_make_get_the_plain_sampler():
    checked = 0
    for state, seat, observation, legal in heuristic_game(5, passing="highest"):
        sampler = WorldSampler(observation, state.options)
        assert sampler.model is None
        world = sampler(random.Random(1))
        assert json.loads(to_json(world.observe(seat))) == observation
        assert world.legal_actions(seat) == legal
        checked += 1
    assert checked > 20


def test_the_pass_model_choice_is_the_same_whatever_the_seat_has_not_seen():
    spec = GAMES["chochlik"]
    me, cut_state = 1, None
    actions: list[tuple[int, str]] = []
    heuristic = ChochlikHeuristic()
    heuristic.learn_cards(info(ChochlikOptions()))
    state = spec.new_state(ChochlikOptions(3, target=None, hands=1), "same", record_events=True)
    while cut_state is None:
        seat = min(state.to_act())
        legal = state.legal_actions(seat)
        if seat == me and state.phase.value == "play" and len(state.played) > 9 and len(legal) > 1:
            cut_state = state
            break
        observation = json.loads(to_json(state.observe(seat)))
        action = heuristic.choose({"observation": observation, "legal": legal})
        actions.append((seat, action))
        state.apply(seat, action)
    sigma, script = spec.other_world(cut_state, me, actions, random.Random(3))
    other = spec.new_state(cut_state.options, "same", record_events=True,
                           chance=RelabelledChance(SeededChance("same"), sigma))
    for seat, action in script:
        other.apply(seat, action)
    assert [other.hands[s] for s in (0, 2)] != [cut_state.hands[s] for s in (0, 2)]
    choices = []
    for world in (cut_state, other):
        observation = json.loads(to_json(world.observe(me)))
        assert WorldSampler(observation, world.options).model is not None
        request = {"observation": observation, "legal": world.legal_actions(me)}
        choices.append(ChochlikBoss(iterations=16, seed=7).choose(request))
    assert choices[0] == choices[1] and choices[0] in cut_state.legal_actions(me)
