"""``arena tournament --workers N``: an event's tables spread over N server processes.

A server's event loop is one thread, so one process uses at most one core.  With workers, the
runner (this process) keeps the event's database and the live view, and each worker is an
event runner of its own (:class:`~arena.launch.tournament.Tournament`: a server, its own bot
instances
with their own tokens) for its share of the tables, writing its game logs to the event's folder.

- **Shares.**  The ``concurrency`` tables at once are split over the workers as evenly as they
  go (each plays at least one at a time), and the tables still to play are dealt in schedule
  order to the workers' table slots in turn (table i to the worker holding slot i mod K): each
  worker gets tables in proportion to its slots.  The deal is fixed at the start, so a worker
  whose games run long finishes last.
- **Storage.**  A worker stores nothing: it reports each finished game to the runner, which
  stores it in the one database, keyed by its place in the schedule (so exactly once), and shows
  it.  Resume is as for one process: the schedule is rebuilt, the stored games are skipped and
  the rest are dealt again; with deterministic bots every game is the same wherever it is played.
- **Talk.**  JSON lines over the worker's standard input and output.  The runner sends the share
  (the first line) and, to drain, ``drain``; the end of a worker's input (the runner stopping at
  once, or gone) stops it at once: the games it finished are still reported, the running ones
  are played again on resume.  The worker sends ``{"game": ...}`` for each finished game (the
  whole :class:`~arena.gameplay.records.GameRecord`, as :meth:`~.GameRecord.to_fields` gives
  it) and ``{"report": ...}`` at the end (its bots' statuses, the CPU seconds it and its bots
  used).
  Workers run in sessions of their own, as bots do: a Ctrl-C at the terminal reaches the runner,
  which drains them.

``python -m arena.launch.workers`` is the worker's entry point.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.server import tune_garbage_collector
from arena.events.schedule import PlannedTable
from arena.events.storage import Storage
from arena.gameplay.gamelog import ensure_writable
from arena.gameplay.records import GameRecord
from arena.games import get_game
from arena.games.base import GameSpec
from arena.launch.restarts import Restarts
from arena.launch.runner import BotLaunch, BotRun, BotSpec
from arena.launch.sandbox import Sandbox
from arena.launch.tournament import Tournament, TournamentReport

#: Seconds a worker told to stop at once gets to report its finished games and exit.
STOP_GRACE = 10.0
#: The line that drains a worker.
DRAIN = b"drain"
#: Bytes read at once from a worker (or by a worker from the runner).
READ_SIZE = 64 * 1024


@attrs.frozen
class Share:
    """What one worker plays: the event's game and bots, its tables, and how many at once."""

    game: str
    options: dict[str, Any]
    bots: list[tuple[str, str]]  # (name, command) by entrant
    tables: list[PlannedTable]
    concurrency: int
    log_dir: str
    move_timeout: float
    reaction_timeout: float
    time_bank: float
    connect_timeout: float
    stdio: bool
    sandbox: dict[str, Any] | None  # the Sandbox's fields, or None
    compress_logs: bool = True
    restarts: dict[str, Any] | None = None  # the Restarts' fields (None: the default)
    #: Each bot's own sandbox's fields, by entrant (a hosted version's), or None.
    own_sandboxes: list[dict[str, Any] | None] = attrs.Factory(list)

    def to_line(self) -> bytes:
        return json.dumps(attrs.asdict(self)).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> Share:
        fields = json.loads(line)
        fields["bots"] = [tuple(bot) for bot in fields["bots"]]
        fields["tables"] = [PlannedTable(**{**table, "entrants": tuple(table["entrants"])})
                            for table in fields["tables"]]
        return cls(**fields)

    def tournament_policy(self) -> str:
        return "replayed" if self.restarts and self.restarts["replay"] else "forfeited"

    def tournament(self, storage: Storage) -> Tournament:
        spec = get_game(self.game)
        launch = BotLaunch(stdio=self.stdio,
                           sandbox=Sandbox(**self.sandbox) if self.sandbox else None)
        return Tournament(spec, spec.parse_options(self.options),
                          [BotSpec(name, command, Sandbox(**own) if own else None)
                           for (name, command), own in zip(self.bots, self.own_sandboxes
                                                           or [None] * len(self.bots))],
                          self.tables,
                          storage, log_dir=Path(self.log_dir), concurrency=self.concurrency,
                          move_timeout=self.move_timeout, reaction_timeout=self.reaction_timeout,
                          connect_timeout=self.connect_timeout, time_bank=self.time_bank,
                          launch=launch, compress_logs=self.compress_logs,
                          restarts=Restarts(**self.restarts) if self.restarts else None)


