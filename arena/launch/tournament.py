"""``arena tournament``: a whole event on one machine, stored in SQLite as it goes.

The runner starts a server whose seating policy is the schedule (``ScheduledSeating``),
launches each entrant's bot as subprocesses (as many instances as ``concurrency`` tables can
need at once, each with its own token), stores every finished game in the event's database
(one transaction per game, keyed by its place in the schedule), and stops the bots at the end.

Resume: the schedule is a pure function of the event's settings, so a resumed event rebuilds
it, skips the games the database already holds, and plays the rest; with deterministic bots the
stored games equal an uninterrupted run's.  Draining: :meth:`Tournament.drain` starts no more
tables and lets the running ones finish (the first Ctrl-C); cancelling stops at once (the
second), and the games already finished are stored either way.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.server import ArenaServer, ServerConfig
from arena.events.schedule import PlannedTable
from arena.events.settings import REPLAYED_ABORTS, instances_needed
from arena.events.storage import Storage
from arena.gameplay.gamelog import ensure_writable
from arena.gameplay.records import GameRecord
from arena.games.base import GameSpec
from arena.launch.restarts import RestartBook, Restarts, forfeited
from arena.launch.runner import BotLaunch, BotRun, BotSpec, serve_with_bots
from arena.seating.interface import Admission
from arena.seating.scheduled import Instance, ScheduledSeating
from protocol.errors import ErrorCode

log = logging.getLogger("arena.server")


class _Started:
    """Passes a server's ``task_status.started`` on and sets ``listening``."""

    def __init__(self, status: Any, listening: trio.Event) -> None:
        self.status, self.listening = status, listening

    def started(self, value: Any = None) -> None:
        self.status.started(value)
        self.listening.set()


