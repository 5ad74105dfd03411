"""Rating snapshots, so that a bot's rating over time can be drawn: every so many games or
seconds while an event or a ladder runs, one row per bot in the event's database (table
``rating_snapshots``: in an SQLite file made by this module when it first writes, in
PostgreSQL by a schema migration of :mod:`arena.events.pg_storage`).  Both backends write and
read them through the storage interface (``add_snapshot``, ``snapshots``: see
:class:`~arena.events.storage.Storage`), with the rows and grouping of this module.

A row: when it was taken (``taken_at``, seconds since the epoch, UTC), how many games the live
rating had taken in then (``games``, aborted ones too: the stored games' count), the bot's
name, its live rating on the Elo scale (``mean``, ``uncertainty``: one standard deviation, see
``arena.events.live_rating``), and the batch fit's Elo and 95 % interval (``elo``, ``low``,
``high``) when the snapshot comes with a fit (the leaderboard printed while an event runs; the
fit reads the games stored by then, which may be a few more), else empty (NULL), as are the
interval's ends when the fit gave none (thin data).  A snapshot is keyed by its game count and
name: taken again at the same count (a fit after a live-only snapshot), it replaces the first.

When to take one is a pure policy (:class:`SnapshotPolicy`, time as an input); writing is
blocking (an event loop calls it in a thread or another process); reading an SQLite file
(:func:`history`) opens it read-only and never makes the table.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import attrs

from arena.events.live_rating import LiveRow

SCHEMA = """
CREATE TABLE IF NOT EXISTS rating_snapshots (
    games INTEGER NOT NULL, name TEXT NOT NULL, taken_at REAL NOT NULL,
    mean REAL NOT NULL, uncertainty REAL NOT NULL, elo REAL, low REAL, high REAL,
    PRIMARY KEY (games, name));