def deal(tables: Sequence[PlannedTable], concurrency: int,
         workers: int) -> list[tuple[int, list[PlannedTable]]]:
    """Each worker's tables at once and tables to play (workers left without tables are left
    out); see the module's "Shares"."""
    if not 1 <= workers <= concurrency:
        raise ValueError("--workers must be between 1 and --concurrency (each worker plays at "
                         "least one table at a time)")
    at_once = [concurrency // workers + (worker < concurrency % workers)
               for worker in range(workers)]
    owner = [worker for worker, slots in enumerate(at_once) for _ in range(slots)]
    dealt: list[list[PlannedTable]] = [[] for _ in range(workers)]
    for position, table in enumerate(tables):
        dealt[owner[position % concurrency]].append(table)
    return [(at_once[worker], dealt[worker]) for worker in range(workers) if dealt[worker]]


def game_line(game: GameRecord) -> bytes:
    return json.dumps({"game": game.to_fields()}).encode() + b"\n"


def game_from(fields: Mapping[str, Any]) -> GameRecord:
    return GameRecord.from_fields(fields)


def summed_timeouts(reported: Any) -> dict[int, list[int]]:
    """The workers' :attr:`TournamentReport.timeouts` (JSON: entrants as text), added up."""
    total: dict[int, list[int]] = {}
    for timeouts in reported:
        for entrant, (timed_out, decisions) in timeouts.items():
            counts = total.setdefault(int(entrant), [0, 0])
            counts[0] += timed_out
            counts[1] += decisions
    return total


def summed_lost(reported: Any) -> dict[int, int]:
    """The workers' :attr:`TournamentReport.lost_games` (JSON: entrants as text), added up."""
    total: dict[int, int] = {}
    for lost in reported:
        for entrant, count in lost.items():
            total[int(entrant)] = total.get(int(entrant), 0) + count
    return total


def run_fields(run: BotRun) -> dict[str, Any]:
    """A bot instance's outcome, for the runner (its token never leaves the worker)."""
    return {"name": run.spec.name, "command": run.spec.command, "output": str(run.output),
            "exit_code": run.exit_code, "connected": run.connected,
            "left_early": run.left_early, "not_needed": run.not_needed,
            "deaths": run.deaths, "restarts": run.restarts, "excluded": run.excluded}


def run_from(fields: Mapping[str, Any]) -> BotRun:
    return BotRun(BotSpec(fields["name"], fields["command"]), "", Path(fields["output"]),
                  exit_code=fields["exit_code"], connected=fields["connected"],
                  left_early=fields["left_early"], not_needed=fields["not_needed"],
                  deaths=fields.get("deaths", 0), restarts=fields.get("restarts", 0),
                  excluded=fields.get("excluded", False))


