"""How clearly each game's heuristic beats simple bots, and how clearly its boss beats it, in
process (no sockets), at tables of 3 with duplicate seatings.

    python benchmarks/studies/heuristic_strength.py [--games chochlik,vollewolle,wypas]
        [--deals 100]
        [--opponents random,first,last] [--players 3] [--boss-games 60] [--iterations 40]
        [--procs 2] [--first 0]

For each game and opponent, ``--deals`` deals are each played once per seat (three times at
the default table of 3): the heuristic in each seat, the other seats played by copies of the
opponent (``random``: a uniformly
random legal token; ``first``: always ``legal[0]``; ``last``: always ``legal[-1]``).  The
heuristic's pairwise score (against each opponent at its table: a higher final score 1, a tie
1/2) is averaged over a deal's seatings, and its mean over the deals is printed with a
95 % interval (normal, over deals, which are independent), as Elo too; then its score minus
the opponents' mean, a game, with its interval.  A heuristic clearly beats an opponent when the
interval lies above 0.500.

``--boss-games N`` (0 to skip) then plays the boss against two heuristics as
``boss_strength.py --in-process N --iterations I`` does (fixed worlds per decision, so the
machine's load does not change what is measured; the boss in each seat of every deal).

Every game is a function of its seeds, so a run repeats exactly.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from typing import Any

from boss_strength import _elo, _mean_error, in_process  # benchmarks/studies/boss_strength.py

OPPONENTS = ("random", "first", "last")


class IndexPolicy:
    """Always plays the legal list's token at one index (``0``: the first, ``-1``: the last)."""

    def __init__(self, index: int) -> None:
        self.index = index

    def choose(self, request: dict[str, Any]) -> str:
        legal: list[str] = request["legal"]
        return legal[self.index]

    def on_message(self, message: dict[str, Any]) -> None:
        pass


def opponent(kind: str, seed: str) -> Any:
    from reference_bots.random import RandomPolicy
    if kind == "random":
        return RandomPolicy(seed)
    if kind == "first":
        return IndexPolicy(0)
    if kind == "last":
        return IndexPolicy(-1)
    raise ValueError(f"unknown opponent {kind!r} (one of {', '.join(OPPONENTS)})")


def heuristic(game: str, seed: str) -> Any:
    from reference_bots.chochlik_heuristic import ChochlikHeuristic
    from reference_bots.vollewolle_heuristic import VolleWolleHeuristic
    from reference_bots.wypas_heuristic import WypasHeuristic
    classes: dict[str, Any] = {"chochlik": ChochlikHeuristic, "vollewolle": VolleWolleHeuristic,
                               "wypas": WypasHeuristic}
    return classes[game](0.0, seed)


def deal_set(job: tuple[str, str, int, int]) -> tuple[float, float, float]:
    """One deal played once per seat (the heuristic in each): its mean pairwise score, its
    mean score minus the opponents', and the CPU seconds a game took."""
    from in_process import play_game  # benchmarks/in_process.py
    game, kind, deal, players = job
    started = time.process_time()
    pairwise = difference = 0.0
    names = [f"p{s}" for s in range(players)]
    for seat in range(players):
        policies = [opponent(kind, f"{kind}{deal}.{seat}.{s}") for s in range(players)]
        policies[seat] = heuristic(game, f"h{deal}.{seat}")
        scores = play_game(game, f"deal{deal}", policies, names).scores
        others = [s for s in range(players) if s != seat]
        pairwise += sum(1.0 if scores[seat] > scores[o] else 0.5 if scores[seat] == scores[o]
                        else 0.0 for o in others) / len(others)
        difference += scores[seat] - sum(scores[o] for o in others) / len(others)
    return pairwise / players, difference / players, (time.process_time() - started) / players


def against(game: str, kind: str, deals: int, first: int, players: int, pool: Any) -> str:
    jobs = [(game, kind, deal, players) for deal in range(first, first + deals)]
    results = list(pool.imap(deal_set, jobs))
    mean, error = _mean_error([r[0] for r in results])
    diff, diff_error = _mean_error([r[1] for r in results])
    low, high = mean - 1.96 * error, mean + 1.96 * error
    verdict = "beats it" if low > 0.5 else "loses" if high < 0.5 else "unclear"
    seconds = sum(r[2] for r in results) / len(results)
    return (f"{game:<11} heuristic vs {players - 1} x {kind:<7} {players * deals:>4} games  "
            f"pairwise {mean:.3f} "
            f"({low:.3f}..{high:.3f})  Elo {_elo(mean):+.0f} ({_elo(low):+.0f}..{_elo(high):+.0f})"
            f"  score - theirs {diff:+.1f} (+-{1.96 * diff_error:.1f})  {verdict}"
            f"  [{seconds:.2f} CPU s a game]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="chochlik,vollewolle,wypas")
    parser.add_argument("--deals", type=int, default=100, help="deals per game and opponent")
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    parser.add_argument("--players", type=int, default=3, help="seats at a table")
    parser.add_argument("--boss-games", type=int, default=60,
                        help="games of the boss against two heuristics (0: none)")
    parser.add_argument("--iterations", type=int, default=40, help="the boss's worlds")
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number")
    args = parser.parse_args(argv)
    random.seed(0)  # nothing should use it; a run repeats exactly either way
    with multiprocessing.Pool(args.procs) as pool:
        for game in args.games.split(","):
            for kind in args.opponents.split(","):
                print(against(game, kind, args.deals, args.first, args.players, pool),
                      flush=True)
    if args.boss_games:  # the boss's table is always of 3 (boss_strength.py)
        for game in args.games.split(","):
            print("boss vs 2 x heuristic:", in_process(game, args.boss_games, args.iterations,
                                                      args.procs, first=args.first), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