CREATE INDEX IF NOT EXISTS rating_snapshots_by_name ON rating_snapshots (name, games);
"""

#: A fit's numbers for one bot: Elo, and its interval's ends (None: no interval).
Fitted = tuple[float, float | None, float | None]


@attrs.frozen
class SnapshotPolicy:
    """Take a snapshot once ``every_games`` more games were rated, or ``every_seconds`` have
    passed with at least one more game (never twice at one game count); while the event is
    young, sooner: once the games rated since the last one are ``share`` of those rated then
    (at least one), so that a short event's rating history has dozens of points (about 50 at
    240 games) rather than one per ``every_games``."""

    every_games: int = 100
    every_seconds: float = 600.0
    #: The share of the games rated at the last snapshot after which a young event takes the
    #: next (0: only every ``every_games``).
    share: float = 0.1

    def due(self, games: int, now: float, last_games: int, last_time: float) -> bool:
        """Whether to take one now, ``games`` games in, the last at ``last_games`` games and
        time ``last_time`` (the start, before the first)."""
        if games <= last_games:
            return False
        step = min(self.every_games, max(1, int(self.share * last_games))) if self.share \
            else self.every_games
        return games - last_games >= step or now - last_time >= self.every_seconds


@attrs.frozen
class Snapshot:
    """One bot at one moment (see the module's doc)."""

    taken_at: float
    games: int
    mean: float
    uncertainty: float
    elo: float | None = None
    low: float | None = None
    high: float | None = None


#: A stored row: the table's columns in order.
Row = tuple[int, str, float, float, float, float | None, float | None, float | None]


def snapshot_rows(taken_at: float, games: int, live: Sequence[LiveRow],
                  fitted: Mapping[str, Fitted] | None = None) -> list[Row]:
    """One snapshot's rows: every bot of the live ranking, with the fit's numbers of those it
    has."""
    fit = fitted or {}
    return [(games, row.name, taken_at, row.mean, row.uncertainty,
             *fit.get(row.name, (None, None, None))) for row in live]


def grouped(rows: Sequence[Sequence[Any]]) -> dict[str, list[Snapshot]]:
    """Rows of (name, taken_at, games, mean, uncertainty, elo, low, high), ordered by name and
    games, as each bot's snapshots."""
    found: dict[str, list[Snapshot]] = {}
    for bot, *values in rows:
        found.setdefault(str(bot), []).append(Snapshot(*values))
    return found


#: What a reading selects, for :func:`grouped` (then ``WHERE``, ``ORDER BY name, games``).
SELECT = "SELECT name, taken_at, games, mean, uncertainty, elo, low, high FROM rating_snapshots"


def sqlite_add(db: sqlite3.Connection, rows: Sequence[Row]) -> None:
    """Store rows in an open SQLite database (the table made if missing), in one
    transaction."""
    with db:
        db.executescript(SCHEMA)
        db.executemany("INSERT OR REPLACE INTO rating_snapshots VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       rows)


def sqlite_history(db: sqlite3.Connection, name: str | None = None) -> dict[str, list[Snapshot]]:
    """Each bot's snapshots (or only ``name``'s) of an open SQLite database; never makes the
    table."""
    held = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                      "name = 'rating_snapshots'").fetchone()
    if not held:
        return {}
    return grouped(db.execute(f"{SELECT} WHERE ?1 IS NULL OR name = ?1 ORDER BY name, games",
                              (name,)).fetchall())


def write_snapshot(path: Path, taken_at: float, games: int, live: Sequence[LiveRow],
                   fitted: Mapping[str, Fitted] | None = None) -> None:
    """Store one snapshot in an SQLite file.  Blocking (SQLite's commit)."""
    db = sqlite3.connect(path, timeout=30)
    try:
        sqlite_add(db, snapshot_rows(taken_at, games, live, fitted))
    finally:
        db.close()


def history(path: Path, name: str | None = None) -> dict[str, list[Snapshot]]:
    """Each bot's snapshots in an SQLite file (or only ``name``'s), oldest first; bots by
    name.  Empty when the file has none.  Read-only."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return sqlite_history(db, name)
    finally:
        db.close()


class SnapshotReader(Protocol):
    @property
    def path(self) -> object:
        """What messages call the database."""

    def snapshots(self, name: str | None = None) -> dict[str, list[Snapshot]]: ...


def format_history(found: Mapping[str, Sequence[Snapshot]]) -> str:
    """The snapshots as a table, bot after bot, oldest first (times in UTC)."""
    width = max([len("bot")] + [len(name) for name in found])
    lines = [f"{'bot':<{width}}  {'taken (UTC)':<19}  {'games':>6}  {'live':>6}  {'+-':>5}"
             f"  {'elo':>6}  {'95% interval':>13}"]
    for name, snapshots in found.items():
        for snap in snapshots:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(snap.taken_at))
            elo = f"{snap.elo:>6.0f}" if snap.elo is not None else f"{'-':>6}"
            interval = (f"{snap.low:>6.0f}..{snap.high:<5.0f}"
                        if snap.low is not None and snap.high is not None else f"{'-':>13}")
            lines.append(f"{name:<{width}}  {when}  {snap.games:>6}  {snap.mean:>6.0f}  "
                         f"{snap.uncertainty:>5.0f}  {elo}  {interval}")
    return "\n".join(lines)


def history_report(storage: SnapshotReader, name: str | None = None) -> str:
    """What ``arena ratings --history [NAME]`` prints of an event's storage (either backend);
    a ValueError for a name with no snapshots (saying which bots have some)."""
    found = storage.snapshots(name)
    if found:
        return format_history(found)
    where = storage.path
    if name is None:
        return (f"{where}: no rating snapshots yet (they are taken while an event or a "
                "ladder runs)")
    bots = sorted(storage.snapshots())
    raise ValueError(f"no rating snapshots of {name!r}"
                     + (f"; the bots with some: {', '.join(bots)}" if bots else
                        f" (none in {where} yet)"))