class LineReceiver:
    """Whole lines from a trio stream, as they come."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.lines: collections.deque[bytes] = collections.deque()
        self.partial = b""

    async def receive(self) -> bytes | None:
        """The next line (without its newline), or None at the end of the stream."""
        while not self.lines:
            data = await self.stream.receive_some(READ_SIZE)
            if not data:
                return None
            *complete, self.partial = (self.partial + data).split(b"\n")
            self.lines.extend(complete)
        return self.lines.popleft()


# -- the runner's side --


class TournamentWorkers:
    """An event played by ``workers`` server processes, with the interface of
    :class:`~arena.launch.tournament.Tournament`: ``todo``, :meth:`drain` and :meth:`run`."""

    def __init__(self, spec: GameSpec, options: Any, bots: Sequence[BotSpec],
                 planned: Sequence[PlannedTable], storage: Storage, *, log_dir: Path,
                 workers: int, concurrency: int = 1, move_timeout: float = 5.0,
                 reaction_timeout: float = 1.0, connect_timeout: float = 10.0,
                 time_bank: float = 0.0,
                 on_game_over: Callable[[GameRecord], None] | None = None,
                 launch: BotLaunch | None = None, compress_logs: bool = True,
                 restarts: Restarts | None = None) -> None:
        """Each worker restarts its own bots (``restarts``, counted per worker).  Raises
        ValueError for more workers than ``concurrency`` and for bots that connect
        by themselves (``@remote``: they find one server)."""
        if any(bot.remote for bot in bots):
            raise ValueError("bots that connect by themselves (@remote) need one server: "
                             "--workers 1")
        self.storage, self.log_dir, self.on_game_over = storage, log_dir, on_game_over
        done = {game.planned for game in storage.games()}
        self.todo = [table for table in planned if table.index not in done]
        launch = launch if launch is not None else BotLaunch()
        sandbox = attrs.asdict(launch.sandbox) if launch.sandbox is not None else None
        self.shares = [
            Share(game=spec.name, options=spec.options_to_dict(options),
                  bots=[(bot.name, bot.command) for bot in bots], tables=tables,
                  concurrency=at_once, log_dir=str(log_dir), move_timeout=move_timeout,
                  reaction_timeout=reaction_timeout, time_bank=time_bank,
                  connect_timeout=connect_timeout, stdio=launch.stdio, sandbox=sandbox,
                  compress_logs=compress_logs,
                  restarts=attrs.asdict(restarts) if restarts is not None else None,
                  own_sandboxes=[attrs.asdict(bot.sandbox) if bot.sandbox else None
                                 for bot in bots])
            for at_once, tables in deal(self.todo, concurrency, workers)]
        self.played = 0
        self.draining = False
        self._drained: trio.Event | None = None

    def drain(self) -> None:
        """Every worker starts no more games; the running ones finish and are stored."""
        self.draining = True
        if self._drained is not None:
            self._drained.set()

    async def run(self) -> TournamentReport:
        started = time.monotonic()
        ensure_writable(self.log_dir)  # never play games whose logs would be lost
        self._drained = trio.Event()
        self._writes = trio.CapacityLimiter(1)
        if self.draining:
            self._drained.set()
        reports: list[dict[str, Any] | None] = [None] * len(self.shares)
        async with trio.open_nursery() as nursery:
            for number, share in enumerate(self.shares):
                nursery.start_soon(self._worker, number, share, reports)
        stored = {game.planned for game in self.storage.games()}
        finished = [report for report in reports if report is not None]
        return TournamentReport(
            [run_from(fields) for report in finished for fields in report["runs"]],
            self.played, sum(table.index not in stored for table in self.todo),
            time.monotonic() - started,
            worker_cpu_seconds=sum(report["cpu"]["worker"] for report in finished),
            bot_cpu_seconds=sum(report["cpu"]["bots"] for report in finished),
            failures=[f"worker {number + 1} ended without its report (its output is above)"
                      for number, report in enumerate(reports) if report is None]
            + [failure for report in finished for failure in report.get("failures", [])],
            timeouts=summed_timeouts(report.get("timeouts", {}) for report in finished),
            lost_games=summed_lost(report.get("lost_games", {}) for report in finished),
            lost_policy=self.shares[0].tournament_policy() if self.shares else "forfeited")

    async def _worker(self, number: int, share: Share,
                      reports: list[dict[str, Any] | None]) -> None:
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "arena.launch.workers"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, start_new_session=True)
        assert process.stdin is not None and process.stdout is not None
        lines = LineReceiver(process.stdout)
        try:
            # it may have ended at once: its standard error says why, and it sends no report
            with contextlib.suppress(trio.BrokenResourceError):
                await process.stdin.send_all(share.to_line())
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._forward_drain, process.stdin)
                reports[number] = await self._take_games(lines)
                nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                with trio.move_on_after(STOP_GRACE):
                    await process.stdin.aclose()  # stops it at once if it still plays
                    if reports[number] is None:  # cancelled: keep the games it finished
                        reports[number] = await self._take_games(lines)
                    await process.wait()
                if process.returncode is None:
                    process.kill()

    async def _forward_drain(self, stdin: trio.abc.SendStream) -> None:
        assert self._drained is not None
        await self._drained.wait()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await stdin.send_all(DRAIN + b"\n")  # unless it has ended already

    async def _take_games(self, lines: LineReceiver) -> dict[str, Any] | None:
        """Store every game a worker reports, up to its report (None if it ended without)."""
        while (line := await lines.receive()) is not None:
            message = json.loads(line)
            if "report" in message:
                return message["report"]  # type: ignore[no-any-return]
            game = game_from(message["game"])
            if await self._add(game):
                self.played += 1
                if self.on_game_over is not None:
                    self.on_game_over(game)
        return None

    async def _add(self, game: GameRecord) -> bool:
        """Store a game off the event loop when the storage's writes wait for a disk (one at
        a time: the workers' games share one connection); once begun, a write finishes."""
        if not self.storage.blocks:
            return self.storage.add_game(game)
        return await trio.to_thread.run_sync(self.storage.add_game, game,
                                             limiter=self._writes)


