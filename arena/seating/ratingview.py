"""What a ladder's seating knows of each bot's strength: a :class:`RatingView` gives a mean on
the Elo scale and its uncertainty; :class:`IncrementalElo` is the simple default, fed with each
finished game (and, at start, with the games stored before).  Pure: no I/O, no clock."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol

#: The Elo every bot starts at.
START_ELO = 1500.0
#: Elo points a two-player game moves at most (K); a game of n players splits it over its
#: n - 1 pairs, so one game moves a bot at most K whatever the table size.
K_FACTOR = 32.0
#: The uncertainty of a bot with no games, on the Elo scale.
UNKNOWN_UNCERTAINTY = 350.0
#: Games before a bot's estimate counts as known (below: :data:`UNKNOWN_UNCERTAINTY`).
PROVISIONAL_GAMES = 5


class RatingView(Protocol):
    def estimate(self, name: str) -> tuple[float, float]:
        """(mean on the Elo scale, uncertainty in Elo points; large: little is known)."""


class IncrementalElo:
    """Elo updated game by game over every pair of a table (who placed better won the pair, a
    shared place is a tie).  Its uncertainty is :data:`UNKNOWN_UNCERTAINTY` for a bot with
    fewer than :data:`PROVISIONAL_GAMES` finished games, then 350 / sqrt(games).  Names are
    compared without case."""

    def __init__(self) -> None:
        self.elo: dict[str, float] = {}
        self.games: dict[str, int] = {}

    def estimate(self, name: str) -> tuple[float, float]:
        key = name.casefold()
        games = self.games.get(key, 0)
        uncertainty = (UNKNOWN_UNCERTAINTY if games < PROVISIONAL_GAMES
                       else UNKNOWN_UNCERTAINTY / math.sqrt(games))
        return self.elo.get(key, START_ELO), uncertainty

    def add(self, names: Sequence[str], ranks: Sequence[int]) -> None:
        """A finished game: each seat's name and rank (1 = best)."""
        keys = [name.casefold() for name in names]
        if len(keys) < 2 or len(ranks) != len(keys):
            return
        before = [self.elo.get(key, START_ELO) for key in keys]
        step = K_FACTOR / (len(keys) - 1)
        moved = [0.0] * len(keys)
        for i in range(len(keys)):
            for j in range(i + 1, len(keys)):
                expected = 1.0 / (1.0 + 10 ** ((before[j] - before[i]) / 400.0))
                actual = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                moved[i] += step * (actual - expected)
                moved[j] -= step * (actual - expected)
        for key, old, change in zip(keys, before, moved):
            self.elo[key] = old + change
            self.games[key] = self.games.get(key, 0) + 1

    def rename(self, old: str, new: str) -> None:
        """A bot renamed (``arena bots rename``) keeps its rating; games it played under the
        new name before this was known add their moves to it."""
        before, after = old.casefold(), new.casefold()
        if before in self.elo and before != after:
            moved = self.elo.pop(after, START_ELO) - START_ELO
            self.elo[after] = self.elo.pop(before) + moved
            self.games[after] = self.games.pop(before) + self.games.pop(after, 0)

    def add_all(self, games: Iterable[tuple[Sequence[str], Sequence[int]]]) -> IncrementalElo:
        for names, ranks in games:
            self.add(names, ranks)
        return self
