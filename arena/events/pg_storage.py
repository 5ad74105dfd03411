"""An event's results in PostgreSQL (psycopg 3): the :class:`~arena.events.storage.Storage` of
an event played on several hosts, one database per event (the URL names it).

The rows are SQLite's (:data:`~arena.events.storage.GAME_COLUMNS`, JSON lists as text) and are
read back by the same :func:`~arena.events.storage.stored_record`, so both backends give the
same records; a game row also says which worker stored it (``worker``, NULL when stored by
``arena tournament`` itself).  The work queue of ``arena worker`` (the ``planned`` and
``workers`` tables) is :mod:`arena.events.pg_queue`, the registered bots (``bots``,
``registry_version``) :mod:`arena.events.pg_registry`; the rating snapshots
(``rating_snapshots``, schema version 4) are SQLite's rows (``arena.events.snapshots``).

Schema migrations: the ``schema_version`` table holds the version the database is at; opening
applies the :data:`PG_MIGRATIONS` after it, under a transaction-scoped advisory lock (workers
starting together migrate once).

One connection, used by one thread at a time (a lock): its calls wait for the network
(``blocks``), so an event loop makes them from a worker thread, as with SQLite.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from arena.events import schema_version as versions
from arena.events.hosted_versions import SCHEMA as HOSTED_SCHEMA
from arena.events.live_rating import LiveRow
from arena.events.snapshots import SELECT, Fitted, Snapshot, grouped, snapshot_rows
from arena.events.storage import (
    GAME_COLUMNS,
    game_row,
    parsed_results,
    results_query,
    stored_record,
)
from arena.gameplay.records import GameRecord

if TYPE_CHECKING:
    from arena.events.results import Results

#: PG_MIGRATIONS[v - 1] takes a database from version v - 1 to v.
PG_MIGRATIONS = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE entrants (
        entrant INTEGER PRIMARY KEY, name TEXT NOT NULL, command TEXT NOT NULL);
    CREATE TABLE games (
        planned INTEGER PRIMARY KEY, set_index INTEGER NOT NULL, rotation INTEGER NOT NULL,
        seed TEXT NOT NULL, entrants TEXT NOT NULL, scores TEXT NOT NULL, ranks TEXT NOT NULL,
        aborted TEXT, defaults TEXT NOT NULL, errors TEXT NOT NULL, rounds INTEGER,
        game_id TEXT NOT NULL, log_path TEXT, seconds DOUBLE PRECISION NOT NULL,
        finished_at TEXT NOT NULL, worker TEXT);
    """,
    """
    CREATE SEQUENCE leases;
    CREATE TABLE planned (
        planned INTEGER PRIMARY KEY, done BOOLEAN NOT NULL DEFAULT false, lease BIGINT,
        lease_until TIMESTAMPTZ, worker TEXT, claimed_at TIMESTAMPTZ);
    CREATE INDEX planned_open ON planned (planned) WHERE NOT done;
    CREATE TABLE workers (
        worker TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL,
        lease BIGINT NOT NULL, state TEXT NOT NULL, started_at TIMESTAMPTZ NOT NULL,
        heartbeat_at TIMESTAMPTZ NOT NULL, lease_until TIMESTAMPTZ NOT NULL);
    """,
    """
    CREATE TABLE bots (
        name TEXT NOT NULL, folded TEXT PRIMARY KEY, salt BYTEA NOT NULL, hash BYTEA NOT NULL);
    CREATE TABLE registry_version (version BIGINT NOT NULL);
    INSERT INTO registry_version VALUES (0);
    """,
    """
    CREATE TABLE rating_snapshots (
        games INTEGER NOT NULL, name TEXT NOT NULL, taken_at DOUBLE PRECISION NOT NULL,
        mean DOUBLE PRECISION NOT NULL, uncertainty DOUBLE PRECISION NOT NULL,
        elo DOUBLE PRECISION, low DOUBLE PRECISION, high DOUBLE PRECISION,
        PRIMARY KEY (games, name));
    CREATE INDEX rating_snapshots_by_name ON rating_snapshots (name, games);
    """,
    # issue 29: a token's digest instead of its scrypt hash; the rows before are scrypt's
    """
    ALTER TABLE bots ADD COLUMN scheme TEXT NOT NULL DEFAULT 'scrypt';
    """,
    # issue 33: hosted bots' versions and builds (arena.events.hosted_versions)
    HOSTED_SCHEMA.replace("BLOB", "BYTEA"),
)

#: A snapshot taken again at the same game count replaces the first (as SQLite's ``INSERT OR
#: REPLACE``).
INSERT_SNAPSHOT = ("INSERT INTO rating_snapshots VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                   "ON CONFLICT (games, name) DO UPDATE SET taken_at = excluded.taken_at, "
                   "mean = excluded.mean, uncertainty = excluded.uncertainty, "
                   "elo = excluded.elo, low = excluded.low, high = excluded.high")

#: Any number: the advisory lock the migrations are made under.
MIGRATION_LOCK = 0x6172656E61

INSERT_GAME = (f"INSERT INTO games ({', '.join(GAME_COLUMNS)}, worker) "
               f"VALUES ({', '.join(['%s'] * (len(GAME_COLUMNS) + 1))}) "
               "ON CONFLICT (planned) DO NOTHING")


