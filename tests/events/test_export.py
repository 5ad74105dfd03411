"""``arena.events.export``: every stored game in one file, parsed back equal to what the
storage gives, written a game at a time; a file that is not an event is refused untouched."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import attrs
import pytest

from arena.events.export import COLUMNS, NotAnEvent, export_event, open_event
from arena.events.storage import SqliteStorage
from arena.gameplay.records import GameRecord, PlannedTable
from tests.events.test_storage import NAMES, game

#: A finished event: its four planned tables stored (its seed may be exported).
META = {"game": "chochlik", "options": {"players": 3}, "format": "round-robin",
        "duplicate": False, "sets": 4, "seed": "x"}


def stored(tmp_path):
    """An event of four games: one aborted, one with a log and no rounds, ties."""
    db = tmp_path / "event.db"
    storage = SqliteStorage(db)
    storage.write_event(META, [(name, "random") for name in NAMES])
    for record in (game(0), game(1, entrants=(1, 2, 0), ranks=(1, 1, 3)),
                   game(2, aborted="server_error", set_index=1),
                   attrs.evolve(game(3, entrants=(2, 1, 0), set_index=1), rounds=None,
                                log_path=tmp_path / "chochlik-g3.jsonl.gz")):
        storage.add_game(record)
    storage.close()
    return db


def back_from(fields, names):
    """The record a parsed game's fields say, as the storage rebuilds it."""
    table = PlannedTable(fields["planned"], fields["set"], fields["rotation"],
                         tuple(fields["entrants"]), fields["seed"])
    assert fields["names"] == [names[e] for e in fields["entrants"]]
    return GameRecord(
        number=fields["planned"], game_id=fields["game_id"], entrants=table.entrants,
        names=tuple(fields["names"]), seed=fields["seed"], scores=tuple(fields["scores"]),
        ranks=tuple(fields["ranks"]), winners=tuple(fields["winners"]),
        aborted=fields["aborted"], defaults=tuple(fields["defaults"]),
        errors=tuple(fields["errors"]), rounds=fields["rounds"],
        log_path=Path(fields["log_path"]) if fields["log_path"] is not None else None,
        seconds=fields["seconds"], tag=table)


def test_jsonl_is_the_event_then_every_game_as_stored(tmp_path):
    storage = open_event(stored(tmp_path))
    out = io.StringIO()
    assert export_event(storage, "jsonl", out, seeds=True) == 4
    header, *games = [json.loads(line) for line in out.getvalue().splitlines()]
    assert header == {"type": "event", **META, "entrants": list(NAMES)}
    assert {g.pop("type") for g in games} == {"game"}
    assert [list(g) for g in games] == [list(COLUMNS)] * 4
    assert [back_from(g, NAMES) for g in games] == storage.games()
    assert games[2]["aborted"] == "server_error" and games[1]["winners"] == [0, 1]
    assert games[3]["rounds"] is None and games[3]["log_path"].endswith("chochlik-g3.jsonl.gz")


def test_csv_is_a_header_row_then_a_row_per_game_as_stored(tmp_path):
    storage = open_event(stored(tmp_path))
    out = io.StringIO()
    assert export_event(storage, "csv", out, seeds=True) == 4
    reader = csv.DictReader(io.StringIO(out.getvalue()))
    assert tuple(reader.fieldnames or ()) == COLUMNS
    rows = list(reader)

    def parsed(row):
        number = {"planned", "set", "rotation", "rounds"}
        return {name: (None if value == "" and name in {"aborted", "rounds", "log_path"}
                       else int(value) if name in number
                       else float(value) if name == "seconds"
                       else json.loads(value) if value.startswith("[") else value)
                for name, value in row.items()}

    assert [back_from(parsed(row), NAMES) for row in rows] == storage.games()
    assert rows[0]["names"] == '["a","b","c"]' and rows[0]["aborted"] == ""


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_seeds_are_left_out_unless_asked_for(tmp_path, fmt):
    """The event's seed tells every deal, a game's seed its set's other seatings: an export
    taken while the event runs must not show the cards of games still to be played."""
    storage = open_event(stored(tmp_path))
    out = io.StringIO()
    assert export_event(storage, fmt, out) == 4
    text = out.getvalue()
    if fmt == "csv":
        header = next(csv.reader(io.StringIO(text)))
        assert header == [name for name in COLUMNS if name != "seed"]
    else:
        records = [json.loads(line) for line in text.splitlines()]
        assert not any("seed" in record for record in records)  # the event's, the games'
        assert records[0]["options"] == META["options"]  # the rest of the header stays


