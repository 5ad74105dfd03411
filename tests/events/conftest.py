"""The event storage of both backends, for the shared storage suite (tests/events/test_storage*.py):
SQLite, and a real PostgreSQL server (tests/pg_fixture.py)."""

from __future__ import annotations

import pytest

from arena.events.pg_open import open_storage


@pytest.fixture(params=["sqlite", "postgresql"])
def storage_at(request, tmp_path):
    """``storage_at(name)``: the storage of the event database ``name`` (the same name opens the
    same database again), of the test's backend."""
    databases: dict[str, str] = {}
    opened = []

    def at(name: str):
        if request.param == "sqlite":
            storage = open_storage(tmp_path / name)
        else:
            if name not in databases:
                databases[name] = request.getfixturevalue("pg_server").new_database()
            storage = open_storage(databases[name])
        opened.append(storage)
        return storage

    yield at
    for storage in opened:
        storage.close()
