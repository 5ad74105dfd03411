"""Each bot's rating over time, with its band.

Two sources, chosen in :func:`rating_history`:

- **snapshots**: a storage that keeps rating snapshots (the ladder's ``rating_snapshots``
  table) offers ``rating_snapshots()``: rows of (games, entrant, elo, low, high), one per bot
  each time the ladder published its ratings.  When a storage has it, the history is read from
  it, as published;
- **computed**: otherwise the stored games, in schedule order (the order they were played in),
  are cut at :data:`POINTS` evenly spaced points and the leaderboard is fitted on each prefix
  (with a small bootstrap, :data:`RESAMPLES`, for the band): what the leaderboard would have
  said then.

This is the one place to switch when the snapshots table reaches every backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from arena.events.leaderboard import leaderboard
from arena.gameplay.records import GameRecord

#: Points of a computed history (prefixes of the games).
POINTS = 12
#: Resamples of each point's bootstrap (its band).
RESAMPLES = 40


@attrs.frozen
class Point:
    games: int  # the event's games stored at that moment
    elo: float
    low: float | None
    high: float | None


@attrs.frozen
class History:
    by_bot: dict[int, list[Point]]
    source: str  # "snapshots", "computed" or "none"


def rating_history(storage: Any, names: Sequence[str], games: Sequence[GameRecord], *,
                   seed: object = 0) -> History:
    snapshots = getattr(storage, "rating_snapshots", None)
    if callable(snapshots):
        return from_snapshots(snapshots())
    return computed_history(names, games, seed=seed)


def from_snapshots(rows: Iterable[Sequence[Any]]) -> History:
    """Rows of (games, entrant, elo, low, high), in time order."""
    by_bot: dict[int, list[Point]] = {}
    for games, entrant, elo, low, high in rows:
        by_bot.setdefault(int(entrant), []).append(Point(int(games), float(elo), low, high))
    return History(by_bot, "snapshots")


def cuts(total: int, points: int) -> list[int]:
    """Evenly spaced prefix lengths ending at ``total`` (none when there are no games)."""
    return sorted({max(1, round(total * k / points)) for k in range(1, points + 1)}) \
        if total else []


def computed_history(names: Sequence[str], games: Sequence[GameRecord], *,
                     points: int = POINTS, resamples: int = RESAMPLES,
                     seed: object = 0) -> History:
    by_bot: dict[int, list[Point]] = {}
    for cut in cuts(len(games), points):
        for row in leaderboard(names, games[:cut], resamples=resamples, seed=seed):
            if row.games:
                by_bot.setdefault(row.entrant, []).append(
                    Point(cut, row.elo, row.low, row.high))
    return History(by_bot, "computed")
