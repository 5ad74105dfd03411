"""``--bot NAME@VERSION`` for ``arena tournament``, ``arena sprt`` and ``arena worker``: the
click side of :mod:`arena.launch.hosted_bots` (its errors as one line, exit status 1)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from arena.cli.database import Database

BUILDS_HELP = ("Where this host unpacks the builds of the hosted versions (NAME@VERSION) it "
               "plays, each fetched from --db by its digest and checked (default: DB.builds "
               "beside an SQLite file, arena-builds for a URL).")


#: ``--builds DIR`` of the commands that play hosted versions.
BUILDS_OPTION = click.option("--builds", "builds", default=None, help=BUILDS_HELP,
                             type=click.Path(file_okay=False, path_type=Path))

#: ``--versions DB`` of the commands that play hosted versions.
VERSIONS_OPTION = click.option(
    "--versions", "versions", type=Database(exists=True), default=None, metavar="FILE|URL",
    help="The database of the hosted bots (arena bots submit --db) where NAME@VERSION is read, "
         "and its build fetched (default: --db).")

#: What ``--bot`` says of hosted versions, for the commands' help.
VERSION_HELP = ("NAME@N plays version N of the hosted bot NAME (NAME@active: its active "
                "version, recorded by its number), from --versions, always in its sandbox.")


def entrants(commands: Sequence[str], db: Path | str, versions: Path | str | None) -> list[Any]:
    """The entrants of ``--bot`` (:func:`arena.launch.hosted_bots.entrants`), the versions
    read in ``versions`` (default: ``db``)."""
    from arena.launch.hosted_bots import entrants as planned
    from arena.launch.hosted_bots import opener

    with _one_line(versions):
        return planned(commands, opener(db if versions is None else versions))


def runnable(bots: Sequence[Any], db: Path | str, versions: Path | str | None,
             builds: Path | None, cpu_seconds: int | None) -> list[Any]:
    """The entrants as this host runs them (:func:`arena.launch.hosted_bots.runnable`), the
    builds fetched from ``versions`` (default: ``db``), neither database ever shown to a bot."""
    from arena.launch.hosted_bots import Hosting, builds_folder, opener
    from arena.launch.hosted_bots import runnable as here

    source = db if versions is None else versions
    hosting = Hosting(builds_folder(source, builds),
                      protect=tuple(str(each) for each in (db, versions)
                                    if isinstance(each, Path)),
                      cpu_seconds=cpu_seconds)
    with _one_line(versions):
        return here(bots, opener(source), hosting)


class _one_line:
    """A hosted version that cannot play, or a database that cannot be read: one line (with
    a hint when the versions were looked for in the event's database)."""

    def __init__(self, versions: Path | str | None) -> None:
        self.hint = "" if versions is not None else (
            " (--versions DB: the database of the hosted bots, if not --db)")

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, traceback: Any) -> None:
        from arena.events.registry import RegistryError
        from arena.events.schema_version import SchemaTooNew
        from arena.launch.hosted_bots import HostedBotError, plain

        if isinstance(exc, HostedBotError | RegistryError | SchemaTooNew):
            hint = self.hint if "no version" in str(exc) or "not registered" in str(exc) else ""
            raise click.ClickException(plain(str(exc)) + hint) from None
