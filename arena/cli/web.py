"""``arena web``: the competition pages of a stored event or ladder in a browser."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import click

from arena.cli.database import Database
from arena.kit.examples import examples

#: Tables the play page plays at once unless --play-tables says (arena.web.play_table's).
MAX_TABLES = 4


def play_options(command: Any) -> Any:
    """The play page's options, shared by ``arena web`` and ``arena serve --web``."""
    for option in reversed([
        click.option("--play", is_flag=True,
                     help="Open the play page (/play): visitors sit at a table of their own "
                          "against bots, in the browser; their games are logged and in no "
                          "rating."),
        click.option("--play-bots", default=None, metavar="NAMES",
                     help="With --play: the built-in bots a visitor may pick, comma-separated "
                          "(default: random and each game's own, its heuristic and boss)."),
        click.option("--play-tables", type=click.IntRange(min=1), default=MAX_TABLES,
                     show_default=True, help="With --play: tables played at once at most."),
        click.option("--play-short", is_flag=True,
                     help="With --play: short games (each game's short options).")]):
        command = option(command)
    return command


def play_settings(games: list[tuple[str, Any]], log_dir: Path, *, play: bool,
                  play_bots: str | None, play_tables: int, play_short: bool) -> Any:
    """The play page's settings from the options (None without --play)."""
    if not play:
        if play_bots is not None or play_short:
            raise click.UsageError("--play-bots and --play-short need --play")
        return None
    from arena.web.play_table import settings_for

    bots = [bot for bot in (play_bots or "").split(",") if bot]
    try:
        return settings_for(games, log_dir, bots=bots, short=play_short,
                            max_tables=play_tables)
    except ValueError as exc:
        raise click.UsageError(f"--play-bots: {exc}") from None


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
@click.option("--play-logs", type=click.Path(file_okay=False, path_type=Path),
              default=Path("arena-logs") / "play", show_default=True,
              help="With --play: the folder of the play page's game logs.")
@click.option("--authors", is_flag=True,
              help="Open the author's page (/author): each registered bot's author signs in "
                   "with its token, uploads versions (built and checked as arena bots submit "
                   "does, for the game the ladder plays) and sees its logs, games and output.")
@play_options
def web(db: Path | str, logs: Path | None, host: str, port: int, play_logs: Path,
        authors: bool, **play: Any) -> None:
    """Serve the pages of a stored event: leaderboard, each bot's page, head to head and
    replays of its games.  Read-only (but --play and --authors); Ctrl-C stops."""
    import trio

    from arena.edge.signals import run_stoppable
    from arena.events.pg_open import NotAnEvent, open_existing
    from arena.games import GAMES
    from arena.web.serve import serve_pages

    try:
        storage = open_existing(db)
    except NotAnEvent as exc:
        raise click.UsageError(str(exc)) from None
    if logs is not None and not logs.is_dir():
        raise click.UsageError(f"--logs {logs}: no such folder")
    settings = play_settings([(name, {}) for name in sorted(GAMES)], play_logs, **play)
    author = authors_for(db, storage.meta().get("game")) if authors else None

    async def run(signals: trio.MemoryReceiveChannel[int]) -> None:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(functools.partial(
                serve_pages, storage, host=host, port=port, logs=logs, play=settings,
                authors=author))
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


def authors_for(db: Path | str | None, game: Any) -> Any:
    """The author's page's settings for the database ``db`` and the game its versions are
    checked with (the builds' folder: ``arena bots submit``'s default)."""
    from arena.cli.hosted import builds_folder
    from arena.games import GAMES
    from arena.web.author_jobs import AuthorSettings

    if db is None or game not in GAMES:
        raise click.UsageError(f"--authors: the database names no game this host has "
                               f"({game!r}): is it a ladder (arena serve --db)?")
    return AuthorSettings(str(db), str(game), builds_folder(db, None))


WEB_OPTION = click.option(
    "--web", "web_port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
    help="Also serve the competition pages on this port (live tables, and the leaderboard "
         "of the games stored in --db), on 127.0.0.1 unless --web-host says otherwise; they "
         "run in a process of their own, which the server restarts if it dies.")
WEB_HOST_OPTION = click.option("--web-host", default="127.0.0.1", show_default=True,
                               help="Address of the --web pages.")


def play_for(chosen: list[tuple[Any, Any]], log_dir: Path, web_port: int | None, *,
             play: bool, **options: Any) -> dict[str, Any]:
    """``arena serve``'s play page settings by game (each game's pages have their own),
    from the options; empty without --play."""
    if play and web_port is None:
        raise click.UsageError("--play needs --web PORT (the play page is one of the pages)")
    found = {spec.name: play_settings([(spec.name, spec.options_to_dict(options_))],
                                      log_dir / "play", play=play, **options)
             for spec, options_ in chosen}
    return {name: settings for name, settings in found.items() if settings is not None}


@contextlib.asynccontextmanager
async def pages_beside(server: Any, web: tuple[str, int] | None, db: Path | str | None,
                       label: str | None = None, play: Any = None) -> AsyncIterator[None]:
    """``arena serve --web``: the pages in a process of their own while the body runs
    (nothing when ``web`` is None), with the play page when ``play`` (its settings) is given,
    and the author's page of a ladder of one game (``db``); a port that cannot be had is one
    line.  ``label``: the game whose pages they are, said in their lines (a server of several
    games)."""
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
    # a ladder of one game (its file holds the registered bots): the author's page too
    authors = None if db is None or label is not None else authors_for(
        db, server.config.spec.name)
    async with pages_process(
            server, listener, db,
            out=lambda line: click.echo(line.replace("arena: ", said, 1)),
            err=lambda line: click.echo(line.replace("arena: ", said, 1), err=True),
            play=play, authors=authors):
        yield
