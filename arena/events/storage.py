"""An event's results in SQLite (standard library), one file per event, behind a small
interface so that another store (PostgreSQL, for several hosts) can take its place.

Each finished game is written when it ends, in one transaction, keyed by its index in the
schedule: a game is stored at most once, so a resumed event never counts a game twice.  Games
aborted by a shutdown are not stored (a resumed event plays them again); a game aborted by a
server bug is stored as aborted and left out of the ratings.  The per-game JSON Lines logs lie
beside the database.

A game is stored and read back as the :class:`~arena.gameplay.records.GameRecord` the server
made, keyed by its planned table (``tag``).  A row keeps the planned table (index, set,
rotation, entrants; the seed is the game's, which the schedule's seating takes from it), the
scores, ranks, aborted reason, defaults, errors, rounds, game id, log path and seconds.
Reading it back rebuilds the rest: the game's ``number`` is its planned index (the schedule's
seating numbers its games so), the ``names`` are the entrants' (as :meth:`Storage.write_event`
recorded them; empty when it did not), the ``winners`` are the seats ranked 1, and
``timeouts`` and ``decisions`` are not kept (empty, their defaults).  The leaderboard reads
the finished games as columns instead (:meth:`ResultsStore.results`): one query that
concatenates each column of every row, which numpy reads at once, with no record per game.

Schema migrations: a ``schema_version`` table holds the version the database is at; opening it
applies the :data:`MIGRATIONS` after that one, in order (a database made before the table
existed is at version 0: its tables are the first version's, created if missing).  PostgreSQL
(several hosts) is :mod:`arena.events.pg_storage`, with migrations of its own;
:func:`arena.events.pg_open.open_storage` opens either by a path or a URL.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from arena.events import schema_version
from arena.events.hosted_versions import SCHEMA as HOSTED_SCHEMA
from arena.events.live_rating import LiveRow
from arena.events.snapshots import Fitted, Snapshot, snapshot_rows, sqlite_add, sqlite_history
from arena.gameplay.records import GameRecord, PlannedTable

if TYPE_CHECKING:  # numpy is imported when results are read, not with the storage
    from arena.events.results import Results

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    entrant INTEGER PRIMARY KEY, name TEXT NOT NULL, command TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    planned INTEGER PRIMARY KEY, set_index INTEGER NOT NULL, rotation INTEGER NOT NULL,
    seed TEXT NOT NULL, entrants TEXT NOT NULL, scores TEXT NOT NULL, ranks TEXT NOT NULL,
    aborted TEXT, defaults TEXT NOT NULL, errors TEXT NOT NULL, rounds INTEGER,
    game_id TEXT NOT NULL, log_path TEXT, seconds REAL NOT NULL, finished_at TEXT NOT NULL);
"""

#: The SQLite schema's versions: MIGRATIONS[v - 1] takes a database from version v - 1 to v.
#: Version 2 (issue 33): hosted bots' versions and builds (:mod:`arena.events.hosted_versions`).
MIGRATIONS = (SCHEMA, HOSTED_SCHEMA)

#: The columns of a stored game, in the order :func:`game_row` gives them.
GAME_COLUMNS = ("planned", "set_index", "rotation", "seed", "entrants", "scores", "ranks",
                "aborted", "defaults", "errors", "rounds", "game_id", "log_path", "seconds",
                "finished_at")


class Storage(Protocol):
    #: Whether :meth:`add_game` waits for a disk (an event loop calls it in a worker thread).
    blocks: bool

    def write_event(self, meta: Mapping[str, Any], entrants: Sequence[tuple[str, str]]) -> None:
        """Record what the event is (game, options, schedule settings) and its entrants."""

    def meta(self) -> dict[str, Any]: ...

    def entrants(self) -> list[tuple[str, str]]:
        """(name, command) by entrant number."""

    def add_game(self, game: GameRecord) -> bool:
        """Store a finished game of the schedule (its ``tag`` set); False if that planned
        table was stored already."""

    def games(self) -> list[GameRecord]:
        """The stored games in schedule order."""

    def close(self) -> None: ...


class SnapshotStore(Protocol):
    """What both backends also keep: rating snapshots (``arena.events.snapshots``), written
    and read by an event's live board, a ladder and the web pages; a tournament's own storage
    (a worker's queue) need not."""

    def add_snapshot(self, taken_at: float, games: int, live: Sequence[LiveRow],
                     fitted: Mapping[str, Fitted] | None = None) -> None:
        """Store a rating snapshot: one row per bot of ``live`` (with the fit's numbers of
        those ``fitted`` has), replacing one taken at the same game count."""

    def snapshots(self, name: str | None = None) -> dict[str, list[Snapshot]]:
        """Each bot's rating snapshots (or only ``name``'s), oldest first."""


