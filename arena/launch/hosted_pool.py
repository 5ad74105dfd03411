"""The ladder's hosted bots (``arena serve --db DB --hosted N``): the active hosted versions
run by the server itself, at most ``N`` processes at once, each in the sandbox, and seated by
the ladder like any bot that connects (the same tables, the same ratings).

- **Which run**: :mod:`arena.launch.hosted_policy` decides, from the store's active versions
  (read again every :attr:`PoolSettings.poll` seconds, so a version activated or retired while
  the server runs is picked up) and what each process did; a process the policy stops (retired,
  replaced, or yielding its place to a version that waits) is stopped between its games: the
  seating forgets it at once (:meth:`~arena.edge.server.ArenaServer.dismiss`), it is told
  ``bye`` and killed :data:`STOP_GRACE` seconds later if it has not ended.
- **One process, many games**: the bot speaks the protocol on its standard input and output
  (``ARENA_TRANSPORT=stdio``, as in its validation series); the pool hands the pipes to the
  server as a connection of its own (``bound_token``).  The token is made here for each process
  and never leaves the server: the bot has no network, sees no token file, and its hello is
  admitted under its registered name by :class:`HostedTokens`.
- **Crashes**: a process that ends without being stopped is said in one line and started again
  after a back-off that doubles, at most :attr:`PoolSettings.restarts` times a version over the
  server's run (:class:`~arena.launch.restarts.RestartBook`); past that it is left out for
  :data:`RESTARTS_FORGIVEN` seconds (or until a new version is active), then tried again with
  its restarts whole.  The games it was playing went to the default policy.  A process whose
  connection is over (it closed its output, sent no hello in time) gets :data:`STOP_GRACE`
  seconds to end, then is killed: an end like any other, never a place held for ever.
- **Fair time**: the server's :class:`~arena.edge.cores.Cores` lets at most ``cores`` hosted
  bots think at once; a request waits for a core and its clock starts when it is sent.
- **Output**: the end of each version's standard error (:data:`OUTPUT_KEPT_BYTES`) is kept in
  :func:`~arena.launch.hosted_run.output_file`, for its author's page, across its processes;
  it is read at :data:`OUTPUT_BYTES_PER_SECOND` at most.
"""

from __future__ import annotations

import logging
import math
import os
import secrets
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.cores import Cores
from arena.edge.server import ArenaServer
from arena.events.hosted_store import HostedStore
from arena.events.hosted_versions import BotVersion, VersionError
from arena.launch.hosted_policy import Plan, Rotation, Running, VersionKey, plan
from arena.launch.hosted_run import (
    OUTPUT_KEPT_BYTES,
    RunLimits,
    hosted_environment,
    output_file,
    run_sandbox,
    unpacked_build,
)
from arena.launch.languages import LANGUAGES, Toolchain, probe, run_argv
from arena.launch.restarts import GONE_WAIT, RestartBook, Restarts
from arena.launch.sandbox_run import SandboxRun

log = logging.getLogger("arena.server")

#: Seconds between reads of the store's active versions.
POLL = 2.0
#: Seconds a stopped bot gets to end after its ``bye`` before it is killed.
STOP_GRACE = 2.0
#: Seconds a process must have run for its version's restarts to be whole again when it ends
#: (a bot that crashes now and then over days is restarted each time; one that crashes at
#: once is not, past its restarts); and seconds a version is left out past its restarts, or
#: when it cannot be started, before it is tried again.
RESTARTS_FORGIVEN = 600.0
#: Seconds between writes of a version's output file while its process runs.
OUTPUT_EVERY = 1.0
#: Bytes a second of a process's standard error the server reads at most (a bot writing it
#: without end would hold the server's one thread, every table's, copying it; past this the
#: bot waits on its full pipe).
OUTPUT_BYTES_PER_SECOND = 1024 * 1024

#: Each language's toolchain on this host, as found at its first hosted start.
TOOLCHAINS: dict[str, Toolchain] = {}

Checker = Callable[[str, "str | None"], "tuple[str | None, bool]"]


