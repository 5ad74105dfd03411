"""What the commands tell a person about a foreseeable failure, in one line: a listener that
cannot be opened (a port in use, a ``--host`` that is not this machine's), a Ctrl-C."""

from __future__ import annotations

import difflib
import errno
import socket

import click

from arena.events.schema_version import SchemaTooNew
from arena.launch.errors import only


def listen_problem(error: OSError, host: str, port: int) -> str:
    """Why a listener on ``host:port`` could not be opened, and what to do, in one line."""
    where = f"cannot listen on {host}:{port}"
    if isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
        return (f"{where}: {host!r} is not an address of this machine ({error.strerror}); "
                "give --host 127.0.0.1 (this machine only) or --host 0.0.0.0 (every network)")
    if error.errno == errno.EADDRINUSE:
        return (f"{where}: the port is in use (another server?); stop it, or give another "
                "--port (--port 0: any free one)")
    if error.errno in (errno.EACCES, errno.EPERM):
        return (f"{where}: not allowed ({error.strerror}; ports below 1024 need privileges); "
                "give a --port from 1024 up")
    return f"{where}: {error.strerror or error}"


def listen_failure(error: BaseException, host: str, port: int) -> click.ClickException | None:
    """The one-line error for a failure to open a listener, or None when ``error`` is
    something else (to be raised as it is)."""
    found = only(error, OSError)
    if found is None:
        return None
    assert isinstance(found, OSError)
    return click.ClickException(listen_problem(found, host, port))


#: Names people try for an option arena calls otherwise (other tools' words).
OPTION_SYNONYMS = {
    "--rounds": "--games", "--num-games": "--games", "--n-games": "--games",
    "--count": "--games", "--matches": "--games",
    "--timeout": "--move-timeout", "--time-limit": "--move-timeout",
    "--move-time": "--move-timeout", "--turn-timeout": "--move-timeout",
    "--num-players": "--players", "--seats": "--players", "--player-count": "--players",
    "--bots": "--bot", "--player": "--bot", "--engine": "--bot", "--cmd": "--bot",
    "--logs": "--log-dir", "--log": "--log-dir", "--log-directory": "--log-dir",
    "--output": "--log-dir", "--random-seed": "--seed",
    "--address": "--host", "--bind": "--host", "--listen": "--host",
    "--database": "--db", "--parallel": "--concurrency", "--jobs": "--concurrency",
    "--transcript": "--transcripts", "--sandboxed": "--sandbox",
}


def suggest_option(error: click.NoSuchOption) -> click.NoSuchOption:
    """``error`` with one suggestion: the option a known synonym stands for, else the closest
    name of the command's options."""
    if error.ctx is None:
        return error
    names = [name for param in error.ctx.command.get_params(error.ctx)
             if isinstance(param, click.Option)
             for name in (*param.opts, *param.secondary_opts)]
    meant = OPTION_SYNONYMS.get(error.option_name)
    close = [meant] if meant in names else difflib.get_close_matches(error.option_name, names,
                                                                     n=1)
    better = click.NoSuchOption(error.option_name, ctx=error.ctx)
    better.possibilities = close or None  # type: ignore[misc]  # click filters what it is given
    return better


class SuggestingGroup(click.Group):
    """A group whose commands' unknown options get :func:`suggest_option`'s suggestion."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            raise suggest_option(error) from None

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as error:
            raise suggest_option(error) from None
        except SchemaTooNew as error:  # any command, any database: one line
            raise click.ClickException(str(error)) from None
