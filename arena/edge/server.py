"""The trio edge's listener and lifecycle: the server that accepts connections, and starts and
stops its parts.

Everything that decides anything lives in pure modules (``protocol``, ``arena.gameplay.driver``,
``arena.seating.policies``).  The edge's parts, one job each:

- ``arena.edge.reader``: one connection's read and write loops;
- ``arena.edge.ready``: the readers' shared wait (answers read and played in one task);
- ``arena.edge.reception``: admission (hellos), reconnection and the idle limit;
- ``arena.edge.tables``: the seating policy's tables started, run and ended;
- ``arena.edge.table`` / ``arena.edge.session``: one table (owning its seats), one bot and its
  connection;
- ``arena.edge.spectators``, ``arena.edge.transcript``, ``arena.edge.logwriter``;
- ``arena.edge.page_feed``: the running tables' feed to the pages' process (``--web``);
- ``arena.edge.connections`` and ``arena.edge.admission``: the limits at the door.

Nothing a bot sends can crash the server: each connection's handler catches its own failures,
and a table that fails is logged as aborted without touching the others.
"""

from __future__ import annotations

import functools
import gc
import itertools
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.admission import HelloLimiter
from arena.edge.config import ServerConfig
from arena.edge.connections import (
    close_gently,
    connection_limit,
    let_in,
    peer_address,
    refuse,
)
from arena.edge.cores import Cores
from arena.edge.logwriter import LogWriter
from arena.edge.peer_process import ProcessBinding, socket_addresses
from arena.edge.reader import ConnectionLoops
from arena.edge.reception import BYE_MESSAGES, REFUSALS, Reception
from arena.edge.serve_report import Notes
from arena.edge.session import Session
from arena.edge.spectators import SpectatorDesk
from arena.edge.stage import Stage
from arena.edge.tables import TableHall
from arena.edge.transcript import Transcript
from arena.gameplay.gamelog import GameLog, ensure_writable
from arena.gameplay.records import GameRecord
from arena.seating.policies import ArrivalSeating, Seating, SeatingStatistics
from protocol.connection import ServerConnection
from protocol.errors import ErrorCode
from protocol.limits import MAX_LINE_BYTES
from protocol.messages import Bye, Welcome

__all__ = ["BYE_MESSAGES", "REFUSALS", "SERVE_RECORDS_KEPT", "ArenaServer", "Greeted",
           "ServerConfig", "ServerStatistics", "tune_garbage_collector"]

log = logging.getLogger("arena.server")

#: Seconds a closing connection gets to flush what is queued for it.
FLUSH_GRACE = 5.0
#: Seconds running games get to be logged as aborted at shutdown.
SHUTDOWN_GRACE = 5.0
#: Milliseconds a bot told ``server_restart`` waits before its first try to come back (a
#: restart takes a second or two; the client library then waits longer after each failure).
RETRY_MS = 1000
#: Allocations before a young-generation collection in the server commands (default 700).
GC_YOUNG_THRESHOLD = 50_000
#: Finished games' records ``arena serve`` keeps in memory (its logs keep every game).
SERVE_RECORDS_KEPT = 1000
#: Seconds queues get to flush ``bye`` when the stop is hurried (a second Ctrl-C).
HURRIED_FLUSH = 0.2
#: Seconds between looks at the tables and connections still open while stopping (the stop
#: takes at least two: a second Ctrl-C a few milliseconds after the first still hurries it).
STOP_TICK = 0.01


@attrs.frozen
class Greeted:
    """A connection the door of a server of several games (:class:`~arena.edge.house.GameHouse`)
    let in: the welcome it sent, and the hello's line with the bytes that came after it."""

    welcome: bytes
    hello: bytes


@attrs.frozen
class ServerStatistics:
    """A snapshot of a running server, for runners and live views."""

    connections: int
    tables_running: int
    games_finished: int
    seating: SeatingStatistics


