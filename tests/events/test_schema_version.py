"""A database's schema version (issue 30): one written by a newer arena is refused in one line
by every command, a migration is said before it runs, and a command that only reads
(``arena ratings``, ``arena export``) never migrates, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.pg_storage import PG_MIGRATIONS, PostgresStorage
from arena.events.schema_version import SchemaTooNew
from arena.events.storage import MIGRATIONS, SqliteStorage

ENTRANTS = [("alpha", "random"), ("beta", "random"), ("gamma", "random")]


def sqlite_event(path: Path) -> None:
    storage = SqliteStorage(path)
    storage.write_event({"game": "chochlik", "seed": "v"}, ENTRANTS)
    storage.close()


def test_a_newer_sqlite_database_is_refused_in_one_line_by_every_command(tmp_path: Path):
    db = tmp_path / "event.db"
    sqlite_event(db)
    with sqlite3.connect(db) as raw:
        raw.execute("INSERT INTO schema_version VALUES (99)")
    with pytest.raises(SchemaTooNew, match="version 99, newer than this arena's"):
        SqliteStorage(db)
    for command in (["ratings", "--db", str(db)], ["export", "--db", str(db)],
                    ["tournament", "--resume", "--db", str(db)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 1, (command, result.output)
        assert result.output.count("\n") == 1 and "upgrade arena" in result.output, \
            result.output
        assert "Traceback" not in result.output


def test_reading_an_sqlite_database_never_changes_its_schema(tmp_path: Path):
    db = tmp_path / "event.db"
    sqlite_event(db)
    with sqlite3.connect(db) as raw:  # as an arena from before the version was kept left it
        raw.execute("DROP TABLE schema_version")
    for command in (["ratings", "--db", str(db)], ["export", "--db", str(db)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0, (command, result.output)
        with sqlite3.connect(db) as raw:
            tables = {name for (name,) in raw.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "schema_version" not in tables, command
    SqliteStorage(db).close()  # a command that writes brings it up to date
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT max(version) FROM schema_version").fetchone()[0] == len(
            MIGRATIONS)


def test_a_postgresql_database_is_migrated_only_by_a_writer_which_says_so(pg_url, caplog):
    newest = len(PG_MIGRATIONS)
    with psycopg.connect(pg_url, autocommit=True) as raw:  # as the arena before the last wrote it
        raw.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for version, script in enumerate(PG_MIGRATIONS[:-1], 1):
            raw.execute(script)
            raw.execute("INSERT INTO schema_version VALUES (%s)", (version,))
        raw.execute("INSERT INTO meta VALUES ('game', '\"chochlik\"')")
        for i, (name, command) in enumerate(ENTRANTS):
            raw.execute("INSERT INTO entrants VALUES (%s, %s, %s)", (i, name, command))
    result = CliRunner().invoke(main, ["ratings", "--db", pg_url])
    assert result.exit_code == 0, result.output
    with psycopg.connect(pg_url, autocommit=True) as raw:
        assert raw.execute("SELECT max(version) FROM schema_version").fetchone()[0] == newest - 1
    with caplog.at_level(logging.WARNING, logger="arena.storage"):
        PostgresStorage(pg_url).close()
    assert [r.getMessage() for r in caplog.records] == [
        f"{pg_url}: migrating its schema from version {newest - 1} to {newest} (an older "
        "arena cannot use it afterwards)"]
    with psycopg.connect(pg_url, autocommit=True) as raw:
        raw.execute("INSERT INTO schema_version VALUES (%s)", (newest + 1,))
    result = CliRunner().invoke(main, ["ratings", "--db", pg_url])
    assert result.exit_code == 1 and f"version {newest + 1}, newer" in result.output
