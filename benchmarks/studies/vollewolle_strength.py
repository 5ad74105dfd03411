"""How clearly the vollewolle heuristic bot beats random bots, over TCP, with ``arena match``.

    python benchmarks/studies/vollewolle_strength.py [--games 40] [--players 3] [--random-rate 0]

Plays ``--games`` whole games of the heuristic bot against ``--players - 1`` random bots, seats
rotating, all through the real server and real bot processes.  Prints each bot's win share
(ties shared), mean score, mean rank and the moves the server played for it (timeouts), and
how long a game takes.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import trio
from strength_table import print_strength  # benchmarks/studies/strength_table.py

from arena.games import get_game
from arena.launch.runner import BUILTIN_BOTS, BotSpec, run_match

HEURISTIC = ("{python} -m reference_bots.vollewolle_heuristic --host {host} --port {port} "
             "--name {name} --token-file {token_file}")


async def measure(games: int, players: int, random_rate: float, seed: str,
                  log_dir: Path) -> None:
    spec = get_game("vollewolle")
    options = spec.parse_options({"players": players})
    command = HEURISTIC + (f" --random-rate {random_rate}" if random_rate else "")
    bots = [BotSpec("vollewolle-heuristic", command)] + [
        BotSpec(f"random-{i}", BUILTIN_BOTS["random"]) for i in range(1, players)]
    report = await run_match(spec, options, bots, games=games, seed=seed, move_timeout=5,
                             log_dir=log_dir)
    assert report.ok, report.table()
    records = report.records
    print(f"{len(records)} games, {players} players (heuristic random-rate {random_rate}, "
          f"seed {seed!r})")
    print_strength(bots, records, "round")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--random-rate", type=float, default=0.0)
    parser.add_argument("--seed", default="strength")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        trio.run(measure, args.games, args.players, args.random_rate, args.seed, Path(log_dir))


if __name__ == "__main__":
    main()
