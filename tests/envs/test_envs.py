"""The training environments: PettingZoo's own tests, the single-agent wrapper, and the hidden
information property (an agent's observation is the same in two worlds that differ only in what
its seat cannot know)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from arena.envs import ArenaEnv, SingleAgentEnv, env
from arena.games import GAMES
from arena.games.chance import RelabelledChance, SeededChance

#: Every registered game with an encoding, short, at a table of 3 (or the nearest size).
SHORT = {name: {**spec.short_game, "players": min(max(3, spec.min_players), spec.max_players)}
         for name, spec in GAMES.items() if spec.encoding is not None}


@pytest.mark.parametrize("game", sorted(SHORT))
def test_pettingzoo_api_and_seed_tests_pass(game):
    api_test(env(game, SHORT[game]), num_cycles=60)
    seed_test(lambda: env(game, SHORT[game]), num_cycles=60)


@pytest.mark.parametrize("game", sorted(SHORT))
def test_a_seeded_game_deals_as_the_arena_and_ends_with_rank_rewards(game):
    first = env(game, SHORT[game])
    first.reset(seed=5)
    assert first.protocol_observation("player_0") == env_view(game, "5", 0)
    rng = np.random.default_rng(0)
    final = {}
    for agent in first.agent_iter():
        observation, reward, done, _, info = first.last()
        if done:
            final[agent] = reward
            first.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) == len(info["legal"])  # the mask is the legal list
        first.step(int(rng.choice(legal)))
    ranks = first.state.result().ranks
    n = len(ranks)
    assert final == {f"player_{s}": 1 - 2 * (ranks[s] - 1) / (n - 1) for s in range(n)}


def env_view(game, seed, seat):
    spec = GAMES[game]
    from arena.envs.aec import as_json
    return as_json(spec.new_state(spec.parse_options(SHORT[game]), seed).observe(seat))


def test_an_illegal_index_is_refused_with_a_clear_error():
    aec = env("chochlik", SHORT["chochlik"])
    aec.reset(seed=1)
    illegal = int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="is not legal now"):
        aec.step(illegal)


class FirstLegal:
    def __init__(self):
        self.messages = []

    def choose(self, request):
        return request["legal"][0]

    def on_message(self, message):
        self.messages.append(message["type"])


def test_the_single_agent_wrapper_seats_a_learner_against_policies():
    opponents = [FirstLegal(), FirstLegal()]
    single = SingleAgentEnv("chochlik", SHORT["chochlik"], opponents=opponents, seat=1)
    observation, info = single.reset(seed=3)
    assert info["observation"]["seat"] == 1
    done, steps = False, 0
    while not done:
        action = int(np.flatnonzero(observation["action_mask"])[-1])
        observation, reward, done, _, info = single.step(action)
        steps += 1
    assert reward == 1 - (info["result"]["ranks"][1] - 1)
    assert steps == 14  # 3 passes and 11 tricks (12 cards, 3 passed, 2 received)
    assert all(o.messages[0] == "game_start" and o.messages[-1] == "game_end"
               and "event" in o.messages for o in opponents)


def worlds(game, seed, cut_share, seat):
    """Two environments at the same point: the real game, and one that differs only in what
    ``seat`` cannot know (GameSpec.other_world)."""
    spec = GAMES[game]
    real = env(game, SHORT[game])
    real.reset(seed=seed)
    rng, actions = random.Random(seed), []
    total = int(cut_share * 60)
    while len(actions) < total and not real.state.is_over():
        acting = min(real.state.to_act())
        action = rng.choice(real.state.legal_actions(acting))
        actions.append((acting, action))
        real.state.apply(acting, action)
    sigma, script = spec.other_world(real.state, seat, actions, random.Random(seed))
    other = env(game, SHORT[game])
    other.reset(seed=seed)
    other.state = spec.new_state(other.options, str(seed),
                                 chance=RelabelledChance(SeededChance(str(seed)), sigma))
    for acting, action in script:
        other.state.apply(acting, action)
    return real, other


def seen_by(aec: ArenaEnv, agent: str):
    observed = aec.observe(agent)
    return (observed["observation"].tolist(), observed["action_mask"].tolist(),
            aec.protocol_observation(agent), aec.legal(agent))


#: This test replays the other world's actions straight on the state, as the environment steps
#: it; a game with reaction windows needs the windows settled between them as the driver does
#: (tests/test_hidden_information.py, which covers every game at the protocol level).
@pytest.mark.parametrize("game", sorted(name for name in SHORT if not GAMES[name].reaction_windows))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), cut=st.floats(0, 1), seat=st.integers(0, 2))
def test_an_agent_sees_the_same_whatever_its_seat_cannot_know(game, seed, cut, seat):
    real, other = worlds(game, seed, cut, seat)
    assert seen_by(real, f"player_{seat}") == seen_by(other, f"player_{seat}")


def test_the_property_would_catch_another_seats_cards(monkeypatch):
    leaky = ArenaEnv.protocol_observation

    def telling(self, agent):
        return {**leaky(self, agent), "hands": [list(h) for h in self.state.hands]}

    monkeypatch.setattr(ArenaEnv, "protocol_observation", telling)
    real, other = worlds("chochlik", 11, 0.3, 0)
    assert seen_by(real, "player_0") != seen_by(other, "player_0")
