"""The published leaderboard: the batch Bradley-Terry fit of ``arena.events.ratings`` over every
stored
table, with 95 % intervals and rank confidence from a bootstrap that resamples whole duplicate
sets (the tables of one set share cards and dice, so their results are correlated; without
duplicates every table is its own set).  Pure: games in, rows out.

For each of ``resamples`` resamples, as many sets as were played are drawn with replacement,
their pairwise-win matrices summed, and the ratings refitted.  A bot's interval is the 2.5th
to 97.5th percentile of its resampled Elo; its rank confidence is the share of resamples in
which it keeps its place on the leaderboard.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from arena.events.ratings import (
    Matrix,
    SetWins,
    TableResult,
    bootstrap,
    fit_strengths,
    likelihood_of_superiority,
    pairwise_wins,
    to_elo,
)
from arena.events.storage import StoredGame

DEFAULT_RESAMPLES = 200
#: Resampled fits stop when no rating moves by more than ~0.0004 Elo per iteration.
BOOTSTRAP_TOLERANCE = 1e-6
INTERVAL = (0.025, 0.975)


@attrs.frozen
class Row:
    place: int
    entrant: int
    name: str
    elo: float
    low: float | None
    high: float | None
    rank_confidence: float | None
    games: int
    average_score: float
    average_rank: float
    defaults: int


def set_matrices(games: Sequence[StoredGame], entrants: int) -> list[Matrix]:
    """One pairwise-win matrix per duplicate set, finished games only."""
    by_set: dict[int, list[TableResult]] = {}
    for game in games:
        if game.aborted is None:
            by_set.setdefault(game.set_index, []).append(TableResult(game.entrants, game.ranks))
    return [pairwise_wins(results, entrants) for _, results in sorted(by_set.items())]


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolating linearly between neighbours."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def _places(elo: Sequence[float]) -> list[int]:
    order = sorted(range(len(elo)), key=lambda i: -elo[i])
    places = [0] * len(elo)
    for place, i in enumerate(order, start=1):
        places[i] = place
    return places


def leaderboard(names: Sequence[str], games: Sequence[StoredGame], *,
                resamples: int = DEFAULT_RESAMPLES, seed: object = 0,
                anchor: int | None = None) -> list[Row]:
    """Rows best first.  With ``resamples`` 0 (or a single set) there are no intervals."""
    n = len(names)
    by_set: dict[int, list[TableResult]] = {}
    for game in games:
        if game.aborted is None:
            by_set.setdefault(game.set_index, []).append(TableResult(game.entrants, game.ranks))
    sets = SetWins.of([results for _, results in sorted(by_set.items())], n)
    strengths = fit_strengths(sets.total())
    elo = to_elo(strengths, anchor)
    places = _places(elo)
    spread = (bootstrap(sets, strengths, resamples=resamples, seed=seed, anchor=anchor,
                        tolerance=BOOTSTRAP_TOLERANCE, interval=INTERVAL)
              if resamples and sets.sets > 1 else None)
    seats_of: list[list[tuple[StoredGame, int]]] = [[] for _ in names]
    for game in games:  # one pass: every bot's seats, in game order
        if game.aborted is None:
            for seat, entrant in enumerate(game.entrants):
                seats_of[entrant].append((game, seat))
    rows = []
    for i, name in enumerate(names):
        seats = seats_of[i]
        low = high = confidence = None
        if spread:
            low, high = spread.low[i], spread.high[i]
            confidence = spread.rank_confidence[i]
        rows.append(Row(
            place=places[i], entrant=i, name=name, elo=elo[i], low=low, high=high,
            rank_confidence=confidence, games=len(seats),
            average_score=sum(g.scores[s] for g, s in seats) / len(seats) if seats else 0.0,
            average_rank=sum(g.ranks[s] for g, s in seats) / len(seats) if seats else 0.0,
            defaults=sum(g.defaults[s] for g, s in seats)))
    return sorted(rows, key=lambda row: row.place)


def format_table(rows: Sequence[Row]) -> str:
    width = max([len("bot")] + [len(row.name) for row in rows])
    lines = [f"{'#':>2}  {'bot':<{width}}  {'elo':>6}  {'95% interval':>13}  {'rank conf':>9}"
             f"  {'games':>5}  {'avg score':>9}  {'avg rank':>8}  {'defaults':>8}"]
    for row in rows:
        interval = (f"{row.low:>6.0f}..{row.high:<5.0f}" if row.low is not None
                    and row.high is not None else f"{'-':>13}")
        confidence = (f"{100 * row.rank_confidence:>8.0f}%" if row.rank_confidence is not None
                      else f"{'-':>9}")
        lines.append(f"{row.place:>2}  {row.name:<{width}}  {row.elo:>6.0f}  {interval:>13}  "
                     f"{confidence}  {row.games:>5}  {row.average_score:>9.1f}  "
                     f"{row.average_rank:>8.2f}  {row.defaults:>8}")
    return "\n".join(lines)


def format_los(names: Sequence[str], games: Sequence[StoredGame]) -> str:
    """The likelihood-of-superiority matrix: the row bot is stronger than the column bot with
    this probability (from their decisive pairwise results)."""
    decisive = pairwise_wins((TableResult(g.entrants, g.ranks) for g in games
                              if g.aborted is None), len(names), tie=0.0)
    los = likelihood_of_superiority(decisive)
    width = max(len(name) for name in names)
    short = [name[:8] for name in names]
    lines = ["likelihood of superiority (row stronger than column)",
             " " * width + "  " + "  ".join(f"{name:>8}" for name in short)]
    for i, name in enumerate(names):
        cells = ["       -" if i == j else f"{100 * los[i][j]:>7.1f}%" for j in range(len(names))]
        lines.append(f"{name:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)
