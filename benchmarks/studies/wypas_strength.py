"""How clearly the wypas heuristic bot beats random bots, over TCP, with ``arena match``.

    python benchmarks/studies/wypas_strength.py [--games 40] [--players 3] [--random-rate 0]
        [--bluff]

Plays ``--games`` whole games of the heuristic bot against ``--players - 1`` random bots, seats
rotating, all through the real server and real bot processes.  Prints each bot's win share
(ties shared), mean score, mean rank and the moves the server played for it (timeouts), and
how long a game takes; then, replaying every log through the engine, the decisions per game,
the reaction-window requests among them and the windows opened (asked or not).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

import trio
from strength_table import print_strength  # benchmarks/studies/strength_table.py

from arena.gameplay.gamelog import log_lines
from arena.games import get_game
from arena.games.wypas import WypasState
from arena.launch.runner import BUILTIN_BOTS, BotSpec, run_match

HEURISTIC = ("{python} -m reference_bots.wypas_heuristic --host {host} --port {port} "
             "--name {name} --token-file {token_file}")


def window_counts(log: Path) -> tuple[int, int, int]:
    """(decisions, reaction-window requests, windows opened) of one logged game."""
    lines = [json.loads(line) for line in log_lines(log)]
    header = lines[0]
    spec = get_game("wypas")
    state = spec.new_state(spec.parse_options(header["options"]), header["seed"])
    assert isinstance(state, WypasState)
    decisions = reactions = 0
    for line in lines:
        if line.get("type") == "action":
            decisions += 1
            reactions += state.is_reaction(line["seat"])
            state.apply(line["seat"], line["action"])
    return decisions, reactions, state.windows.opened


async def measure(games: int, players: int, random_rate: float, seed: str, bluff: bool,
                  log_dir: Path) -> None:
    spec = get_game("wypas")
    options = spec.parse_options({"players": players, "bluff": bluff})
    command = HEURISTIC + (f" --random-rate {random_rate}" if random_rate else "")
    bots = [BotSpec("wypas-heuristic", command)] + [
        BotSpec(f"random-{i}", BUILTIN_BOTS["random"]) for i in range(1, players)]
    report = await run_match(spec, options, bots, games=games, seed=seed, move_timeout=5,
                             log_dir=log_dir)
    assert report.ok, report.table()
    records = report.records
    print(f"{len(records)} games, {players} players, bluff {bluff} (heuristic random-rate "
          f"{random_rate}, seed {seed!r})")
    print_strength(bots, records, "turn")
    counts = [window_counts(Path(str(r.log_path))) for r in records]  # every game is logged
    print(f"per game: {statistics.mean(c[0] for c in counts):.0f} decisions, of which "
          f"{statistics.mean(c[1] for c in counts):.0f} reaction-window requests; "
          f"{statistics.mean(c[2] for c in counts):.0f} windows opened (asked or not)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--random-rate", type=float, default=0.0)
    parser.add_argument("--seed", default="strength")
    parser.add_argument("--bluff", action="store_true", help="play with the Bluff option")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        trio.run(measure, args.games, args.players, args.random_rate, args.seed, args.bluff,
                 Path(log_dir))


if __name__ == "__main__":
    main()
