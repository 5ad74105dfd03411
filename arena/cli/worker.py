"""``arena worker``: play an event planned in PostgreSQL on this host, a thin click layer over
``arena.launch.worker``; the ``--db`` option's type (:class:`Database`) is imported from here
too."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from arena.cli.hosted_entrants import BUILDS_OPTION, VERSIONS_OPTION
from arena.kit.examples import examples
from arena.launch.options import TRUSTED_BOTS_NOTE, bot_launch, bot_launch_options

#: Seconds ``arena worker`` waits at its start for a database it cannot reach (restarting).
DATABASE_PATIENCE = 60.0


@examples(
    "arena worker --db postgresql://arena@dbhost/event1 --concurrency 2",
)
@click.command()
@click.option("--db", required=True, metavar="URL",
              help="The event's PostgreSQL database (postgresql://...), planned by "
                   "arena tournament --plan-only.")
@click.option("--bot", "bot_commands", multiple=True, metavar="NAME=CMD",
              help="This host's command for the entrant NAME (default: the command stored "
                   "with the event).")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Tables played at once on this host.")
@click.option("--batch", type=click.IntRange(min=1), default=None,
              help="Tables claimed at once (default: 4 x --concurrency); the next batch "
                   "is claimed as this one runs out, played by the same bots.")
@click.option("--lease", "lease_seconds", type=click.FloatRange(min=1), default=30.0,
              show_default=True,
              help="Seconds a claim holds without a heartbeat (renewed every third of it); "
                   "a worker silent longer loses its tables to the others.")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("arena-logs"), show_default=True,
              help="Where this host writes its game logs.")
@click.option("--connect-timeout", type=float, default=10.0, show_default=True,
              help="Seconds to wait for every bot instance to connect.")
@VERSIONS_OPTION
@BUILDS_OPTION
@bot_launch_options
def worker(db: str, bot_commands: tuple[str, ...], concurrency: int, batch: int | None,
           lease_seconds: float, log_dir: Path, connect_timeout: float, stdio: bool,
           sandbox: bool, sandbox_memory: int, sandbox_cpu: int | None,
           versions: Path | str | None, builds: Path | None) -> None:
    """Play tables of an event planned in PostgreSQL with this host's bots until none is left:
    claim a batch, play it, store each game as it ends (exactly once over all workers).  A
    first Ctrl-C finishes the running games and stops; a second stops at once."""
    import functools

    from arena.cli.hosted_entrants import runnable
    from arena.edge.signals import run_stoppable, stopped_status
    from arena.events.pg_open import NotAnEvent, StorageUnavailable, open_existing_waiting
    from arena.events.pg_queue import WorkQueue
    from arena.events.settings import EventSettings
    from arena.launch.runner import plan_bots
    from arena.launch.worker import EventWorker, local_bots, run_worker, worker_name

    if not str(db).startswith(("postgresql://", "postgres://")):
        raise click.UsageError("--db must be a PostgreSQL URL (postgresql://...)")
    try:
        storage = open_existing_waiting(db, DATABASE_PATIENCE,
                                        lambda line: click.echo(line, err=True))
        settings = EventSettings.from_meta(storage.meta())
        bots = local_bots(storage.entrants(), plan_bots(list(bot_commands)))
        storage.close()
    except (NotAnEvent, StorageUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    remote = [bot.name for bot in bots if bot.remote]
    if remote:
        raise click.UsageError(f"{', '.join(remote)} connect(s) by themselves (@remote): a "
                               "worker plays local bots only; give --bot NAME=CMD for each")
    bots = runnable(bots, db, versions, builds, sandbox_cpu)  # hosted versions: builds by digest
    launch = bot_launch(stdio, sandbox, sandbox_memory, sandbox_cpu, protect=[db])
    if launch.sandbox is None:
        click.echo(TRUSTED_BOTS_NOTE, err=True)
    name = worker_name()
    event = EventWorker(WorkQueue(db, name, lease_seconds=lease_seconds), settings, bots,
                        log_dir=log_dir, concurrency=concurrency, batch=batch,
                        connect_timeout=connect_timeout, launch=launch, echo=click.echo)
    click.echo(f"arena worker {name}: {settings.game}, {len(bots)} bots, "
               f"{concurrency} table(s) at a time")
    report = run_stoppable(functools.partial(run_worker, event))  # no Ctrl-C lost or re-raised
    if report is None:
        sys.exit(stopped_status())
    click.echo(f"arena worker {name}: {report.played} game(s) stored"
               + (f", {len(report.refused)} late result(s) refused" if report.refused else "")
               + (" (drained)" if report.drained else ""))
    for failure in report.failures:
        click.echo(f"arena worker: {failure}", err=True)
    sys.exit(1 if report.failures else stopped_status() if report.drained else 0)


def open_event_storage(db: Path | str) -> Any:
    """``--db``'s storage (an unreachable database is one line)."""
    from arena.events.pg_open import StorageUnavailable, open_storage

    try:
        return open_storage(db)
    except StorageUnavailable as exc:
        raise click.ClickException(str(exc)) from None


def plan_event(db: str, planned: list[Any]) -> None:
    """``--plan-only``: the event's tables into the work queue."""
    from arena.events.pg_queue import plan
    from arena.events.pg_storage import redacted

    plan(db, [table.index for table in planned])
    click.echo(f"arena: {len(planned)} games planned in {redacted(db)}; on each host: "
               f"arena worker --db URL")


def show_status(db: str) -> None:
    """``--status``: the event's progress by worker."""
    import psycopg

    from arena.events.pg_queue import event_status, format_status
    from arena.events.pg_storage import redacted

    try:
        click.echo(format_status(event_status(db)))
    except psycopg.Error as exc:
        raise click.ClickException(f"{redacted(db)}: {str(exc).strip().splitlines()[0]}"
                                   ) from None
