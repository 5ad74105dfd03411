"""Every stored game of an event in one file (``arena export``), as chess tools' ``-pgnout``:
JSON Lines (a header record ``{"type": "event", ...the event's settings, "entrants": [names]}``,
then one ``{"type": "game", ...}`` record per game) or CSV (a header row of the column names,
then one row per game; a per-seat list is a cell holding a JSON array, a missing value an
empty cell).

The games are written as the database gives them, a row at a time, in schedule order: a big
event is never held in memory.

Seeds are left out unless asked for (``seeds=True``, ``--with-seeds``): the event's seed tells
every deal of the event, and a game's seed the deal of the other seatings of its duplicate set.
Even when asked for, no seed of a deal still to be played is written (``arena.events.deals``):
a game's seed is null (an empty cell) until every seating of its set is stored, and the
event's seed is left out of the header until every planned game is; counting the sets reads
the games once more before they are written.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.events.deals import schedule_over, set_over
from arena.events.storage import SqliteStorage
from arena.gameplay.records import GameRecord

if TYPE_CHECKING:  # psycopg is not imported to open an SQLite file
    from arena.events.pg_storage import PostgresStorage

FORMATS = ("jsonl", "csv")

#: A game's fields, in the order they are written (the CSV's header row).
COLUMNS = ("planned", "set", "rotation", "seed", "game_id", "entrants", "names", "scores",
           "ranks", "winners", "aborted", "defaults", "errors", "rounds", "seconds",
           "log_path")

#: The columns holding one value per seat (or, for ``winners``, a list of seats).
LIST_COLUMNS = frozenset({"entrants", "names", "scores", "ranks", "winners", "defaults",
                          "errors"})


class NotAnEvent(Exception):
    """The file given is missing, not an SQLite database, or holds no event."""


def open_event(path: Path) -> SqliteStorage:
    """The event stored in ``path``, opened for reading; :class:`NotAnEvent` saying why not.
    The file is looked at read-only first, so a file that is not an event is left untouched
    (opening it as storage would create the event's tables in it)."""
    if not path.is_file():
        raise NotAnEvent(f"{path}: no such file")
    try:
        check = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {name for (name,) in
                      check.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            held = {"meta", "entrants", "games"} <= tables and check.execute(
                "SELECT COUNT(*) FROM entrants").fetchone()[0] > 0
        finally:
            check.close()
    except sqlite3.DatabaseError as exc:
        raise NotAnEvent(f"{path}: not an event database ({exc})") from None
    if not held:
        raise NotAnEvent(f"{path}: holds no event (no entrants stored: is it an arena "
                         "tournament or sprt --db?)")
    return SqliteStorage(path, read_only=True)


def game_fields(game: GameRecord) -> dict[str, Any]:
    """A stored game as the plain fields of :data:`COLUMNS` (lists, text, numbers, None)."""
    return {
        "planned": game.planned, "set": game.set_index, "rotation": game.rotation,
        "seed": game.seed, "game_id": game.game_id, "entrants": list(game.entrants),
        "names": list(game.names), "scores": list(game.scores), "ranks": list(game.ranks),
        "winners": list(game.winners), "aborted": game.aborted,
        "defaults": list(game.defaults), "errors": list(game.errors), "rounds": game.rounds,
        "seconds": game.seconds,
        "log_path": str(game.log_path) if game.log_path is not None else None,
    }


def seed_of(meta: dict[str, Any], stored: Counter[int], game: GameRecord) -> str | None:
    """``game``'s seed, or None while its deal is still to be played."""
    return game.seed if set_over(meta, stored[game.set_index], len(game.entrants)) else None


def write_jsonl(meta: dict[str, Any], names: list[str], games: Iterable[GameRecord],
                out: TextIO, *, seeds: Counter[int] | None = None) -> int:
    """The header record, then a record per game; the number of games written.
    ``seeds``: each set's stored games, to write the seeds of the deals played no more."""
    header = {key: value for key, value in meta.items() if key != "seed"}
    if seeds is not None and schedule_over(meta, sum(seeds.values())):
        header["seed"] = meta.get("seed")
    out.write(json.dumps({"type": "event", **header, "entrants": names}) + "\n")
    count = 0
    for game in games:
        fields = game_fields(game)
        if seeds is None:
            del fields["seed"]
        else:
            fields["seed"] = seed_of(meta, seeds, game)
        out.write(json.dumps({"type": "game", **fields}) + "\n")
        count += 1
    return count


def write_csv(meta: dict[str, Any], games: Iterable[GameRecord], out: TextIO, *,
              seeds: Counter[int] | None = None) -> int:
    """The header row, then a row per game; the number of games written.  ``seeds``: as
    :func:`write_jsonl`'s."""
    columns = [name for name in COLUMNS if seeds is not None or name != "seed"]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    count = 0
    for game in games:
        fields = game_fields(game)
        if seeds is not None:
            fields["seed"] = seed_of(meta, seeds, game)
        writer.writerow(json.dumps(fields[name], separators=(",", ":"))
                        if name in LIST_COLUMNS else fields[name] for name in columns)
        count += 1
    return count


def export_event(storage: SqliteStorage | PostgresStorage, fmt: str, out: TextIO, *,
                 seeds: bool = False) -> int:
    """Write every stored game of ``storage``'s event to ``out`` in ``fmt`` (one of
    :data:`FORMATS`), a game at a time; the number of games written.  ``seeds``: the event's
    and each game's seed too, those of deals played no more (see the module's doc)."""
    meta = storage.meta()
    stored = Counter(game.set_index for game in storage.iter_games()) if seeds else None
    games = storage.iter_games()
    if fmt == "jsonl":
        names = [name for name, _ in storage.entrants()]
        return write_jsonl(meta, names, games, out, seeds=stored)
    if fmt == "csv":
        return write_csv(meta, games, out, seeds=stored)
    raise ValueError(f"unknown export format {fmt!r}; the formats: {', '.join(FORMATS)}")
