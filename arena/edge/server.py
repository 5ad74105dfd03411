"""The trio edge: the listener, and the glue between sessions, tables and a seating policy.

Everything that decides anything lives in pure modules (``protocol``, ``arena.gameplay.driver``,
``arena.seating.policies``); sessions (``arena.edge.session``) and tables (``arena.edge.table``)
move bytes and time.
This module accepts connections, reads each one, hands answers to its table, tells the seating
policy what happens (hello, idle, gone, game over, time) and starts the tables it returns.  It
never branches on which policy it runs.

- One task reads each connection and one writes it (through the session's bounded queue).
- One task runs each table, and writes the game's log when the game ends.
- Nothing a bot sends can crash the server: each connection's handler catches its own failures,
  and a table that fails is logged as aborted without touching the others.
"""

from __future__ import annotations

import functools
import gc
import itertools
import logging
import math
import os
import secrets
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.admission import HelloLimiter
from arena.edge.connections import close_gently, connection_limit, peer_address, refuse
from arena.edge.peer_process import ProcessBinding, socket_addresses
from arena.edge.serve_report import Notes
from arena.edge.session import SEND_QUEUE_BYTES, Link, Session
from arena.edge.spectators import SpectatorDesk, SpectatorRules
from arena.edge.table import Answer, Away, BadLine, Gone, Rejoin, Table, TableInput
from arena.edge.transcript import Transcript
from arena.gameplay.driver import MatchDriver, RequestCounter, notice_for_closed
from arena.gameplay.gamelog import GameLog, ensure_writable, sync_logs
from arena.gameplay.records import GameRecord
from arena.games.base import GameSpec
from arena.games.chance import secret_seed
from arena.seating.names import renamed
from arena.seating.policies import (
    Admission,
    ArrivalSeating,
    SeatedTable,
    Seating,
    SeatingStatistics,
)
from protocol.connection import ENDED, ServerConnection
from protocol.errors import ErrorCode, PeerError
from protocol.limits import MAX_LINE_BYTES, MAX_TRIES, PROTOCOL_VERSION
from protocol.messages import Action, Bye, Error, Hello, Watch, Welcome
from protocol.ratelimit import TokenBucket

log = logging.getLogger("arena.server")

#: Bytes read from a socket at a time.
RECEIVE_CHUNK = 65536
#: Reads a connection's reader makes without waiting before it gives way to other tasks.
READS_BEFORE_YIELD = 8
#: Seconds a closing connection gets to flush what is queued for it.
FLUSH_GRACE = 5.0
#: What ``bye`` says, by reason.
BYE_MESSAGES = {ErrorCode.SERVER_SHUTDOWN: "the server is stopping",
                ErrorCode.SERIES_OVER: "the series is over: thank you for playing",
                ErrorCode.EVENT_OVER: "the tournament is over: thank you for playing"}
#: Seconds running games get to be logged as aborted at shutdown.
SHUTDOWN_GRACE = 5.0
#: Connections beyond the limit that are still told why they are refused (the others are
#: closed at once); the open-file headroom (``arena.edge.connections.FILE_HEADROOM``) covers them.
REFUSAL_ROOM = 32
#: Allocations before a young-generation collection in the server commands (default 700).
GC_YOUNG_THRESHOLD = 50_000
#: Finished games' records ``arena serve`` keeps in memory (its logs keep every game).
SERVE_RECORDS_KEPT = 1000
#: Seconds between syncs of finished logs to disk (a batch in a worker thread).
LOG_SYNC_SECONDS = 0.2
#: Bytes written to a socket in one call at most when lines are queued for it.
WRITE_BURST_BYTES = 256 * 1024
#: Seconds queues get to flush ``bye`` when the stop is hurried (a second Ctrl-C).
HURRIED_FLUSH = 0.2
#: What the refusals of a seating policy say.
REFUSALS = {ErrorCode.UNKNOWN_TOKEN: "this server seats bots by token; send the token you were "
                                     "given (ARENA_TOKEN) in hello",
            ErrorCode.TOKEN_IN_USE: "that player is connected already (another connection "
                                    "holds this token and keeps its seat)",
            ErrorCode.BAD_TOKEN: "that name is registered here: send its token in hello",
            ErrorCode.TOKEN_NOT_YOURS: "that token was given to another process"}


