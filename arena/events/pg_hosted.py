"""Hosted bots' versions in PostgreSQL (``arena bots submit --db URL``): the
:class:`~arena.events.hosted_store.HostedStore` of an SQLite file, its tables made by the
PostgreSQL schema's migrations (:mod:`arena.events.pg_storage`)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import psycopg

from arena.events.hosted_store import HostedStore
from arena.events.pg_storage import connect, migrate, redacted


class PgHosted(HostedStore):
    """One connection, one thread at a time (a lock), as the other PostgreSQL stores."""

    _duplicate = psycopg.errors.UniqueViolation

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = redacted(url)
        self.lock = threading.RLock()
        self.pg = connect(url)
        try:
            migrate(self.pg, self.path)
        except BaseException:
            self.pg.close()
            raise

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        with self.lock, self.pg.transaction():
            yield

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        with self.lock:
            return self.pg.execute(sql.replace("?", "%s"), args)

    def close(self) -> None:
        self.pg.close()
