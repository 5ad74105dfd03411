"""``arena worker --db URL``: one host's share of an event planned in PostgreSQL
(``arena tournament --db URL --plan-only``).

The worker rebuilds the event from the database (its settings, entrants and schedule, as
``--resume`` does), then, until no table is left or it is drained: claims a batch of tables
(:class:`~arena.events.pg_queue.WorkQueue`: SKIP LOCKED, under its lease), plays them as a
:class:`~arena.launch.tournament.Tournament` of its own (a server and its local bot instances,
the same machinery as ``arena tournament``), and stores each game as it ends, releasing its
table in the same transaction.  A heartbeat renews the lease every third of it.  A result its
lease no longer covers (it expired: the network was cut, the worker stalled) is refused and
not counted: another worker plays that table.  When every open table is held by other
workers, it waits until the queue changes (LISTEN: a game stored, tables given back) or the
first of their leases may expire, and claims again.

The bots are started once and kept across batches (one tournament whose seating takes each
new batch as it is claimed: the next is claimed when fewer tables than ``concurrency`` wait)
unless the event needs more than :data:`KEEP_BOTS_AT_MOST` bot processes (every entrant's
instances for ``concurrency`` tables: a big field), then once per batch, for the batch's
entrants only.  Kept bots are safe to keep: a bot whose process ends is started again at once
(:mod:`arena.launch.restarts`, its restarts renewed with each batch, as each batch had its own
before), and at each new batch a bot that left its connection while its process runs (it
misbehaved: the server closed it, or it gave up) is stopped and started again.

The worker that finds every game stored takes the event's rating snapshot (the batch fit's,
as ``arena tournament`` takes one at its end), unless another took it already or is taking it
(one worker fits; the others end at once); its heartbeat goes on while it fits.

A first Ctrl-C (or SIGTERM) drains: the running games finish and are stored, the batch's other
tables are given back; a second stops at once (the running games are played again by whoever
claims them after the lease expires).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.signals import drain_then_stop
from arena.events.pg_queue import WorkQueue
from arena.events.schedule import PlannedTable
from arena.events.settings import EventSettings, instances_needed
from arena.gameplay.gamelog import ensure_writable
from arena.gameplay.records import GameRecord
from arena.games import get_game
from arena.launch.live_board import fit_failure, run_fit
from arena.launch.runner import BotLaunch, BotRun, BotSpec
from arena.launch.tournament import Tournament

log = logging.getLogger("arena.worker")

Echo = Callable[..., None]

#: Bot processes an event may need (every entrant's, for ``concurrency`` tables) for a worker
#: to keep them running across batches; more are started per batch, for its entrants only.
KEEP_BOTS_AT_MOST = 64
#: Resamples of the batch fit of the rating snapshot a worker takes when the event is done.
FINAL_RESAMPLES = 100


class QueueStorage:
    """The :class:`~arena.events.storage.Storage` a worker's tournament stores into: each game
    through the queue (lease checked, claim released, one transaction)."""

    blocks = True  # the network

    def __init__(self, queue: WorkQueue) -> None:
        self.queue = queue
        self.refused: list[int] = []  # the planned tables whose results came too late

    def write_event(self, meta: Any, entrants: Any) -> None:
        raise NotImplementedError("a worker never writes the event")

    def meta(self) -> dict[str, Any]:
        return {}

    def entrants(self) -> list[tuple[str, str]]:
        return []

    def add_game(self, game: GameRecord) -> bool:
        stored = self.queue.store(game)
        if not stored:
            self.refused.append(game.planned)
            log.warning("game %d refused: this worker's lease on its table had expired "
                        "(another worker plays it)", game.planned)
        return stored

    def games(self) -> list[GameRecord]:
        return []  # the claimed tables are all still to play

    def close(self) -> None:
        self.queue.close()


@attrs.define
class WorkerReport:
    played: int = 0  # games stored by this worker
    refused: list[int] = attrs.Factory(list)  # late results, refused
    runs: list[BotRun] = attrs.Factory(list)
    failures: list[str] = attrs.Factory(list)
    drained: bool = False


def worker_name() -> str:
    """This worker run's name in the database: host and pid (unique while it runs)."""
    return f"{socket.gethostname()}-{os.getpid()}"


