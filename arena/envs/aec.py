"""A PettingZoo AEC environment for any arena game, on the game's own pure engine.

Agents are ``player_0`` .. ``player_{n-1}`` (seats).  ``observe(agent)`` is a dict:
``observation``, the flat float32 encoding of the seat's protocol observation
(:mod:`arena.envs.encoding`), and ``action_mask``, 1 for each index of the game's fixed action
space that is legal now (all 0 for a seat that is not asked).  The seat's protocol observation
itself (the dict a bot receives) and its legal tokens are in ``infos[agent]``: only that seat's.
Rewards come at the end, from the result's ranks: +1 for first, -1 for last, evenly between
(ties share their rank).  Chance is the seed: ``reset(seed=s)`` deals as the arena deals game
seed ``str(s)``; without a seed, a fresh one is drawn.

Several seats may decide at once (simultaneous secret decisions): the AEC order takes them one
by one, lowest seat first; a seat's observation never shows another's choice before the game
reveals it, as over the protocol.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.envs.encoding import action_count, codec
from arena.games import GAMES
from protocol.codec import to_json


def as_json(value: Any) -> Any:
    """A value as a bot receives it (attrs values and tuples as JSON objects and lists)."""
    return json.loads(to_json(value))


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """One arena game as an AEC environment (see the module's text)."""

    metadata = {"render_modes": [], "is_parallelizable": False}

    def __init__(self, game: str, options: dict[str, Any] | None = None, *,
                 encode: bool = True) -> None:
        super().__init__()
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r} (one of {', '.join(sorted(GAMES))})")
        self.spec = GAMES[game]
        self.game = game
        self.options = self.spec.parse_options(options or {})
        self.metadata = {**self.metadata, "name": f"arena_{game}_v0"}
        self.tokens, self.encoder = codec(game)
        self.index = None if self.tokens is None else {t: i for i, t in enumerate(self.tokens)}
        self.encode = encode
        players = self.options.players
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        size = len(self.encoder(as_json(self.spec.new_state(self.options, 0).observe(0))))
        self.size = size
        actions = self.actions = action_count(game)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        })
        self._action_space = spaces.Discrete(actions)
        self.state: Any = None
        self.agent_selection: str = self.possible_agents[0]
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # -- the game --

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            game_seed = str(seed)
        else:
            game_seed = str(int(self._rng.integers(2**62)))
        self.game_seed = game_seed
        self.state = self.spec.new_state(self.options, game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def legal(self, agent: str) -> list[str]:
        return list(self.state.legal_actions(self.seat_of[agent]))

    def mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.actions, dtype=np.int8)
        legal = self.legal(agent)
        if self.index is None:
            mask[:len(legal)] = 1
        else:
            mask[[self.index[token] for token in legal]] = 1
        return mask

    def token(self, agent: str, action: int) -> str:
        """The token of action index ``action`` for ``agent`` now."""
        legal = self.legal(agent)
        if self.tokens is None:
            if not 0 <= action < len(legal):
                raise ValueError(f"action {action} is not legal (0..{len(legal) - 1})")
            return legal[action]
        token = self.tokens[action]
        if token not in legal:
            raise ValueError(f"action {action} ({token!r}) is not legal now")
        return token

    def protocol_observation(self, agent: str) -> dict[str, Any]:
        """The seat's observation as a bot receives it (a dict)."""
        return as_json(self.state.observe(self.seat_of[agent]))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.encode:
            vector = self.encoder(self.protocol_observation(agent))
        else:
            vector = np.zeros(self.size, np.float32)
        return {"observation": vector, "action_mask": self.mask(agent)}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.state.apply(self.seat_of[agent], self.token(agent, int(action)))
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_over():
            result = self.state.result()
            n = len(self.agents)
            for a in self.agents:
                rank = result.ranks[self.seat_of[a]]
                self.rewards[a] = 1.0 - 2.0 * (rank - 1) / (n - 1)
                self.terminations[a] = True
            self.infos = {a: {"result": {"scores": list(result.scores),
                                         "ranks": list(result.ranks)}} for a in self.agents}
            self.agent_selection = self.agents[0]
        else:
            self._select()
        self._accumulate_rewards()

    def _select(self) -> None:
        """The next agent to act (lowest seat first), with its protocol view in its infos."""
        seat = min(self.state.to_act())
        self.agent_selection = self.possible_agents[seat]
        for agent in self.agents:
            self.infos[agent] = {}
        agent = self.agent_selection
        if self.encode:
            self.infos[agent] = {"observation": self.protocol_observation(agent),
                                 "legal": self.legal(agent)}

    def render(self) -> None:
        return None

    def close(self) -> None:
        return None


def env(game: str, options: dict[str, Any] | None = None, *, encode: bool = True) -> ArenaEnv:
    """The AEC environment of ``game`` (with the game's options, as ``arena games`` lists)."""
    return ArenaEnv(game, options, encode=encode)
