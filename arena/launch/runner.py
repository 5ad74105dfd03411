"""``arena match``: a server on a free port, bots as subprocesses, N games, a result table.

Each bot gets a fresh token; the server seats connections by token (never by arrival order),
so every result is attributed to the bot that earned it.  The token is never on a command line
or in the environment (other processes can read both): it is in a private file named by
``ARENA_TOKEN_FILE`` (``{token_file}`` in a command), and it is bound to the process it was given
to (its PID and start time) while it runs: a connection from any other process, or after it
ended, is refused (``token_not_yours``, see :mod:`arena.edge.peer_process`) and fails the run.
In every bot command ``{host}``, ``{port}``, ``{name}`` and ``{token_file}`` are replaced
(``{token}`` too, for old bots, though it shows the token to other users' processes), and
ARENA_HOST, ARENA_PORT, ARENA_NAME and ARENA_TOKEN_FILE are set.  A command may also be the
name of a built-in bot (:data:`BUILTIN_BOTS`).

With ``stdio`` a bot speaks the protocol on its standard input and output, bridged by the
runner (``ARENA_TRANSPORT=stdio``); it needs no socket and no token.  With a
:class:`~arena.launch.sandbox.Sandbox` it also runs isolated, without a network.

A bot that never connects (within ``connect_timeout``) or crashes is reported, not waited on:
the default policy plays its seat.  Each bot's standard output and error go to a file in
``<log_dir>/bots/`` (with ``stdio``, its standard error only).
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import attrs
import trio

from arena.edge.peer_process import ProcessBinding
from arena.edge.server import ArenaServer, ServerConfig
from arena.gameplay.gamelog import ensure_writable
from arena.gameplay.records import GameRecord
from arena.games import GAMES
from arena.games.base import GameSpec
from arena.launch.bots import REMOTE, BotRun, BotSpec, bot_argv, unstartable
from arena.launch.match_report import SEAT_NOTE, MatchReport
from arena.launch.restarts import GONE_WAIT, RestartBook, keep_running
from arena.launch.sandbox import Sandbox
from arena.launch.sandbox_run import SandboxRun
from arena.seating.policies import RosterEntry, RosterSeating
from protocol.errors import ErrorCode


class _BuiltinBots(Mapping[str, str]):
    """Short names for the reference bots, usable wherever a bot command is expected (they read
    where to connect, their name and their token file from the ARENA_* variables): ``random``,
    and each registered game's own bots as its spec names them (``GameSpec.bots``: the
    heuristic, the boss...), read from the registry each time (a game registered later is
    known too)."""

    def _table(self) -> dict[str, str]:
        return {"random": "{python} -m reference_bots.random",
                **{name: f"{{python}} -m {module}" for spec in GAMES.values()
                   for name, module in spec.bots.items()}}

    def __getitem__(self, name: str) -> str:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


BUILTIN_BOTS: Mapping[str, str] = _BuiltinBots()
#: Seconds bots get to exit after the match before they are killed.
EXIT_GRACE = 5.0

#: Also importable from here, where they were first (the CLI, the kit and the benchmarks do).
__all__ = ["BUILTIN_BOTS", "REMOTE", "SEAT_NOTE", "BotLaunch", "BotRun", "BotSpec", "Interrupt",
           "MatchReport", "bot_argv", "builtin_command", "launch", "plan_bots", "run_match",
           "serve_with_bots", "unstartable", "watch"]


@attrs.frozen
class BotLaunch:
    """How the runner starts bots: over TCP (default) or stdin/stdout (``stdio``), and in a
    :class:`~arena.launch.sandbox.Sandbox` or not (a sandboxed bot always uses stdio)."""

    stdio: bool = False
    sandbox: Sandbox | None = None
    #: The bot's whole environment, when given (a stdio bot's: a hosted version's validation,
    #: as the ladder runs it); else the runner's own, its ``ARENA_*`` replaced.
    environment: Mapping[str, str] | None = None

    @property
    def uses_stdio(self) -> bool:
        return self.stdio or self.sandbox is not None


#: Programs that run a script: a bot run by one is named after its script, not after them.
INTERPRETERS = ("python", "pypy", "node", "deno", "bun", "ruby", "perl", "php", "java",
                "dotnet", "Rscript", "julia", "lua", "bash", "sh", "{python}")
_NAMED_COMMAND = re.compile(r"^([A-Za-z0-9_.-]{1,40})=(\S.*)$", re.DOTALL)
#: Interpreter options whose value is the next word (a class path, a module to preload), so
#: that ``java -cp out Bot`` is named ``Bot``, not ``out``.
#: Only options that take a value in every interpreter that has them (Python's ``-I`` and
#: Perl's ``-W`` are flags).
_OPTIONS_WITH_A_VALUE = frozenset({"-cp", "-classpath", "--class-path", "--module-path",
                                   "-r", "--require", "-X", "--import"})


def _default_name(command: str) -> str:
    words = shlex.split(command)
    if not words:
        raise ValueError("a bot command is empty")
    program = Path(words[0]).name
    if not program.startswith(INTERPRETERS):
        return Path(program).stem or "bot"
    rest = iter(words[1:])
    for word in rest:
        if word == "-m":  # python -m package.module
            return next(rest, program).rsplit(".", 1)[-1]
        if word in ("-c", "-e", "--eval"):
            break
        if word in _OPTIONS_WITH_A_VALUE:
            next(rest, None)
            continue
        if not word.startswith("-") and not word.startswith("{"):
            return Path(word).stem or program
    return Path(program).stem


def builtin_command(command: str) -> tuple[str | None, str]:
    """The built-in bot ``command`` starts with (its first word, when that is a name in
    :data:`BUILTIN_BOTS`) and the command's template: the built-in bot's, with the words after
    its name appended as its options (``chochlik-heuristic --random-rate 0.25``); any other
    command is its own template."""
    name, *options = command.split(None, 1) or [""]
    if name not in BUILTIN_BOTS:
        return None, command
    shlex.split(command)  # a ValueError now (unbalanced quotes), not when it is launched
    return name, " ".join([BUILTIN_BOTS[name], *options])


def plan_bots(commands: list[str]) -> list[BotSpec]:
    """One BotSpec per ``--bot``.  ``NAME=CMD`` names the bot; otherwise it is named after the
    built-in bot, or its script (``node bot.js`` is ``bot``), or its program.  A built-in bot's
    name may be followed by its options (``NAME=random --seed 3`` too).  Repeated names get
    -1, -2, ..."""
    bases, templates = [], []
    for command in commands:
        named = _NAMED_COMMAND.match(command)
        builtin, template = builtin_command(named.group(2) if named else command)
        if named:
            base = named.group(1)
        elif builtin is not None:
            base = builtin
        else:
            base = _default_name(command)
        bases.append(base)
        templates.append(template)
    names = [f"{base}-{bases[:i].count(base) + 1}" if bases.count(base) > 1 else base
             for i, base in enumerate(bases)]
    return [BotSpec(name, template) for name, template in zip(names, templates)]


@attrs.define
class Interrupt:
    """Ctrl-C for a running series, pressed from outside (the CLI's signal handler): the
    first :meth:`press` stops it (the running game is logged as aborted, no other starts), a
    second one stops it at once (no grace for games, queues or bots)."""

    requested: trio.Event = attrs.Factory(trio.Event)
    hurried: trio.Event = attrs.Factory(trio.Event)

    def press(self) -> None:
        (self.hurried if self.requested.is_set() else self.requested).set()


async def run_match(
    spec: GameSpec,
    options: Any,
    bots: list[BotSpec],
    *,
    games: int,
    seed: str | None,
    move_timeout: float,
    log_dir: Path,
    reaction_timeout: float = 1.0,
    connect_timeout: float = 10.0,
    on_game_over: Callable[[GameRecord], None] | None = None,
    launch: BotLaunch | None = None,
    time_bank: float = 0.0,
    transcript_dir: Path | None = None,
    compress_logs: bool = True,
    interrupt: Interrupt | None = None,
) -> MatchReport:
    """Play the series; ``interrupt``: a Ctrl-C from outside stops it early (the report then
    has ``interrupted`` and the games played)."""
    started = time.monotonic()
    tokens = [secrets.token_hex(12) for _ in bots]
    roster = tuple(RosterEntry(bot.name, token) for bot, token in zip(bots, tokens))
    config = ServerConfig(spec=spec, options=options, host="127.0.0.1", port=0,
                          move_timeout=move_timeout, reaction_timeout=reaction_timeout,
                          log_dir=log_dir, seed=seed, time_bank=time_bank,
                          transcript_dir=transcript_dir, compress_logs=compress_logs,
                          idle_timeout=None)  # its own bots wait for one another
    seating = RosterSeating(roster, games, connect_timeout=connect_timeout)
    server = ArenaServer(config, seating=seating, on_game_over=on_game_over)
    ensure_writable(log_dir)  # never play games whose logs would be lost
    output_dir = log_dir / "bots"
    output_dir.mkdir(parents=True, exist_ok=True)
    runs = [BotRun(bot, token, output_dir / f"{server.run_id}-{bot.name}.txt")
            for bot, token in zip(bots, tokens)]

    await serve_with_bots(server, runs, ErrorCode.SERIES_OVER, launch or BotLaunch(),
                          interrupt=interrupt)
    records = sorted(server.records, key=lambda r: r.number)
    return MatchReport(spec.name, spec.round_name, runs, records, time.monotonic() - started,
                       log_dir, unwritten_logs=len(server.unwritten_logs),
                       refusals=dict(server.refusals), games=games,
                       interrupted=interrupt is not None and interrupt.requested.is_set()
                       and not server.all_games_done.is_set())


async def serve_with_bots(server: ArenaServer, runs: list[BotRun], ending: ErrorCode,
                          how: BotLaunch | None = None, *,
                          interrupt: Interrupt | None = None,
                          restarts: RestartBook | None = None) -> None:
    """Serve, launch every bot, wait until the server's seating is done (or ``interrupt`` is
    pressed: the running games are aborted and logged, no other starts), then say ``bye``
    (``ending``, or ``server_shutdown`` when interrupted) and stop the bots: the ones that
    never connected at once, the others after :data:`EXIT_GRACE` seconds (at once on a second
    press).  Whatever happens (Ctrl-C included), no bot outlives it, and its token file is
    removed.  ``restarts`` (the server then offers :class:`~arena.launch.restarts.Recovering`):
    a bot that dies after it connected is started again (:mod:`arena.launch.restarts`)."""
    interrupt = interrupt if interrupt is not None else Interrupt()
    processes: list[trio.Process] = []
    how = how if how is not None else BotLaunch()
    if server.binding is None:
        server.binding = ProcessBinding()
    binding = server.binding
    private = _private_folder()
    local = [run for run in runs if not run.spec.remote]
    confined = _confinements(how, local, [
        private, server.config.log_dir, *(run.output.parent for run in runs),
        *([server.config.transcript_dir] if server.config.transcript_dir else [])])
    slot = {id(run): i for i, run in enumerate(local)}  # its place in processes
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve)

            async def start(run: BotRun) -> trio.Process:
                own = own_launch(how, run.spec)
                if not own.uses_stdio:
                    binding.expect(run.token)
                process = await launch(run, port, own, private,
                                       confined.get(own.sandbox))
                processes[slot[id(run)]] = run.process = process
                if own.uses_stdio:
                    assert process.stdin is not None and process.stdout is not None
                    nursery.start_soon(functools.partial(
                        server.handle_stream, trio.StapledStream(process.stdin, process.stdout),
                        bound_token=run.token))
                else:
                    binding.bind(run.token, process.pid)
                return process

            for run in local:  # given out from now on: no hello may use one unbound
                if not own_launch(how, run.spec).uses_stdio:
                    binding.expect(run.token)
            for run in local:  # the @remote ones connect by themselves, with their tokens
                processes.append(None)  # type: ignore[arg-type]  # start() puts it here
                process = await start(run)
                if restarts is None:
                    nursery.start_soon(watch, server, run, process)
                else:
                    nursery.start_soon(_watch_restarting, server, run, process, start, restarts)
            async with trio.open_nursery() as waiting:  # the games end, or a Ctrl-C
                waiting.start_soon(_cancel_when, server.all_games_done, waiting.cancel_scope)
                waiting.start_soon(_cancel_when, interrupt.requested, waiting.cancel_scope)
            if not server.all_games_done.is_set():
                ending = ErrorCode.SERVER_SHUTDOWN
                nursery.start_soon(_hurry_when, interrupt.hurried, server)
            seated = server.statistics().seating
            for run in runs:
                run.connected = run.token in seated.ever_connected
                run.left_early = run.token in seated.left_early
                run.not_needed = not run.connected and run.token not in seated.given_up
            await server.shutdown(ending)
            for run, process in zip(local, processes):
                if not run.connected and process.returncode is None:
                    process.kill()  # it was never told anything: it will not leave by itself
            with trio.move_on_after(0 if interrupt.hurried.is_set() else EXIT_GRACE):
                for process in processes:  # the others were told bye
                    await process.wait()
            nursery.cancel_scope.cancel()
    finally:
        for process in processes:
            if process is not None and process.returncode is None:
                process.kill()
        for each in confined.values():
            each.close()
        _remove_private_folder(private)


def own_launch(how: BotLaunch, spec: BotSpec) -> BotLaunch:
    """How ``spec``'s bot is started: in its own sandbox over stdio when it has one (a hosted
    version: :mod:`arena.launch.hosted_bots`), else as the runner starts its bots."""
    return how if spec.sandbox is None else BotLaunch(stdio=True, sandbox=spec.sandbox)


def _confinements(how: BotLaunch, local: list[BotRun],
                  hide: list[Path]) -> dict[Sandbox | None, SandboxRun]:
    """A :class:`SandboxRun` for each sandbox the bots of ``local`` are started in (the
    runner's, and each hosted version's own), each hiding ``hide`` and every other bot's
    folders."""
    commands = [bot_argv(run.spec.command, host="127.0.0.1", port=0, name=run.spec.name,
                         token="") for run in local]
    boxes = {own_launch(how, run.spec).sandbox for run in local} | {how.sandbox}
    return {box: SandboxRun(box, hide, commands) for box in boxes if box is not None}


async def _watch_restarting(server: Any, run: BotRun, process: trio.Process,
                            start: Callable[[BotRun], Awaitable[trio.Process]],
                            book: RestartBook) -> None:
    """:func:`watch`, but a bot that had connected is started again when it dies."""
    await process.wait()
    if (server.all_games_done.is_set()
            or run.token not in server.statistics().seating.ever_connected):
        await watch(server, run, process)  # one that never connected stops the event
        return
    await keep_running(server, run, process, start, book, server.all_games_done,
                       server.binding.release)


def _private_folder() -> Path:
    """The folder of the bots' token folders (local file operations: they do not block)."""
    private = Path(tempfile.mkdtemp(prefix="arena-tokens-"))
    private.chmod(0o300)  # no one lists it: each bot knows only its own folder's random name
    return private


