"""``arena web``: the competition pages of a stored event or ladder in a browser."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option("--db", type=click.Path(path_type=Path), required=True,
              help="The event's database (arena tournament --db, arena serve --db).")
@click.option("--logs", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The folder of the game logs, when they are no longer where the database "
                   "says (the replays read them).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (another than 127.0.0.1 shows the pages to others).")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True,
              help="Port (0: any free).")
def web(db: Path, logs: Path | None, host: str, port: int) -> None:
    """Serve the pages of a stored event: leaderboard, each bot's page, head to head and
    replays of its games.  Read-only; Ctrl-C stops."""
    import functools
    import signal

    import trio

    from arena.events.export import NotAnEvent, open_event
    from arena.web.serve import serve_pages

    try:
        storage = open_event(db)
    except NotAnEvent as exc:
        raise click.UsageError(str(exc)) from None
    if logs is not None and not logs.is_dir():
        raise click.UsageError(f"--logs {logs}: no such folder")

    async def run() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                address = await nursery.start(functools.partial(
                    serve_pages, storage, host=host, port=port, logs=logs))
                click.echo(f"arena: the pages of {db} at {address}/ ; Ctrl-C stops")
                async for _ in signals:
                    break
                nursery.cancel_scope.cancel()
        click.echo("arena: stopped")

    try:
        trio.run(run)
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") \
            from None
    finally:
        storage.close()
