"""How clearly the chochlik heuristic bot beats random bots, over TCP, with ``arena match``.

    python benchmarks/studies/chochlik_strength.py [--hands 200] [--random-rate 0]

Plays whole matches (to 200 by default) of the heuristic bot against two random bots, seats
rotating, until at least ``--hands`` hands are played, all through the real server and real bot
processes.  Prints each bot's win rate, points per hand, and how long a match takes.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import trio

from arena.gameplay.records import GameRecord
from arena.games import get_game
from arena.launch.runner import BotSpec, plan_bots, run_match


async def measure(hands: int, random_rate: float, seed: str, log_dir: Path) -> None:
    spec = get_game("chochlik")
    options = spec.parse_options({"players": 3})
    bots = plan_bots(["chochlik-heuristic", "random", "random"])
    if random_rate:
        bots[0] = BotSpec(bots[0].name, bots[0].command + f" --random-rate {random_rate}")
    records: list[GameRecord] = []
    batch = 0
    while sum(r.rounds or 0 for r in records) < hands:
        report = await run_match(spec, options, bots, games=10, seed=f"{seed}:{batch}",
                                 move_timeout=5, log_dir=log_dir)
        assert report.ok, report.table()
        records.extend(report.records)
        batch += 1
    total_hands = sum(r.rounds or 0 for r in records)
    print(f"{len(records)} matches to 200, {total_hands} hands, 3 players "
          f"(heuristic random-rate {random_rate})")
    print(f"{'bot':<20} {'wins':>6} {'win%':>6} {'points/hand':>12}")
    for index, bot in enumerate(bots):
        wins = points = 0.0
        for record in records:
            seat = record.bots.index(index)
            points += record.scores[seat]
            if seat in record.winners:
                wins += 1 / len(record.winners)
        print(f"{bot.name:<20} {wins:>6.1f} {100 * wins / len(records):>6.1f} "
              f"{points / total_hands:>12.2f}")
    seconds = [r.seconds for r in records]
    print(f"a match to 200 takes {statistics.mean(seconds):.2f} s on average "
          f"(median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s), "
          f"{total_hands / len(records):.1f} hands")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--random-rate", type=float, default=0.0)
    parser.add_argument("--seed", default="strength")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        trio.run(measure, args.hands, args.random_rate, args.seed, Path(log_dir))


if __name__ == "__main__":
    main()