def test_games_are_written_as_they_are_read(tmp_path):
    """A game is written before the next is read: the export never holds the event."""
    storage = open_event(stored(tmp_path))
    read = 0
    stream = storage.iter_games

    def counted():
        nonlocal read
        for record in stream():
            read += 1
            yield record

    storage.iter_games = counted  # type: ignore[method-assign]
    seen: list[int] = []

    class Out(io.StringIO):
        def write(self, text):
            seen.append(read)
            return super().write(text)

    for fmt in ("jsonl", "csv"):
        seen.clear()
        read = 0
        export_event(storage, fmt, Out())
        assert seen == [0, 1, 2, 3, 4], fmt  # the header, then each game as it came


def test_files_that_are_not_an_event_are_refused_and_left_as_they_were(tmp_path):
    with pytest.raises(NotAnEvent, match="no such file"):
        open_event(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    with pytest.raises(NotAnEvent, match="not an event database"):
        open_event(text)
    assert text.read_text() == "not a database\n"
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    before = other.read_bytes()
    with pytest.raises(NotAnEvent, match="holds no event"):
        open_event(other)
    assert other.read_bytes() == before
    with pytest.raises(NotAnEvent, match="holds no event"):
        open_event(SqliteStorage(tmp_path / "empty.db").path)  # tables, no event written


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
@pytest.mark.parametrize("kind", [{"format": "round-robin"},
                                  {"format": "duel", "sprt": [-10.0, 10.0, 0.05, 0.05]}])
def test_with_seeds_no_deal_still_to_be_played_is_exported(tmp_path, fmt, kind):
    """``--with-seeds`` while a tournament or an SPRT run plays: a game's seed only once every
    seating of its duplicate set is stored, the event's only once every planned game is."""
    db = tmp_path / "event.db"
    storage = SqliteStorage(db)
    meta = {"game": "chochlik", "options": {"players": 2}, "duplicate": True, "sets": 2,
            "seed": "the-event-seed", **kind}
    storage.write_event(meta, [(name, "random") for name in NAMES])

    def dealt(planned: int, set_index: int) -> GameRecord:
        record = game(planned, entrants=(0, 1) if planned % 2 == 0 else (1, 0), ranks=(1, 2),
                      set_index=set_index)
        seed = f"deal-of-set-{set_index}"
        return attrs.evolve(record, seed=seed, tag=attrs.evolve(record.tag, seed=seed))

    for record in (dealt(0, 0), dealt(1, 0), dealt(2, 1)):  # set 1's second seating: to come
        storage.add_game(record)

    def exported() -> tuple[str, list[str | None]]:
        out = io.StringIO()
        assert export_event(open_event(db), fmt, out, seeds=True) == len(storage.games())
        if fmt == "csv":
            return out.getvalue(), [row["seed"] or None
                                    for row in csv.DictReader(io.StringIO(out.getvalue()))]
        records = [json.loads(line) for line in out.getvalue().splitlines()]
        return out.getvalue(), [record["seed"] for record in records[1:]]

    text, seeds = exported()
    assert seeds == ["deal-of-set-0", "deal-of-set-0", None]
    assert "deal-of-set-1" not in text and "the-event-seed" not in text
    storage.add_game(dealt(3, 1))
    text, seeds = exported()
    assert seeds == ["deal-of-set-0", "deal-of-set-0", "deal-of-set-1", "deal-of-set-1"]
    assert ("the-event-seed" in text) is (fmt == "jsonl")  # (CSV has no header record)
