"""Time and peak memory of the leaderboard's ratings with intervals (issue 20, part 4).

    python benchmarks/ratings_speed.py [--repeats 3] [--sets 10000] [--old-path DIR]

Two events of random duplicate sets (each set: 3 to 6 bots drawn from the pool, one table
per cyclic rotation, ranks from each bot's fixed strength plus noise per table, ties
possible): 10 bots and 200 bots, ``--sets`` sets each.  For each, ``leaderboard()`` with 200
bootstrap resamples runs ``--repeats`` times, each in a fresh process (so that its peak
memory is its own), and the script prints the median and the range of

- wall: seconds of the ratings part alone, the path ``leaderboard()`` takes (the sets' wins,
  the fit, the resampled fits, the t intervals of ``arena.events.intervals`` and the rank
  confidence; until this round the script timed the percentile bootstrap the leaderboard no
  longer uses), and of the whole ``leaderboard()`` call (rows and per-bot game statistics
  too);
- cpu: the process's CPU seconds for the whole call (above wall: more than one thread ran);
- rss: the growth of the process's peak resident memory during the call (ru_maxrss after
  minus before, the event's games already built), and traced: tracemalloc's peak during one
  more call in its own process (numpy's arrays are traced too).

``--old-path DIR`` measures another checkout as well (e.g. ``git worktree add /tmp/old
6aa8bd6``), for 10 bots only: its pure-Python bootstrap of 200 bots x 10,000 sets takes about
an hour.  BLAS is pinned to one thread here (environment variables, set before numpy is
imported); the library pins it itself during the fit.  The last line says whether 200 bots
meet the goal, the call within 2 s and 500 MB in every run, by wall and by CPU seconds (on
a loaded machine the wall figure measures the load as well).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

HERE = Path(__file__).resolve().parent
RESAMPLES = 200
GOAL_S, GOAL_MB = 2.0, 500


def event(bots: int, sets: int, seed: int = 1) -> list:
    """Random duplicate sets as the storage gives them back (a GameRecord with its planned
    table; an older checkout's StoredGame)."""
    try:
        from arena.gameplay.records import GameRecord, PlannedTable

        def stored(number, set_index, rotation, seed, seated, points, ranks, zeros):
            return GameRecord(
                number=number, game_id="sim", entrants=seated, names=(), seed=seed,
                scores=points, ranks=ranks, winners=(), aborted=None, defaults=zeros,
                errors=zeros, rounds=1, log_path=None, seconds=0.0,
                tag=PlannedTable(number, set_index, rotation, seated, seed))
    except ImportError:  # before issue 19's one record type
        from arena.events.storage import StoredGame

        def stored(number, set_index, rotation, seed, seated, points, ranks, zeros):
            return StoredGame(number, set_index, rotation, seed, seated, points, ranks, None,
                              zeros, zeros, 1, "sim", None, 0.0)

    rng = random.Random(seed)
    strength = [rng.gauss(0, 1) for _ in range(bots)]
    games: list = []
    for set_index in range(sets):
        players = rng.sample(range(bots), rng.randint(3, min(6, bots)))
        for rotation in range(len(players)):
            seated = tuple(players[rotation:] + players[:rotation])
            points = [round(3 * (strength[p] + rng.gauss(0, 1))) for p in seated]
            ranks = tuple(1 + sum(x > mine for x in points) for mine in points)
            zeros = (0,) * len(seated)
            games.append(stored(len(games), set_index, rotation, f"s{set_index}", seated,
                                tuple(points), ranks, zeros))
    return games


def child(bots: int, sets: int, trace: bool) -> dict[str, float]:
    """One measurement, in this process: the arena on sys.path is the one measured."""
    from arena.events import leaderboard as board

    games = event(bots, sets)
    names = [f"bot{i}" for i in range(bots)]
    result: dict[str, float] = {}
    if trace:
        tracemalloc.start()
        board.leaderboard(names, games, resamples=RESAMPLES, seed=0)
        result["traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        return result
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, cpu = time.perf_counter(), time.process_time()
    board.leaderboard(names, games, resamples=RESAMPLES, seed=0)
    result["leaderboard_s"] = time.perf_counter() - wall
    result["cpu_s"] = time.process_time() - cpu
    result["rss_growth_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                               - before) / 1024
    if hasattr(board, "t_intervals"):  # this tree: the ratings part on its own too (after:
        # the peak memory above is the whole call's)
        result["ratings_s"] = ratings_part(board, games, bots)
    elif hasattr(board, "SetWins"):  # issue 20's first numpy tree: the percentile bootstrap
        from arena.events.ratings import TableResult, bootstrap, fit_strengths

        by_set: dict[int, list] = {}
        for game in games:
            by_set.setdefault(game.set_index, []).append(TableResult(game.entrants, game.ranks))
        start = time.perf_counter()
        wins = board.SetWins.of([by_set[s] for s in sorted(by_set)], bots)
        strengths = fit_strengths(wins.total())
        bootstrap(wins, strengths, resamples=RESAMPLES, seed=0)
        result["ratings_s"] = time.perf_counter() - start
    return result


def ratings_part(board, games: list, bots: int) -> float:
    """Seconds of the path ``leaderboard()`` takes for its ratings (one group: every bot meets
    every other through the sets): the sets' wins, the fit, the resampled fits, the t
    intervals (``arena.events.intervals``) and the rank confidence, as ``_group_rows`` calls
    them (the rows and per-bot statistics left out)."""
    from arena.events.ratings import TableResult

    by_set: dict[int, list] = {}
    for game in games:
        by_set.setdefault(game.set_index, []).append(TableResult(game.entrants, game.ranks))
    start = time.perf_counter()
    sets = board.SetWins.of([results for _, results in sorted(by_set.items())], bots)
    strengths = board.fit_strengths(sets.total())
    elo = board.to_elo(strengths, None)
    clusters = board.sets_per_entrant(sets).tolist()
    resampled = board.resampled_elo(sets, strengths, resamples=RESAMPLES, seed=0, anchor=None,
                                    tolerance=board.BOOTSTRAP_TOLERANCE)
    board.t_intervals(elo, resampled, clusters, level=board.LEVEL)
    board.rank_confidence(resampled, strengths, None)
    return time.perf_counter() - start


def measure(arena: Path, bots: int, sets: int, trace: bool) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(arena))
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(bots), "--sets", str(sets)]
        + (["--trace"] if trace else []), env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def spread(values: list[float], unit: str, digits: int = 2) -> str:
    return (f"{statistics.median(values):.{digits}f} {unit} "
            f"({min(values):.{digits}f}-{max(values):.{digits}f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sets", type=int, default=10_000)
    parser.add_argument("--old-path", help="another checkout of arena, measured for 10 bots")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.sets, args.trace)))
        return
    cases = [("this tree", HERE.parent, 10), ("this tree", HERE.parent, 200)]
    if args.old_path:
        cases.insert(0, (f"old ({args.old_path})", Path(args.old_path).resolve(), 10))
    print(f"leaderboard() with {RESAMPLES} resamples, {args.sets:,} random 3-6-player "
          f"duplicate sets; median (min-max) of {args.repeats} runs, each its own process")
    for label, arena, bots in cases:
        runs = [measure(arena, bots, args.sets, trace=False) for _ in range(args.repeats)]
        traced = measure(arena, bots, args.sets, trace=True)["traced_mb"]
        parts = [f"{label:>24}  {bots:>3} bots:"]
        if "ratings_s" in runs[0]:
            parts.append(f"ratings {spread([r['ratings_s'] for r in runs], 's')},")
        parts += [f"leaderboard {spread([r['leaderboard_s'] for r in runs], 's')},",
                  f"cpu {spread([r['cpu_s'] for r in runs], 's')},",
                  f"rss +{spread([r['rss_growth_mb'] for r in runs], 'MB', 0)},",
                  f"traced peak {traced:.0f} MB"]
        print(" ".join(parts), flush=True)
        if bots == 200 and label == "this tree":
            worst_mb = max(max(r["rss_growth_mb"] for r in runs), traced)
            for what, key in (("wall", "leaderboard_s"), ("CPU", "cpu_s")):
                worst_s = max(r[key] for r in runs)
                met = worst_s <= GOAL_S and worst_mb <= GOAL_MB
                print(f"{'':>24}  goal for 200 bots, at most {GOAL_S:g} s and {GOAL_MB} MB, "
                      f"by {what}: {'met' if met else 'NOT met'} (slowest run {worst_s:.2f} s, "
                      f"most memory {worst_mb:.0f} MB)", flush=True)
            print(f"{'':>24}  (wall counts the machine's other load: see the load average "
                  f"{os.getloadavg()[0]:.1f} now)", flush=True)


if __name__ == "__main__":
    main()