# -- the worker's side --


class ReportingStorage:
    """A worker's storage, in memory: each game stored is also handed to ``report`` (which
    sends it to the runner)."""

    blocks = False  # in memory; its report goes to a trio channel (in the event loop)

    def __init__(self, report: Callable[[GameRecord], None]) -> None:
        self.report = report
        self.stored: dict[int, GameRecord] = {}
        self.event: tuple[dict[str, Any], list[tuple[str, str]]] = ({}, [])

    def write_event(self, meta: Mapping[str, Any], entrants: Sequence[tuple[str, str]]) -> None:
        self.event = (dict(meta), list(entrants))

    def meta(self) -> dict[str, Any]:
        return dict(self.event[0])

    def entrants(self) -> list[tuple[str, str]]:
        return list(self.event[1])

    def add_game(self, game: GameRecord) -> bool:
        if game.planned in self.stored:
            return False
        self.stored[game.planned] = game
        self.report(game)
        return True

    def games(self) -> list[GameRecord]:
        return [self.stored[planned] for planned in sorted(self.stored)]

    def close(self) -> None:
        self.stored.clear()


def cpu_line() -> dict[str, float]:
    """The CPU seconds this process and its (waited for) children have used."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"worker": time.process_time(), "bots": children.ru_utime + children.ru_stime}


async def work(stdin: trio.abc.ReceiveStream, stdout: trio.abc.SendStream) -> None:
    """Play the share read from ``stdin``, reporting to ``stdout``, until done, drained, or the
    end of ``stdin``."""
    commands = LineReceiver(stdin)
    first = await commands.receive()
    if first is None:
        return
    share = Share.from_line(first)
    outbox, lines_out = trio.open_memory_channel[bytes](math.inf)
    tournament = share.tournament(ReportingStorage(lambda game: outbox.send_nowait(
        game_line(game))))
    tune_garbage_collector()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(send_lines, lines_out, stdout, nursery.cancel_scope)
        async with outbox, trio.open_nursery() as playing:
            playing.start_soon(listen, commands, tournament, playing.cancel_scope)
            report = await tournament.run()
            outbox.send_nowait(json.dumps({"report": {
                "runs": [run_fields(run) for run in report.runs],
                "failures": report.failures,
                "timeouts": report.timeouts,
                "lost_games": report.lost_games,
                "cpu": cpu_line()}}).encode() + b"\n")
            playing.cancel_scope.cancel()


async def listen(commands: LineReceiver, tournament: Tournament,
                 playing: trio.CancelScope) -> None:
    """The runner's lines: ``drain`` drains; the end of them stops the games at once."""
    while (line := await commands.receive()) is not None:
        if line.strip() == DRAIN:
            tournament.drain()
    playing.cancel()


async def send_lines(lines: trio.MemoryReceiveChannel[bytes], stdout: trio.abc.SendStream,
                     worker: trio.CancelScope) -> None:
    try:
        async for line in lines:
            await stdout.send_all(line)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        worker.cancel()  # the runner is gone: nobody would store the games


def main() -> int:
    """The worker process: its share on standard input, its games and report on standard
    output (nothing else may go there: standard output is sent to standard error)."""
    reports = os.dup(1)
    os.dup2(2, 1)
    trio.run(work, trio.lowlevel.FdStream(os.dup(0)), trio.lowlevel.FdStream(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