class RestartingSeating(ScheduledSeating):
    """The schedule's seating, which tells the runner when a restarted bot is back."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arrivals: dict[str, trio.Event] = {}

    def arrival(self, token: str) -> trio.Event:
        return self.arrivals.setdefault(token, trio.Event())

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        admission = super().admit(session, name, token)
        if admission.refusal is None and token in self.arrivals:
            self.arrivals.pop(token).set()
        return admission


class EventServer(ArenaServer):
    """An event's server: :attr:`listening` is set once it listens (its port is known), for
    whoever tells the ``@remote`` bots where to connect; for the runner, it offers
    :class:`~arena.launch.restarts.Recovering` (the tournament's ``on_died``, ``on_out``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listening = trio.Event()
        #: Told the token of a launched bot that ended before it ever connected, before the
        #: server stops waiting for it (and seats the default policy in its place).
        self.on_never_connected: Callable[[str], None] | None = None
        self.on_died: Callable[[str], None] = lambda token: None
        self.on_out: Callable[[str, BotRun], None] = lambda token, run: None

    def died(self, token: str) -> None:
        self.on_died(token)

    def arrival(self, token: str) -> trio.Event:
        seating = self.hall.seating
        assert isinstance(seating, RestartingSeating)
        return seating.arrival(token)

    def out(self, token: str, run: BotRun) -> None:
        self.on_out(token, run)

    def seated_at(self, token: str) -> list[tuple[PlannedTable, int]]:
        """The running games (their planned tables) and seats where ``token``'s bot sits."""
        return [(table.seated.tag, seat.number) for table in self.hall.tables
                if table.seated.tag is not None and not table.driver.finished
                for seat in table.seats
                if seat.session is not None and seat.session.token == token]

    def withdraw(self, token: str) -> None:
        if (self.on_never_connected is not None
                and token not in self.statistics().seating.ever_connected):
            self.on_never_connected(token)
        super().withdraw(token)

    async def serve(self, listen: bool = True, *,
                    task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        await super().serve(listen, task_status=_Started(task_status, self.listening))


@attrs.define
class TournamentReport:
    runs: list[BotRun]
    played: int  # games finished and stored by this run
    remaining: int  # planned games not stored yet (after a drain or a failure)
    seconds: float
    #: With workers (``arena.launch.workers``): the CPU seconds their own processes and
    #: their bots used; None for an event in one process (its CPU is the process's own).
    worker_cpu_seconds: float | None = None
    bot_cpu_seconds: float | None = None
    #: What went wrong besides bots (a worker that ended without its report).
    failures: list[str] = attrs.Factory(list)
    #: Per entrant: [decisions played by default because its time ran out, decisions], over
    #: the games stored by this run (:func:`arena.gameplay.records.timed_out_note` flags a stuck
    #: bot).
    timeouts: dict[int, list[int]] = attrs.Factory(dict)
    #: Per entrant: the games it was playing when its process ended, forfeited (stored with
    #: it ranked last) or to be replayed (``lost_policy`` says which: "forfeited", "replayed").
    lost_games: dict[int, int] = attrs.Factory(dict)
    lost_policy: str = "forfeited"


class Tournament:
    def __init__(self, spec: GameSpec, options: Any, bots: Sequence[BotSpec],
                 planned: Sequence[PlannedTable], storage: Storage, *, log_dir: Path,
                 concurrency: int = 1, move_timeout: float = 5.0,
                 reaction_timeout: float = 1.0, connect_timeout: float = 10.0,
                 time_bank: float = 0.0,
                 on_game_over: Callable[[GameRecord], None] | None = None,
                 launch: BotLaunch | None = None,
                 registry: Mapping[str, str] | None = None,
                 host: str = "127.0.0.1", port: int = 0, compress_logs: bool = True,
                 on_game_finished: Callable[[GameRecord], None] | None = None,
                 restarts: Restarts | None = None, open_ended: bool = False,
                 expect: Sequence[PlannedTable] = ()) -> None:
        """``registry``: registered names and tokens, for the entrants that connect by
        themselves (``NAME=@remote``) to ``host``:``port``; each plays one table at a time.
        ``on_game_over`` hears of each game once it is stored; ``on_game_finished`` as it ends,
        before it is stored and before the next table is seated (a :meth:`drain` there starts
        no other game).  ``restarts``: how bots that die mid-event are started again
        (:mod:`arena.launch.restarts`; default :class:`Restarts`).  ``open_ended``: more
        tables may come (:meth:`add_tables`, until :meth:`no_more_tables`), among ``expect``
        (the bots started are enough for those too)."""
        self.spec, self.options, self.bots = spec, options, list(bots)
        self.launch = launch if launch is not None else BotLaunch()
        self.storage = storage
        self.log_dir = log_dir
        done = {game.planned for game in storage.games()}
        self.todo = [table for table in planned if table.index not in done]
        self.on_game_over = on_game_over
        self.on_game_finished = on_game_finished
        self._finished: trio.MemorySendChannel[GameRecord] | None = None
        counts = instances_needed([*self.todo, *expect], len(self.bots), concurrency)
        tokens = {name.casefold(): token for name, token in (registry or {}).items()}
        self.instances = []
        for entrant, count in enumerate(counts):
            bot = self.bots[entrant]
            if not bot.remote:
                self.instances += [Instance(entrant, secrets.token_hex(12))
                                   for _ in range(count)]
            elif bot.name.casefold() not in tokens:
                raise ValueError(f"{bot.name} connects by itself (@remote) but has no "
                                 "registered token (--tokens FILE)")
            elif count:
                self.instances.append(Instance(entrant, tokens[bot.name.casefold()]))
        self.restarts = (restarts if restarts is not None
                         else Restarts(connect_timeout=connect_timeout))
        self.seating = RestartingSeating(self.todo, [bot.name for bot in self.bots],
                                        self.instances, concurrency,
                                        connect_timeout=connect_timeout, open_ended=open_ended)
        config = ServerConfig(spec=spec, options=options, host=host, port=port,
                              move_timeout=move_timeout, reaction_timeout=reaction_timeout,
                              time_bank=time_bank, log_dir=log_dir,
                              compress_logs=compress_logs,
                              idle_timeout=None)  # instances wait for their scheduled tables
        self.server = EventServer(config, seating=self.seating, on_game_over=self._game_over)
        self.server.on_never_connected = self._never_started
        self.server.on_died, self.server.on_out = self._died, self._out
        #: The running games a bot's death hit: planned index -> its seats there.
        self.hit: dict[int, set[int]] = {}
        self.lost_games: dict[int, int] = {}  # see TournamentReport.lost_games
        self.excluded: list[str] = []  # the bots that died past their restarts
        self.stopped_by: list[str] = []  # the bots that ended before they connected
        self.played = 0
        self.timeouts: dict[int, list[int]] = {}  # see TournamentReport.timeouts
        self.restart_book = RestartBook(self.restarts)
        self.runs: list[BotRun] = []  # the launched bots, once run() started them

    def add_tables(self, planned: Sequence[PlannedTable]) -> None:
        """More tables to play with the same bots (``open_ended``), as a new batch: each bot
        has its restarts again (as a new event would give it), and an instance that left its
        connection while its process runs (it misbehaved, or gave up) is started again."""
        self.todo.extend(planned)
        self.restart_book.used.clear()
        self.recycle_strays()
        self.server.hall.seat(self.seating.add(planned))

    def no_more_tables(self) -> None:
        """The tables given are all there are: the event ends once they are played."""
        self.seating.close()
        self.server.hall.seat([])  # done now, if nothing is left to play

    def waiting(self) -> int:
        """Tables given and not started yet."""
        return len(self.seating.pending)

    def recycle_strays(self) -> None:
        """Stop each bot that connected, left, and still runs (not one being started again,
        on its way back): the runner starts it again (:mod:`arena.launch.restarts`), as it
        would a bot that died."""
        ever = self.server.statistics().seating.ever_connected
        live = {session.token for session in self.server.sessions}
        book = self.seating.book
        for run in self.runs:
            process = run.process
            if (process is not None and process.returncode is None and run.token in ever
                    and run.token not in live
                    and book.index.get(run.token) not in self.seating.held):
                process.kill()

    def drain(self) -> None:
        """Start no more games; the running ones finish and are stored."""
        self.seating.drain()
        if self.seating.done:
            self.server.all_games_done.set()

    def _never_started(self, token: str) -> None:
        """A bot ended before it connected: the event stops (as drained: the running games
        finish), rather than play that bot's seats by the default policy."""
        entrant = next(i.entrant for i in self.instances if i.token == token)
        self.stopped_by.append(self.bots[entrant].name)
        self.drain()

    def _died(self, token: str) -> None:
        """A bot's process ended mid-event: its running games are hit (forfeited or
        replayed), and its later tables wait for it (the runner starts it again)."""
        self.seating.hold(token)
        for planned, seat in self.server.seated_at(token):
            self.hit.setdefault(planned.index, set()).add(seat)

    def _out(self, token: str, run: BotRun) -> None:
        """It will not be started again: it is excluded and the event stops (drained)."""
        self.server.hall.seat(self.seating.release(token, trio.current_time()))
        if run.excluded and run.spec.name not in self.excluded:
            self.excluded.append(run.spec.name)
            self.drain()

    def _game_over(self, record: GameRecord) -> None:
        """A game ended (in the event loop): queued for :meth:`_store`; a game a bot's death
        hit is forfeited (its seats ranked last) or played again."""
        if record.tag is None:
            raise ValueError(f"game {record.game_id} was not planned by a schedule")
        hit = self.hit.pop(record.tag.index, None)
        if hit is not None and record.aborted in REPLAYED_ABORTS:
            self.seating.replay(record.tag)  # nobody played it to its end: played again
            return
        if hit is not None:
            for seat in hit:
                entrant = record.tag.entrants[seat]
                self.lost_games[entrant] = self.lost_games.get(entrant, 0) + 1
            if self.restarts.replay:
                self.seating.replay(record.tag)
                return
            ranks = forfeited(record.ranks, hit)
            record = attrs.evolve(record, ranks=ranks, winners=tuple(
                seat for seat, rank in enumerate(ranks) if rank == 1))
        if record.aborted in REPLAYED_ABORTS:
            return
        if self.on_game_finished is not None:
            self.on_game_finished(record)
        assert self._finished is not None, "run() is not running"
        self._finished.send_nowait(record)

    async def _store(self, finished: trio.MemoryReceiveChannel[GameRecord]) -> None:
        """Store the finished games in the order they ended, off the event loop when the
        storage's writes wait for a disk (SQLite's commit: a worker thread, one game at a
        time), so that no table's clock waits for them.  Shielded: every game queued is
        stored, also when the event is stopped at once; it ends when the queue is closed."""
        with trio.CancelScope(shield=True):
            async for record in finished:
                try:
                    if self.storage.blocks:
                        added = await trio.to_thread.run_sync(self.storage.add_game, record)
                    else:
                        added = self.storage.add_game(record)
                    if added:
                        self._stored(record)
                except Exception:
                    log.exception("on_game_over failed for table %s", record.number)

    def _stored(self, record: GameRecord) -> None:
        self.played += 1
        for entrant, timeouts, decisions in zip(record.table.entrants, record.timeouts,
                                                record.decisions):
            counts = self.timeouts.setdefault(entrant, [0, 0])
            counts[0] += timeouts
            counts[1] += decisions
        if self.on_game_over is not None:
            self.on_game_over(record)

    async def run(self) -> TournamentReport:
        started = time.monotonic()
        ensure_writable(self.log_dir)  # never play games whose logs would be lost
        output_dir = self.log_dir / "bots"
        output_dir.mkdir(parents=True, exist_ok=True)
        runs = [BotRun(self.bots[instance.entrant], instance.token,
                       output_dir / f"{self.server.run_id}-{self.bots[instance.entrant].name}"
                                    f"-{i}.txt")
                for i, instance in enumerate(self.instances)]
        self.runs = runs
        self._finished, finished = trio.open_memory_channel[GameRecord](math.inf)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._store, finished)
            with self._finished:  # closed when the games are over: the last ones get stored
                await serve_with_bots(self.server, runs, ErrorCode.EVENT_OVER, self.launch,
                                      restarts=self.restart_book)
        stored = {game.planned for game in self.storage.games()}
        remaining = sum(table.index not in stored for table in self.todo)
        failures = [f"stopped the event: bot {name} ended before it connected (its output is "
                    "above): fix that, then --resume, or play the event again with a "
                    "corrected --bot and a new --db" for name in dict.fromkeys(self.stopped_by)]
        failures += [f"stopped the event: bot {name} died "
                     + (f"more often than its {self.restarts.most} restart(s)"
                        if self.restarts.most else "(--restarts 0)")
                     + " (its output is above); its games so far are stored: fix it, then "
                     "--resume" for name in self.excluded]
        if self.server.unwritten_logs:
            failures.append(f"{len(self.server.unwritten_logs)} game log(s) could not be "
                            f"written to {self.log_dir} (is the disk full?)")
        return TournamentReport(runs, self.played, remaining, time.monotonic() - started,
                                failures=failures, timeouts=self.timeouts,
                                lost_games=self.lost_games, lost_policy=self.restarts.policy)
