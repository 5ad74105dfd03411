"""A sequential probability ratio test of "A is stronger than B", on duplicate-set outcomes.

Each duplicate set (one seed, every seating) gives one outcome in [0, 1]: A's mean pairwise
result against B over the set's games (a game where A ranks better counts 1, equal ranks 1/2).
Playing the same cards in every seat removes most of the luck, so sets are far less noisy than
single games.  H0: A is stronger than B by ``elo0``; H1: by ``elo1`` (defaults 0 and 20).

The log-likelihood ratio is the generalized SPRT's normal approximation (as chess testing
frameworks use for game pairs): with N outcomes of mean m and variance v, and the expected
scores mu0, mu1 of the two hypotheses on the Elo scale,
``LLR = N (mu1 - mu0) (2 m - mu0 - mu1) / (2 v)``, where v is shrunk towards 1/12 by one
pseudo-outcome so that early sets that happen to agree cannot decide the test alone.  The
test accepts H1 once the LLR reaches ``log((1 - beta) / alpha)`` and H0 once it falls to
``log(beta / (1 - alpha))``.  Pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from arena.events.ratings import TableResult, comparisons, expected_score

#: The variance estimate starts from one pseudo-outcome of this variance (that of a uniform
#: outcome in [0, 1]), so a few sets that came out alike do not make the LLR explode.
PRIOR_VARIANCE = 1 / 12


@attrs.frozen
class SprtState:
    sets: int
    mean: float
    llr: float
    lower: float
    upper: float

    @property
    def decision(self) -> str | None:
        """``"H1"`` (A is stronger by elo1), ``"H0"`` (by elo0 at most), or None: go on."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr(outcomes: Sequence[float], elo0: float, elo1: float) -> float:
    n = len(outcomes)
    if n < 2:
        return 0.0
    mean = sum(outcomes) / n
    variance = (sum((x - mean) ** 2 for x in outcomes) + PRIOR_VARIANCE) / (n + 1)
    mu0, mu1 = expected_score(elo0, 0.0), expected_score(elo1, 0.0)
    return n * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * variance)


def sprt_state(outcomes: Sequence[float], *, elo0: float = 0.0, elo1: float = 20.0,
               alpha: float = 0.05, beta: float = 0.05) -> SprtState:
    lower, upper = bounds(alpha, beta)
    mean = sum(outcomes) / len(outcomes) if outcomes else 0.5
    return SprtState(len(outcomes), mean, llr(outcomes, elo0, elo1), lower, upper)


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
    with ``planned``, ``set_index``, ``entrants``, ``ranks`` and ``aborted``) and returns the new
    state when one more set is complete (None otherwise, and once decided: the games still
    running finish, but the verdict stands).  Sets are read in schedule order, as stored."""

    def __init__(self, per_set: int, *, elo0: float, elo1: float, alpha: float,
                 beta: float) -> None:
        self.per_set = per_set
        self.thresholds = dict(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
        self.finished: list[Any] = []
        self.state: SprtState | None = None

    def game_over(self, game: Any) -> SprtState | None:
        self.finished.append(game)
        if self.state is not None and self.state.decision:
            return None
        by_set: dict[int, list[tuple[Any, Any]]] = {}
        for done in sorted(self.finished, key=lambda g: g.planned):
            if done.aborted is None:
                by_set.setdefault(done.set_index, []).append((done.entrants, done.ranks))
        outcomes = [set_outcome(games) for games in by_set.values()
                    if len(games) == self.per_set]
        if not outcomes or (self.state is not None and len(outcomes) == self.state.sets):
            return None  # report once per finished set
        self.state = sprt_state(outcomes, **self.thresholds)
        return self.state