class HostedTokens:
    """The seating's token check with the hosted processes' tokens added: a hosted process's
    hello is admitted under its bot's registered name (whatever name it says); any other
    hello is checked by ``inner`` (the registry's view).  Notes when each was admitted."""

    def __init__(self, inner: Checker | None) -> None:
        self.inner = inner
        self.names: dict[str, str] = {}
        self.admitted: dict[str, float] = {}
        self.changed = trio.Event()

    def check(self, name: str, token: str | None) -> tuple[str | None, bool]:
        if token is not None and token in self.names:
            self.admitted[token] = trio.current_time()
            self.changed.set()
            self.changed = trio.Event()
            return self.names[token], True
        return self.inner(name, token) if self.inner is not None else (None, False)


@attrs.frozen
class PoolSettings:
    #: Hosted processes at once.
    most: int
    #: Where builds are unpacked (``<digest>`` folders); their output files beside it.
    builds: Path
    #: Hosted bots thinking at once (fair time).
    cores: int = 1
    limits: RunLimits = RunLimits()
    #: The database's files: never shown to a bot.
    protect: tuple[str, ...] = ()
    #: Folders nothing of which a bot may see (the logs, the transcripts).
    hide: tuple[Path, ...] = ()
    restarts: Restarts = Restarts()
    share: int = Rotation(1).share
    idle: float = Rotation(1).idle
    poll: float = POLL


@attrs.define(eq=False)
class Proc:
    """One hosted process."""

    key: VersionKey
    token: str
    process: trio.Process
    confined: SandboxRun
    #: Where the end of its version's standard error is kept.
    output: Path
    started: float
    wanted_at: float  # when the policy chose to start it
    games: int = 0
    stopping: bool = False
    ended: trio.Event = attrs.Factory(trio.Event)


