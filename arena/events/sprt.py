"""A sequential probability ratio test of "A is stronger than B", on duplicate-set outcomes.

Each duplicate set (one seed, every seating) gives one outcome in [0, 1]: A's mean pairwise
result against B over the set's games (a game where A ranks better counts 1, equal ranks 1/2).
Playing the same cards in every seat removes most of the luck, so sets are far less noisy than
single games.  H0: A is stronger than B by ``elo0``; H1: by ``elo1`` (defaults 0 and 20).

The log-likelihood ratio is the generalized SPRT's normal approximation (as chess testing
frameworks use for game pairs): with N outcomes of mean m, and the expected scores mu0, mu1 of
the two hypotheses on the Elo scale, ``LLR = N (mu1 - mu0) (2 m - mu0 - mu1) / (2 v)``.  The
variance v is not the plain estimate: a test that stops when the LLR is high stops most often
when the estimate happens to be low, which made the error rates about 1.3 times their nominal
values (issue 20).  v is the sample variance, floored, raised towards its upper confidence
bound: ``max(s^2, F / N) (1 + Z sqrt(2 / (N - 1)))`` with :data:`VARIANCE_FLOOR` F and
:data:`VARIANCE_Z` Z.  The floor: sets that happen to score alike at the start (a zero or
nearly zero s^2 from two degrees of freedom) made the LLR jump to about 1e10 after three sets,
a verdict either way; no variance is below zero, but a zero estimate from a few sets is no
evidence of it, so the estimate may not fall below F / N, F = 1/4 being the largest variance a
score in [0, 1] can have, as if one such set were spread over the N.  A variance that stays
near zero over many sets is believed (the floor shrinks as 1 / N): sets that keep scoring alike
still decide, after about ten sets rather than three.  The floor also takes the place of most of
the raise (before it, Z was 1.5), which corrected mostly the same early low estimates; both
error rates are nominal or below (shown by simulation in tests/events/test_sprt.py).  The test
accepts H1 once the LLR reaches ``log((1 - beta) / alpha)`` and H0 once it falls to
``log(beta / (1 - alpha))``, never before :data:`MIN_SETS` sets.  Pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from arena.events.ratings import ELO_PER_LOG10, TableResult, comparisons, expected_score

#: Standard errors the variance estimate is raised by (its standard error is about
#: s^2 sqrt(2 / (N - 1))); with the floor, 0.5 gives nominal error rates in the simulation.
VARIANCE_Z = 0.5
#: No decision before this many sets (the variance needs two degrees of freedom).
MIN_SETS = 3
#: The variance is at least VARIANCE_FLOOR / N: the largest variance a score in [0, 1] can
#: have (an all-or-nothing game at even odds), as one pseudo-set spread over the N sets.
VARIANCE_FLOOR = 0.25


def elo_of_score(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 0.0 - ELO_PER_LOG10 * math.log10(1.0 / score - 1.0)  # 0.0 -: never -0


@attrs.frozen
class SprtState:
    sets: int
    mean: float
    llr: float
    lower: float
    upper: float
    #: The outcomes' sample variance (0 before two sets).
    variance: float = 0.0

    @property
    def decision(self) -> str | None:
        """``"H1"`` (A is stronger by elo1), ``"H0"`` (by elo0 at most), or None: go on."""
        if self.sets < MIN_SETS:
            return None
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None

    def elo_interval(self, z: float = 1.96) -> tuple[float, float, float]:
        """A's Elo advantage over B with its (about 95 %) interval: the mean's normal interval
        on the score scale, mapped to Elo, with the variance floored as the test floors it (a
        few sets that scored alike are no evidence of a zero variance)."""
        if not self.sets:
            return elo_of_score(self.mean), -math.inf, math.inf
        variance = max(self.variance, VARIANCE_FLOOR / self.sets)
        half = z * math.sqrt(variance / self.sets)
        return (elo_of_score(self.mean), elo_of_score(self.mean - half),
                elo_of_score(self.mean + half))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _llr(n: int, total: float, squares: float, mu0: float, mu1: float) -> tuple[float, float]:
    """(LLR, sample variance) from the outcomes' count, sum and sum of squares."""
    if n < 2:
        return 0.0, 0.0
    mean = total / n
    variance = max(squares - n * mean * mean, 0.0) / (n - 1)
    floored = max(variance, VARIANCE_FLOOR / n)
    raised = floored * (1 + VARIANCE_Z * math.sqrt(2 / (n - 1)))
    return (n * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * raised), variance)


