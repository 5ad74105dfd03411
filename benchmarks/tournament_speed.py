"""Games per minute of ``arena tournament`` at concurrency 1 and 2, side by side in one run.

    python benchmarks/tournament_speed.py [--sets 10] [--game chochlik]

Four bots (two heuristic, two random; vollewolle: all random) play a duplicate round robin at
tables of 3 through the real server and real bot processes, stored in SQLite.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import trio

from arena.games import get_game
from arena.runner import BUILTIN_BOTS, BotSpec
from arena.storage import SqliteStorage
from arena.tournament import EventSettings, Tournament


async def one_run(game: str, sets: int, concurrency: int, folder: Path) -> tuple[int, float]:
    spec = get_game(game)
    strong = BUILTIN_BOTS["chochlik-heuristic"] if game == "chochlik" else BUILTIN_BOTS["random"]
    bots = [BotSpec("h1", strong), BotSpec("h2", strong),
            BotSpec("r1", BUILTIN_BOTS["random"]), BotSpec("r2", BUILTIN_BOTS["random"])]
    options = {"players": 3, **spec.tournament_options(3)}
    event = EventSettings(game=game, options=dict(spec.options_to_dict(
        spec.parse_options(options))), format="round-robin", duplicate=True, sets=sets,
        seed="speed", move_timeout=5.0)
    storage = SqliteStorage(folder / f"{game}-{concurrency}.db")
    tournament = Tournament(spec, spec.parse_options(event.options), bots,
                            event.planned(len(bots)), storage, log_dir=folder / "logs",
                            concurrency=concurrency)
    started = time.monotonic()
    report = await tournament.run()
    return report.played, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=10)
    parser.add_argument("--game", default="chochlik")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for concurrency in (1, 2):
            games, seconds = trio.run(one_run, args.game, args.sets, concurrency, Path(folder))
            print(f"{args.game}: concurrency {concurrency}: {games} games in {seconds:.1f} s "
                  f"= {games / seconds * 60:.0f} games/min (process start-up included)",
                  flush=True)


if __name__ == "__main__":
    main()
