"""How long one ladder seating decision takes with many bots waiting (issue 20: within 10 ms at
1,000 waiting bots).

    python benchmarks/ladder_seating.py [--waiting 1000] [--players 2] [--decisions 300]

``--waiting`` bots wait (their ratings learnt from 20 simulated games each, so the estimates
are spread and most bots are not provisional); the pool is the whole queue, so each decision
is the call that makes exactly one table from ``--waiting`` bots: the seated bots come back
at once and the next call decides again.  Every ``distant_every``-th table is a distant one,
so the times cover every kind.  Prints the median, the 99th percentile and the worst decision
in milliseconds, over ``--rounds`` rounds (the spread), by the wall clock and by the thread's
CPU time (a loaded machine's wall clock counts other processes' turns too), and a SUMMARY
line.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from arena.edge.server import tune_garbage_collector
from arena.events.live_rating import LiveRating
from arena.gameplay.records import GameRecord
from arena.seating.ladder import LadderSeating


def decisions(waiting: int, players: int, count: int, seed: int
              ) -> tuple[list[float], list[float]]:
    """Seconds per decision, ``count`` decisions with ``waiting`` bots waiting: the wall
    clock's and the thread's CPU time (on a loaded machine the wall clock also counts the time
    other processes had the core)."""
    rng = random.Random(seed)
    names = [f"bot{i}" for i in range(waiting)]
    strength = {name: rng.gauss(1500, 300) for name in names}
    view = LiveRating(players)  # the ladder's (openskill)
    for number in range(20 * waiting // players):
        table = rng.sample(names, players)
        order = sorted(table, key=lambda n: -strength[n] - rng.gauss(0, 200))
        ranks = tuple(order.index(n) + 1 for n in table)
        view.add(GameRecord(number=number, game_id=str(number), entrants=(None,) * players,
                            names=tuple(table), seed="s", scores=ranks, ranks=ranks,
                            winners=(0,), aborted=None, defaults=(0,) * players,
                            errors=(0,) * players, rounds=1, log_path=None, seconds=0.0))
    seating = LadderSeating(players, view, seed="bench", pool=waiting, settle=0.0,
                            duplicate=False)
    seating.running = waiting  # many tables playing: the pool can fill, so the queue waits
    tune_garbage_collector()  # as arena serve does
    now = 0.0
    for name in names[:-1]:
        assert seating.ready(name, now) == []
    comeback = [names[-1]]
    times, cpu = [], []
    for _ in range(count):
        now += 0.001
        for name in comeback[:-1]:
            assert seating.ready(name, now) == []
        started, started_cpu = time.perf_counter(), time.thread_time()
        tables = seating.ready(comeback[-1], now)  # the call that makes a table
        times.append(time.perf_counter() - started)
        cpu.append(time.thread_time() - started_cpu)
        assert len(tables) == 1, len(tables)
        comeback = list(tables[0].sessions)
    return times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waiting", type=int, default=1000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for clock in ("wall", "cpu"):
        medians, p99s, worsts = [], [], []
        for round_ in range(args.rounds):
            wall, cpu = decisions(args.waiting, args.players, args.decisions, round_)
            times = sorted(t * 1000 for t in (wall if clock == "wall" else cpu))
            medians.append(statistics.median(times))
            p99s.append(times[min(len(times) - 1, int(0.99 * len(times)))])
            worsts.append(times[-1])
            print(f"{clock} round {round_ + 1}: median {medians[-1]:.2f} ms, p99 "
                  f"{p99s[-1]:.2f} ms, worst {worsts[-1]:.2f} ms ({args.waiting} waiting, "
                  f"{args.players} players)")
        print(f"{clock}: median over rounds {statistics.median(medians):.2f} ms "
              f"(rounds {min(medians):.2f}-{max(medians):.2f}); p99 "
              f"{statistics.median(p99s):.2f} ms (rounds {min(p99s):.2f}-{max(p99s):.2f}); "
              f"worst {max(worsts):.2f} ms; goal: 10 ms")
        rows.append({"name": f"ladder seating: decision at {args.waiting} waiting ({clock})",
                     "unit": "ms", "value": statistics.median(p99s),
                     "median": statistics.median(medians), "min": min(p99s),
                     "max": max(p99s), "target": 10.0, "goal": "P4"})
    print("SUMMARY " + json.dumps(rows))


if __name__ == "__main__":
    main()
