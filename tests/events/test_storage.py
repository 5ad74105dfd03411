"""The event database: settings, entrants, and every game stored exactly once, as the game
record it was; a database written before games were stored as records still loads.  The tests
taking ``storage_at`` run on both backends (SQLite, and a real PostgreSQL server: see
tests/pg_fixture.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs
import pytest

from arena.events.storage import SqliteStorage
from arena.gameplay.records import GameRecord, PlannedTable

NAMES = ("a", "b", "c")


def game(planned, entrants=(0, 1, 2), ranks=(1, 2, 3), set_index=0, aborted=None):
    """A finished game of the schedule, as storage gives it back: its ``names`` the entrants'
    (of :data:`NAMES`; others are ``bot<n>``), its winners the seats ranked 1, no timeouts or
    decisions kept."""
    return GameRecord(
        number=planned, game_id=f"g{planned}", entrants=entrants,
        names=tuple(NAMES[e] if e < len(NAMES) else f"bot{e}" for e in entrants), seed="s",
        scores=(3, 2, 1), ranks=ranks,
        winners=tuple(seat for seat, rank in enumerate(ranks) if rank == 1), aborted=aborted,
        defaults=(0, 0, 1), errors=(0, 0, 0), rounds=3, log_path=None, seconds=0.5,
        tag=PlannedTable(planned, set_index, planned, entrants, "s"))


def test_games_are_stored_once_and_read_back(storage_at):
    storage = storage_at("ev.db")
    storage.write_event({"game": "chochlik", "options": {"players": 3}},
                        [(name, "random") for name in NAMES])
    assert storage.add_game(game(0)) and storage.add_game(game(1))
    assert not storage.add_game(game(0))  # a planned table is stored at most once
    storage.close()
    again = storage_at("ev.db")
    assert again.meta() == {"game": "chochlik", "options": {"players": 3}}
    assert again.entrants() == [(name, "random") for name in NAMES]
    assert again.games() == [game(0), game(1)]
    assert [(g.planned, g.set_index, g.rotation) for g in again.games()] == [(0, 0, 0), (1, 0, 1)]


def test_what_a_row_does_not_keep_comes_back_rebuilt_or_empty(tmp_path, storage_at):
    played = attrs.evolve(game(4, entrants=(2, 0, 1), ranks=(1, 1, 3)),
                          names=("c-instance", "a-instance", "b-instance"), number=17,
                          log_path=tmp_path / "chochlik-x.jsonl.gz", seconds=1.25,
                          timeouts=(0, 2, 0), decisions=(9, 9, 8))
    storage = storage_at("ev.db")
    storage.write_event({}, [(name, "random") for name in NAMES])
    storage.add_game(played)
    (back,) = storage.games()
    assert back.names == ("c", "a", "b") and back.winners == (0, 1)
    assert back.number == 4 and back.timeouts == back.decisions == ()
    assert back.log_path == tmp_path / "chochlik-x.jsonl.gz" and back.seconds == 1.25
    assert attrs.evolve(back, names=played.names, number=17, timeouts=(0, 2, 0),
                        decisions=(9, 9, 8)) == played
    unnamed = storage_at("unnamed.db")  # entrants never written: no names
    unnamed.add_game(played)
    assert unnamed.games()[0].names == ()


def test_only_a_game_the_schedule_planned_is_stored(storage_at):
    storage = storage_at("ev.db")
    with pytest.raises(ValueError, match="not planned by a schedule"):
        storage.add_game(attrs.evolve(game(0), tag=None))
    assert storage.games() == []


def test_an_event_written_again_replaces_its_settings_and_entrants(storage_at):
    storage = storage_at("ev.db")
    storage.write_event({"seed": "x", "sets": 2}, [("a", "random"), ("b", "random")])
    storage.write_event({"sets": 3}, [("a", "greedy"), ("b", "random")])
    assert storage.meta() == {"seed": "x", "sets": 3}
    assert storage.entrants() == [("a", "greedy"), ("b", "random")]


def test_a_new_database_is_at_the_newest_schema_version_and_opens_again(storage_at):
    first = storage_at("ev.db")
    newest = first.schema_version()
    assert newest >= 1
    first.write_event({}, [(name, "random") for name in NAMES])
    first.add_game(game(3))
    first.close()
    again = storage_at("ev.db")  # migrations already made are not made again
    assert again.schema_version() == newest and again.games() == [game(3)]


def test_games_stored_from_several_threads_are_each_stored_once(storage_at):
    from concurrent.futures import ThreadPoolExecutor

    storage = storage_at("ev.db")
    with ThreadPoolExecutor(4) as pool:
        added = list(pool.map(storage.add_game, [game(i % 10) for i in range(40)]))
    assert sum(added) == 10
    assert [g.planned for g in storage.games()] == list(range(10))


#: The database as 6aa8bd6 (before storage took game records) created it, and rows it wrote:
#: an event of three pickers (tests/launch/test_tournament.py), chochlik, 2 sets, seed "old".
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    entrant INTEGER PRIMARY KEY, name TEXT NOT NULL, command TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    planned INTEGER PRIMARY KEY, set_index INTEGER NOT NULL, rotation INTEGER NOT NULL,
    seed TEXT NOT NULL, entrants TEXT NOT NULL, scores TEXT NOT NULL, ranks TEXT NOT NULL,
    aborted TEXT, defaults TEXT NOT NULL, errors TEXT NOT NULL, rounds INTEGER,
    game_id TEXT NOT NULL, log_path TEXT, seconds REAL NOT NULL, finished_at TEXT NOT NULL);
"""
OLD_META = [
    ("game", '"chochlik"'), ("options", '{"players": 3, "target": null, "hands": 3}'),
    ("format", '"round-robin"'), ("duplicate", "true"), ("sets", "2"), ("seed", '"old"'),
    ("move_timeout", "5.0"), ("reaction_timeout", "1.0"), ("time_bank", "0.0"),
    ("plan", '"c722befc493d2c1e"')]
