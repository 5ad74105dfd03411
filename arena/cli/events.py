"""The event commands: ``arena tournament`` and ``arena ratings`` (``arena sprt`` is in
sprt.py), a thin click layer over ``arena.launch.tournament`` (the runner) and
``arena.events.leaderboard``."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from arena.cli.database import Database
from arena.cli.errors import listen_failure
from arena.cli.hosted_entrants import (
    BUILDS_OPTION,
    VERSION_HELP,
    VERSIONS_OPTION,
    entrants,
    runnable,
)
from arena.cli.resume import check_workers, kept_unless_given, resumed_pace
from arena.events.schedule import Format
from arena.gameplay.gamelog import LogDirectoryError, ensure_writable, remove_stale_parts
from arena.games import get_game
from arena.kit.examples import examples
from arena.launch.options import (
    TRUSTED_BOTS_NOTE,
    bot_launch,
    bot_launch_options,
    game_options,
    parse_game_options,
    plain_logs_option,
)

if TYPE_CHECKING:
    from arena.events.pg_storage import PostgresStorage
    from arena.events.storage import SqliteStorage

#: Options that may go with --resume (how to run, not what the event is).
RESUME_KEEPS = frozenset({"resume", "db", "plan_only", "log_dir", "concurrency", "workers",
                          "connect_timeout", "resamples", "tokens_file", "host", "port", "stdio",
                          "sandbox", "sandbox_memory", "sandbox_cpu", "plain_logs", "restarts",
                          "lost_games", "builds", "versions"})


@examples(
    "arena tournament --game chochlik --bot chochlik-heuristic --bot random --bot random "
    "--sets 10 --db my-event.db",
    "arena tournament --resume --db my-event.db",
    "arena tournament --db postgresql://arena@dbhost/event1 --status",
)
@click.command()
@game_options(game_required=False)
@click.option("--bot", "bot_commands", multiple=True, metavar="NAME=CMD|NAME@N",
              help="An entrant: a bot command or a built-in bot with its options "
                   "(chochlik-heuristic --random-rate 0.25), optionally named (NAME=CMD); at "
                   "least two.  {host} {port} {name} {token} are replaced.  " + VERSION_HELP)
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games to play (rounded up to whole duplicate sets).")
@click.option("--sets", type=click.IntRange(min=1), default=None,
              help="Duplicate sets to play (default: one round robin, at most 100).")
@click.option("--format", "fmt",
              type=click.Choice([f.value for f in Format if f is not Format.DUEL]),
              default=Format.ROUND_ROBIN.value, show_default=True,
              help="round-robin: everybody meets everybody; gauntlet: the first bot against "
                   "the others.")
@click.option("--duplicate/--no-duplicate", default=None,
              help="Play each seed once per seating of its table (same cards and dice); "
                   "default: per game, duplicate where it measures bots with fewer games "
                   "(README \"Duplicate or independent\").")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Tables played at once.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Server processes the tables are spread over, each with its own bots "
                   "(one process uses at most one core); at most --concurrency.")
@click.option("--db", type=Database(),
              default=Path("arena-tournament.db"), show_default=True,
              help="The event's SQLite database, or a PostgreSQL URL (postgresql://...; "
                   "results are written as games end).")
@click.option("--plan-only", is_flag=True,
              help="Only write the event (settings, bots, schedule) to --db URL, for "
                   "arena worker processes on any host to play.")
@click.option("--status", is_flag=True,
              help="Print the progress of the event in --db URL by worker, and exit.")
@click.option("--resume", is_flag=True,
              help="Continue the event stored in --db (its settings and bots are read from it).")
@click.option("--connect-timeout", type=float, default=10.0, show_default=True,
              help="Seconds to wait for every bot instance to connect.")
@click.option("--resamples", type=click.IntRange(min=0), default=200, show_default=True,
              help="Bootstrap resamples for the final leaderboard's intervals.")
@click.option("--tokens", "tokens_file",
              type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Registered players ('name token' lines, as for serve): a --bot NAME=@remote "
                   "is one of them, connecting by itself with its token.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address the event's server listens on (for @remote bots).")
@click.option("--port", type=int, default=0, show_default=True,
              help="Port the event's server listens on (0: any free one).")
@click.option("--restarts", type=click.IntRange(min=0), default=3, show_default=True,
              help="Times a bot whose process ends mid-event is started again (after 0.5 s, "
                   "then twice as long each time); past them the event stops (--resume "
                   "continues it).")
@click.option("--lost-games", type=click.Choice(["forfeit", "replay"]), default="forfeit",
              show_default=True,
              help="The games a bot was playing when its process ended: stored with it ranked "
                   "last at the table (forfeit), or played again once it is back (replay).")
@VERSIONS_OPTION
@BUILDS_OPTION
@plain_logs_option
@bot_launch_options
def tournament(game_name: str | None, players: int | None, extra: tuple[str, ...],
               seed: str | None, move_timeout: float, reaction_timeout: float,
               time_bank: float, log_dir: Path, bot_commands: tuple[str, ...],
               games: int | None, sets: int | None, fmt: str, duplicate: bool | None,
               concurrency: int, workers: int, db: Path | str, plan_only: bool, status: bool,
               resume: bool, connect_timeout: float,
               resamples: int, tokens_file: Path | None, host: str, port: int, stdio: bool,
               sandbox: bool, sandbox_memory: int, sandbox_cpu: int | None,
               plain_logs: bool, restarts: int, lost_games: str,
               versions: Path | str | None, builds: Path | None, **flags: Any) -> None:
    """Run a whole event: bots as subprocesses, K tables at once, results in SQLite, a
    leaderboard with 95 % intervals at the end.  A first Ctrl-C finishes the running games and
    stops (resume with --resume); a second stops at once."""
    from arena.cli.worker import open_event_storage, plan_event, show_status
    from arena.launch.restarts import Restarts

    if status or plan_only:
        if isinstance(db, Path):
            raise click.UsageError("--status and --plan-only need --db postgresql://...")
        if status:
            return show_status(db)
    if not resume:
        check_workers(workers, concurrency)
    storage = open_event_storage(db)
    if resume:
        settings, bots, planned = resumed_event(storage, db, log_dir)
        concurrency, workers = resumed_pace(storage.meta(), concurrency, workers)
        restarts, lost_games = kept_unless_given(storage.meta(), restarts=restarts,
                                                 lost_games=lost_games).values()
        check_workers(workers, concurrency)
    else:
        settings, bots, planned = new_event(
            storage, db, game_name, players, extra, flags, bot_commands, games=games, sets=sets,
            fmt=fmt, duplicate=duplicate, seed=seed, move_timeout=move_timeout,
            reaction_timeout=reaction_timeout, time_bank=time_bank)
    if plan_only:
        return plan_event(str(db), planned)
    bots = runnable(bots, db, versions, builds, sandbox_cpu)
    storage.write_event({"concurrency": concurrency, "workers": workers, "restarts": restarts,
                         "lost_games": lost_games}, [])
    launch = bot_launch(stdio, sandbox, sandbox_memory, sandbox_cpu, protect=[db])
    if launch.sandbox is None:
        click.echo(TRUSTED_BOTS_NOTE, err=True)
    registry = load_tokens(tokens_file)
    run_event(settings, bots, planned, storage, log_dir=log_dir, concurrency=concurrency,
              workers=workers, connect_timeout=connect_timeout, resamples=resamples,
              launch=launch, registry=registry, host=host, port=port,
              compress_logs=not plain_logs,
              restarts=Restarts(most=restarts, replay=lost_games == "replay",
                                connect_timeout=connect_timeout))


def resumed_event(storage: Any, db: Path | str, log_dir: Path) -> tuple[Any, list[Any], list[Any]]:
    """The stored event's settings, bots and schedule, for --resume (a usage error when
    --db holds none, or one this version cannot rebuild exactly)."""
    from arena.events.settings import EventSettings, plan_digest
    from arena.launch.runner import BotSpec

    context = click.get_current_context()
    ignored = [param.opts[0] for param in context.command.params
               if param.name not in RESUME_KEEPS and param.name is not None
               and context.get_parameter_source(param.name) is not ParameterSource.DEFAULT]
    if ignored:
        raise click.UsageError("--resume takes the event's settings from --db; it cannot "
                               "change " + ", ".join(ignored))
    meta = storage.meta()
    if not meta:
        raise click.UsageError(f"{db} holds no event to resume")
    if "sprt" in meta or meta.get("ladder"):
        raise click.UsageError(f"{db} holds {'a ladder' if meta.get('ladder') else 'an SPRT run'}"
                               ", not a tournament")
    settings = EventSettings.from_meta(meta)
    bots = [BotSpec(name, command) for name, command in storage.entrants()]
    planned = settings.planned(len(bots))
    if meta.get("plan") != plan_digest(planned):
        raise click.UsageError(f"{db} was planned by another version of arena: its "
                               "schedule cannot be rebuilt exactly")
    if log_dir.is_dir():  # the earlier run's unfinished logs: those games are played again
        stale = remove_stale_parts(log_dir, settings.game, {t.seed for t in planned})
        if stale:
            click.echo(f"arena: removed {len(stale)} unfinished game log(s) (.part) an "
                       f"earlier run of this event left in {log_dir}")
    return settings, bots, planned


def new_event(storage: Any, db: Path | str, game_name: str | None, players: int | None,
              extra: tuple[str, ...], flags: dict[str, Any], bot_commands: tuple[str, ...], *,
              games: int | None, sets: int | None, fmt: str, duplicate: bool | None,
              seed: str | None, move_timeout: float, reaction_timeout: float,
              time_bank: float) -> tuple[Any, list[Any], list[Any]]:
    """A new event's settings, bots and schedule, written to --db."""
    from arena.events.settings import EventSettings, default_duplicate, plan_digest, sets_for
    from arena.launch.bots import never_start

    if storage.meta():
        raise click.UsageError(f"{db} already holds an event: --resume it, or choose "
                               "another --db")
    if game_name is None:
        raise click.UsageError("Missing option '--game' (or --resume an event)")
    if games is not None and sets is not None:
        raise click.UsageError("give --games or --sets, not both")
    try:
        bots = entrants(bot_commands, db, click.get_current_context().params["versions"])
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if len(bots) < 2:
        raise click.UsageError("a tournament needs at least two --bot")
    unstartable = never_start(bots, os.environ.get("PATH"))
    if unstartable:  # before the event is stored: its commands cannot change on --resume
        raise click.ClickException("\n".join(unstartable))
    spec, options = parse_game_options(game_name, players, extra, flags,
                                       defaults=get_game(game_name).tournament_options)
    table = options.players
    if duplicate is None:
        duplicate = default_duplicate(spec.name)
    settings = EventSettings(
        game=spec.name, options=spec.options_to_dict(options), format=fmt,
        duplicate=duplicate, sets=sets_for(len(bots), table, Format(fmt), duplicate,
                                           games=games, sets=sets),
        seed=seed if seed is not None else secrets.token_hex(8), move_timeout=move_timeout,
        reaction_timeout=reaction_timeout, time_bank=time_bank)
    try:
        planned = settings.planned(len(bots))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    storage.write_event({**settings.to_meta(), "plan": plan_digest(planned)},
                        [(b.name, b.command) for b in bots])
    return settings, bots, planned


