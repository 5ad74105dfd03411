"""Updates per second of the live rating (openskill's Plackett-Luce, ``arena.events.live_rating``)
with 200 bots (issue 20, parts 1 and 4).

    python benchmarks/live_rating_speed.py [--bots 200] [--players 4] [--games 5000]
                                           [--windows 7]

A pool of ``--bots`` bots with fixed strengths; ``--games`` random tables of ``--players``
seats, ranks drawn from the strengths (ties possible), made before the clock starts.  In
alternating windows, the same games are fed one by one to a fresh ``LiveRating`` and to the
classic online Elo the progress line used before (``arena.events.ratings.online_update``),
side by side; the script prints each one's updates per second (median, min to max over the
windows: process CPU time) and the ratio, and the time of one ``ranking()`` of the pool.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.events.live_rating import LiveRating  # noqa: E402
from arena.events.ratings import ANCHOR_ELO, TableResult, online_update  # noqa: E402
from arena.gameplay.records import GameRecord  # noqa: E402


def tables(bots: int, players: int, games: int, seed: int = 1) -> list[GameRecord]:
    rng = random.Random(seed)
    strength = [rng.gauss(0.0, 1.0) for _ in range(bots)]
    made = []
    for number in range(games):
        seated = tuple(rng.sample(range(bots), players))
        points = [round(strength[e] + rng.gauss(0.0, 1.0), 1) for e in seated]
        ranks = tuple(1 + sum(other > mine for other in points) for mine in points)
        made.append(GameRecord(
            number=number, game_id="sim", entrants=seated,
            names=tuple(f"bot{e}" for e in seated), seed="s", scores=ranks, ranks=ranks,
            winners=(), aborted=None, defaults=(0,) * players, errors=(0,) * players,
            rounds=1, log_path=None, seconds=0.0))
    return made


def live_rate(games: list[GameRecord], players: int) -> float:
    live = LiveRating(players)
    started = time.process_time()
    for game in games:
        live.add(game)
    return len(games) / (time.process_time() - started)


def elo_rate(games: list[GameRecord], bots: int) -> float:
    elo = [ANCHOR_ELO] * bots
    results = [TableResult(tuple(e for e in g.entrants if e is not None), g.ranks)
               for g in games]
    started = time.process_time()
    for result in results:
        online_update(elo, result)
    return len(games) / (time.process_time() - started)


def spread(values: list[float]) -> str:
    return (f"{statistics.median(values):,.0f} (min {min(values):,.0f}, "
            f"max {max(values):,.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--windows", type=int, default=7)
    args = parser.parse_args()
    games = tables(args.bots, args.players, args.games)
    live, classic, ratios = [], [], []
    for _ in range(args.windows):
        live.append(live_rate(games, args.players))
        classic.append(elo_rate(games, args.bots))
        ratios.append(live[-1] / classic[-1])
    pool = LiveRating(args.players)
    for game in games:
        pool.add(game)
    started = time.process_time()
    for _ in range(20):
        pool.ranking()
    ranking_ms = (time.process_time() - started) / 20 * 1000
    print(f"{args.bots} bots, tables of {args.players}, {args.games} games, "
          f"{args.windows} alternating windows (process CPU time)")
    print(f"live rating (openskill Plackett-Luce): {spread(live)} updates/s")
    print(f"classic online Elo (before):           {spread(classic)} updates/s")
    print(f"ratio live / classic: {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    print(f"ranking() of {args.bots} bots: {ranking_ms:.2f} ms")


if __name__ == "__main__":
    main()