OLD_GAMES = [
    (0, 0, 0, "7c4d18062cf80c5b2175d58b", "[1, 2, 0]", "[27, 44, 116]", "[3, 2, 1]", None,
     "[0, 0, 0]", "[0, 0, 0]", 3, "20261202-024301-cb3b-t1",
     "/tmp/records-cmp/fx/logs/chochlik-20261202-024301-cb3b-t1.jsonl.gz", 0.08296655300000566,
     "2026-12-02T02:43:01+0000"),
    (1, 0, 1, "7c4d18062cf80c5b2175d58b", "[1, 0, 2]", "[-15, 54, 140]", "[3, 2, 1]", None,
     "[0, 0, 0]", "[0, 0, 0]", 3, "20261202-024301-cb3b-t2",
     "/tmp/records-cmp/fx/logs/chochlik-20261202-024301-cb3b-t2.jsonl.gz", 0.05660276199978398,
     "2026-12-02T02:43:01+0000"),
    (3, 0, 3, "7c4d18062cf80c5b2175d58b", "[2, 0, 1]", "[81, 103, 33]", "[2, 1, 3]", None,
     "[0, 0, 0]", "[0, 0, 0]", 3, "20261202-024301-cb3b-t4",
     "/tmp/records-cmp/fx/logs/chochlik-20261202-024301-cb3b-t4.jsonl.gz", 0.07048315500014724,
     "2026-12-02T02:43:01+0000"),
    (6, 1, 0, "3ff79350b37d673e0fd93a8d", "[1, 2, 0]", "[29, 104, 88]", "[3, 1, 2]", None,
     "[0, 0, 0]", "[0, 0, 0]", 3, "20261202-024301-cb3b-t7",
     "/tmp/records-cmp/fx/logs/chochlik-20261202-024301-cb3b-t7.jsonl.gz", 0.058915181999509514,
     "2026-12-02T02:43:02+0000"),
]


def old_database(path: Path, entrants: list[tuple[str, str]],
                 games: list[tuple] = OLD_GAMES) -> None:
    """An event database as 6aa8bd6 wrote it: its schema, settings and ``games`` rows (the
    bots' commands are the caller's: they hold paths of its own)."""
    db = sqlite3.connect(path)
    with db:
        db.executescript(OLD_SCHEMA)
        db.executemany("INSERT INTO meta VALUES (?, ?)", OLD_META)
        db.executemany("INSERT INTO entrants VALUES (?, ?, ?)",
                       [(i, name, command) for i, (name, command) in enumerate(entrants)])
        db.executemany(f"INSERT INTO games VALUES ({','.join('?' * 15)})", games)
    db.close()


def test_a_database_written_before_records_loads_as_records(tmp_path):
    aborted = (9, 1, 3, "3ff79350b37d673e0fd93a8d", "[2, 0, 1]", "[]", "[]", "internal_error",
               "[0, 0, 0]", "[1, 0, 0]", None, "g9", None, 0.5, "2026-12-02T02:43:02+0000")
    old_database(tmp_path / "old.db", [("p0", "x 0"), ("p1", "x 1"), ("p2", "x 2")],
                 [*OLD_GAMES, aborted])
    storage = SqliteStorage(tmp_path / "old.db")
    assert storage.meta()["plan"] == "c722befc493d2c1e"
    games = storage.games()
    assert [g.planned for g in games] == [0, 1, 3, 6, 9]
    first = games[0]
    assert first == GameRecord(
        number=0, game_id="20261202-024301-cb3b-t1", entrants=(1, 2, 0),
        names=("p1", "p2", "p0"), seed="7c4d18062cf80c5b2175d58b", scores=(27, 44, 116),
        ranks=(3, 2, 1), winners=(2,), aborted=None, defaults=(0, 0, 0), errors=(0, 0, 0),
        rounds=3, log_path=Path(OLD_GAMES[0][12]),
        seconds=0.08296655300000566,
        tag=PlannedTable(0, 0, 0, (1, 2, 0), "7c4d18062cf80c5b2175d58b"))
    last = games[-1]
    assert (last.aborted, last.ranks, last.winners, last.rounds, last.log_path,
            last.errors) == ("internal_error", (), (), None, None, (1, 0, 0))
    rows = sqlite3.connect(tmp_path / "old.db").execute("SELECT * FROM games").fetchall()
    for record in games:  # stored again (in a copy), each gives the very row it came from
        copy = SqliteStorage(tmp_path / f"copy{record.planned}.db")
        copy.add_game(record)
        again = sqlite3.connect(copy.path).execute("SELECT * FROM games").fetchall()
        (row,) = [row for row in rows if row[0] == record.planned]
        assert again[0][:-1] == row[:-1]  # all but when it was written


def test_the_postgresql_fixture_gives_each_test_an_empty_database(pg_url, pg_server):
    """The fixture (tests/pg_fixture.py): a real server, reached over its Unix socket only."""
    import psycopg

    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
                          ).fetchone() == (0,)
        assert db.execute("SHOW listen_addresses").fetchone() == ("",)
    assert pg_server.new_database() != pg_url
