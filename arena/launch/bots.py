"""A bot as the runner knows it: its command (:class:`BotSpec`, with the placeholders
:func:`bot_argv` fills in), and one launched instance of it (:class:`BotRun`: its token, its
output file, and what became of it)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from arena.launch.sandbox import Sandbox

#: The command of a bot the runner does not launch: a registered bot that connects by itself
#: (``arena tournament --tokens FILE --bot NAME=@remote``).
REMOTE = "@remote"
#: The first word of the stored command of a hosted version entered in an event
#: (``@hosted NAME N DIGEST``: :mod:`arena.launch.hosted_bots` makes it runnable).
HOSTED = "@hosted"


@attrs.frozen
class BotSpec:
    name: str
    command: str  # a template with {host} {port} {name} {token_file}, or REMOTE
    #: Its own sandbox, always used (over stdio), whatever the runner's: a hosted version's
    #: (:mod:`arena.launch.hosted_bots`); None: the runner's way of starting bots.
    sandbox: Sandbox | None = None

    @property
    def remote(self) -> bool:
        return self.command == REMOTE


def bot_argv(template: str, *, host: str, port: int, name: str, token: str,
             token_file: str = "") -> list[str]:
    values = {"{host}": host, "{port}": str(port), "{name}": name, "{token}": token,
              "{token_file}": token_file, "{python}": sys.executable}
    argv = []
    for word in shlex.split(template):
        for placeholder, value in values.items():
            word = word.replace(placeholder, value)
        argv.append(word)
    return argv


@attrs.define
class BotRun:
    spec: BotSpec
    token: str
    output: Path
    exit_code: int | None = None
    connected: bool = False
    left_early: bool = False
    #: It had not connected yet, within its connect timeout, when the event ended (drained
    #: before its first table): nothing went wrong with it.
    not_needed: bool = False
    #: Why its command could not be started ("command not found: X"), if it could not.
    start_error: str | None = None
    #: Times its process ended mid-event, and was started again (``arena.launch.restarts``);
    #: ``excluded``: it died past its restarts (the event stopped).
    deaths: int = 0
    restarts: int = 0
    excluded: bool = False
    #: Its process while it runs (the runner sets it; ``arena worker`` recycles a bot that
    #: left its connection while its process runs).
    process: Any = attrs.field(default=None, eq=False, repr=False)

    @property
    def status(self) -> str:
        exit_note = (f" ({self.start_error})" if self.start_error
                     else f" (exit {self.exit_code})" if self.exit_code else "")
        if not self.connected:
            return "not needed" if self.not_needed else "never connected" + exit_note
        if self.deaths:
            restarted = f"restarted {self.restarts} time(s)"
            return (f"died {self.deaths} time(s){exit_note}, "
                    + (f"{restarted}, then excluded" if self.excluded else restarted))
        if self.left_early:
            return "left early" + exit_note
        return "ok"

    @property
    def failed(self) -> bool:
        return self.status not in ("ok", "not needed")

    def failure_lines(self, count: int = 5) -> list[str]:
        """For a person: what went wrong with it, where its output is, and, for a bot that
        ended before it connected, its last ``count`` lines of output (its error, usually)."""
        lines = [f"{self.spec.name}: {self.status}; its output is in {self.output}"]
        if self.connected or self.exit_code is None or self.start_error:
            return lines
        try:
            with open(self.output, "rb") as file:
                file.seek(max(0, file.seek(0, os.SEEK_END) - 4096))
                text = file.read().decode(errors="replace")
        except OSError:
            return lines
        last = [line.rstrip() for line in text.splitlines() if line.strip()][-count:]
        return lines + [f"  | {line}" for line in last] if last else lines


def unstartable(program: str, path: str | None) -> str | None:
    """Why ``program`` cannot be started (looked up in ``path`` when it names no folder), or
    None if it can."""
    if not program:
        return "the bot's command is empty"
    if shutil.which(program, path=path) is not None:
        return None
    if "/" in program and Path(program).exists():
        return f"not an executable file: {program}"
    return f"command not found: {program}"


#: The interpreter to suggest for a script that is not executable, by its file's suffix.
SCRIPT_RUNNERS = {".py": "python3", ".js": "node", ".mjs": "node", ".rb": "ruby", ".pl": "perl",
                  ".sh": "bash", ".php": "php", ".lua": "lua"}


def never_start(bots: Iterable[BotSpec], path: str | None) -> list[str]:
    """A line for each bot whose command cannot be started (its program is not found in
    ``path``, or is not executable), naming the bot and what to do; the ``@remote`` bots are
    not launched, so not checked, nor the hosted versions (which run from their builds)."""
    lines = []
    for bot in bots:
        if bot.remote or bot.command.startswith(f"{HOSTED} "):
            continue
        argv = bot_argv(bot.command, host="127.0.0.1", port=0, name=bot.name, token="")
        problem = unstartable(argv[0] if argv else "", path)
        if problem is None:
            continue
        hint = "fix its --bot command or leave it out"
        script = SCRIPT_RUNNERS.get(Path(argv[0]).suffix)
        if script is not None:
            hint = f"give its interpreter: --bot \"{script} {bot.command}\""
        lines.append(f"bot {bot.name} cannot start ({problem}): {hint}; no game was played")
    return lines
