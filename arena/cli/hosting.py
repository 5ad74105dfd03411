"""``arena serve``'s run: one game's server, or several games' servers behind one door
(``--game A --game B``: :class:`~arena.edge.house.GameHouse`), each with its own seating,
tally, ladder (``--db``) and pages (``--web``); a line per game, the running tallies, the
summary; failures as one line."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import click

from arena.cli.bots import ladder_writing, make_seating, open_ladder
from arena.cli.hosted_serve import hosted_task, hosted_tokens
from arena.cli.web import pages_beside
from arena.gameplay.gamelog import LogDirectoryError, ensure_writable
from arena.launch.errors import INTERRUPTED, only


@attrs.frozen
class Hosted:
    """One game ``arena serve`` hosts: its server's config and, under ``--db``, its ladder
    (an :class:`~arena.edge.ladder_book.LadderBook`) and where it is stored."""

    config: Any
    book: Any = None
    place: Path | str | None = None


def hosted_games(config: Any, games: Sequence[tuple[Any, Any]],
                 db_file: Path | str | None, seed: str | None) -> list[Hosted]:
    """Each game's config (``config`` with the game's spec and options) and ladder.  With
    several games each has a seed of its own, its transcripts in a folder of its own (named
    after it), and under ``--db`` a ladder of its own (:func:`arena.events.places.game_place`:
    its ratings never mix with another game's)."""
    several = len(games) > 1
    hosted = []
    for spec, options in games:
        own = attrs.evolve(config, spec=spec, options=options)
        if several and seed is not None:
            own = attrs.evolve(own, seed=f"{seed}:{spec.name}")
        if several and own.transcript_dir is not None:  # each game numbers its connections
            own = attrs.evolve(own, transcript_dir=own.transcript_dir / spec.name)
        place = None if db_file is None else (own_place(db_file, spec.name) if several
                                              else db_file)
        book = open_ladder(place, spec, options, db_file)
        if book is not None and own.seed is not None:
            own = attrs.evolve(own, seed=book.run_seed(own.seed))
        hosted.append(Hosted(own, book, place))
    return hosted


def own_place(db_file: Path | str, game: str) -> Path | str:
    """Where ``game``'s ladder is kept beside ``db_file``'s registry; a database that cannot be
    reached is one line (exit status 1)."""
    from arena.events.places import game_place

    try:
        return game_place(db_file, game)
    except Exception as exc:  # PostgreSQL's (psycopg is imported only for a URL)
        if not type(exc).__module__.startswith("psycopg"):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.ClickException(f"the ladder's database: {first}") from None


def shown(place: Path | str) -> str:
    """A ladder's place as the organiser reads it (a URL without its password)."""
    if isinstance(place, Path):
        return str(place)
    from arena.events.pg_storage import redacted

    return redacted(place)


def game_line(record: Any, label: str | None) -> str:
    outcome = record.aborted or " ".join(
        f"{name}={score}" for name, score in zip(record.names, record.scores))
    return f"{label + ' ' if label else ''}table {record.game_id}: {outcome}  [{record.log_path}]"


def banner_line(hosted: Sequence[Hosted], port: int) -> str:
    first = hosted[0].config
    games = ", ".join(f"{h.config.spec.name} ({h.config.options.players} players)"
                      for h in hosted)
    return (f"arena: hosting {games} on {first.host}:{port}; logs in {first.log_dir}/; "
            "Ctrl-C stops")


def host_games(hosted: Sequence[Hosted], registry: dict[str, str] | None, *,
               games: int | None, quiet: bool, tally_every: tuple[float, int] | None,
               checker: Any = None, web: tuple[tuple[str, int], Any] | None = None,
               seating_kind: str = "arrival", restarts: bool = False,
               play: Mapping[str, Any] | None = None, hosted_bots: Any = None) -> None:
    """Serve ``hosted`` with ``seating_kind`` (``games`` at most, of each) until Ctrl-C: a
    line per game unless ``quiet``, the running tallies, the summary; failures as one line.
    ``web``: the pages' address (each further game's on the next port); ``play``: each game's
    play page settings (``--play``); ``restarts``: see ``run_serve``; ``hosted_bots``: --hosted."""
    from arena.edge.house import GameHouse
    from arena.edge.serve_report import Tally
    from arena.edge.serve_run import run_serve
    from arena.edge.server import tune_garbage_collector
    from arena.edge.signals import run_stoppable

    first = hosted[0].config
    several = len(hosted) > 1
    tallies = [Tally() for _ in hosted]
    for game in hosted if several else ():
        if game.place is not None:
            click.echo(f"arena: {game.config.spec.name}: its ladder in {shown(game.place)}")
    try:
        ensure_writable(first.log_dir)  # a line, not a traceback out of the server's nursery
    except LogDirectoryError as exc:
        raise click.ClickException(str(exc)) from None
    listening = False
    tokens, checker = hosted_tokens(hosted_bots, checker)

    def banner(port: int) -> str:
        nonlocal listening
        listening = True
        return banner_line(hosted, port)

    async def run(signals: Any) -> None:
        servers = [game_server(game, tally, registry, checker, seating_kind, games,
                               quiet, several) for game, tally in zip(hosted, tallies)]
        tune_garbage_collector()
        async with contextlib.AsyncExitStack() as stack:
            for i, (server, game) in enumerate(zip(servers, hosted)):
                await stack.enter_async_context(pages_beside(
                    server, *web_of(web, i, game), game.config.spec.name if several else None,
                    play=(play or {}).get(game.config.spec.name)))
                await stack.enter_async_context(ladder_writing(game.book))
            await run_serve(GameHouse(servers) if several else servers[0], games=games,
                            tally=tallies, tally_every=tally_every, banner=banner,
                            signals=signals, restarts=restarts, out=click.echo,
                            err=lambda line: click.echo(line, err=True),
                            alongside=hosted_task(hosted_bots, tokens, servers[0], click.echo))
        unwritten = sum(len(server.unwritten_logs) for server in servers)
        if unwritten:
            raise click.ClickException(f"{unwritten} game log(s) could not be written to "
                                       f"{first.log_dir} (is the disk full?)")

    try:
        run_stoppable(run)  # Ctrl-C and SIGTERM from before the loop until after it
    except (OSError, LogDirectoryError, BaseExceptionGroup, KeyboardInterrupt) as exc:
        problem = serve_failure(exc, first.host, first.port, listening)
        if problem is None:
            raise
        raise problem from None


def game_server(game: Hosted, tally: Any, registry: dict[str, str] | None, checker: Any,
                seating_kind: str, games: int | None, quiet: bool, several: bool) -> Any:
    """One game's server: its seating (``games`` at most), and at each game's end its tally,
    its ladder and (unless ``quiet``) a line, naming the game when ``several`` are hosted."""
    from arena.edge.serve_run import GameLimit
    from arena.edge.server import ArenaServer

    config, book = game.config, game.book
    seating = make_seating(seating_kind, config.options.players, registry, checker, book,
                           config.seed)
    if games is not None:
        seating = GameLimit(seating, games)
    label = config.spec.name if several else None

    def game_over(record: Any) -> None:
        tally.add(record)
        if book is not None:
            book.game_over(record)
        if not quiet:
            click.echo(game_line(record, label))

    return ArenaServer(config, seating=seating, on_game_over=game_over)


def web_of(web: tuple[tuple[str, int], Any] | None, index: int,
           game: Hosted) -> tuple[tuple[str, int] | None, Any]:
    """The pages of the ``index``-th game: on the port after the one before's (any free one
    for ``--web 0``), reading that game's ladder."""
    if web is None:
        return None, None
    (host, port), _ = web
    return (host, port + index if port else 0), game.place


class Stopped(click.ClickException):
    """A command stopped by Ctrl-C where it could not stop cleanly: one line, exit 130."""

    exit_code = INTERRUPTED


def serve_failure(exc: BaseException, host: str, port: int,
                  listening: bool) -> click.ClickException | None:
    """What ``arena serve`` says of ``exc`` in one line when it is foreseeable (a log folder
    it cannot write, a listener it could not open, a network failure); None: raise it."""
    from arena.cli.errors import listen_failure

    if isinstance(exc, KeyboardInterrupt):  # the last resort: no Ctrl-C is a traceback
        return Stopped("stopped by Ctrl-C before it could stop cleanly")
    unwritable = only(exc, LogDirectoryError)
    if unwritable is not None:
        return click.ClickException(str(unwritable))
    problem = None if listening else listen_failure(exc, host, port)
    if problem is not None:
        return problem
    failed = only(exc, OSError)
    if failed is None:
        return None
    return click.ClickException(f"cannot serve on {host}:{port}: {failed}")
