"""Registered bots in PostgreSQL (``arena bots --db URL``, ``arena serve --db URL``): the
:class:`~arena.events.registry.Registry` of an SQLite file, with its rows in a ``bots`` table
and its version (moved by every change, so a server reads the rows again only then) in
``registry_version``; both made by the PostgreSQL schema's migrations
(:mod:`arena.events.pg_storage`).  Names, tokens' digests, checks and the upgrade of a scrypt
row are the SQLite registry's."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import psycopg

from arena.events.pg_storage import connect, migrate, redacted
from arena.events.registry import SELECT_BOTS, Registry, RegistryError, Statements


class PgRegistry(Registry):
    """The ``bots`` table of a PostgreSQL database (made when missing); ``shared`` as for
    SQLite's (a lock keeps its connection to one thread at a time either way)."""

    def __init__(self, url: str, *, shared: bool = False) -> None:
        self.url = url
        self.path = Path(redacted(url))  # what messages call it
        self.lock = threading.Lock()
        try:
            self.pg = connect(url)
            migrate(self.pg)
        except psycopg.Error as exc:
            raise RegistryError(f"{redacted(url)}: {first_line(exc)}") from None

    def close(self) -> None:
        self.pg.close()

    def version(self) -> int:
        with self.lock:
            row = self.pg.execute("SELECT version FROM registry_version").fetchone()
        return int(row[0]) if row else 0

    def reopened(self) -> PgRegistry:
        return PgRegistry(self.url, shared=True)

    def _has_table(self, table: str) -> bool:
        with self.lock:
            found = self.pg.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
        return bool(found and found[0])

    def _change(self, sql: str, args: tuple[object, ...], problem: str,
                also: Statements = ()) -> None:
        try:
            with self.lock, self.pg.transaction():
                if self.pg.execute(sql.replace("?", "%s"), args).rowcount == 0:
                    raise RegistryError(problem)
                for statement, values in also:
                    self.pg.execute(statement.replace("?", "%s"), values)
                self.pg.execute("UPDATE registry_version SET version = version + 1")
        except psycopg.errors.UniqueViolation:
            raise RegistryError(problem) from None
        except psycopg.Error as exc:
            raise RegistryError(f"{redacted(self.url)}: {first_line(exc)}") from None

    def names(self) -> list[str]:
        with self.lock:
            rows: list[Any] = self.pg.execute("SELECT name FROM bots ORDER BY folded").fetchall()
        return [name for (name,) in rows]

    def _select(self) -> list[tuple[str, str, bytes, bytes, str]]:
        with self.lock:
            rows: list[Any] = self.pg.execute(SELECT_BOTS).fetchall()
        return rows


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
