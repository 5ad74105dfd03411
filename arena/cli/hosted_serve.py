"""``arena serve --db DB --hosted N``: the ladder runs the active hosted versions itself
(:mod:`arena.launch.hosted_pool`); its options, checked, and the pool beside the server."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import click

from arena.cli.hosted import BUILDS_OPTION, builds_folder


def machine_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def hosted_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed([
        click.option("--hosted", "hosted", type=click.IntRange(min=1), default=None,
                     metavar="N",
                     help="With --db: run the active hosted versions (arena bots submit) "
                          "here, at most N processes at once, each in the sandbox; they play "
                          "at the same tables as the bots that connect."),
        BUILDS_OPTION,
        click.option("--cores", type=click.IntRange(min=1), default=None,
                     help="With --hosted: hosted bots thinking at once (a request waits for "
                          "a free core, and its clock starts when it is sent) (default: the "
                          "machine's cores)."),
    ]):
        command = option(command)
    return command


@attrs.frozen
class HostedSetup:
    """What ``--hosted`` asks for: the pool's settings, and where its versions are stored."""

    settings: Any
    db_file: Path | str

    def open_store(self) -> Any:
        from arena.events.hosted_store import SqliteHosted

        if isinstance(self.db_file, str):
            from arena.events.pg_hosted import PgHosted

            return PgHosted(self.db_file)
        return SqliteHosted(self.db_file)


def hosted_setup(hosted: int | None, builds: Path | None, cores: int | None,
                 db_file: Path | str | None, games: int, config: Any) -> HostedSetup | None:
    """``--hosted``'s settings (None without it); a usage error when it cannot be."""
    if hosted is None:
        if cores is not None:
            raise click.UsageError("--cores is for --hosted")
        return None
    if db_file is None:
        raise click.UsageError("--hosted needs --db (where the hosted versions are stored)")
    if games > 1:
        raise click.UsageError("--hosted plays one game (its versions were validated on "
                               "it): give one --game")
    from arena.launch.hosted_pool import PoolSettings
    from arena.launch.hosted_run import RunLimits
    from arena.launch.sandbox import Sandbox, SandboxUnavailable

    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        raise click.ClickException(f"--hosted runs bots in the sandbox: {exc}") from None

    protect = () if isinstance(db_file, str) else (str(db_file),)
    hide = tuple(path for path in (config.log_dir, config.transcript_dir) if path is not None)
    settings = PoolSettings(most=hosted, builds=builds_folder(db_file, builds),
                            cores=cores if cores is not None else machine_cores(),
                            limits=attrs.evolve(RunLimits(), move_timeout=config.move_timeout,
                                                cpu_seconds=HOSTED_CPU_SECONDS),
                            protect=protect, hide=hide)
    return HostedSetup(settings, db_file)


#: CPU seconds a ladder's hosted process may use over its life (then it ends, and is started
#: again: see the restarts).
HOSTED_CPU_SECONDS = 3600


def hosted_tokens(setup: HostedSetup | None, checker: Any) -> tuple[Any, Any]:
    """(the hosted processes' tokens, the seating's check with them) (with ``--hosted``)."""
    if setup is None:
        return None, checker
    from arena.launch.hosted_pool import HostedTokens

    tokens = HostedTokens(checker)
    return tokens, tokens.check


def hosted_task(setup: HostedSetup | None, tokens: Any, server: Any,
                echo: Callable[..., None]) -> Any:
    """The task running the hosted bots beside ``server`` (None without ``--hosted``): a
    :class:`~arena.launch.hosted_pool.HostedPool`'s, its lines on standard error."""
    if setup is None:
        return None
    from arena.launch.hosted_pool import HostedPool

    return HostedPool(server, setup.open_store, setup.settings, tokens,
                      lambda line: echo(line, err=True)).run
