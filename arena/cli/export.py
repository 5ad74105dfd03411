"""``arena export``: every stored game of an event in one file, a thin click layer over
``arena.events.export``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from arena.cli.database import Database
from arena.kit.examples import examples


@examples(
    "arena export --db my-event.db --format csv --output games.csv",
)
@click.command()
@click.option("--db", type=Database(), required=True,
              help="An event's SQLite database (arena tournament or sprt --db), or "
                   "PostgreSQL URL.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl",
              show_default=True,
              help="jsonl: an event header record, then a record per game; csv: a header row, "
                   "then a row per game (per-seat lists as JSON arrays).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The file to write (default: standard output).")
@click.option("--with-seeds", "seeds", is_flag=True,
              help="Also the seeds of the deals played no more: a game's once every seating "
                   "of its duplicate set is stored, the event's once every planned game is "
                   "(the others are null: they tell deals still to be played).")
def export(db: Path | str, fmt: str, output: Path | None, seeds: bool) -> None:
    """Write every stored game of an event (also while it runs) to one file, in schedule
    order, a game at a time: planned index, set, rotation, game id, the entrants and their
    names per seat, scores, ranks, winners, aborted, defaults, errors, rounds, seconds and log
    path (and, with --with-seeds, the seeds of the deals played no more)."""
    from arena.events.export import export_event
    from arena.events.pg_open import NotAnEvent, open_existing

    try:
        storage = open_existing(db)
    except NotAnEvent as exc:
        raise click.ClickException(str(exc)) from None
    try:
        if output is None:
            export_event(storage, fmt, sys.stdout, seeds=seeds)
            sys.stdout.flush()
            return
        with output.open("w", encoding="utf-8", newline="") as out:
            export_event(storage, fmt, out, seeds=seeds)
    except BrokenPipeError:  # `arena export ... | head`: the reader stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        sys.exit(1)
    except OSError as exc:
        raise click.ClickException(f"cannot write {output or 'standard output'}: "
                                   f"{exc.strerror or exc}") from None
    finally:
        storage.close()
