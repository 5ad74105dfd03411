"""An event's storage by what ``--db`` says: a ``postgresql://`` (or ``postgres://``) URL opens
:class:`~arena.events.pg_storage.PostgresStorage`, anything else is an SQLite file
(:class:`~arena.events.storage.SqliteStorage`).  Both behind
:class:`~arena.events.storage.Storage`."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import psycopg

from arena.events.export import NotAnEvent, open_event
from arena.events.live_rating import LiveRow
from arena.events.pg_storage import PostgresStorage, connect, is_url, redacted
from arena.events.snapshots import Fitted
from arena.events.storage import SqliteStorage

__all__ = ["STORAGE_ERRORS", "NotAnEvent", "Unreachable", "add_snapshot", "is_url",
           "open_existing", "open_existing_waiting", "open_storage"]


class StorageUnavailable(Exception):
    """The database named cannot be reached (a one-line reason)."""


def open_storage(db: str | Path) -> SqliteStorage | PostgresStorage:
    """The event storage ``db`` names, made (or migrated) as needed; a PostgreSQL database
    that cannot be reached is :class:`StorageUnavailable`."""
    if isinstance(db, str) and is_url(db):
        try:
            return PostgresStorage(db)
        except psycopg.OperationalError as exc:
            raise StorageUnavailable(f"cannot reach {redacted(db)}: {first_line(exc)}") from None
    return SqliteStorage(db)


def open_existing(db: str | Path, *, write: bool = False) -> SqliteStorage | PostgresStorage:
    """An event stored already, opened for reading (``arena ratings``, ``arena export``: never
    migrated), or with ``write`` for writing (migrated, saying so); :class:`NotAnEvent`
    saying why not.  A database that holds no event is left untouched."""
    if not (isinstance(db, str) and is_url(db)):
        event = open_event(Path(db))
        if not write:
            return event
        event.close()
        return SqliteStorage(db)
    try:
        with connect(db) as check:
            row = check.execute("SELECT to_regclass('entrants') IS NOT NULL").fetchone()
            held = bool(row and row[0]) and bool(
                check.execute("SELECT count(*) FROM entrants").fetchone()[0])  # type: ignore[index]
    except psycopg.OperationalError as exc:
        raise Unreachable(f"cannot reach {redacted(db)}: {first_line(exc)}",
                          permanent=lasting(exc)) from None
    if not held:
        raise NotAnEvent(f"{redacted(db)}: holds no event (no entrants stored: is it an arena "
                         "tournament --db?)")
    return PostgresStorage(db, read_only=not write)


class Unreachable(NotAnEvent):
    """The PostgreSQL server named cannot be reached now (it may be restarting), or, when
    ``permanent``, will not be whatever the wait (a host that does not exist, a role, password
    or database the server does not know)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


#: SQLSTATE classes of a refusal no wait mends: the role or password (28), the database's
#: name (3D).
LASTING_STATES = ("28", "3D")
#: What libpq says of a refusal no wait mends, where the failure carries no SQLSTATE (a failed
#: connection's often does not): a host name that does not resolve, a role, password or
#: database the server does not know, a client pg_hba.conf does not let in.
LASTING = re.compile(r'could not translate host name|Name or service not known|'
                     r'FATAL:\s+(role|database) ".*" does not exist|'
                     r'password authentication failed|no pg_hba\.conf entry')


def lasting(exc: psycopg.OperationalError) -> bool:
    """Whether a failure to connect will stay (see :class:`Unreachable`)."""
    state = getattr(exc, "sqlstate", None) or ""
    return state[:2] in LASTING_STATES or LASTING.search(str(exc)) is not None


def open_existing_waiting(db: str, patience: float, say: Callable[[str], None],
                          pause: Callable[[float], None] = time.sleep,
                          clock: Callable[[], float] = time.monotonic
                          ) -> SqliteStorage | PostgresStorage:
    """:func:`open_existing`, waiting up to ``patience`` seconds (saying so once) while the
    server cannot be reached: ``arena worker`` started while the database restarts waits for
    it, as a running worker does."""
    deadline = clock() + patience
    said = False
    while True:
        try:
            return open_existing(db, write=True)  # the worker stores games
        except Unreachable as exc:
            if exc.permanent or clock() >= deadline:
                raise
            if not said:
                say(f"arena worker: {exc}; waiting up to {patience:.0f} s for it")
                said = True
            pause(1.0)


#: What a write to either backend may fail with (a full disk, a database restarting).
STORAGE_ERRORS = (sqlite3.Error, OSError, psycopg.Error, StorageUnavailable)


def add_snapshot(db: str | Path, taken_at: float, games: int, live: Sequence[LiveRow],
                 fitted: Mapping[str, Fitted] | None = None) -> None:
    """Store a rating snapshot in the event database ``db`` names (a file or a URL), opened
    for it and closed again (blocking; one of :data:`STORAGE_ERRORS` when it cannot)."""
    storage = open_storage(db)
    try:
        storage.add_snapshot(taken_at, games, live, fitted)
    finally:
        storage.close()


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]

