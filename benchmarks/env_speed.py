"""Environment steps per second for each game's PettingZoo AEC environment (arena.envs), with
the flat observation encoding and without it (``encode=False``: the mask only), random legal
actions, whole games.

    python benchmarks/env_speed.py [--seconds 3] [--rounds 3]

Each game alternates the two settings ``--rounds`` times, ``--seconds`` of process CPU time each,
and prints the median steps per second with the spread (min..max) and the ratio of the two:
side by side in one run, so the ratio holds on a loaded machine even when the rates do not.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from arena.envs import env

OPTIONS = {"chochlik": {}, "vollewolle": {"players": 3}, "wypas": {}}


def steps_per_second(game: str, encode: bool, seconds: float, seed: int) -> float:
    aec = env(game, OPTIONS[game], encode=encode)
    rng = np.random.default_rng(seed)
    steps, games = 0, 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        aec.reset(seed=seed + games)
        games += 1
        for _agent in aec.agent_iter():
            observation, _, done, _, _ = aec.last()
            if done:
                aec.step(None)
                continue
            aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
    return steps / (time.process_time() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="arena.envs steps per second")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", default="chochlik,vollewolle,wypas")
    args = parser.parse_args(argv)
    rows = []
    print(f"{'game':<11} {'encoded steps/s':>24} {'mask only steps/s':>24} {'ratio':>6}")
    for game in args.games.split(","):
        rates: dict[bool, list[float]] = {True: [], False: []}
        for round_ in range(args.rounds):
            for encode in (True, False):
                rates[encode].append(steps_per_second(game, encode, args.seconds, round_))
        with_, without = (statistics.median(rates[True]), statistics.median(rates[False]))
        spread = {k: f"{min(v):.0f}..{max(v):.0f}" for k, v in rates.items()}
        print(f"{game:<11} {with_:>8.0f} ({spread[True]:>13}) {without:>8.0f} "
              f"({spread[False]:>13}) {without / with_:>6.2f}")
        rows.append({"game": game, "encoded": with_, "mask_only": without,
                     "encoded_spread": spread[True], "mask_only_spread": spread[False]})
    print("SUMMARY " + json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
