"""Tune the linear vollewolle bid (policy.py) by the cross-entropy method, in process, with
arena's Gymnasium wrapper (arena.envs.SingleAgentEnv) against two reference heuristics, then
save the weights for bot.py.

    python examples/vollewolle_bids/train.py [--generations 3] [--population 8] [--games 8]
        [--out examples/vollewolle_bids/weights.json]

Each generation draws ``population`` weight vectors around the current mean, plays each on the
same ``games`` seeded deals (the learner's seat rotating), keeps the best quarter and moves the
mean and spread to them.  A game's reward is +1 first .. -1 last.  About four minutes with the
defaults on one free core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from policy import FEATURES, LinearBidder  # noqa: E402

from arena.envs import SingleAgentEnv  # noqa: E402
from reference_bots.vollewolle_heuristic import VolleWolleHeuristic  # noqa: E402


def play(env: SingleAgentEnv, weights: list[float], seed: int) -> float:
    """One game of the learner with these weights; its reward."""
    bot = LinearBidder(weights, seed)
    _, info = env.reset(seed=seed)
    bot.on_message(info["game_start"])
    while True:
        for message in info["events"]:
            bot.on_message(message)
        token = bot.choose({"observation": info["observation"], "legal": info["legal"]})
        _, reward, done, _, info = env.step(env.aec.index[token])
        if done:
            return float(reward)


def fitness(weights: list[float], games: int, players: int) -> float:
    rewards = []
    for game in range(games):
        env = SingleAgentEnv("vollewolle", {"players": players}, seat=game % players,
                             opponents=lambda seat: VolleWolleHeuristic(0.0, seat))
        rewards.append(play(env, weights, 1000 + game))
    return float(np.mean(rewards))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="tune a linear vollewolle bid (CEM)")
    parser.add_argument("--generations", type=int, default=3)
    parser.add_argument("--population", type=int, default=8)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=HERE / "weights.json")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    mean = np.array([9.0, 0, 0, 0, 0, 0])  # a bid of 23: the heuristics bid 20 to 26+
    spread = np.array([2.5, 0.5, 1.0, 0.5, 0.3, 0.5])
    started = time.monotonic()
    best = (fitness(list(mean), args.games, args.players), list(mean))
    print(f"start: mean reward {best[0]:+.2f} with weights {np.round(mean, 2).tolist()}")
    for generation in range(args.generations):
        candidates = [mean + spread * rng.standard_normal(len(mean))
                      for _ in range(args.population)]
        scored = sorted(((fitness(list(c), args.games, args.players), list(c))
                         for c in candidates), key=lambda pair: -pair[0])
        elite = np.array([weights for _, weights in scored[:max(2, args.population // 4)]])
        mean, spread = elite.mean(axis=0), elite.std(axis=0) + 0.05
        if scored[0][0] > best[0]:
            best = scored[0]
        print(f"generation {generation + 1}: best {scored[0][0]:+.2f}, elite mean "
              f"{np.round(mean, 2).tolist()} ({time.monotonic() - started:.0f} s)", flush=True)
    args.out.write_text(json.dumps({"features": FEATURES, "weights": best[1],
                                    "mean_reward": best[0], "games": args.games}, indent=1))
    print(f"saved {args.out}: mean reward {best[0]:+.2f} over {args.games} games "
          f"(weights {np.round(best[1], 2).tolist()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
