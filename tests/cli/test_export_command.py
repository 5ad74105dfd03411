"""``arena export`` on a real event (a tiny tournament of random bots): every game in jsonl
and csv, to stdout or --output, equal to the stored games; bad input is one line, exit 1."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.storage import SqliteStorage


@pytest.fixture(scope="module")
def event(tmp_path_factory):
    folder = tmp_path_factory.mktemp("event")
    db = folder / "event.db"
    played = CliRunner().invoke(main, [  # in this process: only its database is needed
        "tournament", "--game", "chochlik", "--hands", "1",
        "--bot", "a=random", "--bot", "b=random", "--bot", "c=random", "--sets", "1",
        "--duplicate", "--seed", "export", "--db", str(db), "--log-dir", str(folder / "logs")])
    assert played.exit_code == 0, played.output
    return db


def export(*args):
    return CliRunner().invoke(main, ["export", *args])


def test_jsonl_to_stdout_holds_the_event_and_every_stored_game(event):
    result = export("--db", str(event), "--with-seeds")
    assert result.exit_code == 0, result.output
    header, *games = [json.loads(line) for line in result.output.splitlines()]
    storage = SqliteStorage(event)
    assert header == {"type": "event", **storage.meta(), "entrants": ["a", "b", "c"]}
    stored = storage.games()
    assert len(games) == len(stored) == 6
    assert [(g["planned"], g["set"], g["rotation"], g["seed"], g["game_id"], g["names"],
             g["scores"], g["ranks"], g["winners"], g["aborted"], g["defaults"], g["errors"],
             g["rounds"], g["seconds"], g["log_path"]) for g in games] == [
        (s.planned, s.set_index, s.rotation, s.seed, s.game_id, list(s.names),
         list(s.scores), list(s.ranks), list(s.winners), s.aborted, list(s.defaults),
         list(s.errors), s.rounds, s.seconds, str(s.log_path)) for s in stored]


def test_without_with_seeds_no_seed_is_exported(event):
    result = export("--db", str(event))
    assert result.exit_code == 0, result.output
    header, *games = [json.loads(line) for line in result.output.splitlines()]
    assert "seed" not in header and not any("seed" in game for game in games)
    assert SqliteStorage(event).meta()["seed"] not in result.output


def test_csv_to_a_file_has_a_header_row_and_a_row_per_stored_game(event, tmp_path):
    out = tmp_path / "games.csv"
    result = export("--db", str(event), "--format", "csv", "--output", str(out))
    assert result.exit_code == 0, result.output
    assert result.output == ""
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    stored = SqliteStorage(event).games()
    assert [(int(r["planned"]), r["game_id"], json.loads(r["names"]), json.loads(r["scores"]),
             json.loads(r["winners"]), r["aborted"], float(r["seconds"]), r["log_path"])
            for r in rows] == [
        (s.planned, s.game_id, list(s.names), list(s.scores), list(s.winners), "",
         s.seconds, str(s.log_path)) for s in stored]


@pytest.mark.parametrize(("make", "said"), [
    (lambda path: None, "no such file"),
    (lambda path: path.write_text("hello\n"), "not an event database"),
    (lambda path: SqliteStorage(path).close(), "holds no event"),
])
def test_a_file_that_is_not_an_event_is_one_line_and_exit_1(tmp_path, make, said):
    db = tmp_path / "x.db"
    make(db)
    out = tmp_path / "out.jsonl"
    result = export("--db", str(db), "--output", str(out))
    assert result.exit_code == 1
    (line,) = result.output.splitlines()
    assert line.startswith(f"Error: {db}: ") and said in line
    assert not out.exists()


def test_an_unwritable_output_is_one_line_and_exit_1(event, tmp_path):
    out = tmp_path / "no-such-folder" / "games.csv"
    result = export("--db", str(event), "--format", "csv", "--output", str(out))
    assert result.exit_code == 1
    assert result.output == f"Error: cannot write {out}: No such file or directory\n"