class EventWorker:
    """Builds from the event's stored ``settings`` and ``bots``; :meth:`run` under trio."""

    def __init__(self, queue: WorkQueue, settings: EventSettings, bots: Sequence[BotSpec], *,
                 log_dir: Path, concurrency: int = 1, batch: int | None = None,
                 connect_timeout: float = 10.0, launch: BotLaunch | None = None,
                 compress_logs: bool = True, echo: Echo = print,
                 wait_seconds: float | None = None) -> None:
        self.queue, self.settings, self.bots = queue, settings, list(bots)
        self.planned: dict[int, PlannedTable] = {
            table.index: table for table in settings.planned(len(self.bots))}
        self.spec = get_game(settings.game)
        self.options = self.spec.parse_options(settings.options)
        self.log_dir, self.concurrency = log_dir, concurrency
        self.batch = batch if batch is not None else 4 * concurrency
        self.connect_timeout, self.compress_logs, self.echo = (connect_timeout, compress_logs,
                                                               echo)
        self.launch = launch if launch is not None else BotLaunch()
        #: Seconds to wait at most when others hold every open table (unless a change or
        #: the first of their leases to expire comes sooner).
        self.wait_seconds = (wait_seconds if wait_seconds is not None
                             else queue.lease_seconds)
        self.storage = QueueStorage(queue)
        self.report = WorkerReport()
        self.current: Tournament | None = None
        self._wake = trio.Event()
        self._ended = trio.Event()  # a game ended (the kept bots' seating may want more)
        counts = instances_needed(list(self.planned.values()), len(self.bots), concurrency)
        #: Whether the bots are kept across batches (see the module's doc).
        self.keep_bots = sum(counts) <= KEEP_BOTS_AT_MOST

    def drain(self) -> None:
        self.report.drained = True
        if self.current is not None:
            self.current.drain()
        self._wake.set()

    async def heartbeat(self) -> None:
        while True:
            await trio.sleep(self.queue.lease_seconds / 3)
            await trio.to_thread.run_sync(self.queue.heartbeat, abandon_on_cancel=True)

    async def run(self) -> WorkerReport:
        ensure_writable(self.log_dir)
        await trio.to_thread.run_sync(self.queue.register, socket.gethostname(), os.getpid())
        # listening from now on: a game stored between a look at the queue and a wait for
        # its change (the last table's, say) wakes the wait, instead of its whole timeout
        await trio.to_thread.run_sync(self.queue.wait_for_change, 0.0)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.heartbeat)  # also while it fits: it is alive
            await self._play()
            state = ("drained" if self.report.drained else
                     "failed" if self.report.failures else "done")
            if state == "done":  # every game is stored
                await self._final_snapshot()
            nursery.cancel_scope.cancel()
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(self.queue.release)
            await trio.to_thread.run_sync(self.queue.finish, state)
        self.report.refused = list(self.storage.refused)
        return self.report

    async def _play(self) -> None:
        while not self.report.drained and not self.report.failures:
            claimed = await self._claim()
            if claimed is None:
                return  # every game is stored, or drained
            self.current = self._tournament(claimed, open_ended=self.keep_bots)
            if self.report.drained:
                self.current.drain()
            async with trio.open_nursery() as nursery:
                if self.keep_bots:
                    nursery.start_soon(self._feed, self.current)
                batch = await self.current.run()
                nursery.cancel_scope.cancel()
            self.current = None
            self.report.runs += batch.runs
            self.report.failures += batch.failures
            self.report.failures += [line for run in batch.runs if run.failed
                                     for line in run.failure_lines()]
            await trio.to_thread.run_sync(self.queue.release)  # drained: not played
            if self.keep_bots:
                return  # it ran until no table was left (or it was drained, or failed)

    def _tournament(self, claimed: Sequence[int], *, open_ended: bool) -> Tournament:
        return Tournament(
            self.spec, self.options, self.bots, [self.planned[i] for i in claimed],
            self.storage, log_dir=self.log_dir, concurrency=self.concurrency,
            move_timeout=self.settings.move_timeout,
            reaction_timeout=self.settings.reaction_timeout,
            time_bank=self.settings.time_bank, connect_timeout=self.connect_timeout,
            launch=self.launch, compress_logs=self.compress_logs, on_game_over=self._stored,
            on_game_finished=lambda game: self._ended.set(), open_ended=open_ended,
            expect=list(self.planned.values()) if open_ended else ())

    async def _claim(self) -> list[int] | None:
        """The next batch of tables, waiting while others hold every open one; None when
        every game is stored (or it was drained)."""
        while not self.report.drained:
            claimed = await trio.to_thread.run_sync(self.queue.claim, self.batch)
            if claimed:
                return claimed
            left, expiry = await trio.to_thread.run_sync(self.queue.open_tables)
            if not left:
                return None
            await self._wait(min(self.wait_seconds, expiry + 0.05))
        return None

    async def _feed(self, tournament: Tournament) -> None:
        """The kept bots' tournament gets the next batch whenever fewer tables than
        ``concurrency`` wait, until none is left (then it ends once they are played) or it
        stops by itself (drained, or a bot failed past its restarts)."""
        while not tournament.seating.draining:
            if tournament.waiting() >= self.concurrency:
                self._ended = trio.Event()
                await self._ended.wait()
                continue
            claimed = await self._claim()
            if claimed is None:
                tournament.no_more_tables()
                return
            tournament.add_tables([self.planned[i] for i in claimed])

    async def _wait(self, seconds: float) -> None:
        """Until the queue changes (a game stored, tables given back: the last tables may be
        done, or free), ``seconds`` pass (a lease may have expired), or a drain."""
        async with trio.open_nursery() as nursery:
            async def changed() -> None:
                await trio.to_thread.run_sync(self.queue.wait_for_change, seconds,
                                              abandon_on_cancel=True)
                nursery.cancel_scope.cancel()

            nursery.start_soon(changed)
            await self._wake.wait()
            nursery.cancel_scope.cancel()

    async def _final_snapshot(self) -> None:
        """The event's rating snapshot with the batch fit of every stored game (in the fit's
        process of ``arena.launch.live_board``), by one worker: the one that takes the final
        fit's lock first, unless a snapshot at that count was taken already; a failure is one
        line, the worker's work is done anyway."""
        if not await trio.to_thread.run_sync(self.queue.take_final_fit):
            self.echo("arena worker: another worker takes the event's rating snapshot")
            return
        try:
            await self._fit_once()
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self.queue.give_final_fit_back)

    async def _fit_once(self) -> None:
        taken = await trio.to_thread.run_sync(self.queue.snapshot_games)
        if taken >= len(self.planned):
            return
        request = {"db": self.queue.url, "seed": self.settings.seed,
                   "resamples": FINAL_RESAMPLES, "taken_at": time.time(), "games": None,
                   "live": None}
        try:
            done = await run_fit(request)
        except OSError as exc:
            self.echo(f"arena worker: no rating snapshot: {exc}", err=True)
            return
        if done.returncode != 0:
            self.echo(fit_failure(done), err=True)

    def _stored(self, game: GameRecord) -> None:
        self.report.played += 1
        self.echo(f"arena worker: game {game.planned} stored "
                  f"({self.report.played} by this worker)")