class HostedPool:
    def __init__(self, server: ArenaServer, open_store: Callable[[], HostedStore],
                 settings: PoolSettings, tokens: HostedTokens,
                 say: Callable[[str], None]) -> None:
        """``open_store``: a new store each time (it is used in worker threads); ``tokens``:
        the check the server's seating admits hellos with; ``say``: the operator's lines."""
        self.server = server
        self.open_store = open_store
        self.settings = settings
        self.tokens = tokens
        self.say = say
        self.rotation = Rotation(settings.most, settings.share, settings.idle)
        self.cores = Cores(settings.cores)
        server.cores = self.cores
        self.procs: dict[VersionKey, Proc] = {}
        self.active: list[BotVersion] = []
        self.waiting_since: dict[VersionKey, float] = {}
        self.excluded: dict[VersionKey, float] = {}  # left out, each until when
        self.book = RestartBook(settings.restarts)
        self.wake = trio.Event()
        #: (version, token, when the policy chose to start it) of each process started.
        self.starts: list[tuple[VersionKey, str, float]] = []
        self.most_running = 0
        previous = server.on_game_over

        def game_over(record: Any) -> None:
            if previous is not None:
                previous(record)
            self.game_over(record)

        server.on_game_over = game_over

    def hello_times(self) -> list[tuple[VersionKey, float]]:
        """Each start's seconds from the policy's choice to its hello's admission."""
        admitted = self.tokens.admitted
        return [(key, admitted[token] - wanted) for key, token, wanted in self.starts
                if token in admitted]

    def game_over(self, record: Any) -> None:
        played = {name.casefold() for name in record.names}
        for proc in self.procs.values():
            if proc.key.bot.casefold() in played:
                proc.games += 1
        self.wake.set()

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Run the hosted bots until cancelled (then every process is killed)."""
        try:
            async with trio.open_nursery() as nursery:
                task_status.started()
                while True:
                    self.active = await trio.to_thread.run_sync(self._read_active)
                    self._stop_pending()
                    await self._act(nursery, self._plan())
                    with trio.move_on_after(self.settings.poll):
                        await self.wake.wait()
                    self.wake = trio.Event()
        finally:
            for proc in self.procs.values():
                _kill(proc)
                proc.confined.close()

    def _read_active(self) -> list[BotVersion]:
        try:
            with self.open_store() as store:
                return [v for v in store.active() if v.build_digest is not None]
        except Exception as exc:  # a database that does not answer now: try again later
            self.say(f"arena: hosted bots: cannot read the versions: {exc}")
            return self.active

    def _plan(self) -> Plan:
        now = trio.current_time()
        keys = [VersionKey(v.bot, v.number) for v in self.active]
        for key in keys:
            self.waiting_since.setdefault(key, now)
        for key, until in list(self.excluded.items()):
            if until <= now:  # its rest is over: tried again, its restarts whole
                del self.excluded[key]
                self.book.used.pop(_book_name(key), None)
        sessions = self._sessions()
        running = [Running(p.key, p.started, p.games, _idle_since(sessions.get(p.token)),
                           p.stopping) for p in self.procs.values()]
        return plan(keys, running, self.waiting_since, self.excluded, self.rotation, now)

    def _sessions(self) -> dict[str, Any]:
        """The hosted processes' sessions, by their tokens (one pass over the server's)."""
        return {s.bound_token: s for s in self.server.sessions if s.bound_token is not None}

    def _stop_pending(self) -> None:
        """The processes being stopped that were at a table: stopped once it is over."""
        sessions = self._sessions()
        for proc in list(self.procs.values()):
            if proc.stopping:
                self._stop_if_free(proc, sessions)

    async def _act(self, nursery: trio.Nursery, decided: Plan) -> None:
        for key in decided.stop:
            proc = self.procs.get(key)
            if proc is not None:
                proc.stopping = True
                self._stop_if_free(proc)
        versions = {VersionKey(v.bot, v.number): v for v in self.active}
        for key in decided.start:
            if len(self.procs) >= self.settings.most:
                break
            await self._start(nursery, versions[key], trio.current_time())

    def _stop_if_free(self, proc: Proc, sessions: dict[str, Any] | None = None) -> None:
        """Stop ``proc`` if it is at no table (else after its game: asked again then);
        ``sessions``: :meth:`_sessions`, when the caller has it."""
        session = (self._sessions() if sessions is None else sessions).get(proc.token)
        if session is not None and not self.server.dismiss(session):
            return
        if proc.token not in self.tokens.names:
            return  # on its way out already
        self.tokens.names.pop(proc.token, None)
        if self.server.stage.shutting_down:  # told bye with the others; no task starts now
            _kill(proc)
            return
        self.server.stage.start_soon(self._end, proc)

    async def _end(self, proc: Proc) -> None:
        with trio.move_on_after(STOP_GRACE):
            await proc.ended.wait()
        _kill(proc)

    async def _start(self, nursery: trio.Nursery, version: BotVersion, wanted_at: float) -> None:
        key = VersionKey(version.bot, version.number)
        try:
            argv, toolchain = await trio.to_thread.run_sync(self._prepare, version)
        except Exception as exc:  # its build, its toolchain, the database: said, left out
            self.say(f"arena: hosted {key}: cannot be started: {exc} (tried again in "
                     f"{RESTARTS_FORGIVEN / 60:g} minutes)")
            self.excluded[key] = trio.current_time() + RESTARTS_FORGIVEN
            return
        token = secrets.token_hex(24)
        settings = self.settings
        confined = SandboxRun(run_sandbox(toolchain, settings.limits, settings.protect),
                              [*settings.hide, output_file(settings.builds, version).parent])
        env = hosted_environment(version.bot)
        command, extra = confined.command(argv, env)
        try:
            process = await trio.lowlevel.open_process(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, **extra)
        except (OSError, subprocess.SubprocessError) as exc:
            confined.close()
            self.say(f"arena: hosted {key}: cannot be started: {exc} (tried again in "
                     f"{RESTARTS_FORGIVEN / 60:g} minutes)")
            self.excluded[key] = trio.current_time() + RESTARTS_FORGIVEN
            return
        self.tokens.names[token] = version.bot
        self.cores.tokens.add(token)
        proc = Proc(key, token, process, confined, output_file(settings.builds, version),
                    trio.current_time(), wanted_at)
        self.procs[key] = proc
        self.starts.append((key, token, wanted_at))
        self.most_running = max(self.most_running, len(self.procs))
        log.info("hosted %s started: %d running", key, len(self.procs))
        self.waiting_since.pop(key, None)
        assert process.stdin is not None and process.stdout is not None
        nursery.start_soon(self._serve, proc, trio.StapledStream(process.stdin, process.stdout))
        nursery.start_soon(self._keep_output, proc)
        nursery.start_soon(self._watch, proc)

    async def _serve(self, proc: Proc, stream: trio.StapledStream[Any, Any]) -> None:
        """Serve the process's connection; once it is over (the bot closed its output, sent no
        hello in time, broke the protocol, was dismissed), the process gets
        :data:`STOP_GRACE` seconds to end, then is killed: a process whose connection ended
        never holds a place of ``--hosted`` (it would play no game, and never yield it)."""
        await self.server.handle_stream(stream, bound_token=proc.token)
        with trio.move_on_after(STOP_GRACE):
            await proc.ended.wait()
        _kill(proc)

    def _prepare(self, version: BotVersion) -> tuple[list[str], Toolchain]:
        """(its command, its toolchain): its build unpacked (once), in a worker thread."""
        language = LANGUAGES.get(version.language)
        if language is None:
            raise VersionError(f"unknown language {version.language!r}")
        toolchain = TOOLCHAINS.get(language.name)
        if toolchain is None:  # asked once a process: its programs are run to tell their version
            toolchain = TOOLCHAINS[language.name] = probe(language)
        if not toolchain.available:
            raise VersionError(toolchain.refusal())
        assert version.build_digest is not None
        folder = self.settings.builds / version.build_digest
        if not folder.is_dir():  # fetched and unpacked once (the store opened only then)
            with self.open_store() as store:
                folder = unpacked_build(store, version.build_digest, self.settings.builds)
        return run_argv(version.run, folder, toolchain), toolchain

    async def _keep_output(self, proc: Proc) -> None:
        """Keep the end of the process's standard error in its version's output file (what
        its earlier processes wrote comes first)."""
        path = proc.output
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            kept = bytearray(path.read_bytes()[-OUTPUT_KEPT_BYTES:])
        except OSError:
            kept = bytearray()
        stream = proc.process.stderr
        assert stream is not None
        written = -math.inf
        try:
            while True:
                try:
                    chunk = await stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    chunk = b""
                if not chunk:
                    return
                kept += chunk
                del kept[:-OUTPUT_KEPT_BYTES]
                now = trio.current_time()
                if now - written >= OUTPUT_EVERY:
                    written = now
                    _write(path, bytes(kept))
                await trio.sleep(len(chunk) / OUTPUT_BYTES_PER_SECOND)
        finally:  # its end, cancelled or not
            _write(path, bytes(kept))

    async def _watch(self, proc: Proc) -> None:
        code = await proc.process.wait()
        proc.ended.set()
        proc.confined.close()
        self.tokens.names.pop(proc.token, None)
        self.cores.tokens.discard(proc.token)
        del self.procs[proc.key]
        log.info("hosted %s ended: %d running", proc.key, len(self.procs))
        self.waiting_since[proc.key] = trio.current_time()
        if self.server.stage.shutting_down:
            return  # told bye with the others
        if not proc.stopping:
            with trio.move_on_after(GONE_WAIT):  # the server sees its connection end
                while any(s.bound_token == proc.token for s in self.server.sessions):
                    await self.server.wait_for_change()
            self.server.withdraw(proc.token)  # no seat kept for its coming back
            name = _book_name(proc.key)
            if trio.current_time() - proc.started >= RESTARTS_FORGIVEN:
                self.book.used.pop(name, None)  # a long run: its restarts are whole again
            delay = self.book.take(name)
            said = f"exit status {code}" if code >= 0 else f"killed by signal {-code}"
            if delay is None:
                self.excluded[proc.key] = trio.current_time() + RESTARTS_FORGIVEN
                self.say(f"arena: hosted {proc.key} ended ({said}): not started again for "
                         f"{RESTARTS_FORGIVEN / 60:g} minutes ({self.settings.restarts.most} "
                         "restarts used)")
            else:
                used = self.book.used[name]
                self.say(f"arena: hosted {proc.key} ended ({said}): started again in "
                         f"{delay:g} s (restart {used} of {self.settings.restarts.most})")
                await trio.sleep(delay)
        self.wake.set()


def _idle_since(session: Any) -> float | None:
    """Since when a process's session waits at no table (None: at one, or not admitted)."""
    return session.idle_since if session is not None and session.idle else None


def _book_name(key: VersionKey) -> str:
    """A version's name in the restart book."""
    return f"{key.bot.casefold()}#{key.number}"


def _write(path: Path, data: bytes) -> None:
    try:
        partial = path.with_name(path.name + ".partial")
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError:
        pass  # a full disk: the games go on without it


def _kill(proc: Proc) -> None:
    if proc.process.returncode is None:
        proc.process.kill()
