"""How often the leaderboard's 95 % intervals cover the true ratings, in a simulation with
known ratings: the old percentile bootstrap next to the new interval (and, as candidates that
were measured and not chosen, BCa and the expanded percentile).

    python benchmarks/studies/rating_coverage.py [--trials 200] [--sets 10 20 40] [--luck 100]

Five bots with true Elo 1300, 1400, 1500, 1600, 1700 play tables of 3 (the round robin of
``arena.events.schedule.plan``).  **Luck is per seat**: every deal (a game seed) gives each
seat a luck term, a normal draw with standard deviation --luck Elo, added to the Elo of
whoever sits there.  Under duplicate seating a set plays one deal in all 6 seatings, so every
bot gets every seat's luck once and it can cancel; under independent seating every game is
its own deal, and the same number of games is played (N sets = 6 N single-game sets).  Each
table's ranking is drawn from the Plackett-Luce model with strengths 10^(elo / 400) (pairwise
marginals exactly Bradley-Terry) by the **bots' own seeded randomness**: a generator seeded
by (trial, set, seating), so a replication is reproducible.

**The truth.**  Luck on the logit scale flattens the expected results (a bot's edge is
averaged over lucky and unlucky seats), so the fit converges to slightly compressed ratings,
not to the Elo the bots were given: the interval is right when it covers what the fit
estimates with unlimited games.  That is computed here exactly (Gauss-Hermite over the luck
difference, then the Bradley-Terry fit of the expected win matrix) and printed.

Coverage is the share of (trial, bot) intervals that hold the truth, with its 95 % Wilson
interval; each method reads the same 200 resamples of the same trial.
"""

from __future__ import annotations

import argparse
import math
import random
from statistics import NormalDist

import numpy as np

from arena.events.intervals import sets_per_entrant, t_intervals, t_quantile
from arena.events.ratings import (
    SetWins,
    TableResult,
    fit_strengths,
    refit_elo,
    resampled_elo,
    to_elo,
)
from arena.events.schedule import plan

TRUE_ELO = (1300.0, 1400.0, 1500.0, 1600.0, 1700.0)
PLAYERS = 3
SEATINGS = 6  # a duplicate set of a table of 3
RESAMPLES = 200
NORMAL = NormalDist()


def ranking(strengths: list[float], rng: random.Random) -> list[int]:
    """Seats in finishing order, drawn from the Plackett-Luce model."""
    left = list(range(len(strengths)))
    order = []
    while left:
        pick = rng.choices(left, weights=[strengths[s] for s in left])[0]
        order.append(pick)
        left.remove(pick)
    return order


def simulate(sets: int, duplicate: bool, luck: float, trial: int) -> list[list[TableResult]]:
    """The tables of one replication, set by set."""
    deals = random.Random(f"deals {trial} {duplicate}")
    tables: dict[int, list[TableResult]] = {}
    count = sets if duplicate else sets * SEATINGS
    seat_luck: dict[int, list[float]] = {}
    for table in plan(len(TRUE_ELO), PLAYERS, sets=count, duplicate=duplicate,
                      seed=f"cov{trial}"):
        luck_now = seat_luck.setdefault(table.set_index,
                                        [deals.gauss(0, luck) for _ in range(PLAYERS)])
        bots = random.Random(f"bots {trial} {duplicate} {table.set_index} {table.rotation}")
        strengths = [10 ** ((TRUE_ELO[e] + luck_now[seat]) / 400)
                     for seat, e in enumerate(table.entrants)]
        ranks = [0] * PLAYERS
        for place, seat in enumerate(ranking(strengths, bots), start=1):
            ranks[seat] = place
        tables.setdefault(table.set_index, []).append(TableResult(table.entrants, tuple(ranks)))
    return list(tables.values())


