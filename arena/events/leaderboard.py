"""The published leaderboard: the batch Bradley-Terry fit of ``arena.events.ratings`` over every
stored table, with 95 % intervals and rank confidence from a bootstrap that resamples whole
duplicate sets (the tables of one set share cards and dice, so their results are correlated;
without duplicates every table is its own set).  Pure: games in, rows out.

Bots that never met, directly or through others, have no common scale: every connected group
(``arena.events.groups``) is fitted, bootstrapped and ranked on its own, with its own 1500
average, and printed as its own table.

For each of ``resamples`` resamples, as many sets as the group played are drawn with
replacement, their pairwise-win matrices summed, and the ratings refitted.  A bot's interval is
its Elo plus or minus t(0.975, G - 1) sqrt(G / (G - 1)) times the standard deviation of its
resampled Elo, G being the sets it played in (``arena.events.intervals``: the plain 2.5th to
97.5th percentiles covered the truth 88 % of the time at 10 duplicate sets, this one 96 %);
its rank confidence is the share of resamples in which it keeps its place in its group.

**Thin data.**  Below a minimum the bootstrap claims more than it knows.  Measured with
the percentile bootstrap (five bots at tables of 3, duplicate sets of 6 games, luck 100 Elo a
set, 40 trials each): the 95 % intervals covered the true rating 50 % of
the time after 2 sets, 75 % after 3, and 84 to 87 % from 4 sets on (where it levels off); the
rank confidence claimed 69 % for places that were right 37 % of the time after 2 sets, and
matched them from 4 to 5 sets on (59 % claimed, 56 % right; 61 %, 63 %).  By a bot's games:
70 % coverage with 6, 80 % with 12, 83 to 87 % with 18 or more.  So a group with fewer than
``MIN_SETS`` sets gets no intervals and no rank confidence, a bot with fewer than
``MIN_GAMES`` games, ``MIN_OPPONENTS`` distinct opponents (or all the others of a smaller
group) or two sets no interval, a group with such a bot no rank confidence, and the table
says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs
import numpy as np

from arena.events.groups import connected_groups, group_heading
from arena.events.intervals import sets_per_entrant, t_intervals
from arena.events.ratings import (
    Matrix,
    SetWins,
    TableResult,
    distinct,
    fit_strengths,
    likelihood_of_superiority,
    pairwise_wins,
    rank_confidence,
    resampled_elo,
    to_elo,
)
from arena.events.results import Results
from arena.gameplay.records import GameRecord

DEFAULT_RESAMPLES = 200
#: Resampled fits stop when no rating moves by more than ~0.0004 Elo per iteration.
BOOTSTRAP_TOLERANCE = 1e-6
#: The intervals' coverage.
LEVEL = 0.95
#: Below these, no intervals or rank confidence (measured: see the module's doc).
MIN_SETS = 4
MIN_GAMES = 12
MIN_OPPONENTS = 2


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
    #: The connected group (1 = the largest): rows of different groups are not comparable.
    group: int = 1
    #: Distinct bots it met at finished tables.
    opponents: int = 0
    #: Too little data for an interval (see the module's doc).
    thin: bool = False


def set_matrices(games: Sequence[GameRecord], entrants: int) -> list[Matrix]:
    """One pairwise-win matrix per duplicate set, finished games only."""
    by_set: dict[int, list[TableResult]] = {}
    for game in games:
        if game.aborted is None:
            by_set.setdefault(game.set_index, []).append(TableResult(game.table.entrants,
                                                                      game.ranks))
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


def leaderboard(names: Sequence[str], games: Sequence[GameRecord], *,
                resamples: int = DEFAULT_RESAMPLES, seed: object = 0,
                anchor: int | None = None) -> list[Row]:
    """Rows group by group (the largest first), best first within a group.  With
    ``resamples`` 0 or thin data (see the module's doc) there are no intervals."""
    return results_leaderboard(names, Results.of_games(games), resamples=resamples, seed=seed,
                               anchor=anchor)


def results_leaderboard(names: Sequence[str], results: Results, *,
                        resamples: int = DEFAULT_RESAMPLES, seed: object = 0,
                        anchor: int | None = None) -> list[Row]:
    """:func:`leaderboard` of the finished games as columns (as the storage reads them)."""
    groups = connected_groups(len(names), results.meetings())
    rows: list[Row] = []
    for number, members in enumerate(groups, start=1):
        rows += _group_rows(number, members, names, results, resamples=resamples, seed=seed,
                            anchor=anchor)
    return rows


def _group_rows(number: int, members: Sequence[int], names: Sequence[str], results: Results,
                *, resamples: int, seed: object, anchor: int | None) -> list[Row]:
    """One group fitted on its own: ``members`` are its entrants; local index k is
    ``members[k]``."""
    n = len(members)
    local = np.full(len(names), -1, dtype=np.int64)
    local[list(members)] = np.arange(n)
    mine = results.only(local[results.entrants[results.starts]] >= 0)
    seat_of = local[mine.entrants]  # every seat's entrant, as its local index
    set_keys, owner = np.unique(mine.set_index, return_inverse=True)
    sets = SetWins.of_columns(len(set_keys), owner.reshape(-1), mine.sizes, seat_of,
                              mine.ranks, entrants=n)
    strengths = fit_strengths(sets.total())
    local_anchor = int(local[anchor]) if anchor is not None and local[anchor] >= 0 else None
    elo = to_elo(strengths, local_anchor)
    places = _places(elo)
    stats = _bot_statistics(mine, seat_of, sets)
    clusters = sets_per_entrant(sets).tolist()
    thin = [sets.sets < MIN_SETS or stats.games[k] < MIN_GAMES or clusters[k] < 2
            or stats.opponents[k] < min(MIN_OPPONENTS, n - 1) for k in range(n)]
    low_of = high_of = confidence_of = None
    if resamples and sets.sets >= MIN_SETS and not all(thin):
        resampled = resampled_elo(sets, strengths, resamples=resamples, seed=seed,
                                  anchor=local_anchor, tolerance=BOOTSTRAP_TOLERANCE)
        low_of, high_of = t_intervals(elo, resampled, clusters, level=LEVEL)
        confidence_of = rank_confidence(resampled, strengths, local_anchor)
    rows = []
    for k, entrant in enumerate(members):
        seats = stats.seats[k]
        low = high = confidence = None
        if low_of is not None and high_of is not None and not thin[k]:
            low, high = low_of[k], high_of[k]
        if confidence_of is not None and not any(thin):
            confidence = confidence_of[k]
        rows.append(Row(
            place=places[k], entrant=entrant, name=names[entrant], elo=elo[k], low=low,
            high=high, rank_confidence=confidence, games=seats,
            average_score=stats.scores[k] / seats if seats else 0.0,
            average_rank=stats.ranks[k] / seats if seats else 0.0,
            defaults=stats.defaults[k], group=number, opponents=stats.opponents[k],
            thin=thin[k]))
    return sorted(rows, key=lambda row: row.place)


@attrs.frozen
class _Statistics:
    """Per bot of a group: seats held (a bot seated twice at a table holds two), the sums of
    its scores, ranks and defaults over them, the games it sat in and the bots it met."""

    seats: list[int]
    scores: list[float]
    ranks: list[int]
    defaults: list[int]
    games: list[int]
    opponents: list[int]


def _bot_statistics(mine: Results, seat_of: np.ndarray, sets: SetWins) -> _Statistics:
    """Every sum is exact (whole numbers, or floats added in the order of the seats)."""
    n = sets.entrants
    sums = [np.bincount(seat_of, weights=column, minlength=n)
            for column in (mine.scores, mine.ranks, mine.defaults)]
    sat = distinct(mine.game_of_seat() * n + seat_of) % n
    return _Statistics(
        seats=np.bincount(seat_of, minlength=n).tolist(), scores=sums[0].tolist(),
        ranks=sums[1].astype(np.int64).tolist(), defaults=sums[2].astype(np.int64).tolist(),
        games=np.bincount(sat, minlength=n).tolist(),
        opponents=np.bincount(distinct(sets.cells) // n, minlength=n).tolist())


def caveat() -> str:
    return (f"caveat: thin data (a bot under {MIN_GAMES} games, {MIN_OPPONENTS} opponents or 2 "
            f"sets, a group under {MIN_SETS} sets): no 95% interval for it, no rank "
            "confidence in its group")


def format_table(rows: Sequence[Row]) -> str:
    """The table; when the bots form several groups, one table per group under its heading;
    the caveat line under them while any bot's data is thin."""
    groups: dict[int, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    parts = []
    for number, members in groups.items():
        table = _format_rows(members)
        if len(groups) > 1:
            heading = group_heading(number, len(groups), len(members),
                                    played=any(row.games for row in members))
            table = heading + "\n" + table
        parts.append(table)
    text = "\n\n".join(parts)
    return text + "\n" + caveat() if any(row.thin for row in rows) else text


def _format_rows(rows: Sequence[Row]) -> str:
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


def format_los(names: Sequence[str], tables: Iterable[TableResult]) -> str:
    """The likelihood-of-superiority matrix: the row bot is stronger than the column bot with
    this probability (from their decisive pairwise results at the finished ``tables``)."""
    decisive = pairwise_wins(tables, len(names), tie=0.0)
    los = likelihood_of_superiority(decisive)
    width = max(len(name) for name in names)
    short = [name[:8] for name in names]
    lines = ["likelihood of superiority (row stronger than column)",
             " " * width + "  " + "  ".join(f"{name:>8}" for name in short)]
    for i, name in enumerate(names):
        cells = ["       -" if i == j else f"{100 * los[i][j]:>7.1f}%" for j in range(len(names))]
        lines.append(f"{name:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)
