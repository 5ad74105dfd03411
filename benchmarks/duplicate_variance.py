"""Do duplicate sets need fewer games than independent seating?  The variance of an A-vs-B
estimate under each, per game, over seeded replications.

    python benchmarks/duplicate_variance.py [--replications 200] [--sets 1]
                                            [--games chochlik vollewolle wypas]

For each game, tables of 3: A is the game's reference bot, B the same bot with
``--random-rate 0.5`` (random-ish), the third seat a random bot.  One replication plays
``--sets`` duplicate sets (one deal in all 6 seatings of the table) or, independently, as many
games each with its own deal and the seating that evens out seats
(``arena.events.schedule.plan`` either way, the replication's own event seed).  The estimate
is A's mean pairwise result against B over the replication's games (1 when A ranks better, 1/2
equal), as ``arena sprt`` scores a set.  **Every bot is seeded**: its policy's generator is
seeded by (game, replication, table, entrant), so a replication is reproducible and the only
randomness left is the deal's and the bots' own, both fixed by the seeds.  Games are played in
this process through the pure engine and ``arena.gameplay.driver.MatchDriver`` (the bots get
the very protocol messages they would over TCP), not over sockets.

Printed per game: each seating's variance of the estimate over the replications (times the
games of a replication: the variance per game), and the ratio duplicate / independent with a
95 % bootstrap interval (replications resampled 2,000 times).  Below 1: duplicate sets need
fewer games for the same precision (by that factor).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from in_process import play_game  # benchmarks/in_process.py

from arena.events.schedule import plan
from arena.events.sprt import set_outcome
from reference_bots.chochlik_heuristic import ChochlikHeuristic
from reference_bots.random import RandomPolicy
from reference_bots.vollewolle_heuristic import VolleWolleHeuristic
from reference_bots.wypas_heuristic import WypasHeuristic

HEURISTICS = {"chochlik": ChochlikHeuristic, "vollewolle": VolleWolleHeuristic,
              "wypas": WypasHeuristic}
PLAYERS = 3
B_RANDOM_RATE = 0.5
BOOTSTRAP = 2000


def play(game: str, seed: str, policies: Sequence[Any]) -> tuple[int, ...]:
    """One game in process (in_process.py); the seats' ranks."""
    names = [f"p{i}" for i in range(len(policies))]
    return tuple(play_game(game, seed, policies, names).ranks)


def bot(game: str, entrant: int, seed: str) -> Any:
    """Entrant 0 is A, 1 is B (random-ish), 2 the random field; seeded."""
    if entrant == 2:
        return RandomPolicy(seed)
    return HEURISTICS[game](0.0 if entrant == 0 else B_RANDOM_RATE, seed)


def replication(game: str, index: int, sets: int, duplicate: bool) -> float:
    """A's mean pairwise result against B over one replication's games."""
    tables = plan(PLAYERS, PLAYERS, sets=sets if duplicate else sets * 6,
                  duplicate=duplicate, seed=f"{game} {index} {duplicate}")
    games = []
    for table in tables:
        policies = [bot(game, entrant, f"{game} {index} {duplicate} {table.index} {entrant}")
                    for entrant in table.entrants]
        games.append((table.entrants, play(game, table.seed, policies)))
    return set_outcome(games)


def variance_ratio(duplicate: np.ndarray, independent: np.ndarray,
                   seed: int = 0) -> tuple[float, float, float]:
    """var(duplicate) / var(independent) and its percentile bootstrap 95 % interval."""
    rng = np.random.default_rng(seed)
    ratio = duplicate.var(ddof=1) / independent.var(ddof=1)
    with np.errstate(divide="ignore"):  # a resample of identical estimates: infinite
        draws = [duplicate[rng.integers(0, len(duplicate), len(duplicate))].var(ddof=1)
                 / independent[rng.integers(0, len(independent), len(independent))].var(ddof=1)
                 for _ in range(BOOTSTRAP)]
    low, high = np.quantile(draws, [0.025, 0.975])
    return float(ratio), float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--sets", type=int, default=1,
                        help="duplicate sets per replication (independent: 6 games each)")
    parser.add_argument("--games", nargs="+", default=list(HEURISTICS), choices=HEURISTICS)
    args = parser.parse_args()
    games = args.sets * 6
    print(f"{args.replications} replications of {games} games, tables of 3: A = reference "
          f"bot, B = reference bot --random-rate {B_RANDOM_RATE}, third seat random; all seeded")
    for game in args.games:
        start = time.process_time()
        estimates = {duplicate: np.array([replication(game, r, args.sets, duplicate)
                                          for r in range(args.replications)])
                     for duplicate in (True, False)}
        ratio, low, high = variance_ratio(estimates[True], estimates[False])
        dup, ind = (estimates[d] for d in (True, False))
        print(f"{game:<10} A against B: duplicate mean {dup.mean():.3f}, variance per game "
              f"{games * dup.var(ddof=1):.4f}; independent mean {ind.mean():.3f}, variance "
              f"per game {games * ind.var(ddof=1):.4f}; ratio duplicate / independent "
              f"{ratio:.2f} (95 % interval {low:.2f} to {high:.2f}) "
              f"[{time.process_time() - start:.0f} s cpu]", flush=True)


if __name__ == "__main__":
    main()