def tune_garbage_collector() -> None:
    """Tune the collector for a long-running server: what exists after start-up (modules,
    the games' tables) is frozen out of every collection, and the young generation is larger,
    so full collections (which stop every table) come seldom.  For the server commands only;
    a library user keeps the interpreter's defaults."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)


class ArenaServer:
    def __init__(self, config: ServerConfig, *, seating: Seating | None = None,
                 on_game_over: Callable[[GameRecord], None] | None = None,
                 binding: ProcessBinding | None = None) -> None:
        """``binding``: tokens bound to the processes a runner gave them to; a connection from
        any other process is refused (``token_not_yours``)."""
        self.spec = config.spec
        self.players: int = config.options.players
        self.run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)
        # never sent, never logged: every table's seed is derived from it (secret_seed)
        self.seed = config.seed if config.seed is not None else secrets.token_hex(16)
        self._connections = itertools.count(1)
        self.stage = Stage(config)  # the config the parts read (see ``config``)
        self.writer = LogWriter(config.log_dir)
        self.hall = TableHall(self.stage,
                              seating if seating is not None else ArrivalSeating(self.players),
                              self.seed, self.run_id, self.writer, on_game_over)
        self.spectators = SpectatorDesk(config.spectators)
        self.reception = Reception(self.stage, self.hall, self.spectators, binding)
        self.loops = ConnectionLoops(self.reception, self.hall)
        self.port: int | None = None
        #: Set once the server serves (listening, or taking in-process streams).
        self.serving = trio.Event()
        self.max_connections = (config.max_connections if config.max_connections is not None
                                else connection_limit())
        #: Sockets open now (serving, closing or being refused): what counts against the limit.
        self.open_streams = 0
        self.per_address: dict[str, int] = {}
        self.hellos = HelloLimiter(config.max_hellos_per_second)

    @property
    def config(self) -> ServerConfig:
        return self.stage.config

    @config.setter
    def config(self, config: ServerConfig) -> None:
        self.stage.config = config
        self.writer.log_dir = config.log_dir

    # the parts' state, as runners, live views and tests read it
    seating = property(lambda self: self.hall.seating)
    tables = property(lambda self: self.hall.tables)
    records = property(lambda self: self.hall.records)
    all_games_done = property(lambda self: self.hall.all_games_done)
    sessions = property(lambda self: self.reception.sessions)
    away = property(lambda self: self.reception.away)
    refusals = property(lambda self: self.reception.refusals)

    @property
    def binding(self) -> ProcessBinding | None:
        """Tokens bound to the processes a runner gave them to (None: any process may use
        any token); a runner may set it after the server is made."""
        return self.reception.binding

    @binding.setter
    def binding(self, binding: ProcessBinding | None) -> None:
        self.reception.binding = binding

    @property
    def games_finished(self) -> int:
        return self.hall.games_finished

    @property
    def unwritten_logs(self) -> list[GameLog]:
        """Finished games whose log could not be written (yet): a full disk."""
        return self.writer.unwritten

    @property
    def notes(self) -> Notes | None:
        """Told of each connection, departure and table (``arena serve``'s operator report)."""
        return self.stage.notes

    @notes.setter
    def notes(self, notes: Notes | None) -> None:
        self.stage.notes = notes

    @property
    def on_game_over(self) -> Callable[[GameRecord], None] | None:
        return self.hall.on_game_over

    @on_game_over.setter
    def on_game_over(self, callback: Callable[[GameRecord], None] | None) -> None:
        self.hall.on_game_over = callback

    def statistics(self) -> ServerStatistics:
        return ServerStatistics(connections=len(self.sessions), tables_running=len(self.tables),
                                games_finished=self.games_finished,
                                seating=self.seating.statistics())

    def write_logs(self) -> dict[int, Path]:
        """Write every finished game's log not written yet; returns where each went (by the
        log's id).  A log that cannot be written now stays queued (never half written)."""
        return self.writer.write()

    # -- running --

    async def serve(self, listen: bool = True, *,
                    task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until cancelled or :meth:`shutdown`; reports the port bound.
        With ``listen=False`` nothing listens: connections come in through
        :meth:`handle_stream` (tests use in-memory streams)."""
        ensure_writable(self.config.log_dir)  # never host games whose logs would be lost
        async with trio.open_nursery() as nursery:
            self.stage.nursery = nursery
            if listen:
                listeners = await nursery.start(functools.partial(
                    trio.serve_tcp, self.handle_stream, self.config.port,
                    host=self.config.host, handler_nursery=nursery))
                self.port = listeners[0].socket.getsockname()[1]
            nursery.start_soon(self.hall.seating_clock)
            nursery.start_soon(self.loops.ready.run)
            self.writer.syncing = False
            nursery.start_soon(self.writer.sync_forever)
            if self.config.idle_timeout is not None:
                nursery.start_soon(self.reception.idle_sweeper, self.config.idle_timeout)
            self.hall.seat(self.seating.start(trio.current_time()))
            self.serving.set()
            task_status.started(self.port)
            await trio.sleep_forever()  # until shutdown() cancels the nursery

    async def shutdown(self, reason: ErrorCode = ErrorCode.SERVER_SHUTDOWN) -> None:
        """Stop cleanly: abort running games (each is logged as aborted), say bye to every
        bot (``server_restart``: with the pause after which to try again, :data:`RETRY_MS`),
        give queues a moment to flush, then stop serving."""
        stage = self.stage
        if stage.shutting_down:
            return
        stage.shutting_down = True
        self.hall.abort_all()
        with trio.move_on_after(SHUTDOWN_GRACE):
            while self.tables and stage.hurried_at is None:  # looked at every STOP_TICK
                with trio.move_on_after(STOP_TICK):
                    await stage.hurried.wait()  # a second Ctrl-C ends the wait at once
        retry = RETRY_MS if reason is ErrorCode.SERVER_RESTART else None
        for session in list(self.sessions):
            session.finish(Bye(reason=reason.value, message=BYE_MESSAGES.get(reason),
                               retry_ms=retry))
        deadline = trio.current_time() + FLUSH_GRACE
        while self.sessions and trio.current_time() < deadline:
            if stage.hurried_at is not None:
                deadline = min(deadline, stage.hurried_at + HURRIED_FLUSH)
            await trio.sleep(STOP_TICK)
        self.writer.last_try()
        if stage.nursery is not None:
            stage.nursery.cancel_scope.cancel()

    def hurry(self) -> None:
        """Stop now (a second Ctrl-C): no more waiting for games and queues; the running games
        are still logged as aborted and every bot is still sent ``bye``."""
        if self.stage.hurried_at is None:
            self.stage.hurried_at = trio.current_time()
            self.stage.hurried.set()
            self.stage.poke()

    def dismiss(self, session: Session) -> bool:
        """End ``session``'s connection between its games (see :meth:`TableHall.dismiss`)."""
        return self.hall.dismiss(session)

    @property
    def cores(self) -> Cores | None:
        """Fair time for hosted bots (:mod:`arena.edge.cores`); set before tables start."""
        return self.stage.cores

    @cores.setter
    def cores(self, cores: Cores | None) -> None:
        self.stage.cores = cores

    def withdraw(self, token: str) -> None:
        """The bot with this token will not come (its process ended): stop waiting for it."""
        self.reception.withdraw(token)

    # -- connections --

    async def handle_stream(self, stream: trio.abc.Stream, *, bound_token: str | None = None,
                            greeted: Greeted | None = None) -> None:
        """Serve one connection to its end; never raises for anything the peer does.
        ``bound_token``: the connection is the server's own pipe to the bot given that token
        (``arena match --stdio``), which then needs to send none.  ``greeted``: the front door
        of a server of several games (:class:`~arena.edge.house.GameHouse`) let the connection
        in, sent its welcome and read its hello, which named this server's game (no welcome is
        sent again; a transcript starts with the door's)."""
        self.open_streams += 1  # every open socket counts, closing and refused ones too
        try:
            await self._handle(stream, bound_token, greeted)
        finally:
            self.open_streams -= 1
            self.stage.poke()

    async def wait_for_change(self) -> None:
        """Wait until a table starts or ends, a connection ends, or the stop is hurried (for
        code that waits on the server's state: a stop, tests)."""
        await self.stage.next_change()

    async def _handle(self, stream: trio.abc.Stream, bound_token: str | None,
                      greeted: Greeted | None) -> None:
        address = peer_address(stream)
        if not await let_in(stream, open_streams=self.open_streams, limit=self.max_connections,
                            from_address=self.per_address.get(address, 0),
                            address_limit=self.config.max_connections_per_address,
                            closing=self.stage.shutting_down):
            return
        if bound_token is None and greeted is None \
                and not await self._through_the_door(stream, address):
            return
        session = Session(next(self._connections),
                          ServerConnection(game=self.spec.name, max_line=MAX_LINE_BYTES),
                          address=address, max_queued_bytes=self.config.max_queued_bytes,
                          sockets=socket_addresses(getattr(stream, "socket", None)),
                          bound_token=bound_token)
        link = session.link
        if isinstance(stream, trio.SocketStream):
            link.fd = stream.socket.fileno()  # direct writes (see Link.push)
        if self.config.transcript_dir is not None:
            link.transcript = Transcript(self.config.transcript_dir, session.number, address)
        self.sessions.add(session)
        self.per_address[address] = self.per_address.get(address, 0) + 1
        try:
            async with trio.open_nursery() as nursery:
                link.cancel_scope = nursery.cancel_scope
                nursery.start_soon(self.loops.write_loop, link, stream)
                nursery.start_soon(self.loops.hello_deadline, link)
                if greeted is None:
                    session.send(self.welcome())
                else:  # welcomed at the front door: its hello is read here
                    session.conn.greeted()
                    if link.transcript is not None:
                        link.transcript.sent(greeted.welcome)
                    session.conn.receive_data(greeted.hello)
                await self.loops.read_loop(session, stream)
                link.finish()  # the writer flushes the queue, then the nursery ends
                nursery.cancel_scope.deadline = trio.current_time() + FLUSH_GRACE
        except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            link.lost = True  # the peer went away
        except* Exception:  # one bad connection never takes the server down
            log.exception("connection %s failed", session.name)
        finally:
            link.alive = False
            link.fd = None  # never written to again: the number may soon name another socket
            if link.transcript is not None:
                link.transcript.close()
            self._leave_address(address)
            try:
                self.reception.connection_ended(session, link)
            except Exception:  # never let one connection's end take the server down
                log.exception("cleaning up connection %s failed", session.name)
            await close_gently(stream)

    def welcome(self) -> Welcome:
        return self.config.welcome()

    def _leave_address(self, address: str) -> None:
        left = self.per_address.get(address, 1) - 1
        if left > 0:
            self.per_address[address] = left
        else:
            self.per_address.pop(address, None)

    async def _through_the_door(self, stream: trio.abc.Stream, address: str) -> bool:
        """An address connecting (and saying hello) more often than ``max_hellos_per_second``
        waits for its turn before its welcome, or is refused when that is too far off."""
        wait = self.hellos.admit(address, trio.current_time())
        if wait is None:
            self.refusals[ErrorCode.TOO_MANY_HELLOS.value] += 1
            await refuse(stream, ErrorCode.TOO_MANY_HELLOS, (
                f"more than {self.config.max_hellos_per_second:g} hellos a second from your "
                "address: wait a moment, then connect again"))
            return False
        if wait > 0:
            self.per_address[address] = self.per_address.get(address, 0) + 1  # it is open
            try:
                await trio.sleep(wait)
            finally:
                self._leave_address(address)
            if self.stage.shutting_down:
                await close_gently(stream, linger=0.2)
                return False
        return True
