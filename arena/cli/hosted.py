"""``arena bots submit|versions|activate|retire|log`` and ``arena languages``: hosted bots
(:mod:`arena.kit.hosted`), stored in the database of ``arena bots``."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from arena.cli.bots import DB_OPTION, bots
from arena.events.hosted_versions import VersionState
from arena.games import GAMES
from arena.kit.examples import examples
from arena.launch.languages import LANGUAGES

BUILDS_OPTION = click.option(
    "--builds", "builds", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Where builds are unpacked to be run (default: DB.builds beside an SQLite file, "
         "arena-builds for a URL).")


#: Control characters a terminal may act on: C0 but newline and tab (ESC among them), DEL, C1.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """Bot-controlled text (a log, a reason, a file name) made safe to print: each control
    character but newline and tab written as a visible escape (``\\x1b``), so no escape
    sequence reaches the terminal (no title, clipboard, clearing or hidden text)."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def echo(text: str) -> None:
    """Print ``text`` (bot-controlled) through :func:`shown`."""
    click.echo(shown(text))


@contextmanager
def hosted_store(db_file: Path | str) -> Iterator[Any]:
    """The versions' store of ``db_file``; its errors as one line (exit status 1)."""
    from arena.events.hosted_store import SqliteHosted
    from arena.events.hosted_versions import VersionError
    from arena.events.registry import RegistryError
    from arena.events.schema_version import SchemaTooNew
    from arena.kit.hosted import SubmitError

    try:
        if isinstance(db_file, str):
            from arena.events.pg_hosted import PgHosted

            opened: Any = PgHosted(db_file)
        else:
            if not Path(db_file).is_file():  # never a new, empty ladder by a typo
                raise click.ClickException(
                    f"no database {shown(str(db_file))}: register the bot first "
                    f"(arena bots add NAME --db {shown(str(db_file))})")
            opened = SqliteHosted(db_file)
        with opened:
            yield opened
    except (VersionError, RegistryError, SchemaTooNew, SubmitError, sqlite3.Error) as exc:
        raise click.ClickException(shown(str(exc))) from None
    except Exception as exc:  # PostgreSQL's (psycopg is imported only for a URL)
        if not type(exc).__module__.startswith("psycopg"):
            raise
        raise click.ClickException(
            shown(f"the database: {str(exc).strip().splitlines()[0]}")) from None


def builds_folder(db_file: Path | str, builds: Path | None) -> Path:
    if builds is not None:
        return builds.absolute()
    if isinstance(db_file, str):
        return Path("arena-builds").absolute()
    return db_file.absolute().with_name(db_file.name + ".builds")


@examples("arena bots submit alice alice_bot/ --db ladder.db --game chochlik",
          "arena bots submit alice bot.tar.gz --db ladder.db --game chochlik --lang cpp")
@bots.command()
@click.argument("name")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@DB_OPTION
@click.option("--lang", "language", type=click.Choice(sorted(LANGUAGES)), default=None,
              help="The language (default: guessed from the files).")
@click.option("--game", "game_name", type=click.Choice(sorted(GAMES)), required=True,
              help="The game the validation series plays.")
@BUILDS_OPTION
@click.option("--build-seconds", type=click.FloatRange(1), default=120.0, show_default=True,
              help="Seconds a build may take.")
@click.option("--move-timeout", type=click.FloatRange(0.05), default=5.0, show_default=True,
              help="Seconds a decision may take in the validation series.")
@click.option("--cpu-seconds", type=click.IntRange(1), default=120, show_default=True,
              help="CPU seconds the bot's process gets over its validation series.")
def submit(name: str, path: Path, db_file: Path | str, language: str | None, game_name: str,
           builds: Path | None, build_seconds: float, move_timeout: float,
           cpu_seconds: int) -> None:
    """Store PATH (a file, a folder or an archive) as a new version of the registered bot
    NAME, build it in the sandbox and check it; it plays only when it passed (exit status 1
    when it was refused)."""
    import attrs

    from arena.kit.hosted import HostedSettings
    from arena.kit.hosted import submit as submit_version
    from arena.launch.hosted_build import BuildLimits
    from arena.launch.hosted_run import RunLimits

    settings = HostedSettings(
        game=game_name, builds=builds_folder(db_file, builds),
        build=attrs.evolve(BuildLimits(), seconds=build_seconds),
        run=RunLimits(move_timeout=move_timeout, cpu_seconds=cpu_seconds),
        protect=(str(db_file),) if isinstance(db_file, Path) else ())
    with hosted_store(db_file) as store:
        version = submit_version(store, name, path, language, settings, echo)
    if version.state is not VersionState.ACTIVE:
        raise SystemExit(1)


@examples("arena bots versions alice --db ladder.db")
@bots.command()
@click.argument("name")
@DB_OPTION
def versions(name: str, db_file: Path | str) -> None:
    """NAME's versions, one a line: number, language, state (and why it was refused)."""
    with hosted_store(db_file) as store:
        for version in store.versions(name):
            echo(version.summary())


@bots.command()
@click.argument("name")
@click.argument("number", type=click.IntRange(1))
@DB_OPTION
def activate(name: str, number: int, db_file: Path | str) -> None:
    """Make NAME's version NUMBER (valid or retired) the one that plays."""
    with hosted_store(db_file) as store:
        store.activate(name, number)
    click.echo(f"{name} version {number} is active")


@bots.command()
@click.argument("name")
@click.argument("number", type=click.IntRange(1), required=False)
@DB_OPTION
def retire(name: str, number: int | None, db_file: Path | str) -> None:
    """Retire NAME's version NUMBER, or every version of NAME (it plays no more)."""
    with hosted_store(db_file) as store:
        retired = store.retire(name, number)
    click.echo(f"{name}: retired version(s) {', '.join(map(str, retired)) or 'none'}")


@bots.command()
@click.argument("name")
@click.argument("number", type=click.IntRange(1))
@DB_OPTION
def log(name: str, number: int, db_file: Path | str) -> None:
    """Version NUMBER of NAME: its state, build log and validation log."""
    with hosted_store(db_file) as store:
        version = store.version(name, number)
        build_log, check_log = store.logs(name, number)
    echo(version.summary())
    if version.build_digest is None:
        building = version.state is VersionState.BUILDING
        echo(f"no build ({'it is being built' if building else 'refused: none kept'}); run: "
             "none")
    else:
        echo(f"build {version.build_digest}; run: {' '.join(version.run)}")
    echo(f"-- build log --\n{build_log.rstrip()}")
    echo(f"-- validation log --\n{check_log.rstrip()}")


@examples("arena languages")
@click.command()
def languages() -> None:
    """The languages this host builds hosted bots in: each toolchain's version, the build and
    run commands, and the limits a bot gets."""
    from arena.kit.hosted import HostedSettings, language_lines

    for line in language_lines(HostedSettings(game="", builds=Path())):
        click.echo(line)
