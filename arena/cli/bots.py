"""``arena bots``: registration in a SQLite file (``arena.events.registry``); ``arena serve
--db FILE`` admits the bots registered there."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import click

from arena.cli.database import Database

DB_OPTION = click.option("--db", "db_file", required=True, type=Database(),
                         help="The SQLite file of registered bots (created when missing), or "
                              "a PostgreSQL URL (postgresql://...).")


@contextmanager
def registry(db_file: Path | str) -> Iterator[Any]:
    """The registry of ``db_file``; its errors as one line (exit status 1)."""
    from arena.events.pg_registry import PgRegistry
    from arena.events.registry import Registry, RegistryError

    try:
        with PgRegistry(db_file) if isinstance(db_file, str) else Registry(db_file) as opened:
            yield opened
    except RegistryError as exc:
        raise click.ClickException(str(exc)) from None


def open_registry_view(db_file: Path | str | None, tokens: Any) -> Any:
    """``arena serve --db``: the registry's view hellos are checked against (None without)."""
    if db_file is None:
        return None
    if tokens is not None:
        raise click.UsageError("--db and --tokens: give one (arena bots import puts a tokens "
                               "file into the database)")
    from arena.events.pg_registry import PgRegistry
    from arena.events.registry import RegistryError, RegistryView
    from arena.events.tokens import Scheme

    try:
        if isinstance(db_file, str):
            view = RegistryView(Path(), PgRegistry(db_file, shared=True))
        else:
            view = RegistryView(db_file)
        old = sorted(row.name for row in view.registry.rows().values()
                     if row.scheme is Scheme.SCRYPT)
    except RegistryError as exc:
        raise click.ClickException(str(exc)) from None
    if old:
        click.echo(f"arena: {len(old)} bot(s) still hold a token from before issue 29, checked "
                   f"by scrypt until each is admitted once ({', '.join(old[:5])}"
                   f"{', ...' if len(old) > 5 else ''}): wrong tokens for those names cost the "
                   "server a scrypt each and can hold them out; re-register them (arena bots "
                   "remove, then add) to end it", err=True)
    return view


def open_ladder(db_file: Path | str | None, spec: Any, options: Any,
                registry: Path | str | None = None) -> Any:
    """``arena serve --db``: the ladder's results book in the same file (None without);
    ``registry``: where the bots are registered, if elsewhere (several games)."""
    if db_file is None:
        return None
    from arena.edge.ladder_book import LadderBook, LadderError

    try:
        return LadderBook.open(db_file, {"game": spec.name,
                                         "options": spec.options_to_dict(options)},
                               registry=registry)
    except (LadderError, sqlite3.Error) as exc:
        raise click.ClickException(f"{db_file}: {exc}" if isinstance(exc, sqlite3.Error)
                                   else str(exc)) from None
    except Exception as exc:  # PostgreSQL's (psycopg is imported only for a URL)
        if not type(exc).__module__.startswith("psycopg"):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.ClickException(f"the ladder's database: {first}") from None


def make_seating(kind: str, players: int, registry: Any, checker: Any, book: Any,
                 seed: str | None) -> Any:
    """``arena serve``'s seating: ``arrival``, or ``ladder`` (by the ratings of ``book``)."""
    if kind == "arrival":
        from arena.seating.arrival import ArrivalSeating

        return ArrivalSeating(players, registry, checker=checker)
    import secrets

    from arena.games.chance import secret_seed
    from arena.seating.ladder import LadderSeating

    return LadderSeating(players, book.rating, checker=checker,
                         seed=secret_seed(seed, "ladder") if seed else secrets.token_hex(16),
                         set_over=book.set_over)


@asynccontextmanager
async def ladder_writing(book: Any) -> AsyncIterator[None]:
    """The ladder's writer runs while the server does (nothing without ``--db``), and its
    batch fit's process every so often (its rating snapshots, in the ladder's database); games it
    could not store by the end are one line (exit status 1)."""
    if book is None:
        yield
        return
    import trio

    from arena.launch.live_board import fit_periodically

    def report(failure: str | None) -> None:
        if failure is not None:
            click.echo(failure, err=True)

    try:
        async with book.writing(), trio.open_nursery() as nursery:
            if book.snapshots is not None:
                nursery.start_soon(functools.partial(fit_periodically, book.snapshots,
                                                     book.rating, report=report))
            try:
                yield
            finally:
                nursery.cancel_scope.cancel()
        if book.unstored:
            raise click.ClickException(f"{book.unstored} game(s) could not be stored in "
                                       f"{book.path}: {book.failure}")
    finally:
        book.close()


@click.group()
def bots() -> None:
    """Register bots for `arena serve --db FILE`: each gets a secret token, shown once; the
    database keeps only a digest of it."""


@bots.command()
@click.argument("name")
@DB_OPTION
def add(name: str, db_file: Path | str) -> None:
    """Register NAME and print its token (shown only this once)."""
    with registry(db_file) as opened:
        token = opened.add(name)
    click.echo(f"{name} {token}")


@bots.command(name="list")
@DB_OPTION
def list_(db_file: Path | str) -> None:
    """The registered names, one a line."""
    with registry(db_file) as opened:
        for name in opened.names():
            click.echo(name)


@bots.command()
@click.argument("name")
@DB_OPTION
def remove(name: str, db_file: Path | str) -> None:
    """Unregister NAME (a connected bot stays until it leaves); its hosted versions are
    retired, kept for its games' records, and never pass to the name's next holder."""
    with registry(db_file) as opened:
        opened.remove(name)
    click.echo(f"removed {name}")


@bots.command()
@click.argument("old")
@click.argument("new")
@DB_OPTION
def rename(old: str, new: str, db_file: Path | str) -> None:
    """Register OLD's token, and its hosted versions, under the name NEW."""
    with registry(db_file) as opened:
        opened.rename(old, new)
    click.echo(f"renamed {old} to {new}")


@bots.command(name="import")
@DB_OPTION
@click.option("--tokens", "tokens_file", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A `name token` file (as `arena serve --tokens`; each token of 128 random "
                   "bits at least): only each token's digest is kept.")
def import_(db_file: Path | str, tokens_file: Path) -> None:
    """Register every bot of a tokens file with its token (all or none of them)."""
    from arena.cli.events import load_tokens
    from arena.events.tokens import weak_token_problem

    tokens = load_tokens(tokens_file) or {}
    weak = [f"{name}: {problem}" for name, token in tokens.items()
            if (problem := weak_token_problem(token)) is not None]
    if weak:  # all or nothing
        raise click.ClickException(f"{weak[0]}; nothing was imported")
    with registry(db_file) as opened:
        taken = {name.casefold() for name in opened.names()}
        clashes = [name for name in tokens if name.casefold() in taken]
        if clashes:  # all or nothing: no bot of the file is added
            raise click.ClickException(f"registered already: {', '.join(clashes)}; nothing "
                                       "was imported (remove or rename them first)")
        for name, token in tokens.items():
            opened.add(name, token)
    click.echo(f"imported {len(tokens)} bot(s)")
