"""Ratings on the Elo scale from finished tables: pure arithmetic, no I/O.

**The model.** Bradley-Terry on the pairwise results of each table: at a table of n, every
pair of seats is one comparison, won by the better rank, half-won by each on equal ranks.  P(i
beats j) = p_i / (p_i + p_j).  Pairwise Bradley-Terry is chosen over a Plackett-Luce fit of
each table's ranking because ties (shared ranks) are common in these games and it handles them
as half-wins with no extra model, and it needs only the matrix of pairwise wins, so a bootstrap
resample costs a sum of matrices.  The comparisons of one table are correlated; the intervals
account for that by resampling whole duplicate sets (``arena.events.leaderboard``).

**The fit.** The maximum-likelihood strengths (Newton's method on log-strengths), with a weak
prior: every entrant is also credited one draw (half a win, half a loss) against a virtual
entrant of strength 1, so a bot that never lost still gets a finite rating.

**The scale.** Elo = 400 log10 p, shifted so the pool average is 1500 (or so a named entrant
is fixed at 1500): a 400-point gap means 10:1 odds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

import attrs

#: Elo of the pool's average (or of the anchor entrant).
ANCHOR_ELO = 1500.0
ELO_PER_LOG10 = 400.0
#: Virtual draws each entrant is credited against a strength-1 opponent (the prior).
PRIOR_DRAWS = 1.0
MAX_ITERATIONS = 200
TOLERANCE = 1e-10


@attrs.frozen
class TableResult:
    """One finished table: the entrant at each seat and each seat's rank (1 = best)."""

    entrants: tuple[int, ...]
    ranks: tuple[int, ...]


Matrix = list[list[float]]


def comparisons(result: TableResult) -> Iterator[tuple[int, int, float]]:
    """Every pairwise comparison at one table: (i, j, i's result against j: 1, 1/2 or 0).
    Two seats held by the same entrant do not compare."""
    seats = range(len(result.entrants))
    for a in seats:
        for b in seats:
            i, j = result.entrants[a], result.entrants[b]
            if a < b and i != j:
                rank_a, rank_b = result.ranks[a], result.ranks[b]
                yield i, j, 1.0 if rank_a < rank_b else 0.0 if rank_a > rank_b else 0.5


def pairwise_wins(results: Iterable[TableResult], entrants: int,
                  tie: float = 0.5) -> Matrix:
    """``wins[i][j]``: how many times i beat j; a shared rank counts ``tie`` for each (half a
    win for the fit; 0 for decisive results only)."""
    wins = [[0.0] * entrants for _ in range(entrants)]
    for result in results:
        for i, j, score in comparisons(result):
            if score == 0.5:
                wins[i][j] += tie
                wins[j][i] += tie
            else:
                wins[i][j] += score
                wins[j][i] += 1.0 - score
    return wins


def add(first: Matrix, second: Matrix) -> Matrix:
    return [[x + y for x, y in zip(row_a, row_b)] for row_a, row_b in zip(first, second)]


def fit_strengths(wins: Matrix, prior_draws: float = PRIOR_DRAWS,
                  tolerance: float = TOLERANCE,
                  start: Sequence[float] | None = None) -> list[float]:
    """Bradley-Terry strengths (maximum likelihood with the prior), by Newton's method on the
    log-strengths (the prior makes the log-likelihood strictly concave, so each step solves a
    negative-definite system), from ``start`` until no log-strength moves by more than
    ``tolerance``.  Without a prior, strengths are only defined up to a common factor: the
    iteration keeps their log-mean at 0."""
    n = len(wins)
    total_wins = [sum(row) + prior_draws / 2 for row in wins]
    games = [[wins[i][j] + wins[j][i] for j in range(n)] for i in range(n)]
    theta = [math.log(x) for x in start] if start is not None else [0.0] * n
    for _ in range(MAX_ITERATIONS):
        gradient = list(total_wins)
        hessian = [[0.0] * n for _ in range(n)]
        for i in range(n):
            if prior_draws:
                s = 1.0 / (1.0 + math.exp(-theta[i]))  # against the virtual strength-1 bot
                gradient[i] -= prior_draws * s
                hessian[i][i] -= prior_draws * s * (1 - s)
            for j in range(n):
                if j == i or not games[i][j]:
                    continue
                s = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
                gradient[i] -= games[i][j] * s
                curvature = games[i][j] * s * (1 - s)
                hessian[i][i] -= curvature
                hessian[i][j] += curvature
        if not prior_draws:  # fix the free scale: theta_0 stays put
            hessian[0] = [1.0] + [0.0] * (n - 1)
            gradient[0] = 0.0
        step = _solve(hessian, [-g for g in gradient])
        largest = max((abs(x) for x in step), default=0.0)
        if largest > 5.0:  # far from the optimum: damp the step
            step = [x * 5.0 / largest for x in step]
        theta = [t + x for t, x in zip(theta, step)]
        if largest < tolerance:
            break
    if not prior_draws:
        mean = sum(theta) / n
        theta = [t - mean for t in theta]
    return [math.exp(t) for t in theta]


def _solve(matrix: Matrix, vector: list[float]) -> list[float]:
    """x with matrix @ x = vector, by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [list(row) + [value] for row, value in zip(matrix, vector)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        if abs(rows[column][column]) < 1e-300:
            continue  # an entrant with no games and no prior: leave it where it is
        for r in range(column + 1, n):
            factor = rows[r][column] / rows[column][column]
            if factor:
                for c in range(column, n + 1):
                    rows[r][c] -= factor * rows[column][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(rows[r][r]) < 1e-300:
            continue
        x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
    return x


def to_elo(strengths: Sequence[float], anchor: int | None = None) -> list[float]:
    """Elo numbers: the pool average at 1500, or ``anchor``'s entrant at 1500."""
    logs = [ELO_PER_LOG10 * math.log10(p) for p in strengths]
    shift = logs[anchor] if anchor is not None else sum(logs) / len(logs)
    return [ANCHOR_ELO + value - shift for value in logs]


def elo_ratings(results: Iterable[TableResult], entrants: int,
                anchor: int | None = None) -> list[float]:
    return to_elo(fit_strengths(pairwise_wins(results, entrants)), anchor)


def expected_score(elo_a: float, elo_b: float) -> float:
    """P(a beats b) on the Elo scale."""
    return 1.0 / (1.0 + 10 ** ((elo_b - elo_a) / ELO_PER_LOG10))


#: Points a result moves the online rating by (per pairwise comparison).
ONLINE_K = 16.0


def online_update(elo: list[float], result: TableResult, k: float = ONLINE_K) -> None:
    """Classic Elo after one table, on its pairwise results (in place): quick and rough, for
    the live view while an event runs; the published leaderboard is the batch fit."""
    deltas = [0.0] * len(elo)
    for i, j, score in comparisons(result):
        change = k * (score - expected_score(elo[i], elo[j]))
        deltas[i] += change
        deltas[j] -= change
    for i, delta in enumerate(deltas):
        elo[i] += delta


def likelihood_of_superiority(wins: Matrix) -> Matrix:
    """``los[i][j]``: the probability that i is stronger than j, from a matrix of decisive
    pairwise wins (``pairwise_wins(..., tie=0)``: draws carry no information):
    Phi((W_ij - W_ji) / sqrt(W_ij + W_ji)).  Comparisons are treated as independent."""
    n = len(wins)
    los = [[0.5] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            decisive = wins[i][j] + wins[j][i]
            if i != j and decisive:
                z = (wins[i][j] - wins[j][i]) / math.sqrt(decisive)
                los[i][j] = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    return los
