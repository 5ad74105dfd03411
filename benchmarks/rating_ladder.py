"""Evidence that the ratings work: bots of known strength must come out in order.

    python benchmarks/rating_ladder.py [--games 300] [--concurrency 2] [--seeds 2]

Five chochlik heuristic bots with --random-rate 0, 0.25, 0.5, 0.75 and 1 (the last one plays
at random) play a round-robin tournament at tables of 3, over TCP with real bot processes,
once with duplicate seating and once without, with the same budget of games.  After every game
the leaderboard (the batch fit) is computed from the games stored so far; "games needed" is
the number after which the order is right and stays right to the end of the run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import trio

from arena.events.leaderboard import leaderboard
from arena.events.settings import EventSettings
from arena.events.storage import SqliteStorage
from arena.games import get_game
from arena.launch.runner import BotSpec
from arena.launch.tournament import Tournament

RATES = (0.0, 0.25, 0.5, 0.75, 1.0)
COMMAND = ("{python} -m reference_bots.chochlik_heuristic --host {host} --port {port} "
           "--name {name} --token-file {token_file} --random-rate ")


def games_needed(history: list[bool]) -> int | None:
    """1 + the last game after which the order was wrong (None if wrong at the end)."""
    if not history or not history[-1]:
        return None
    last_wrong = max((i for i, right in enumerate(history) if not right), default=-1)
    return last_wrong + 2


async def one_run(duplicate: bool, games: int, concurrency: int, seed: str,
                  folder: Path) -> tuple[int | None, int, float]:
    spec = get_game("chochlik")
    bots = [BotSpec(f"r{int(rate * 100):03d}", COMMAND + str(rate)) for rate in RATES]
    names = [bot.name for bot in bots]
    size = 6 if duplicate else 1
    event = EventSettings(game="chochlik", options={"players": 3, "target": None, "hands": 3},
                          format="round-robin", duplicate=duplicate, sets=games // size,
                          seed=seed, move_timeout=5.0)
    storage = SqliteStorage(folder / f"{seed}-{duplicate}.db")
    history: list[bool] = []

    def check(_game: object) -> None:
        rows = leaderboard(names, storage.games(), resamples=0)
        history.append([row.entrant for row in rows] == list(range(len(bots))))

    tournament = Tournament(spec, spec.parse_options(event.options), bots,
                            event.planned(len(bots)), storage, log_dir=folder / "logs",
                            concurrency=concurrency, on_game_over=check)
    started = time.monotonic()
    await tournament.run()
    return games_needed(history), len(history), time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'seed':>6} {'seating':>12} {'games':>6} {'games needed':>13} {'games/min':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for duplicate in (True, False):
                needed, played, seconds = trio.run(
                    one_run, duplicate, args.games, args.concurrency, f"ladder{seed}",
                    Path(folder))
                print(f"{seed:>6} {'duplicate' if duplicate else 'independent':>12} "
                      f"{played:>6} {needed if needed else 'never':>13} "
                      f"{played / seconds * 60:>10.0f}", flush=True)


if __name__ == "__main__":
    main()