def pseudo_truth(luck: float) -> list[float]:
    """The ratings the fit converges to: Bradley-Terry fitted (no prior) to the expected
    pairwise results, each averaged over the luck difference of two seats."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    spread = math.sqrt(2) * luck * math.log(10) / 400  # two seats' luck, in natural log-odds
    n = len(TRUE_ELO)
    wins = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                edge = (TRUE_ELO[i] - TRUE_ELO[j]) * math.log(10) / 400
                p = weights @ (1 / (1 + np.exp(-(edge + spread * nodes)))) / weights.sum()
                wins[i][j] = 1e6 * float(p)
    return to_elo(fit_strengths(wins, prior_draws=0.0))


def intervals(sets: SetWins, trial: int) -> dict[str, tuple[list[float], list[float]]]:
    """Every method's (low, high) per bot, from the same resamples."""
    strengths = fit_strengths(sets.total())
    elo = np.array(to_elo(strengths))
    boot = resampled_elo(sets, strengths, resamples=RESAMPLES, seed=trial)
    ordered = np.sort(boot, axis=0)
    clusters = sets_per_entrant(sets)
    out = {"percentile (old)": (percentile(ordered, 0.025), percentile(ordered, 0.975)),
           "t (new)": t_intervals(elo.tolist(), boot, clusters.tolist()),
           "t, G = all sets": t_intervals(elo.tolist(), boot, [sets.sets] * len(elo))}
    g = sets.sets  # Hesterberg's expanded percentile: the quantiles a t with g-1 df needs
    wide = NORMAL.cdf(-math.sqrt(g / (g - 1)) * t_quantile(0.975, g - 1))
    out["expanded percentile"] = (percentile(ordered, wide), percentile(ordered, 1 - wide))
    out["BCa"] = bca(sets, strengths, elo, boot)
    return out


def percentile(ordered: np.ndarray, q: float) -> list[float]:
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return (ordered[below] + (ordered[above] - ordered[below]) * (position - below)).tolist()


def bca(sets: SetWins, strengths: list[float], elo: np.ndarray,
        boot: np.ndarray) -> tuple[list[float], list[float]]:
    """Efron's bias-corrected and accelerated percentiles, the acceleration from the
    leave-one-set-out jackknife."""
    left_out = refit_elo(sets, strengths, 1 - np.eye(sets.sets, dtype=np.int64))
    spread = left_out.mean(axis=0) - left_out
    acceleration = (spread**3).sum(axis=0) / (6 * ((spread**2).sum(axis=0)) ** 1.5 + 1e-300)
    below = np.clip((boot < elo).mean(axis=0), 1 / len(boot), 1 - 1 / len(boot))
    low, high = [], []
    for k in range(len(elo)):
        z0, a = NORMAL.inv_cdf(float(below[k])), float(acceleration[k])
        qs = [NORMAL.cdf(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (-1.96, 1.96)]
        column = np.sort(boot[:, k])[:, None]
        low.append(percentile(column, qs[0])[0])
        high.append(percentile(column, qs[1])[0])
    return low, high


def wilson(hits: int, total: int) -> tuple[float, float]:
    p, z = hits / total, 1.96
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--sets", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--luck", type=float, default=100.0)
    args = parser.parse_args()
    truth = pseudo_truth(args.luck)
    print(f"truth (the fit's limit, luck {args.luck:g} Elo per seat): "
          + " ".join(f"{t:.1f}" for t in truth) + f"; {args.trials} trials x 5 bots per cell")
    for count in args.sets:
        for duplicate in (True, False):
            hits: dict[str, int] = {}
            widths: dict[str, float] = {}
            total = 0
            for trial in range(args.trials):
                sets = SetWins.of(simulate(count, duplicate, args.luck, trial), len(TRUE_ELO))
                for name, (low, high) in intervals(sets, trial).items():
                    hits[name] = hits.get(name, 0) + sum(
                        lo <= t <= hi for lo, hi, t in zip(low, high, truth))
                    widths[name] = widths.get(name, 0.0) + sum(
                        hi - lo for lo, hi in zip(low, high))
                total += len(truth)
            seating = "duplicate  " if duplicate else "independent"
            for name, hit in hits.items():
                low, high = wilson(hit, total)
                print(f"{count:>3} sets {seating}  {name:<20} {100 * hit / total:5.1f} % "
                      f"({100 * low:.1f} to {100 * high:.1f}), mean width "
                      f"{widths[name] / total:4.0f} Elo", flush=True)


if __name__ == "__main__":
    main()
