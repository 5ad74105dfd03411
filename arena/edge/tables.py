"""Tables: a seating policy's tables started, run, ended and logged; the seating clock.

The hall tells the seating policy what happens to tables (started, over, never started) and
when its deadlines come, and starts the tables it returns.  It never branches on which policy
it runs.  One task runs each table; when the game ends, its log is written and its record kept.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import time
from collections.abc import Callable

import trio

from arena.edge.logwriter import LogWriter
from arena.edge.session import SeatHolder, Session
from arena.edge.stage import Stage
from arena.edge.table import Table, TableInput
from arena.gameplay.driver import MatchDriver
from arena.gameplay.records import GameRecord
from arena.games.chance import secret_seed
from arena.seating.policies import SeatedTable, Seating
from protocol.errors import ErrorCode
from protocol.messages import Bye
from protocol.requests import RequestCounter

log = logging.getLogger("arena.server")


class TableHall:
    def __init__(self, stage: Stage, seating: Seating, seed: str, run_id: str,
                 writer: LogWriter,
                 on_game_over: Callable[[GameRecord], None] | None = None) -> None:
        self.stage = stage
        self.seating = seating
        self.seed = seed  # never sent, never logged: every table's seed is derived from it
        self.run_id = run_id
        self.writer = writer
        self.on_game_over = on_game_over
        self.tables: set[Table] = set()
        self.records: list[GameRecord] = []  # the newest ``records_kept``
        self.games_finished = 0
        self.all_games_done = trio.Event()
        self._numbers = itertools.count(1)
        self._deadline_changed = trio.Event()

    async def seating_clock(self) -> None:
        """Call the seating policy's ``expire`` at its deadlines."""
        while True:
            deadline = self.seating.next_deadline()
            with trio.move_on_at(math.inf if deadline is None else deadline):
                await self._deadline_changed.wait()
                self._deadline_changed = trio.Event()
                continue
            self.seat(self.seating.expire(trio.current_time()))

    def seat(self, tables: list[SeatedTable]) -> None:
        """Start the tables a seating policy returned; notice when it will start no more."""
        for seated in tables:
            self._start_table(seated)
        self._deadline_changed.set()
        if self.seating.statistics().done:
            self.all_games_done.set()

    def put(self, table: SeatHolder, item: TableInput) -> None:
        """Hand ``item`` to ``table`` from code that cannot wait (a task waits if it must)."""
        if not table.put_nowait(item):
            with contextlib.suppress(RuntimeError):  # the server itself is gone
                self.stage.start_soon(table.put, item)

    def abort_all(self) -> None:
        for table in list(self.tables):
            table.scope.cancel()

    def _start_table(self, seated: SeatedTable) -> None:
        stage = self.stage
        if stage.shutting_down:
            return
        config = stage.config
        number = next(self._numbers)
        sessions: list[Session | None] = list(seated.sessions)
        driver = MatchDriver(
            config.spec, seated.options if seated.options is not None else config.options,
            seated.seed if seated.seed is not None else secret_seed(self.seed, "table", number),
            list(seated.names), game_id=f"{self.run_id}-t{number}", table=number,
            move_timeout=config.move_timeout, reaction_timeout=config.reaction_timeout,
            time_bank=config.time_bank,
            counters=[s.requests if s is not None else RequestCounter() for s in sessions],
            started_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        # a long game's log waits on disk
        driver.log.spool_to(config.log_dir, compress=config.compress_logs,
                            spooler=self.writer.spooler)
        table = Table(seated, driver, sessions, stage.cores)
        log.info("table %d: %s", number, ", ".join(seated.names))
        if stage.notes is not None:
            stage.notes.seated(number, [s.number for s in sessions if s is not None],
                               seated.names)
        for session in sessions:
            if session is not None:
                session.idle_since = None
        self.tables.add(table)
        stage.start_soon(self._run_table, table)
        stage.poke()

    async def _run_table(self, table: Table) -> None:
        try:
            await table.run()
        finally:
            self._end_table(table)

    def _end_table(self, table: Table) -> None:
        self.tables.discard(table)
        self.stage.poke()
        if table.unstarted:  # a seated bot was gone before the game began: no game, no log
            log.info("table %s did not start: a seat's connection was gone", table.number)
            self._back_to_seating(table, table.release())
            return
        self.writer.unwritten.append(table.driver.log)
        log_path = self.writer.write().get(id(table.driver.log))
        record = table.record(log_path)
        self.records.append(record)
        self.games_finished += 1
        kept = self.stage.config.records_kept
        if kept is not None and len(self.records) > kept:
            del self.records[0]
        if self.on_game_over is not None:
            try:
                self.on_game_over(record)
            except Exception:
                log.exception("on_game_over failed for table %s", table.number)
        self._back_to_seating(table, table.release())

    def dismiss(self, session: Session) -> bool:
        """End a bot's connection between its games (a hosted bot whose process the server
        stops): the seating forgets it at once, so no table is made with it again, and it is
        told ``bye``; one at a table is dismissed so when its game ends (False then)."""
        if session.seat is not None:
            session.parting = True
            return False
        if session.admitted and not session.closing:
            session.admitted = False  # gone from the seating now, not again at its end
            log.info("%s stopped between games", session.name)
            if self.stage.notes is not None:
                self.stage.notes.left(session.number, session.name)
            self.seat(self.seating.gone(session, trio.current_time()))
        session.finish(Bye(reason=ErrorCode.SERVER_SHUTDOWN.value,
                           message="this bot's process is stopped for now"))
        return True

    def _back_to_seating(self, table: Table, sessions: list[Session]) -> None:
        """A table is over: its bots still here are ready for the next."""
        if self.stage.shutting_down:
            return
        now = trio.current_time()
        for session in sessions:
            session.idle_since = now
        if table.unstarted:  # the ones still here keep their place at the front
            self.seat(self.seating.unstarted(table.seated,
                                             [s for s in sessions if s.idle], now))
            return
        tables = self.seating.game_over(table.seated, now)
        for session in sessions:
            if session.parting:
                self.dismiss(session)
        for session in sessions:
            if session.idle:
                tables += self.seating.ready(session, now)
        self.seat(tables)
