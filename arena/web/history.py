"""Each bot's rating over time, with its band.

Two sources, chosen in :func:`rating_history`:

- **snapshots**: a database (an SQLite file or PostgreSQL) that holds rating snapshots
  (``arena.events.snapshots``: a ladder takes them as it runs, an event while it runs) gives
  the history as it was published: one point per snapshot and bot, at the games stored then.
  A snapshot that came with the batch fit gives its Elo and 95 % interval (no band while the
  fit had too little data); a live-only one gives the live rating (openskill, on the Elo
  scale) with a band of :data:`LIVE_BAND` standard deviations either side (its own 95 %), and
  the point says so (``kind``: ``"fit"`` or ``"live"``).  Bots are matched by name;
- **computed**: otherwise (no snapshots, or a storage that keeps none) the stored games, in
  schedule order (the order they were played in), are cut at :data:`POINTS` evenly spaced
  points and the leaderboard is fitted on each prefix (with a small bootstrap,
  :data:`RESAMPLES`, for the band): what the leaderboard would have said then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from arena.events.leaderboard import leaderboard
from arena.events.snapshots import Snapshot
from arena.gameplay.records import GameRecord

#: Points of a computed history (prefixes of the games).
POINTS = 12
#: Resamples of each point's bootstrap (its band).
RESAMPLES = 40
#: A live-only snapshot's band: the live mean this many standard deviations either side.
LIVE_BAND = 1.96


@attrs.frozen
class Point:
    games: int  # the event's games stored at that moment
    elo: float
    low: float | None
    high: float | None
    kind: str = "fit"  # "fit": the batch fit's Elo and interval; "live": the live rating's


@attrs.frozen
class History:
    by_bot: dict[int, list[Point]]
    source: str  # "snapshots", "computed", "pending" or "none"


def rating_history(storage: Any, names: Sequence[str], games: Sequence[GameRecord], *,
                   seed: object = 0) -> History:
    """The snapshots ``storage`` holds when it has some, else computed."""
    snapshots = getattr(storage, "snapshots", None)
    found = snapshots() if snapshots is not None else {}
    if found:
        return from_snapshots(found, names)
    return computed_history(names, games, seed=seed)


def from_snapshots(found: Mapping[str, Sequence[Snapshot]], names: Sequence[str]) -> History:
    """Each entrant's snapshots (by name; others left out) as points, oldest first."""
    by_bot: dict[int, list[Point]] = {}
    for entrant, name in enumerate(names):
        for snap in found.get(name, ()):
            if snap.elo is not None:
                point = Point(snap.games, snap.elo, snap.low, snap.high, "fit")
            else:
                band = LIVE_BAND * snap.uncertainty
                point = Point(snap.games, snap.mean, snap.mean - band, snap.mean + band, "live")
            by_bot.setdefault(entrant, []).append(point)
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


@attrs.frozen
class Published:
    """The newest rating snapshot of a file: when, at how many games, the batch fit's or the
    live rating's (``kind``), and each bot's (Elo, low, high) by name."""

    taken_at: float
    games: int
    kind: str
    ratings: dict[str, tuple[float, float | None, float | None]]


def latest_snapshot(path: Path) -> Published | None:
    """The newest snapshot with the batch fit's numbers, else the newest live one (its band
    :data:`LIVE_BAND` standard deviations either side); None without snapshots.  Read-only,
    a few indexed rows (the provisional leaderboard of ``arena.web.data``)."""
    import sqlite3

    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                          "name = 'rating_snapshots'").fetchone():
            return None
        for kind, where in (("fit", "elo IS NOT NULL"), ("live", "1")):
            (games,) = db.execute(f"SELECT max(games) FROM rating_snapshots WHERE {where}"
                                  ).fetchone()
            if games is None:
                continue
            rows = db.execute("SELECT name, taken_at, mean, uncertainty, elo, low, high FROM "
                              f"rating_snapshots WHERE games = ? AND {where}", (games,)).fetchall()
            ratings = {name: (elo, low, high) if kind == "fit" else
                       (mean, mean - LIVE_BAND * spread, mean + LIVE_BAND * spread)
                       for name, _, mean, spread, elo, low, high in rows}
            return Published(max(row[1] for row in rows), int(games), kind, ratings)
        return None
    finally:
        db.close()


def latest_of(found: Mapping[str, Sequence[Snapshot]]) -> Published | None:
    """:func:`latest_snapshot` from a storage's snapshots (any backend: reads them all)."""
    for kind in ("fit", "live"):
        shown = [(name, snap) for name, snaps in found.items() for snap in snaps
                 if kind == "live" or snap.elo is not None]
        games = max((snap.games for _, snap in shown), default=None)
        if games is None:
            continue
        last = {name: snap for name, snap in shown if snap.games == games}
        ratings = {name: (snap.elo, snap.low, snap.high) if kind == "fit" and snap.elo
                   is not None else (snap.mean, snap.mean - LIVE_BAND * snap.uncertainty,
                                     snap.mean + LIVE_BAND * snap.uncertainty)
                   for name, snap in last.items()}
        return Published(max(snap.taken_at for snap in last.values()), games, kind, ratings)
    return None