@attrs.frozen
class ServerConfig:
    spec: GameSpec
    options: Any
    host: str = "127.0.0.1"
    port: int = 7777
    move_timeout: float = 5.0
    #: Seconds for a reaction-window decision (a special card or pass; ``is_reaction``).
    reaction_timeout: float = 1.0
    log_dir: Path = Path("arena-logs")
    compress_logs: bool = True  # .jsonl.gz; False: plain .jsonl
    seed: str | None = None
    #: Connections open at once; more are refused (``too_many_connections``).  None: the
    #: process's file limit less headroom for logs and listeners (:func:`connection_limit`).
    max_connections: int | None = None
    #: Connections open at once from one address (all of a laptop's bots share 127.0.0.1).
    max_connections_per_address: int = 256
    #: Seconds from ``welcome`` to a valid ``hello``; then ``hello_timeout`` and the end.
    hello_timeout: float = 10.0
    #: Bytes queued for a bot that does not read before it is dropped (``slow_reader``).
    max_queued_bytes: int = SEND_QUEUE_BYTES
    #: Lines a connection may send per second on average (twice as many in a burst); more
    #: get ``too_fast`` and the connection is closed.
    max_messages_per_second: float = 200.0
    #: Seconds an admitted connection may wait without a seat; then ``idle_timeout`` and the
    #: end (None: no limit).
    idle_timeout: float | None = 600.0
    #: Seconds a bot with a token whose connection was lost may take to come back (a new
    #: connection, the same token) to its seat; meanwhile its requests time out as usual.
    #: 0: no reconnection (its seat is played by the default policy at once).
    reconnect_grace: float = 30.0
    #: Seconds each seat may use beyond its decisions' limits over a game (0: no bank).
    time_bank: float = 0.0
    #: Finished games' records kept in memory, the newest (None: all, as a runner that reports
    #: every game needs; ``arena serve`` keeps a bounded number, as it may run for months).
    records_kept: int | None = None
    #: A folder for transcripts: every line each connection exchanged (None: none kept).
    transcript_dir: Path | None = None
    #: Who may watch, and how many at once (``arena.edge.spectators``).
    spectators: SpectatorRules = SpectatorRules()
    #: Connections (each says one hello) one address may open a second on average, twice as
    #: many at once; more wait for their turn before ``welcome`` (``arena.edge.admission``), or get
    #: ``too_many_hellos`` when it is too far off (None: no limit).
    max_hellos_per_second: float | None = None


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
        self.config = config
        self.binding = binding
        #: Refused hellos, by reason code (a runner fails its run on any).
        self.refusals: Counter[str] = Counter()
        self.spec = config.spec
        self.players: int = config.options.players
        self.seating: Seating = seating if seating is not None else ArrivalSeating(self.players)
        self.run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)
        # never sent, never logged: every table's seed is derived from it (secret_seed)
        self.seed = config.seed if config.seed is not None else secrets.token_hex(16)
        self._connections = itertools.count(1)
        self._tables = itertools.count(1)
        self.sessions: set[Session] = set()
        self.tables: set[Table] = set()
        self.records: list[GameRecord] = []  # the newest ``records_kept``
        self.games_finished = 0
        #: Logs are synced to disk as they are written (until serve() runs its syncer).
        self._syncing = True
        self._unsynced: list[Path] = []  # logs written and not yet synced
        self._unsynced_lot = trio.lowlevel.ParkingLot()
        #: Finished games whose log could not be written yet (a full disk): retried after every
        #: game and at shutdown; what is left at the end is reported (``unwritten_logs``).
        self.unwritten_logs: list[GameLog] = []
        self.on_game_over = on_game_over
        self.all_games_done = trio.Event()
        self.port: int | None = None
        self._nursery: trio.Nursery | None = None
        self._shutting_down = False
        self._hurried_at: float | None = None  # when a second Ctrl-C asked to stop now
        self._deadline_changed = trio.Event()
        self.max_connections = (config.max_connections if config.max_connections is not None
                                else connection_limit())
        #: Sockets open now (serving, closing or being refused): what counts against the limit.
        self.open_streams = 0
        #: Sessions whose connection was lost, by token, until they come back or their grace
        #: ends (``reconnect_grace``).
        self.away: dict[str, Session] = {}
        self.per_address: dict[str, int] = {}
        #: Told of each connection, departure and table (``arena serve``'s operator report).
        self.notes: Notes | None = None
        self.spectators = SpectatorDesk(config.spectators)
        self.hellos = HelloLimiter(config.max_hellos_per_second)

    def statistics(self) -> ServerStatistics:
        return ServerStatistics(connections=len(self.sessions), tables_running=len(self.tables),
                                games_finished=self.games_finished,
                                seating=self.seating.statistics())

    # -- running --

    async def serve(self, listen: bool = True, *,
                    task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until cancelled or :meth:`shutdown`; reports the port bound.
        With ``listen=False`` nothing listens: connections come in through
        :meth:`handle_stream` (tests use in-memory streams)."""
        ensure_writable(self.config.log_dir)  # never host games whose logs would be lost
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            if listen:
                listeners = await nursery.start(functools.partial(
                    trio.serve_tcp, self.handle_stream, self.config.port,
                    host=self.config.host, handler_nursery=nursery))
                self.port = listeners[0].socket.getsockname()[1]
            nursery.start_soon(self._seating_clock)
            self._syncing = False
            nursery.start_soon(self._sync_logs)
            if self.config.idle_timeout is not None:
                nursery.start_soon(self._idle_sweeper, self.config.idle_timeout)
            self._seat(self.seating.start(trio.current_time()))
            task_status.started(self.port)
            await trio.sleep_forever()  # until shutdown() cancels the nursery

    async def shutdown(self, reason: ErrorCode = ErrorCode.SERVER_SHUTDOWN) -> None:
        """Stop cleanly: abort running games (each is logged as aborted), say bye to every
        bot, give queues a moment to flush, then stop serving."""
        if self._shutting_down:
            return
        self._shutting_down = True
        for table in list(self.tables):
            table.scope.cancel()
        with trio.move_on_after(SHUTDOWN_GRACE):
            while self.tables and self._hurried_at is None:
                await trio.sleep(0.01)
        for session in list(self.sessions):
            session.finish(Bye(reason=reason.value, message=BYE_MESSAGES.get(reason)))
        deadline = trio.current_time() + FLUSH_GRACE
        while self.sessions and trio.current_time() < deadline:
            if self._hurried_at is not None:
                deadline = min(deadline, self._hurried_at + HURRIED_FLUSH)
            await trio.sleep(0.01)
        self.write_logs()  # a last try for logs a full disk held back
        for game_log in self.unwritten_logs:  # lost: their parts must not keep the disk full
            game_log.discard()
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()

    def write_logs(self) -> dict[int, Path]:
        """Write every finished game's log not written yet; returns where each went (by the
        log's id).  A log that cannot be written now stays queued (never half written)."""
        written: dict[int, Path] = {}
        waiting = []
        for game_log in self.unwritten_logs:
            try:
                written[id(game_log)] = game_log.write(self.config.log_dir,
                                                       sync=self._syncing)
            except Exception as exc:
                if game_log.write_failure is None:  # one line per log, not one per retry
                    game_log.write_failure = (exc.strerror if isinstance(exc, OSError)
                                              else None) or repr(exc)
                    log.warning("game log %s could not be written to %s: %s; it is kept and "
                                "tried again after the next game", game_log.name,
                                self.config.log_dir, game_log.write_failure,
                                exc_info=not isinstance(exc, OSError))  # else: our bug
                waiting.append(game_log)
        self.unwritten_logs = waiting
        if not self._syncing and written:
            self._unsynced.extend(written.values())
            self._unsynced_lot.unpark_all()
        return written

    async def _sync_logs(self) -> None:
        """Sync finished logs to disk in a worker thread, a batch every
        :data:`LOG_SYNC_SECONDS` (a file's sync takes milliseconds that no table should wait
        for); at the end, whatever is left is synced before the server returns."""
        try:
            while True:
                while not self._unsynced:
                    await self._unsynced_lot.park()
                await trio.sleep(LOG_SYNC_SECONDS)
                batch, self._unsynced = self._unsynced, []
                await trio.to_thread.run_sync(sync_logs, batch)
        finally:
            self._syncing = True  # from now on every log is synced as it is written
            sync_logs(self._unsynced)
            self._unsynced = []

    def hurry(self) -> None:
        """Stop now (a second Ctrl-C): no more waiting for games and queues; the running games
        are still logged as aborted and every bot is still sent ``bye``."""
        if self._hurried_at is None:
            self._hurried_at = trio.current_time()

    def withdraw(self, token: str) -> None:
        """The bot with this token will not come (its process ended): stop waiting for it."""
        session = self.away.get(token)
        if session is not None:
            self._end_absence(session)
        self._seat(self.seating.withdraw(token, trio.current_time()))

    # -- connections --

    async def handle_stream(self, stream: trio.abc.Stream, *,
                            bound_token: str | None = None) -> None:
        """Serve one connection to its end; never raises for anything the peer does.
        ``bound_token``: the connection is the server's own pipe to the bot given that token
        (``arena match --stdio``), which then needs to send none."""
        self.open_streams += 1  # every open socket counts, closing and refused ones too
        try:
            await self._handle(stream, bound_token)
        finally:
            self.open_streams -= 1

    async def _handle(self, stream: trio.abc.Stream, bound_token: str | None) -> None:
        address = peer_address(stream)
        if self._shutting_down or self.open_streams > self.max_connections + REFUSAL_ROOM:
            # past the room kept for polite refusals: close at once, so that the files kept
            # for logs stay free whatever floods in
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return
        if (self.open_streams > self.max_connections
                or self.per_address.get(address, 0) >= self.config.max_connections_per_address):
            await refuse(stream, ErrorCode.TOO_MANY_CONNECTIONS,
                         f"this server holds {self.max_connections} connections at most, "
                         f"{self.config.max_connections_per_address} from one address")
            return
        if bound_token is None and not await self._through_the_door(stream, address):
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
                nursery.start_soon(self._write_loop, link, stream)
                nursery.start_soon(self._hello_deadline, link)
                session.send(Welcome(
                    protocol=PROTOCOL_VERSION, server="arena", game=self.spec.name,
                    players=self.players,
                    limits={"max_line_bytes": MAX_LINE_BYTES, "max_tries": MAX_TRIES,
                            "move_timeout_ms": round(self.config.move_timeout * 1000),
                            "reaction_timeout_ms": round(self.config.reaction_timeout * 1000),
                            "hello_timeout_ms": round(self.config.hello_timeout * 1000),
                            "max_messages_per_second": self.config.max_messages_per_second,
                            "idle_timeout_ms": (None if self.config.idle_timeout is None
                                                else round(self.config.idle_timeout * 1000)),
                            "max_queued_bytes": self.config.max_queued_bytes,
                            "reconnect_grace_ms": round(self.config.reconnect_grace * 1000),
                            "time_bank_ms": round(self.config.time_bank * 1000)}))
                await self._read_loop(session, stream)
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
            left = self.per_address.get(address, 1) - 1
            if left > 0:
                self.per_address[address] = left
            else:
                self.per_address.pop(address, None)
            try:
                self._connection_ended(session, link)
            except Exception:  # never let one connection's end take the server down
                log.exception("cleaning up connection %s failed", session.name)
            await close_gently(stream)

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
                left = self.per_address.get(address, 1) - 1
                if left > 0:
                    self.per_address[address] = left
                else:
                    self.per_address.pop(address, None)
            if self._shutting_down:
                await close_gently(stream, linger=0.2)
                return False
        return True

    def _connection_ended(self, session: Session, link: Link) -> None:
        owner = link.owner if link.owner is not None else session
        self.sessions.discard(session)
        if owner.link is link:  # this connection still speaks for its bot
            self.sessions.discard(owner)
            if self._may_come_back(owner):
                self._await_return(owner)
            else:
                self._session_gone(owner)

    # -- reconnection: a session whose connection was lost waits for its bot to come back --

    def _may_come_back(self, session: Session) -> bool:
        return (session.link.lost and session.admitted and session.token is not None
                and self.config.reconnect_grace > 0 and not self._shutting_down)

    def _await_return(self, session: Session) -> None:
        assert session.token is not None
        session.away_until = trio.current_time() + self.config.reconnect_grace
        self.away[session.token] = session
        if session.table is not None:
            self._put_for_table(session.table, Away(session))
        assert self._nursery is not None
        self._nursery.start_soon(self._grace_ends, session, session.link)

    async def _grace_ends(self, session: Session, link: Link) -> None:
        if session.away_until is None:  # its absence ended already (withdrawn)
            return
        await trio.sleep_until(session.away_until)
        if session.link is link and session.away_until is not None:  # not back in time
            self._end_absence(session)

    def _end_absence(self, session: Session) -> None:
        """The bot will not come back: its seat goes to the default policy."""
        if session.token is not None:
            self.away.pop(session.token, None)
        session.away_until = None
        self._session_gone(session)

    def _come_back(self, session: Session, returning: Session) -> Session:
        """``session``'s hello carried the token of ``returning``, which is away: the bot is
        back.  Its session (seat, request counter) now speaks through the new connection."""
        assert returning.token is not None
        del self.away[returning.token]
        self.sessions.discard(session)
        returning.rebind(session.link)
        self.sessions.add(returning)
        log.info("%s is back (%s)", returning.name, returning.address)
        if returning.table is not None:
            self._put_for_table(returning.table, Rejoin(returning))
        else:
            returning.idle_since = trio.current_time()
            self._seat(self.seating.ready(returning, trio.current_time()))
        return returning

    def _put_for_table(self, table: Table, item: TableInput) -> None:
        if not table.put_nowait(item):
            try:
                assert self._nursery is not None
                self._nursery.start_soon(table.put, item)
            except RuntimeError:  # the server itself is gone
                pass

    async def _idle_sweeper(self, limit: float) -> None:
        """Close connections that have waited longer than ``limit`` without a seat."""
        while True:
            await trio.sleep(min(limit / 4, 5.0))
            now = trio.current_time()
            for session in list(self.sessions):
                since = session.idle_since
                if since is not None and session.idle and now - since > limit:
                    session.send(Error(code=ErrorCode.IDLE_TIMEOUT.value, fatal=True,
                                       message=f"no seat for you within {limit:g} s"))
                    session.conn.close()
                    session.finish()

    async def _hello_deadline(self, link: Link) -> None:
        """A connection that has not said a valid hello in time is closed."""
        await trio.sleep(self.config.hello_timeout)
        session = link.owner
        if session is not None and not session.admitted and link.alive and not link.closing:
            session.send(Error(code=ErrorCode.HELLO_TIMEOUT.value, fatal=True,
                               message=f"no valid hello within {self.config.hello_timeout:g} s"))
            link.conn.close()
            link.finish()

    @staticmethod
    async def _write_loop(link: Link, stream: trio.abc.Stream) -> None:
        """Write what the link could not write at once, a burst at a time (see
        :class:`~arena.edge.session.Link`); when it is finished and flushed, the connection ends."""
        await link.write_all(stream, WRITE_BURST_BYTES)
        if link.cancel_scope is not None:
            link.cancel_scope.cancel()

    async def _read_loop(self, session: Session, stream: trio.abc.Stream) -> None:
        link = session.link
        conn = link.conn
        bucket = TokenBucket(self.config.max_messages_per_second)
        while link.alive:
            event = conn.next_event()
            if event is None:
                try:
                    data = await self._receive(link, stream)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    data = b""
                if not data:
                    link.lost = True
                conn.receive_data(data)
                continue
            if event is ENDED:
                await self._settle(session)
                return
            if link.transcript is not None:
                link.transcript.received(conn.last_line, MAX_LINE_BYTES)
            if self._first_answer(session, event):
                pass  # a bot answers as fast as it is asked: only other lines are rationed
            elif not bucket.allow(trio.current_time()):
                await self._settle(session)
                session.send(Error(code=ErrorCode.TOO_FAST.value, fatal=True, message=(
                    f"more than {self.config.max_messages_per_second:g} lines a second")))
                conn.close()
                return
            if isinstance(event, PeerError):
                if event.fatal:
                    await self._settle(session)
                await self._peer_error(session, event)
                if event.fatal:
                    return
            elif isinstance(event, Hello):
                session = self._hello(session, event)
                if link.transcript is not None and session.admitted:
                    link.transcript.named(session.name)
            elif isinstance(event, Action):
                await self._action(session, event)
            elif isinstance(event, Watch):
                if not self._watch(session, event, bucket):
                    conn.close()
                    return
            elif isinstance(event, Bye):
                await self._settle(session)
                return

    @staticmethod
    async def _receive(link: Link, stream: trio.abc.Stream) -> bytes:
        """The next bytes from the peer (b"": it closed).  From a socket they are read
        directly when they are there, and trio is asked only to wait for more (its
        ``receive_some`` also gives way to other tasks after every read it makes); to stay
        fair, a reader that keeps finding data gives way every :data:`READS_BEFORE_YIELD`."""
        fd = link.fd
        if fd is None:
            return bytes(await stream.receive_some(RECEIVE_CHUNK))
        link.reads_in_a_row += 1
        if link.reads_in_a_row >= READS_BEFORE_YIELD:
            link.reads_in_a_row = 0
            await trio.lowlevel.checkpoint()
        while True:
            try:
                return os.read(fd, RECEIVE_CHUNK)
            except BlockingIOError:
                link.reads_in_a_row = 0
                await trio.lowlevel.wait_readable(fd)

    @staticmethod
    def _first_answer(session: Session, event: Any) -> bool:
        """``event`` is the first answer to the newest request sent to the session's bot
        (which the message rate limit does not count)."""
        if not isinstance(event, Action) or event.id != session.requests.newest:
            return False
        if session.answered_id == event.id:
            return False
        session.answered_id = event.id
        return True

    @staticmethod
    async def _settle(session: Session) -> None:
        """Before a connection's last words: its table answers every line it sent first."""
        session.link.ending = True
        if session.table is not None:
            await session.table.settle(session)

    async def _peer_error(self, session: Session, error: PeerError) -> None:
        table = session.table
        if table is not None and not error.fatal:
            await table.put(BadLine(session, error, session.requests.newest))
        else:
            session.send(Error(code=error.code.value, message=error.detail, fatal=error.fatal))

    def _hello(self, session: Session, hello: Hello) -> Session:
        """Admit (or refuse) a connection; returns the session it speaks for from now on: a
        bot coming back with its token gets its own session back."""
        if self._shutting_down:
            session.finish(Bye(reason=ErrorCode.SERVER_SHUTDOWN.value,
                               message=BYE_MESSAGES[ErrorCode.SERVER_SHUTDOWN]))
            return session
        if hello.role == "spectator":
            refusal = self.spectators.admit(session, hello.name.strip(), hello.token)
            if refusal is not None:
                self._refuse(session, refusal)
                return session
            session.name = hello.name.strip()
            session.admitted = session.spectator = True  # admitted to watch, never seated
            session.idle_since = trio.current_time()  # the idle limit holds while not watching
            return session
        token = session.bound_token or hello.token
        returning = self.away.get(token) if token is not None else None
        if token is not None and not self._process_may_use(session, token):
            admission = Admission(refusal=ErrorCode.TOKEN_NOT_YOURS)
        elif returning is not None:
            return self._come_back(session, returning)
        else:
            admission = self.seating.admit(session, hello.name.strip(), token)
        refusal = admission.refusal
        if refusal is not None:
            self._refuse(session, Error(code=refusal.value, fatal=True,
                                        message=REFUSALS.get(refusal, "refused")),
                         said=hello.name.strip())
            return session
        session.name = admission.name or hello.name.strip()
        session.token = token if admission.token_checked else None
        session.events_with_requests = hello.events == "with_requests"
        session.admitted = True
        log.info("%s connected (%s)", session.name, session.address)
        if self.notes is not None:
            self.notes.connected(session.number, session.name)
        if session.name != hello.name.strip():
            session.send(renamed(hello.name.strip(), session.name))
        session.idle_since = trio.current_time()
        self._seat(self.seating.ready(session, trio.current_time()))
        return session

    def _refuse(self, session: Session, error: Error, said: str | None = None) -> None:
        """Refuse a hello (``said``: the name it said): the error, then the connection is
        closed."""
        self.refusals[error.code] += 1
        log.warning("refused %r (%s): %s", session.name if said is None else said,
                    session.address, error.code)
        session.send(error)
        session.conn.close()
        session.finish()

    def _process_may_use(self, session: Session, token: str) -> bool:
        if self.binding is None or session.bound_token is not None:
            return True
        peer, local = session.sockets if session.sockets is not None else (None, None)
        return self.binding.allows(token, peer, local)

    async def _action(self, session: Session, action: Action) -> None:
        if session.table is not None:
            await session.table.put(Answer(session, action))
            return
        session.send(notice_for_closed(session.requests, action.id))

    def _watch(self, session: Session, watch: Watch, budget: TokenBucket) -> bool:
        """A spectator asks which tables run, or starts watching one (False: it is over its
        limits and was told so: close it)."""
        if not session.spectator:
            session.send(Error(code=ErrorCode.UNEXPECTED_MESSAGE.value,
                               message="watch is for spectators (hello with role spectator)"))
            return True
        return self.spectators.watch(session, watch, self.tables, budget, trio.current_time())

    def _session_gone(self, session: Session) -> None:
        if session.watching is not None:
            session.watching.unwatch(session)
            session.watching = None
        if session.spectator:
            self.spectators.gone(session)
            return
        if session.table is not None:
            self._put_for_table(session.table, Gone(session))
        if session.admitted:
            log.info("%s left (%s)", session.name, session.address)
            if self.notes is not None:
                self.notes.left(session.number, session.name)
            self._seat(self.seating.gone(session, trio.current_time()))

    # -- seating and tables --

    async def _seating_clock(self) -> None:
        """Call the seating policy's ``expire`` at its deadlines."""
        while True:
            deadline = self.seating.next_deadline()
            with trio.move_on_at(math.inf if deadline is None else deadline):
                await self._deadline_changed.wait()
                self._deadline_changed = trio.Event()
                continue
            self._seat(self.seating.expire(trio.current_time()))

    def _seat(self, tables: list[SeatedTable]) -> None:
        """Start the tables a seating policy returned; notice when it will start no more."""
        for seated in tables:
            self._start_table(seated)
        self._deadline_changed.set()
        if self.seating.statistics().done:
            self.all_games_done.set()

    def _start_table(self, seated: SeatedTable) -> None:
        if self._shutting_down:
            return
        number = next(self._tables)
        sessions: list[Session | None] = list(seated.sessions)
        driver = MatchDriver(
            self.spec, seated.options if seated.options is not None else self.config.options,
            seated.seed if seated.seed is not None else secret_seed(self.seed, "table", number),
            list(seated.names), game_id=f"{self.run_id}-t{number}", table=number,
            move_timeout=self.config.move_timeout, reaction_timeout=self.config.reaction_timeout,
            time_bank=self.config.time_bank,
            counters=[s.requests if s is not None else RequestCounter() for s in sessions],
            started_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        # a long game's log waits on disk
        driver.log.spool_to(self.config.log_dir, compress=self.config.compress_logs)
        table = Table(seated, driver, sessions)
        log.info("table %d: %s", number, ", ".join(seated.names))
        if self.notes is not None:
            self.notes.seated(number, [s.number for s in sessions if s is not None],
                              seated.names)
        for session in sessions:
            if session is not None:
                session.idle_since = None
        self.tables.add(table)
        assert self._nursery is not None, "serve() is not running"
        self._nursery.start_soon(self._run_table, table)

    async def _run_table(self, table: Table) -> None:
        try:
            await table.run()
        finally:
            self._end_table(table)

    def _end_table(self, table: Table) -> None:
        self.tables.discard(table)
        if table.unstarted:  # a seated bot was gone before the game began: no game, no log
            log.info("table %s did not start: a seat's connection was gone", table.number)
            self._back_to_seating(table, table.release())
            return
        self.unwritten_logs.append(table.driver.log)
        log_path = self.write_logs().get(id(table.driver.log))
        record = table.record(log_path)
        self.records.append(record)
        self.games_finished += 1
        if self.config.records_kept is not None and len(self.records) > self.config.records_kept:
            del self.records[0]
        if self.on_game_over is not None:
            try:
                self.on_game_over(record)
            except Exception:
                log.exception("on_game_over failed for table %s", table.number)
        self._back_to_seating(table, table.release())

    def _back_to_seating(self, table: Table, sessions: list[Session]) -> None:
        """A table is over: its bots still here are ready for the next."""
        if self._shutting_down:
            return
        now = trio.current_time()
        for session in sessions:
            session.idle_since = now
        if table.unstarted:  # the ones still here keep their place at the front
            self._seat(self.seating.unstarted(table.seated,
                                              [s for s in sessions if s.idle], now))
            return
        tables = self.seating.game_over(table.seated, now)
        for session in sessions:
            if session.idle:
                tables += self.seating.ready(session, now)
        self._seat(tables)