def load_tokens(tokens_file: Path | None) -> dict[str, str] | None:
    """The registered players of --tokens FILE (None without it)."""
    if tokens_file is None:
        return None
    from arena.seating.arrival import load_registry

    try:
        return load_registry(tokens_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"{tokens_file}: {exc}") from None


def run_event(settings: Any, bots: list[Any], planned: list[Any], storage: Any, *,
              log_dir: Path, concurrency: int, connect_timeout: float, resamples: int,
              workers: int = 1, launch: Any = None, registry: Any = None,
              host: str = "127.0.0.1", port: int = 0, compress_logs: bool = True,
              restarts: Any = None) -> None:
    """Play the event (:class:`arena.launch.event_run.EventRun`) and exit with its status;
    its failures as command-line errors."""
    from arena.edge.signals import run_stoppable
    from arena.launch.event_run import EventRun

    try:
        ensure_writable(log_dir)  # a line, not a traceback out of the event's nursery
    except LogDirectoryError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        event = EventRun(settings, bots, planned, storage, log_dir=log_dir,
                         concurrency=concurrency, connect_timeout=connect_timeout,
                         echo=click.echo, on_terminal=sys.stdout.isatty(), workers=workers,
                         launch=launch, registry=registry, host=host, port=port,
                         compress_logs=compress_logs, restarts=restarts)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(event.banner())
    try:
        report = run_stoppable(event.run)  # None when a second Ctrl-C stopped it at once
    except LogDirectoryError as exc:
        raise click.ClickException(str(exc)) from None
    except (OSError, BaseExceptionGroup) as exc:
        server = event.server
        problem = (listen_failure(exc, host, port)
                   if server is not None and server.port is None else None)
        if problem is None:
            raise
        raise problem from None
    sys.exit(event.finish(report, resamples))


