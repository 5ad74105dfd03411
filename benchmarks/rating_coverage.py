"""How often the leaderboard's 95 % intervals cover the true ratings, in a simulation with
known ratings.

    python benchmarks/rating_coverage.py [--trials 100] [--sets 40] [--luck 100]

Five bots with true Elo 1300, 1400, 1500, 1600, 1700 play tables of 3 (a round robin of
duplicate sets of 6 games).  Each table's ranking is drawn from the Plackett-Luce model with
strengths 10^(elo/400), whose pairwise marginals are exactly Bradley-Terry.  Within a set the
games share luck, as duplicate deals do: each bot's strength in a set is its true Elo plus a
normal draw with standard deviation --luck, the same for the set's 6 games.  The leaderboard is
fitted with 200 bootstrap resamples of whole sets, and, for comparison, of single games (which
ignores the correlation within sets).  Coverage is the share of (trial, bot) pairs whose true
Elo lies inside the interval.
"""

from __future__ import annotations

import argparse
import random

import attrs

from arena.events.leaderboard import leaderboard
from arena.events.schedule import plan
from arena.gameplay.records import GameRecord

TRUE_ELO = (1300.0, 1400.0, 1500.0, 1600.0, 1700.0)


def ranking(strengths: list[float], rng: random.Random) -> list[int]:
    """Seats in finishing order, drawn from the Plackett-Luce model."""
    left = list(range(len(strengths)))
    order = []
    while left:
        pick = rng.choices(left, weights=[strengths[s] for s in left])[0]
        order.append(pick)
        left.remove(pick)
    return order


def simulate(sets: int, luck: float, seed: int) -> list[GameRecord]:
    rng = random.Random(seed)
    games = []
    set_luck: dict[int, list[float]] = {}
    for table in plan(len(TRUE_ELO), 3, sets=sets, seed=f"cov{seed}"):
        luck_now = set_luck.setdefault(
            table.set_index, [rng.gauss(0, luck) for _ in TRUE_ELO])
        strengths = [10 ** ((TRUE_ELO[e] + luck_now[e]) / 400) for e in table.entrants]
        order = ranking(strengths, rng)
        ranks = [0] * 3
        for place, seat in enumerate(order, start=1):
            ranks[seat] = place
        games.append(GameRecord(
            number=table.index, game_id="sim", entrants=table.entrants, names=(),
            seed=table.seed, scores=tuple(-r for r in ranks), ranks=tuple(ranks),
            winners=(order[0],), aborted=None, defaults=(0, 0, 0), errors=(0, 0, 0), rounds=1,
            log_path=None, seconds=0.0, tag=table))
    return games


def coverage(games: list[GameRecord], by_sets: bool, seed: int) -> tuple[int, int, float]:
    if not by_sets:  # every game its own "set": the naive bootstrap
        games = [attrs.evolve(g, tag=attrs.evolve(g.table, set_index=g.planned)) for g in games]
    names = [f"b{i}" for i in range(len(TRUE_ELO))]
    rows = leaderboard(names, games, resamples=200, seed=seed)
    intervals = [(row.entrant, row.low, row.high) for row in rows]
    inside, width = 0, 0.0
    for entrant, low, high in intervals:
        assert low is not None and high is not None  # resamples > 0: every row has one
        inside += low <= TRUE_ELO[entrant] <= high
        width += high - low
    width /= len(rows)
    return inside, len(rows), width


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--sets", type=int, default=40)
    parser.add_argument("--luck", type=float, default=100.0)
    args = parser.parse_args()
    for by_sets in (True, False):
        inside = total = 0
        widths = []
        for trial in range(args.trials):
            games = simulate(args.sets, args.luck, trial)
            got, count, width = coverage(games, by_sets, trial)
            inside += got
            total += count
            widths.append(width)
        print(f"bootstrap by {'sets ' if by_sets else 'games'}: {inside}/{total} intervals "
              f"cover the truth ({100 * inside / total:.1f} %), mean width "
              f"{sum(widths) / len(widths):.0f} Elo ({args.trials} trials, {args.sets} sets "
              f"of 6 games, luck {args.luck:g} Elo per set)", flush=True)


if __name__ == "__main__":
    main()