def _remove_private_folder(private: Path) -> None:
    private.chmod(0o700)
    shutil.rmtree(private, ignore_errors=True)


async def _cancel_when(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def _hurry_when(event: trio.Event, server: ArenaServer) -> None:
    await event.wait()
    server.hurry()


async def launch(run: BotRun, port: int, how: BotLaunch, private: Path,
                 confined: SandboxRun | None = None) -> trio.Process:
    """Start the bot's process, its output going to ``run.output``; a command that cannot be
    started becomes a process that exits with 127 (reported, never raised).  Its token goes in
    a folder of its own (a random name, mode 0700) in the private folder ``private``.  A
    sandboxed bot (``how.sandbox``) is confined as ``confined`` says (made here if not given:
    the lifeline then ends with this process)."""
    token_file = private / secrets.token_hex(16) / "token"
    if not how.uses_stdio:  # a stdio bot's pipe is its identity: its token never leaves here
        token_file.parent.mkdir(mode=0o700)
        descriptor = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(run.token)
    argv = bot_argv(run.spec.command, host="127.0.0.1", port=port, name=run.spec.name,
                    token=run.token, token_file=str(token_file))
    if how.environment is not None and how.uses_stdio:
        env = dict(how.environment)
    else:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        env.update(ARENA_HOST="127.0.0.1", ARENA_PORT=str(port), ARENA_NAME=run.spec.name)
        if how.uses_stdio:
            env["ARENA_TRANSPORT"] = "stdio"
        else:
            env["ARENA_TOKEN_FILE"] = str(token_file)
    run.start_error = unstartable(argv[0] if argv else "", env.get("PATH"))
    extra: dict[str, Any] = {}
    if how.sandbox is not None and run.start_error is None:
        confined = confined if confined is not None else SandboxRun(how.sandbox, [private])
        argv, extra = confined.command(argv, env)
        env = extra.pop("env")
    output = _output_file(run.output, append=run.restarts > 0)
    try:
        if run.start_error is not None:
            raise OSError(run.start_error)
        # a session of its own: a Ctrl-C at the terminal reaches the arena, which stops the bots
        # itself, and not the bots (whose seats would be played by default in stored games)
        if how.uses_stdio:
            return await trio.lowlevel.open_process(
                argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=output,
                start_new_session=True, **extra)
        return await trio.lowlevel.open_process(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True, **extra)
    except OSError as exc:
        if run.start_error is None:
            run.start_error = f"cannot start {argv[0]}: {exc.strerror or exc}"
        output.write(f"arena: {run.start_error}\n".encode())
        pipe = subprocess.PIPE if how.uses_stdio else subprocess.DEVNULL
        return await trio.lowlevel.open_process(
            [sys.executable, "-c", "raise SystemExit(127)"], stdin=pipe, stdout=pipe)
    finally:
        output.close()


def _output_file(path: Path, append: bool = False) -> BinaryIO:
    """The bot's output file, opened for its process (which owns it while it runs); a
    restarted bot's output follows its earlier runs'."""
    return open(path, "ab" if append else "wb")  # noqa: SIM115 - closed by launch() once the child has it


async def watch(server: ArenaServer, run: BotRun, process: trio.Process) -> None:
    """Note a bot that ends before the server is done with it, and stop waiting for it."""
    code = await process.wait()
    if server.binding is not None:
        server.binding.release(run.token)  # no other process may use its token now
    if not server.all_games_done.is_set():  # it ended on its own, before the games did
        run.exit_code = code
        # once the server has seen its connection end (it may read that later, or a child of
        # the bot may hold the socket a moment): withdrawn before, the server would then keep
        # its seat for the reconnection grace (30 s) as if it could come back
        with trio.move_on_after(GONE_WAIT):
            while any(session.token == run.token for session in server.sessions):
                await server.wait_for_change()
        server.withdraw(run.token)