def is_url(text: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a URL) rather than an SQLite file."""
    return text.startswith(("postgresql://", "postgres://"))


def redacted(url: str) -> str:
    """The URL without its password (for messages)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


#: TCP settings a connection gets unless its URL says otherwise: a peer gone silent (a cut
#: network) fails the connection within about half a minute, so a worker reconnects instead of
#: waiting for TCP's retries (a quarter of an hour).  Unix sockets ignore them.
TCP_DEFAULTS = {"connect_timeout": "10", "tcp_user_timeout": "30000", "keepalives": "1",
                "keepalives_idle": "30", "keepalives_interval": "10", "keepalives_count": "3"}


def connect(url: str) -> psycopg.Connection[Any]:
    """A connection in autocommit (each transaction is an explicit block); a failure is a
    :class:`psycopg.OperationalError` saying why."""
    given = psycopg.conninfo.conninfo_to_dict(url)
    conninfo = psycopg.conninfo.make_conninfo(url, **{
        key: value for key, value in TCP_DEFAULTS.items() if key not in given})
    return psycopg.connect(conninfo, autocommit=True)


def migrate(db: psycopg.Connection[Any], where: str = "the database") -> None:
    """Bring the database to the newest schema, saying so for a database made before; one
    made by a newer arena is refused (:class:`~arena.events.schema_version.SchemaTooNew`)."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        current = schema_version(db)
        versions.check(current, len(PG_MIGRATIONS), where)
        versions.announce(current, len(PG_MIGRATIONS), where)
        for version, script in enumerate(PG_MIGRATIONS[current:], current + 1):
            db.execute(script)
            db.execute("INSERT INTO schema_version VALUES (%s)", (version,))


def schema_version(db: psycopg.Connection[Any]) -> int:
    row = db.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0) if row else 0


class PostgresStorage:
    """Its calls wait for the network (``blocks``): a runner writes games from a worker
    thread; the connection is used by one thread at a time."""

    blocks = True

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        """``read_only``: for a command that only reads: never migrated (one made by a newer
        arena is refused all the same)."""
        self.url = url
        self.path = redacted(url)  # what messages call it
        self.db = connect(url)
        self.lock = threading.Lock()
        if not read_only:
            migrate(self.db, self.path)
            return
        exists = self.db.execute("SELECT to_regclass('schema_version')").fetchone()
        if exists and exists[0] is not None:
            versions.check(schema_version(self.db), len(PG_MIGRATIONS), self.path)

    def write_event(self, meta: Mapping[str, Any], entrants: Sequence[tuple[str, str]]) -> None:
        with self.lock, self.db.transaction(), self.db.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
                "excluded.value", [(key, json.dumps(value)) for key, value in meta.items()])
            cursor.executemany(
                "INSERT INTO entrants VALUES (%s, %s, %s) ON CONFLICT (entrant) DO UPDATE "
                "SET name = excluded.name, command = excluded.command",
                [(i, name, command) for i, (name, command) in enumerate(entrants)])

    def meta(self) -> dict[str, Any]:
        with self.lock:
            rows = self.db.execute("SELECT key, value FROM meta").fetchall()
        return {key: json.loads(value) for key, value in rows}

    def entrants(self) -> list[tuple[str, str]]:
        with self.lock:
            rows = self.db.execute("SELECT name, command FROM entrants ORDER BY entrant")
            return [(name, command) for name, command in rows]

    def add_game(self, game: GameRecord, worker: str | None = None) -> bool:
        return self.add_games([game], worker) == 1

    def add_games(self, games: Sequence[GameRecord], worker: str | None = None) -> int:
        rows = [(*game_row(game), worker) for game in games]
        with self.lock, self.db.transaction():
            return sum(self.db.execute(INSERT_GAME, row).rowcount for row in rows)

    def games(self) -> list[GameRecord]:
        return list(self.iter_games())

    def iter_games(self) -> Iterator[GameRecord]:
        """The stored games in schedule order (read at once: the lock is not held across
        the caller's use)."""
        names = [name for name, _ in self.entrants()]
        with self.lock:
            rows = self.db.execute(
                f"SELECT {', '.join(GAME_COLUMNS[:-1])} FROM games ORDER BY planned").fetchall()
        return (stored_record(row, names) for row in rows)

    def results(self) -> Results:
        query = results_query(
            lambda column: f"coalesce(string_agg(({column})::text, ',' ORDER BY planned), '')")
        with self.lock:
            row = self.db.execute(query).fetchone()
        return parsed_results(row, self.iter_games)

    def add_snapshot(self, taken_at: float, games: int, live: Sequence[LiveRow],
                     fitted: Mapping[str, Fitted] | None = None) -> None:
        rows = snapshot_rows(taken_at, games, live, fitted)
        with self.lock, self.db.transaction(), self.db.cursor() as cursor:
            cursor.executemany(INSERT_SNAPSHOT, rows)

    def snapshots(self, name: str | None = None) -> dict[str, list[Snapshot]]:
        where = "" if name is None else " WHERE name = %s"
        with self.lock:
            rows = self.db.execute(f"{SELECT}{where} ORDER BY name, games",
                                   () if name is None else (name,)).fetchall()
        return grouped(rows)

    def schema_version(self) -> int:
        with self.lock:
            return schema_version(self.db)

    def close(self) -> None:
        self.db.close()
