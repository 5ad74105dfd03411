"""Ratings on the Elo scale from finished tables: pure arithmetic, no I/O.

**The model.** Bradley-Terry on the pairwise results of each table: at a table of n, every
pair of seats is one comparison, won by the better rank, half-won by each on equal ranks.  P(i
beats j) = p_i / (p_i + p_j).  Pairwise Bradley-Terry is chosen over a Plackett-Luce fit of
each table's ranking because ties (shared ranks) are common in these games and it handles them
as half-wins with no extra model, and it needs only the matrix of pairwise wins, so a bootstrap
resample costs a sum of matrices.  The comparisons of one table are correlated; the intervals
account for that by resampling whole duplicate sets (below).

**The fit.** The maximum-likelihood strengths (Newton's method on log-strengths), with a weak
prior: every entrant is also credited one draw (half a win, half a loss) against a virtual
entrant of strength 1, so a bot that never lost still gets a finite rating.

**The bootstrap** (``bootstrap``) keeps each duplicate set's wins sparse (``SetWins``: the few
pairs a set has, not an n x n matrix per set), draws the same resample indices as
``random.Random(str(seed)).choice`` did, and fits stacks of resamples at once with numpy
(``arena.events.newton``), each from a start predicted from the full fit: 200 bots x 10,000
sets of 3 with 200 resamples in about half a second of CPU (``arena ratings`` end to end:
``benchmarks/ratings_speed.py``).

**The scale.** Elo = 400 log10 p, shifted so the pool average is 1500 (or so a named entrant
is fixed at 1500): a 400-point gap means 10:1 odds.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence

import attrs
import numpy as np

from arena.events.newton import WarmStart, newton

#: Elo of the pool's average (or of the anchor entrant).
ANCHOR_ELO = 1500.0
ELO_PER_LOG10 = 400.0
#: Virtual draws each entrant is credited against a strength-1 opponent (the prior).
PRIOR_DRAWS = 1.0
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
    if not n:
        return []
    theta = np.log(np.asarray(start, dtype=float)) if start is not None else np.zeros(n)
    with _one_blas_thread():
        theta = newton(np.asarray(wins, dtype=float).reshape(1, n, n), theta.reshape(1, n),
                        prior_draws, tolerance)[0]
    if not prior_draws:
        theta -= theta.mean()
    return [math.exp(t) for t in theta]


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


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Run numpy's linear algebra on one thread meanwhile: OpenBLAS factorises a 200 x 200
    matrix on every core, and on a busy machine its threads wait for each other (measured: 30
    times the CPU and the time of one thread).  With threadpoolctl if it is installed, else
    through OpenBLAS's own setter (found among the loaded libraries), else as it is."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        setters = _openblas_thread_setters()
        before = [get() for get, _ in setters]
        for _, set_threads in setters:
            set_threads(1)
        try:
            yield
        finally:
            for (_, set_threads), threads in zip(setters, before):
                set_threads(threads)
    else:
        with threadpool_limits(limits=1, user_api="blas"):
            yield


@functools.cache
def _openblas_thread_setters() -> list[tuple[Callable[[], int], Callable[[int], None]]]:
    """(get, set) of the number of threads of each OpenBLAS loaded here (Linux), by the names
    of plain OpenBLAS and of the copy numpy's wheels ship; looked up once (numpy, imported
    above, has loaded its OpenBLAS)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return []
    setters = []
    for path in sorted(paths):
        with contextlib.suppress(OSError):
            library = ctypes.CDLL(path)
            for prefix, suffix in (("scipy_openblas", "64_"), ("openblas", "")):
                get = getattr(library, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(library, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    setters.append((get, put))
                    break
    return setters


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values: ``np.unique(values)``, which numpy 2 answers with a hash
    table 30 times slower than a sort here (55 ms against 1.5 for 180,000 integers)."""
    ordered = np.sort(values)
    if not ordered.size:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


@attrs.frozen(eq=False)
class SetWins:
    """The pairwise wins of each duplicate set, sparse: a set touches few entrants, so only the
    cells it has are kept (``cells`` = i * entrants + j, ``wins`` there, ``owner`` = the set's
    index), ties half a win each, as ``pairwise_wins``."""

    entrants: int
    sets: int
    owner: np.ndarray
    cells: np.ndarray
    wins: np.ndarray

    @classmethod
    def of(cls, sets: Sequence[Iterable[TableResult]], entrants: int) -> SetWins:
        owner: list[int] = []
        sizes: list[int] = []
        seats: list[int] = []
        ranks: list[int] = []
        for index, results in enumerate(sets):
            for result in results:
                owner.append(index)
                sizes.append(len(result.entrants))
                seats.extend(result.entrants)
                ranks.extend(result.ranks)
        return cls.of_columns(len(sets), *(np.array(column, dtype=np.int64) for column in
                                           (owner, sizes, seats, ranks)), entrants=entrants)

    @classmethod
    def of_columns(cls, sets: int, owner: np.ndarray, sizes: np.ndarray, seats: np.ndarray,
                   ranks: np.ndarray, *, entrants: int) -> SetWins:
        """The same from columns: per table its set (``owner``, below ``sets``) and its size,
        per seat (table after table) its entrant and its rank."""
        starts = np.cumsum(sizes) - sizes
        keys, values = [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
        for size in distinct(sizes).tolist():
            tables = np.flatnonzero(sizes == size)
            for chunk in range(0, tables.size, SETWINS_CHUNK):  # to bound the temporaries
                part = tables[chunk:chunk + SETWINS_CHUNK]
                key, wins = _pair_wins(owner[part], starts[part], size, seats, ranks, entrants)
                keys.append(key)
                values.append(wins)
        key, where = np.unique(np.concatenate(keys), return_inverse=True)
        wins = np.bincount(where, weights=np.concatenate(values), minlength=key.size)
        owner_of, cells = np.divmod(key, entrants * entrants)
        return cls(entrants, sets, owner_of, cells, wins)

    def summed(self, counts: np.ndarray) -> np.ndarray:
        """The pairwise-win matrix of the sets taken ``counts[s]`` times each (exact: every
        term is a multiple of a half)."""
        total = np.bincount(self.cells, weights=counts[self.owner] * self.wins,
                            minlength=self.entrants * self.entrants)
        return total.reshape(self.entrants, self.entrants)

    def warm_start(self, strengths: Sequence[float]) -> WarmStart:
        """What predicts a resample's fit from the fit of every set once (``strengths``)."""
        return WarmStart.of(self.owner, self.cells, self.wins,
                            np.log(np.asarray(strengths, dtype=float)), PRIOR_DRAWS)

    def total(self) -> Matrix:
        """Every set once: the event's pairwise-win matrix."""
        return [list(row) for row in self.summed(np.ones(self.sets)).tolist()]


#: Tables whose pairs :meth:`SetWins.of_columns` expands at once.
SETWINS_CHUNK = 2**14


def _pair_wins(owner: np.ndarray, starts: np.ndarray, size: int, seats: np.ndarray,
               ranks: np.ndarray, entrants: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys (set, i, j) of tables of ``size`` seats (each table's set and first
    seat) and the wins of i over j there."""
    where = starts[:, None] + np.arange(size)
    who, rank = seats[where], ranks[where]
    first, second = np.triu_indices(size, 1)
    i, j = who[:, first], who[:, second]
    score = np.where(rank[:, first] < rank[:, second], 1.0,
                     np.where(rank[:, first] > rank[:, second], 0.0, 0.5))
    base = owner[:, None] * entrants * entrants
    compare = i != j
    keys = np.concatenate([(base + i * entrants + j)[compare],
                           (base + j * entrants + i)[compare]])
    key, inverse = np.unique(keys, return_inverse=True)
    scores = np.concatenate([score[compare], 1.0 - score[compare]])
    return key, np.bincount(inverse, weights=scores, minlength=key.size)


def resample_indices(seed: object, sets: int, resamples: int) -> np.ndarray:
    """``resamples`` rows of ``sets`` indices each: the very draws of ``rng.choice`` over the
    sets, row after row, with ``rng = random.Random(str(seed))``."""
    return np.concatenate([np.zeros((0, sets), dtype=np.int64)]
                          + list(resample_blocks(seed, sets, resamples, resamples)))


def resample_blocks(seed: object, sets: int, resamples: int,
                    rows: int) -> Iterator[np.ndarray]:
    """The rows of ``resample_indices``, ``rows`` at a time.  CPython draws an index below n
    from the Mersenne Twister's 32-bit words, each shifted to n.bit_length() bits and
    rejected while >= n; numpy's MT19937 takes over the state and does that in bulk."""
    rng = random.Random(str(seed))
    bits = sets.bit_length()
    if bits > 32:  # not in CPython's 32-bit fast path: one at a time
        for first in range(0, resamples, rows):
            yield np.array([[rng.choice(range(sets)) for _ in range(sets)]
                            for _ in range(min(rows, resamples - first))], dtype=np.int64)
        return
    state = rng.getstate()[1]
    twister = np.random.MT19937()
    twister.state = {"bit_generator": "MT19937",
                     "state": {"key": np.array(state[:624], dtype=np.uint32), "pos": state[624]}}
    left = np.zeros(0, dtype=np.uint64)
    for first in range(0, resamples, rows):
        need = min(rows, resamples - first) * sets
        kept = [left]
        while sum(part.size for part in kept) < need:
            words = twister.random_raw(need * 2**bits // sets * 21 // 20 + 64)  # ~5 % spare
            words >>= np.uint64(32 - bits)
            kept.append(words[words < sets])
        block = np.concatenate(kept)
        left = block[need:]
        yield block[:need].astype(np.int64).reshape(-1, sets)


@attrs.frozen
class Bootstrap:
    """Per entrant: the interval of its resampled Elo and the share of resamples in which it
    keeps its place (``places``: 1 = best, ties by entrant order)."""

    low: list[float]
    high: list[float]
    rank_confidence: list[float]


def bootstrap(sets: SetWins, strengths: Sequence[float], *, resamples: int, seed: object,
              anchor: int | None = None, tolerance: float = 1e-6,
              interval: tuple[float, float] = (0.025, 0.975)) -> Bootstrap:
    """The percentile bootstrap: each entrant's ``interval`` quantiles (linear between
    neighbours) of its ``resampled_elo`` and its rank confidence.  (The leaderboard's
    intervals are ``arena.events.intervals``': this one under-covers on short events.)"""
    elo = resampled_elo(sets, strengths, resamples=resamples, seed=seed, anchor=anchor,
                        tolerance=tolerance)
    ordered = np.sort(elo, axis=0)
    low, high = (_quantile(ordered, q) for q in interval)
    return Bootstrap(low.tolist(), high.tolist(), rank_confidence(elo, strengths, anchor))


def resampled_elo(sets: SetWins, strengths: Sequence[float], *, resamples: int, seed: object,
                  anchor: int | None = None, tolerance: float = 1e-6) -> np.ndarray:
    """Resample whole sets (as many as were played, with replacement, the draws of
    ``resample_indices``), refit each resample from a start predicted from ``strengths``
    (``arena.events.newton.WarmStart``) to ``tolerance``: the Elo of every entrant in every
    resample (resamples x entrants).  The fits run in stacks of at most about a quarter of a
    million matrix cells or draws, to bound memory."""
    stack = max(1, STACK_CELLS // max(1, sets.entrants**2, sets.sets))
    with _one_blas_thread():
        warm = sets.warm_start(strengths)
    return np.concatenate([np.zeros((0, sets.entrants))] + [
        refit_elo(sets, strengths, np.stack([np.bincount(row, minlength=sets.sets)
                                             for row in rows]), anchor, tolerance, warm)
        for rows in resample_blocks(seed, sets.sets, resamples, stack)])


#: Matrix cells (or draws) of the fits made at once: 6 fits of 200 entrants, about 2 MB an
#: array (measured no slower than 26 fits at once, with a quarter of the memory).
STACK_CELLS = 2**18


def refit_elo(sets: SetWins, strengths: Sequence[float], counts: np.ndarray,
              anchor: int | None = None, tolerance: float = 1e-6,
              warm: WarmStart | None = None) -> np.ndarray:
    """The Elo of every entrant (rows x entrants) fitted on the sets taken ``counts[r, s]``
    times each, row by row, from ``strengths`` (or from the starts ``warm`` predicts)."""
    start = np.log(np.asarray(strengths, dtype=float))
    with _one_blas_thread():
        wins = np.stack([sets.summed(row.astype(float)) for row in counts])
        starts = warm.starts(counts) if warm is not None else np.tile(start, (len(counts), 1))
        theta = newton(wins, starts, PRIOR_DRAWS, tolerance)
    logs = ELO_PER_LOG10 * theta / math.log(10)
    shift = logs[:, anchor] if anchor is not None else logs.mean(axis=1)
    return ANCHOR_ELO + logs - shift[:, None]


def rank_confidence(elo: np.ndarray, strengths: Sequence[float],
                    anchor: int | None = None) -> list[float]:
    """The share of resamples (rows of ``elo``) in which each entrant keeps the place it has
    in the fit (``strengths``)."""
    places = _places(elo)
    main = _places(np.array([to_elo(strengths, anchor)]))[0]
    return ((places == main).sum(axis=0) / len(elo)).tolist()


def _quantile(ordered: np.ndarray, q: float) -> np.ndarray:
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def _places(elo: np.ndarray) -> np.ndarray:
    """Each row's places, 1 = highest Elo, equal Elo by entrant order."""
    order = np.argsort(-elo, axis=1, kind="stable")
    places = np.empty_like(order)
    np.put_along_axis(places, order, np.arange(1, elo.shape[1] + 1)[None, :], axis=1)
    return places