@examples(
    "arena ratings --db my-event.db --head-to-head",
    "arena ratings --db ladder.db --history alice",
)
@click.command()
@click.option("--db", type=Database(exists=True),
              required=True, help="An event's SQLite database, or PostgreSQL URL.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True)
@click.option("--resamples", type=click.IntRange(min=0), default=200, show_default=True,
              help="Bootstrap resamples for the 95 % intervals (0: none).")
@click.option("--los", is_flag=True,
              help="Also print the likelihood-of-superiority matrix (table format).")
@click.option("--head-to-head", "versus", is_flag=True,
              help="Also print each pair's wins, ties, losses and games (table format; json "
                   "always has them).")
@click.option("--anchor", default=None, metavar="NAME",
              help="Fix this bot at 1500 (default: the pool's average is 1500).")
@click.option("--history", is_flag=False, flag_value="", default=None, metavar="[NAME]",
              help="Print the rating snapshots taken while it ran instead (every bot's, or "
                   "NAME's).")
def ratings(db: Path | str, fmt: str, resamples: int, los: bool, versus: bool,
            anchor: str | None, history: str | None) -> None:
    """Print the leaderboard of a stored event (also while it runs)."""
    import csv
    import io
    import json

    import attrs

    from arena.events.export import NotAnEvent
    from arena.events.headtohead import as_json_rows, format_head_to_head, tables_head_to_head
    from arena.events.leaderboard import format_los, format_table, results_leaderboard
    from arena.events.storage import names_and_results

    try:  # a file that is not an event is said so and left untouched (never made one)
        storage = opened_to_read(db)
    except NotAnEvent as exc:
        raise click.UsageError(str(exc)) from None
    if history is not None:
        from arena.events.snapshots import history_report

        try:
            click.echo(history_report(storage, history or None))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        return
    names, results = names_and_results(storage)  # one consistent read, while it runs too
    if anchor is not None and anchor not in names:
        raise click.UsageError(f"no bot named {anchor!r}; the bots: {', '.join(names)}")
    rows = results_leaderboard(names, results, resamples=resamples,
                               seed=storage.meta().get("seed", 0),
                               anchor=names.index(anchor) if anchor is not None else None)
    if fmt == "table":
        click.echo(format_table(rows))
        if los:
            click.echo()
            click.echo(format_los(names, results.tables()))
        if versus:
            click.echo()
            click.echo(format_head_to_head(tables_head_to_head(names, results.tables())))
    elif fmt == "json":
        entries = tables_head_to_head(names, results.tables())
        click.echo(json.dumps(as_json_rows(rows, entries), indent=2))
    else:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=[f.name for f in attrs.fields(type(rows[0]))])
        writer.writeheader()
        writer.writerows(attrs.asdict(row) for row in rows)
        click.echo(out.getvalue().rstrip("\n"))


def opened_to_read(db: Path | str) -> SqliteStorage | PostgresStorage:
    """The stored event ``--db`` names (:func:`arena.events.pg_open.open_existing`), an SQLite
    file without importing psycopg (a tenth of a second of ``arena ratings``)."""
    if isinstance(db, Path):
        from arena.events.export import open_event

        return open_event(db)
    from arena.events.pg_open import open_existing

    return open_existing(db)
