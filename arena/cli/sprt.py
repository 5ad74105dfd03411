"""``arena sprt``: a sequential test of "A is stronger than B" on duplicate sets, resumable
(the same command on the same ``--db`` continues it); a thin click layer over
``arena.events.sprt`` and the tournament runner."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Any

import click

from arena.cli.database import Database
from arena.cli.hosted_entrants import (
    BUILDS_OPTION,
    VERSION_HELP,
    VERSIONS_OPTION,
    entrants,
    runnable,
)
from arena.cli.worker import open_event_storage
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
)


@examples(
    'arena sprt --game chochlik --bot new="python3 my_bot.py" --bot old=chochlik-heuristic '
    "--field random --db sprt.db",
)
@click.command()
@game_options
@click.option("--bot", "bot_commands", multiple=True, metavar="NAME=CMD|NAME@N",
              help="Exactly two: A (tested) and B (the baseline).  " + VERSION_HELP)
@click.option("--field", "field_command", required=True, metavar="NAME=CMD",
              help="The bot that fills the other seats (tables of 3 or more).")
@click.option("--elo0", type=float, default=0.0, show_default=True,
              help="H0: A is stronger than B by this many Elo (or less).")
@click.option("--elo1", type=float, default=20.0, show_default=True,
              help="H1: A is stronger than B by this many Elo.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Chance of accepting H1 when H0 holds.")
@click.option("--beta", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Chance of accepting H0 when H1 holds.")
@click.option("--max-sets", type=click.IntRange(min=2), default=1000, show_default=True,
              help="Stop undecided after this many duplicate sets.")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--db", type=Database(), default=Path("arena-sprt.db"), show_default=True,
              help="The test's SQLite database, or a PostgreSQL URL (postgresql://...).")
@VERSIONS_OPTION
@BUILDS_OPTION
@bot_launch_options
def sprt(game_name: str, players: int | None, extra: tuple[str, ...], seed: str | None,
         move_timeout: float, reaction_timeout: float, time_bank: float, log_dir: Path,
         bot_commands: tuple[str, ...], field_command: str,
         elo0: float, elo1: float, alpha: float, beta: float, max_sets: int, concurrency: int,
         db: Path | str, stdio: bool, sandbox: bool, sandbox_memory: int, sandbox_cpu: int | None,
         versions: Path | str | None, builds: Path | None, **flags: Any) -> None:
    """Test "A is stronger than B" with a sequential probability ratio test on duplicate sets
    (A, B and the field at every table, every seating of one seed); stop as soon as the
    evidence allows.  Exit status 0 H1 accepted, 3 H0 accepted, 4 undecided at --max-sets,
    1 a failure, 2 usage, 130 stopped by Ctrl-C, 143 by SIGTERM (both drain first).  The same
    command run again with the same --db continues a stopped test where it stopped."""
    from arena.edge.signals import stopped_status
    from arena.events.settings import EventSettings
    from arena.events.sprt import SprtWatch
    from arena.launch.event_run import SPRT_INTERRUPTED, play_sprt, sprt_verdict
    from arena.launch.tournament import Tournament

    if elo0 >= elo1:
        raise click.UsageError(f"--elo0 ({elo0:g}) must be below --elo1 ({elo1:g})")
    if len(bot_commands) != 2:
        raise click.UsageError("give exactly two --bot: A, then B")
    try:
        bots = entrants([*bot_commands, field_command], db, versions)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    spec, options = parse_game_options(game_name, players, extra, flags,
                                       defaults=get_game(game_name).tournament_options)
    settings = EventSettings(
        game=spec.name, options=spec.options_to_dict(options), format=Format.DUEL.value,
        duplicate=True, sets=max_sets, seed=seed if seed is not None else secrets.token_hex(8),
        move_timeout=move_timeout, reaction_timeout=reaction_timeout, time_bank=time_bank)
    try:
        planned = settings.planned(len(bots))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    storage = open_event_storage(db)
    thresholds = dict(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    settings = stored_sprt(storage, settings, bots, thresholds, seed_given=seed is not None)
    watch = SprtWatch(len(planned) // max_sets, **thresholds)
    try:
        ensure_writable(log_dir)  # a line, not a traceback out of the event's nursery
    except LogDirectoryError as exc:
        raise click.ClickException(str(exc)) from None
    if resume_sprt(storage, watch, log_dir, settings, planned):
        sys.exit(sprt_verdict(watch, [bot.name for bot in bots], None, False, click.echo))
    bots = runnable(bots, db, versions, builds, sandbox_cpu)
    launch = bot_launch(stdio, sandbox, sandbox_memory, sandbox_cpu, protect=[db])
    if launch.sandbox is None:
        click.echo(TRUSTED_BOTS_NOTE, err=True)
    try:
        status = play_sprt(Tournament, dict(
            spec=spec, options=options, bots=bots, planned=planned, storage=storage,
            log_dir=log_dir, concurrency=concurrency, move_timeout=move_timeout,
            reaction_timeout=reaction_timeout, time_bank=time_bank, launch=launch),
            watch, click.echo)
    except LogDirectoryError as exc:
        raise click.ClickException(str(exc)) from None
    sys.exit(stopped_status() if status == SPRT_INTERRUPTED else status)


def stored_sprt(storage: Any, settings: Any, bots: list[Any],
                thresholds: dict[str, float], *, seed_given: bool) -> Any:
    """The test's settings: a new test is written to --db (a file or PostgreSQL); a test
    stored there already is continued if the command is the same (its stored seed unless
    --seed is given), and a usage error says what differs otherwise."""
    db = storage.path  # what messages call it (a URL without its password)
    import attrs

    from arena.events.settings import EventSettings

    meta = storage.meta()
    entrants = [(bot.name, bot.command) for bot in bots]
    if not meta:
        storage.write_event({**settings.to_meta(), "sprt": list(thresholds.values())},
                            entrants)
        return settings
    if "sprt" not in meta:
        raise click.UsageError(f"{db} already holds a tournament: choose another --db")
    stored = EventSettings.from_meta(meta)
    if not seed_given:
        settings = attrs.evolve(settings, seed=stored.seed)
    differ = [name for name, same in (
        ("bots", [tuple(e) for e in storage.entrants()] == entrants),
        ("thresholds", list(meta["sprt"]) == list(thresholds.values())),
        *((field.name, getattr(stored, field.name) == getattr(settings, field.name))
          for field in attrs.fields(EventSettings))) if not same]
    if differ:
        raise click.UsageError(f"{db} holds another SPRT run (its {', '.join(differ)} "
                               "differ): give the same options to continue it, or choose "
                               "another --db")
    return settings


def resume_sprt(storage: Any, watch: Any, log_dir: Path, settings: Any,
                planned: list[Any]) -> bool:
    """Feed the test the games --db holds already (in schedule order: the verdict is the one
    an uninterrupted run reaches) and say so; True when there is nothing left to play (the
    test is decided, or every set is stored)."""
    stored = sorted(storage.games(), key=lambda game: game.planned)
    if not stored:
        return False
    for game in stored:
        watch.game_over(game)
    if log_dir.is_dir():  # the stopped run's unfinished logs: those games are played again
        remove_stale_parts(log_dir, settings.game, {table.seed for table in planned})
    sets = watch.state.sets if watch.state is not None else 0
    click.echo(f"arena: continuing the SPRT stored in {storage.path}: {len(stored)} games "
               f"stored, {sets} set(s) read")
    return watch.decided or len(stored) >= len(planned)