def llr(outcomes: Sequence[float], elo0: float, elo1: float) -> float:
    mu0, mu1 = expected_score(elo0, 0.0), expected_score(elo1, 0.0)
    return _llr(len(outcomes), sum(outcomes), sum(x * x for x in outcomes), mu0, mu1)[0]


class SprtTest:
    """The test fed one set outcome at a time (:meth:`add` returns the new state)."""

    def __init__(self, *, elo0: float = 0.0, elo1: float = 20.0, alpha: float = 0.05,
                 beta: float = 0.05) -> None:
        if elo0 >= elo1:
            raise ValueError("elo0 must be below elo1")
        self.mu0, self.mu1 = expected_score(elo0, 0.0), expected_score(elo1, 0.0)
        self.lower, self.upper = bounds(alpha, beta)
        self.n, self.total, self.squares = 0, 0.0, 0.0

    def add(self, outcome: float) -> SprtState:
        self.n += 1
        self.total += outcome
        self.squares += outcome * outcome
        return self.state()

    def state(self) -> SprtState:
        value, variance = _llr(self.n, self.total, self.squares, self.mu0, self.mu1)
        mean = self.total / self.n if self.n else 0.5
        return SprtState(self.n, mean, value, self.lower, self.upper, variance)


def sprt_state(outcomes: Sequence[float], *, elo0: float = 0.0, elo1: float = 20.0,
               alpha: float = 0.05, beta: float = 0.05) -> SprtState:
    test = SprtTest(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    for outcome in outcomes:
        test.add(outcome)
    return test.state()


def set_outcome(games: Iterable[tuple[Sequence[int], Sequence[int]]], a: int = 0,
                b: int = 1) -> float:
    """A's mean result against B over one set's games, each given as (entrants, ranks)."""
    results = [score if i == a else 1.0 - score
               for entrants, ranks in games
               for i, j, score in comparisons(TableResult(tuple(entrants), tuple(ranks)))
               if {i, j} == {a, b}]
    return sum(results) / len(results)


class SprtWatch:
    """The test as an event's games end: :meth:`game_over` takes each finished game (anything
    with ``set_index``, ``entrants``, ``ranks`` and ``aborted``) and returns the new state when
    the test has read one or more sets more (None otherwise, and once decided: the games still
    running finish, but the verdict stands).

    Sets are read in schedule order only: set k counts once sets 0 .. k have all ended, and
    the verdict is that of the first k at which the LLR crosses a bound.  So the verdict does
    not depend on the order in which concurrent games end, nor on a run being stopped and
    resumed (the stored games fed again, in any order, give the same state).  A set with an
    aborted game is skipped (it has no outcome)."""

    def __init__(self, per_set: int, *, elo0: float, elo1: float, alpha: float,
                 beta: float) -> None:
        self.per_set = per_set
        self.thresholds = dict(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
        self.test = SprtTest(**self.thresholds)
        self.ended: dict[int, list[Any]] = {}
        self.next_set = 0  # the first set not read yet
        self.state: SprtState | None = None

    @property
    def decided(self) -> bool:
        return self.state is not None and self.state.decision is not None

    def game_over(self, game: Any) -> SprtState | None:
        if self.decided:
            return None
        self.ended.setdefault(game.set_index, []).append(game)
        read = None
        while not self.decided and len(self.ended.get(self.next_set, ())) >= self.per_set:
            games = self.ended.pop(self.next_set)
            self.next_set += 1
            if all(done.aborted is None for done in games):
                read = self.state = self.test.add(
                    set_outcome((done.entrants, done.ranks) for done in games))
        return read