class ResultsStore(Protocol):
    """What both database backends also give: the finished games as columns, read in one
    query (the leaderboard of ``arena ratings``)."""

    def results(self) -> Results:
        """Every finished game's set, entrants, ranks, scores and defaults
        (:class:`~arena.events.results.Results`), in schedule order."""


class EventStorage(Storage, SnapshotStore, ResultsStore, Protocol):
    """An event's (or a ladder's) database: either backend."""

    def add_games(self, games: Sequence[GameRecord]) -> int:
        """Store finished games in one transaction (a reader sees all of them or none: a
        ladder stores a duplicate set so); how many were not stored already."""


class SqliteStorage:
    """Its commits wait for the disk (``blocks``): a runner writes games from a worker thread,
    one at a time (the connection may be used from another thread than its creator's; a lock
    keeps writes from several threads one at a time)."""

    blocks = True

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        """``read_only``: for a command that only reads (``arena ratings``, ``export``, the
        pages): the database is never migrated nor changed (one made by a newer arena is
        refused all the same: :class:`~arena.events.schema_version.SchemaTooNew`)."""
        self.path = Path(path)
        self.lock = threading.Lock()
        if read_only:
            self.db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            schema_version.check(stored_version(self.db), len(MIGRATIONS), str(self.path))
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")  # readers (arena ratings) never block it
        migrate(self.db, str(self.path))

    def write_event(self, meta: Mapping[str, Any], entrants: Sequence[tuple[str, str]]) -> None:
        with self.lock, self.db:
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                [(key, json.dumps(value)) for key, value in meta.items()])
            self.db.executemany("INSERT OR REPLACE INTO entrants VALUES (?, ?, ?)",
                                [(i, name, command) for i, (name, command) in enumerate(entrants)])

    def meta(self) -> dict[str, Any]:
        return {key: json.loads(value)
                for key, value in self.db.execute("SELECT key, value FROM meta")}

    def entrants(self) -> list[tuple[str, str]]:
        return [(name, command) for name, command in
                self.db.execute("SELECT name, command FROM entrants ORDER BY entrant")]

    def add_game(self, game: GameRecord) -> bool:
        return self.add_games([game]) == 1

    def add_games(self, games: Sequence[GameRecord]) -> int:
        rows = [game_row(game) for game in games]
        with self.lock, self.db:
            return sum(self.db.execute(
                "INSERT OR IGNORE INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                row).rowcount for row in rows)

    def games(self) -> list[GameRecord]:
        return list(self.iter_games())

    def iter_games(self) -> Iterator[GameRecord]:
        """The stored games in schedule order, read a row at a time (``arena export``)."""
        names = [name for name, _ in self.entrants()]
        rows = self.db.execute(
            "SELECT planned, set_index, rotation, seed, entrants, scores, ranks, aborted, "
            "defaults, errors, rounds, game_id, log_path, seconds FROM games ORDER BY planned")
        return (stored_record(row, names) for row in rows)

    def results(self) -> Results:
        """(SQLite 3.40 has no ORDER BY in an aggregate: ``planned``, the table's INTEGER
        PRIMARY KEY, is its row id, the order a scan of the table follows.)"""
        row = self.db.execute(results_query(
            lambda column: f"coalesce(group_concat({column}), '')")).fetchone()
        return parsed_results(row, self.iter_games)

    def add_snapshot(self, taken_at: float, games: int, live: Sequence[LiveRow],
                     fitted: Mapping[str, Fitted] | None = None) -> None:
        with self.lock:
            sqlite_add(self.db, snapshot_rows(taken_at, games, live, fitted))

    def snapshots(self, name: str | None = None) -> dict[str, list[Snapshot]]:
        """(The table is made by the first snapshot written: reading never makes it.)"""
        return sqlite_history(self.db, name)

    def schema_version(self) -> int:
        return version_of(self.db)

    def close(self) -> None:
        self.db.close()


def version_of(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def stored_version(db: sqlite3.Connection) -> int:
    """The schema version, read without changing anything (0: no ``schema_version`` yet)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
                  "'schema_version'").fetchone() is None:
        return 0
    return version_of(db)


def migrate(db: sqlite3.Connection, where: str = "the database") -> None:
    """Bring the database to the newest schema (see the module's docstring), saying so for a
    database made before; one made by a newer arena is refused."""
    found = stored_version(db)
    schema_version.check(found, len(MIGRATIONS), where)
    schema_version.announce(found, len(MIGRATIONS), where)
    with db:
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    for version, script in enumerate(MIGRATIONS[version_of(db):], version_of(db) + 1):
        db.executescript(f"BEGIN; {script}; INSERT INTO schema_version VALUES ({version}); "
                         "COMMIT;")


def game_row(game: GameRecord) -> tuple[Any, ...]:
    """A finished game of the schedule as the values of :data:`GAME_COLUMNS` (a ValueError
    when the schedule did not plan it)."""
    table = game.table
    return (table.index, table.set_index, table.rotation, game.seed,
            json.dumps(table.entrants), json.dumps(game.scores), json.dumps(game.ranks),
            game.aborted, json.dumps(game.defaults), json.dumps(game.errors), game.rounds,
            game.game_id, str(game.log_path) if game.log_path else None, game.seconds,
            time.strftime("%Y-%m-%dT%H:%M:%S%z"))


def stored_record(row: Sequence[Any], names: Sequence[str]) -> GameRecord:
    """A stored row (the columns from ``planned`` to ``seconds``) as the record it was, with
    the fields it does not keep rebuilt (see the module's docstring); ``names`` by entrant."""
    (planned, set_index, rotation, seed, entrants, scores, ranks, aborted, defaults, errors,
     rounds, game_id, log_path, seconds) = row
    table = PlannedTable(planned, set_index, rotation, tuple(json.loads(entrants)), seed)
    placed: tuple[int, ...] = tuple(json.loads(ranks))
    known = all(0 <= entrant < len(names) for entrant in table.entrants)
    return GameRecord(
        number=planned, game_id=game_id, entrants=table.entrants,
        names=tuple(names[entrant] for entrant in table.entrants) if known else (),
        seed=seed, scores=tuple(json.loads(scores)), ranks=placed,
        winners=tuple(seat for seat, rank in enumerate(placed) if rank == 1), aborted=aborted,
        defaults=tuple(json.loads(defaults)), errors=tuple(json.loads(errors)), rounds=rounds,
        log_path=Path(log_path) if log_path is not None else None, seconds=seconds, tag=table)


def results_query(concatenated: Callable[[str], str]) -> str:
    """The query of :meth:`ResultsStore.results`: a row of the number of finished games, then
    each of :data:`RESULT_COLUMNS` as one comma-separated text (``concatenated`` says how
    the backend joins a column's values in the order of ``planned``): the set indices, and
    each per-seat column's JSON lists (``[3, 1, 2],[0, 4, 1]``; numpy strips the brackets
    faster than the database does)."""
    columns = ", ".join(concatenated(column) for column in RESULT_COLUMNS)
    return f"SELECT count(*), {columns} FROM games WHERE aborted IS NULL"


#: The columns :func:`results_query` reads, in the order :meth:`Results.parse` takes them.
RESULT_COLUMNS = ("set_index", "entrants", "ranks", "scores", "defaults")


def parsed_results(row: Sequence[Any] | None,
                   records: Callable[[], Iterable[GameRecord]]) -> Results:
    """The :func:`results_query` row as columns; from the ``records`` when a row was not
    written as this module writes them (numbers that are not whole, say)."""
    from arena.events.results import Results

    parsed = Results.parse(*row) if row is not None else None
    return parsed if parsed is not None else Results.of_games(records())


def names_and_results(storage: EventStorage) -> tuple[list[str], Results]:
    """As :func:`names_and_games` (read first, then the names), the games as columns."""
    results = storage.results()
    return [name for name, _ in storage.entrants()], results


def names_and_games(storage: Storage) -> tuple[list[str], list[GameRecord]]:
    """Every entrant's name and every stored game, consistent while the event or ladder runs:
    the games are read first, so every entrant they name is among the names read after (a bot
    added meanwhile, with its first game, would otherwise be in the games but not the
    names).  Entrants are only ever added (a removed bot keeps its row)."""
    games = storage.games()
    names = [name for name, _ in storage.entrants()]
    return names, [named(game, names) for game in games]


def named(game: GameRecord, names: Sequence[str]) -> GameRecord:
    """``game`` with its seats' names when it was read before its entrants were."""
    seats = [e for e in game.entrants if e is not None and 0 <= e < len(names)]
    if game.names or not game.entrants or len(seats) != len(game.entrants):
        return game
    return attrs.evolve(game, names=tuple(names[e] for e in seats))