async def run_worker(worker: EventWorker, signals: trio.MemoryReceiveChannel[int]
                     ) -> WorkerReport | None:
    """Play until done; a first Ctrl-C or SIGTERM drains, a second stops at once (None).
    ``signals``: every SIGINT and SIGTERM, from :func:`arena.edge.signals.run_stoppable`
    (none lost, none re-delivered as a ``KeyboardInterrupt`` while it stops)."""
    report = None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_on_signals, worker, nursery.cancel_scope, signals)
        report = await worker.run()
        nursery.cancel_scope.cancel()
    return report


async def _on_signals(worker: EventWorker, stop: trio.CancelScope,
                      signals: trio.MemoryReceiveChannel[int]) -> None:
    await drain_then_stop(signals, stop, drain=worker.drain, echo=worker.echo,
                          draining="arena worker: finishing the running games, then stopping "
                                   "(Ctrl-C again stops at once)",
                          stopping="arena worker: stopping now")


def local_bots(entrants: Sequence[tuple[str, str]],
               overrides: Sequence[BotSpec]) -> list[BotSpec]:
    """The event's entrants with this host's commands: a ``--bot NAME=CMD`` replaces the
    stored command of the entrant NAME (a ValueError for a name that is not an entrant)."""
    names = [name for name, _ in entrants]
    commands = dict(entrants)
    for bot in overrides:
        if bot.name not in commands:
            raise ValueError(f"--bot {bot.name}: no such entrant (the entrants: "
                             f"{', '.join(names)})")
        commands[bot.name] = bot.command
    return [BotSpec(name, commands[name]) for name in names]
