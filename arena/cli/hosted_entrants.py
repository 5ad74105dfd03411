"""``--bot NAME@VERSION`` for ``arena tournament``, ``arena sprt`` and ``arena worker``: the
click side of :mod:`arena.launch.hosted_bots` (its errors as one line, exit status 1)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

BUILDS_HELP = ("Where this host unpacks the builds of the hosted versions (NAME@VERSION) it "
               "plays, each fetched from --db by its digest and checked (default: DB.builds "
               "beside an SQLite file, arena-builds for a URL).")


#: ``--builds DIR`` of the commands that play hosted versions.
BUILDS_OPTION = click.option("--builds", "builds", default=None, help=BUILDS_HELP,
                             type=click.Path(file_okay=False, path_type=Path))

#: What ``--bot`` says of hosted versions, for the commands' help.
VERSION_HELP = ("NAME@N plays version N of the hosted bot NAME (NAME@active: its active "
                "version, recorded by its number), from --db, always in its sandbox.")


def entrants(commands: Sequence[str], db: Path | str) -> list[Any]:
    """The entrants of ``--bot`` (:func:`arena.launch.hosted_bots.entrants`)."""
    from arena.launch.hosted_bots import entrants as planned
    from arena.launch.hosted_bots import opener

    with _one_line():
        return planned(commands, opener(db))


def runnable(bots: Sequence[Any], db: Path | str, builds: Path | None,
             cpu_seconds: int | None) -> list[Any]:
    """The entrants as this host runs them (:func:`arena.launch.hosted_bots.runnable`)."""
    from arena.cli.hosted import builds_folder
    from arena.launch.hosted_bots import Hosting, opener
    from arena.launch.hosted_bots import runnable as here

    hosting = Hosting(builds_folder(db, builds),
                      protect=(str(db),) if isinstance(db, Path) else (),
                      cpu_seconds=cpu_seconds)
    with _one_line():
        return here(bots, opener(db), hosting)


class _one_line:
    """A hosted version that cannot play, or a database that cannot be read: one line."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, traceback: Any) -> None:
        from arena.cli.hosted import shown
        from arena.events.registry import RegistryError
        from arena.events.schema_version import SchemaTooNew
        from arena.launch.hosted_bots import HostedBotError

        if isinstance(exc, HostedBotError | RegistryError | SchemaTooNew):
            raise click.ClickException(shown(str(exc))) from None
