"""A Gymnasium single-agent environment: one learner at an arena table, the other seats played
in process by bot policies (the client library's interface: ``choose(request)`` and
``on_message(message)``, so a reference bot's or a boss's policy object plays unchanged).

The learner's seat is ``seat`` (None: a seat drawn per game); each opponent is given the
messages a connected bot would get (``game_start``, the events its seat may see, ``game_end``)
and a request ``{"observation", "legal"}`` per decision.  The learner's ``info`` carries the
same: ``game_start`` (after reset), ``events`` (those its seat saw since its last decision),
``observation`` and ``legal``, so that a client-library policy can be trained in process.
Observations and the action space are the AEC environment's (:mod:`arena.envs.aec`); the
reward is the learner's at the end (+1 first .. -1 last)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from arena.envs.aec import ArenaEnv, as_json


class RandomPolicy:
    """A uniformly random legal token (the default opponent)."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, request: dict[str, Any]) -> str:
        return str(self.rng.choice(request["legal"]))

    def on_message(self, message: dict[str, Any]) -> None:
        pass


class SingleAgentEnv(gymnasium.Env):  # type: ignore[misc]
    """One learner against in-process policies (see the module's text)."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, options: dict[str, Any] | None = None, *,
                 opponents: Sequence[Any] | Callable[[int], Any] | None = None,
                 seat: int | None = 0) -> None:
        self.aec = ArenaEnv(game, options)
        self.players = self.aec.options.players
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat must be 0..{self.players - 1}")
        self.seat = seat
        self.make_opponent = opponents
        self.observation_space = self.aec.observation_space("player_0")
        self.action_space = self.aec.action_space("player_0")
        self.me = 0
        self.policies: dict[int, Any] = {}
        self.mine: list[dict[str, Any]] = []  # the learner's events since its last decision
        self.state: Any = None

    def _opponents(self) -> dict[int, Any]:
        others = [s for s in range(self.players) if s != self.me]
        made = self.make_opponent
        if made is None:
            return {s: RandomPolicy(int(self.np_random.integers(2**31))) for s in others}
        if callable(made):
            return {s: made(s) for s in others}
        if len(made) != len(others):
            raise ValueError(f"{len(others)} opponents needed, {len(made)} given")
        return dict(zip(others, made))

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict]:
        super().reset(seed=seed)
        game_seed = str(seed) if seed is not None else str(int(self.np_random.integers(2**62)))
        self.me = self.seat if self.seat is not None else int(
            self.np_random.integers(self.players))
        spec, game_options = self.aec.spec, self.aec.options
        self.state = spec.new_state(game_options, game_seed, record_events=True)
        self.aec.state = self.state
        self.policies = self._opponents()
        start = {"type": "game_start", "game": spec.name, "options":
                 spec.options_to_dict(game_options), "info": as_json(spec.info(game_options)),
                 "names": [f"p{s}" for s in range(self.players)]}
        for seat, policy in self.policies.items():
            policy.on_message({**start, "seat": seat})
        self.mine = []
        observation, info = self._advance()
        return observation, {**info, "game_start": {**start, "seat": self.me}}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        agent = self.aec.possible_agents[self.me]
        self.state.apply(self.me, self.aec.token(agent, int(action)))
        observation, info = self._advance()
        if not self.state.is_over():
            return observation, 0.0, False, False, info
        ranks = self.state.result().ranks
        reward = 1.0 - 2.0 * (ranks[self.me] - 1) / (self.players - 1)
        return observation, reward, True, False, info

    def _advance(self) -> tuple[dict[str, np.ndarray], dict]:
        """Let the opponents play until the learner is asked or the game is over."""
        while True:
            self._send_events()
            acting = self.state.to_act()
            if not acting:
                result = self.state.result()
                for policy in self.policies.values():
                    policy.on_message({"type": "game_end", "result": as_json(result)})
                zeros: dict[str, np.ndarray] = {"observation": np.zeros(self.aec.size, np.float32),
                         "action_mask": np.zeros(self.aec.actions, np.int8)}
                return zeros, {"result": {"scores": list(result.scores),
                                          "ranks": list(result.ranks)}}
            if self.me in acting:
                agent = self.aec.possible_agents[self.me]
                events, self.mine = self.mine, []
                return self.aec.observe(agent), {
                    "observation": self.aec.protocol_observation(agent),
                    "legal": self.aec.legal(agent), "events": events}
            seat = min(acting)
            request = {"type": "request", "observation": as_json(self.state.observe(seat)),
                       "legal": list(self.state.legal_actions(seat))}
            self.state.apply(seat, self.policies[seat].choose(request))

    def _send_events(self) -> None:
        for event in self.state.take_events():
            message = {"type": "event", "kind": event.kind, "data": as_json(dict(event.data))}
            for seat, policy in self.policies.items():
                if event.visible_to(seat):
                    policy.on_message(message)
            if event.visible_to(self.me):
                self.mine.append(message)
