"""``arena ratings`` on small stored events: groups of bots that never met, the caveat on thin
data, and the head-to-head table (as a table and in json)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

from click.testing import CliRunner

from arena.cli import main
from arena.events.storage import SqliteStorage
from tests.events.test_leaderboard import trio_sets
from tests.events.test_storage import game


def stored(tmp_path, names, games):
    db = tmp_path / "event.db"
    storage = SqliteStorage(db)
    storage.write_event({"seed": "x"}, [(name, "random") for name in names])
    for g in games:
        storage.add_game(g)
    storage.close()
    return str(db)


def ratings(*args):
    result = CliRunner().invoke(main, ["ratings", *args])
    assert result.exit_code == 0, result.output
    return result.output


def two_trios(tmp_path):
    games = (trio_sets(5, (0, 1, 2), (0, 1, 2))
             + trio_sets(5, (3, 4, 5), (5, 4, 3), first_planned=100))
    return stored(tmp_path, ["a", "b", "c", "d", "e", "f"], games)


def test_two_trios_are_printed_as_two_groups_in_every_format(tmp_path):
    db = two_trios(tmp_path)
    lines = ratings("--db", db, "--resamples", "20").splitlines()
    headings = [line for line in lines if line.startswith("group ")]
    assert headings == [
        "group 1 of 2: these bots never met the others; their ratings are not comparable",
        "group 2 of 2: these bots never met the others; their ratings are not comparable"]
    assert [line.split()[1] for line in lines if line[:2] in (" 1", " 2", " 3")] == [
        "a", "b", "c", "f", "e", "d"]
    table = list(csv.DictReader(io.StringIO(ratings("--db", db, "--format", "csv"))))
    assert [(row["group"], row["place"], row["name"]) for row in table] == [
        ("1", "1", "a"), ("1", "2", "b"), ("1", "3", "c"),
        ("2", "1", "f"), ("2", "2", "e"), ("2", "3", "d")]
    rows = json.loads(ratings("--db", db, "--format", "json"))
    assert [(row["group"], row["name"]) for row in rows] == [
        (1, "a"), (1, "b"), (1, "c"), (2, "f"), (2, "e"), (2, "d")]


def test_a_thin_event_prints_the_caveat_and_no_intervals(tmp_path):
    db = stored(tmp_path, ["a", "b", "c"], trio_sets(2, (0, 1, 2), (0, 1, 2)))
    lines = ratings("--db", db).splitlines()
    assert lines[-1].startswith("caveat: thin data")
    assert [line.split()[3:5] for line in lines[1:4]] == [["-", "-"]] * 3
    rows = json.loads(ratings("--db", db, "--format", "json"))
    assert all(row["thin"] and row["low"] is None and row["rank_confidence"] is None
               for row in rows)


def test_head_to_head_as_a_table_and_in_json(tmp_path):
    games = [game(0, (0, 1, 2), (1, 2, 3), 0), game(1, (1, 2, 0), (1, 1, 3), 1),
             game(2, (2, 0, 1), (1, 2, 2), 2)]
    db = stored(tmp_path, ["a", "b", "c"], games)
    plain = ratings("--db", db)
    assert "head to head" not in plain
    lines = ratings("--db", db, "--head-to-head").splitlines()
    start = lines.index("head to head (pairwise results at the tables both played)")
    assert [line.split() for line in lines[start + 1:]] == [
        ["bot", "opponent", "wins", "ties", "losses", "games"],
        ["a", "b", "1", "1", "1", "3"],  # won the first, lost the second, tied the third
        ["a", "c", "1", "0", "2", "3"],
        ["b", "c", "1", "1", "1", "3"]]
    rows = {row["name"]: row for row in json.loads(ratings("--db", db, "--format", "json"))}
    assert {e["opponent"]: (e["wins"], e["ties"], e["losses"], e["games"])
            for e in rows["c"]["head_to_head"]} == {"a": (2, 0, 1, 3), "b": (1, 1, 1, 3)}


def test_a_file_that_is_not_an_event_is_one_line_and_is_left_untouched(tmp_path):
    """Before, a text file gave a traceback, and another SQLite file (a bots registry) got the
    event's tables written into it."""
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    result = CliRunner().invoke(main, ["ratings", "--db", str(text)])
    assert result.exit_code == 2 and "not an event database" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert text.read_text() == "hello\n"
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE bots (name TEXT)")
    connection.close()
    result = CliRunner().invoke(main, ["ratings", "--db", str(other)])
    assert result.exit_code == 2 and "holds no event" in result.output
    with sqlite3.connect(other) as connection:
        tables = {name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    connection.close()
    assert tables == {"bots"}
