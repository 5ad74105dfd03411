"""Training environments on arena's own engines: a PettingZoo AEC environment per game
(:func:`env`) and a Gymnasium single-agent wrapper (:class:`SingleAgentEnv`) that seats one
learner against in-process bot policies.  Needs the optional extra ``envs`` (pettingzoo,
gymnasium); imports only the games (and the protocol's codec)."""

from __future__ import annotations

from arena.envs.aec import ArenaEnv, env
from arena.envs.encoding import GAME_CODECS, action_count
from arena.envs.single import RandomPolicy, SingleAgentEnv

__all__ = ["GAME_CODECS", "ArenaEnv", "RandomPolicy", "SingleAgentEnv", "action_count", "env"]
