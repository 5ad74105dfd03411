"""``arena tournament --resume``'s pace: the tables at once, server processes, restarts and
lost-games policy the event was played with (its database's meta keeps them) unless given
again, and the line that says which."""

from __future__ import annotations

from typing import Any

import click
from click.core import ParameterSource


def check_workers(workers: int, concurrency: int) -> None:
    if workers > concurrency:
        raise click.UsageError(f"--workers {workers} needs --concurrency {workers} or more (each "
                               "worker plays at least one table at a time)")


def pace_text(concurrency: int, workers: int) -> str:
    return f"{concurrency} at a time" + (f" over {workers} server processes" if workers > 1
                                         else "")


def kept_unless_given(meta: dict[str, Any], **options: Any) -> dict[str, Any]:
    """On --resume: each option as the event's meta keeps it, unless given again (the banner
    then says what applies)."""
    context = click.get_current_context()
    return {name: meta.get(name, value)
            if context.get_parameter_source(name) is ParameterSource.DEFAULT else value
            for name, value in options.items()}


def resumed_pace(meta: dict[str, Any], concurrency: int, workers: int) -> tuple[int, int]:
    """On --resume: the tables at once and server processes the event was played with (its
    meta keeps them) unless given again; a line says which, and why."""
    context = click.get_current_context()
    pace = {"concurrency": concurrency, "workers": workers}
    given = {name for name in pace
             if context.get_parameter_source(name) is not ParameterSource.DEFAULT}
    played = {name: meta[name] for name in pace if name in meta}
    for name in pace.keys() - given:
        pace[name] = played.get(name, pace[name])
    if "workers" not in given:
        pace["workers"] = min(pace["workers"], pace["concurrency"])
    concurrency, workers = pace["concurrency"], pace["workers"]
    now = pace_text(concurrency, workers)
    if "concurrency" not in played:
        click.echo("arena: the event's database does not say how many tables it played at "
                   f"once (an older arena wrote it): resuming {now} (--concurrency N to change)")
    elif any(pace[name] != played.get(name, 1) for name in given):
        before = pace_text(played["concurrency"], played.get("workers", 1))
        click.echo(f"arena: resuming {now}, as given (the event was played {before})")
    else:
        click.echo(f"arena: resuming {now}, as the event was played (--concurrency N to "
                   "change)")
    return concurrency, workers
