"""``arena web``: the competition pages of a stored event or ladder in a browser."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import click

from arena.cli.worker import Database
from arena.kit.examples import examples


@examples(
    "arena web --db my-event.db",
    "arena web --db ladder.db --host 0.0.0.0 --port 8080",
)
@click.command()
@click.option("--db", type=Database(), required=True,
              help="The event's database (arena tournament --db, arena serve --db): a file "
                   "or a postgresql:// URL.")
@click.option("--logs", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The folder of the game logs, when they are no longer where the database "
                   "says (the replays read them).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (another than 127.0.0.1 shows the pages to others).")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True,
              help="Port (0: any free).")
def web(db: Path | str, logs: Path | None, host: str, port: int) -> None:
    """Serve the pages of a stored event: leaderboard, each bot's page, head to head and
    replays of its games.  Read-only; Ctrl-C stops."""
    import trio

    from arena.edge.signals import run_stoppable
    from arena.events.pg_open import NotAnEvent, open_existing
    from arena.web.serve import serve_pages

    try:
        storage = open_existing(db)
    except NotAnEvent as exc:
        raise click.UsageError(str(exc)) from None
    if logs is not None and not logs.is_dir():
        raise click.UsageError(f"--logs {logs}: no such folder")

    async def run(signals: trio.MemoryReceiveChannel[int]) -> None:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(functools.partial(
                serve_pages, storage, host=host, port=port, logs=logs))
            click.echo(f"arena: the pages of {db} at {address}/ ; Ctrl-C stops")
            await signals.receive()  # one more while it stops is dropped, never a traceback
            nursery.cancel_scope.cancel()
        click.echo("arena: stopped")

    try:
        run_stoppable(run)  # Ctrl-C and SIGTERM from before the loop until after it
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") \
            from None
    finally:
        storage.close()


WEB_OPTION = click.option(
    "--web", "web_port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
    help="Also serve the competition pages on this port (live tables, and the leaderboard "
         "of the games stored in --db), on 127.0.0.1 unless --web-host says otherwise; they "
         "run in a process of their own, which the server restarts if it dies.")
WEB_HOST_OPTION = click.option("--web-host", default="127.0.0.1", show_default=True,
                               help="Address of the --web pages.")


@contextlib.asynccontextmanager
async def pages_beside(server: Any, web: tuple[str, int] | None, db: Path | str | None,
                       label: str | None = None) -> AsyncIterator[None]:
    """``arena serve --web``: the pages in a process of their own while the body runs
    (nothing when ``web`` is None); a port that cannot be had is one line.  ``label``: the
    game whose pages they are, said in their lines (a server of several games)."""
    if web is None:
        yield
        return
    from arena.web.pagesproc import listen, pages_process

    try:
        listener = listen(*web)
    except OSError as exc:
        raise click.ClickException(f"cannot serve the pages on {web[0]}:{web[1]}: "
                                   f"{exc.strerror or exc}") from None
    said = "arena: " if label is None else f"arena: {label}: "
    async with pages_process(
            server, listener, db,
            out=lambda line: click.echo(line.replace("arena: ", said, 1)),
            err=lambda line: click.echo(line.replace("arena: ", said, 1), err=True)):
        yield
