"""Do duplicate sets need fewer games than independent seating?  The variance of an A-vs-B
estimate under each, per game, over seeded replications.

    python benchmarks/studies/duplicate_variance.py [--replications 500] [--sets 1]
                                            [--games chochlik vollewolle wypas]
                                            [--b-random-rate 0.25] [--field heuristic|random]

For each game, tables of 3 of realistic bots: A is the game's reference bot (the heuristic),
B the same bot with ``--random-rate 0.25`` (a slightly weaker heuristic), the third seat the
heuristic again.  Until issue 30 the design was B at ``--random-rate 0.5`` and a random bot in
the third seat (``--b-random-rate 0.5 --field random``, the same seeds): bots that play at
random half the time, unlike those of a real event.  One replication plays
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
import enum
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from arena.events.schedule import plan
from arena.events.sprt import set_outcome
from reference_bots.chochlik_heuristic import ChochlikHeuristic
from reference_bots.random import RandomPolicy
from reference_bots.vollewolle_heuristic import VolleWolleHeuristic
from reference_bots.wypas_heuristic import WypasHeuristic

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/in_process.py
from in_process import play_game  # noqa: E402

HEURISTICS = {"chochlik": ChochlikHeuristic, "vollewolle": VolleWolleHeuristic,
              "wypas": WypasHeuristic}
PLAYERS = 3
#: B's ``--random-rate`` unless told (``--b-random-rate``): a weaker heuristic, still realistic.
B_RANDOM_RATE = 0.25
BOOTSTRAP = 2000


class Field(enum.Enum):
    """Who sits in the third seat (entrant 2)."""

    HEURISTIC = "heuristic"  # the game's reference bot at random rate 0, as A
    RANDOM = "random"  # a uniformly random bot (the design before issue 30)


def play(game: str, seed: str, policies: Sequence[Any]) -> tuple[int, ...]:
    """One game in process (in_process.py); the seats' ranks."""
    names = [f"p{i}" for i in range(len(policies))]
    return tuple(play_game(game, seed, policies, names).ranks)


@attrs.frozen
class Design:
    """The bots at a table: B's random rate and the third seat."""

    b_random_rate: float = B_RANDOM_RATE
    field: Field = Field.HEURISTIC


def bot(game: str, entrant: int, seed: str, design: Design) -> Any:
    """Entrant 0 is A, 1 is B (the heuristic at ``design.b_random_rate``), 2 the field;
    every one seeded."""
    if entrant == 2 and design.field is Field.RANDOM:
        return RandomPolicy(seed)
    return HEURISTICS[game](design.b_random_rate if entrant == 1 else 0.0, seed)


def replication(game: str, index: int, sets: int, duplicate: bool, design: Design) -> float:
    """A's mean pairwise result against B over one replication's games."""
    tables = plan(PLAYERS, PLAYERS, sets=sets if duplicate else sets * 6,
                  duplicate=duplicate, seed=f"{game} {index} {duplicate}")
    games = []
    for table in tables:
        policies = [bot(game, entrant, f"{game} {index} {duplicate} {table.index} {entrant}",
                        design) for entrant in table.entrants]
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
    parser.add_argument("--replications", type=int, default=500)
    parser.add_argument("--sets", type=int, default=1,
                        help="duplicate sets per replication (independent: 6 games each)")
    parser.add_argument("--games", nargs="+", default=list(HEURISTICS), choices=HEURISTICS)
    parser.add_argument("--b-random-rate", type=float, default=B_RANDOM_RATE,
                        help="B's --random-rate (0.5 with --field random: the old design)")
    parser.add_argument("--field", choices=[f.value for f in Field],
                        default=Field.HEURISTIC.value, help="who sits in the third seat")
    args = parser.parse_args()
    design = Design(args.b_random_rate, Field(args.field))
    games = args.sets * 6
    print(f"{args.replications} replications of {games} games, tables of 3: A = reference "
          f"bot, B = reference bot --random-rate {design.b_random_rate}, third seat "
          f"{design.field.value}; all seeded")
    for game in args.games:
        start, wall = time.process_time(), time.perf_counter()
        estimates = {duplicate: np.array([replication(game, r, args.sets, duplicate, design)
                                          for r in range(args.replications)])
                     for duplicate in (True, False)}
        ratio, low, high = variance_ratio(estimates[True], estimates[False])
        dup, ind = (estimates[d] for d in (True, False))
        print(f"{game:<10} A against B: duplicate mean {dup.mean():.3f}, variance per game "
              f"{games * dup.var(ddof=1):.4f}; independent mean {ind.mean():.3f}, variance "
              f"per game {games * ind.var(ddof=1):.4f}; ratio duplicate / independent "
              f"{ratio:.2f} (95 % interval {low:.2f} to {high:.2f}) "
              f"[{time.process_time() - start:.0f} s cpu, "
              f"{time.perf_counter() - wall:.0f} s wall]", flush=True)


if __name__ == "__main__":
    main()
