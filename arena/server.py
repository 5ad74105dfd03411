"""The trio edge: listeners, sessions, tables, clocks.

Everything that decides anything lives in pure modules (``protocol``, ``arena.match``,
``arena.lobby``); this module only moves bytes and time between them.

- One task reads each connection and one writes it.  Outgoing messages go through a bounded
  queue per connection, so a bot that stops reading never blocks a table: when its queue is full
  it is disconnected (``slow_reader``) and the default policy plays its seat.
- One task runs each table: it feeds answers, bad lines, disconnects and deadlines to its
  :class:`~arena.match.MatchDriver` and writes the game's log file when the game ends.
- A *session* (a connection, with its name and token) is kept apart from a *seat* (a place at a
  table), so a seat outlives a bot that leaves it.
- Nothing a bot sends can crash the server: each connection's handler catches its own failures,
  and a table that fails is logged as aborted without touching the others.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.games.base import GameSpec
from arena.games.chance import secret_seed
from arena.lobby import ArrivalLobby, PlannedGame, RosterEntry, RosterLobby
from arena.match import MatchDriver, RequestCounter, notice_for_closed
from protocol.connection import ENDED, ServerConnection
from protocol.errors import ErrorCode, PeerError
from protocol.limits import MAX_LINE_BYTES, MAX_TRIES, PROTOCOL_VERSION
from protocol.messages import Action, Bye, Error, Hello, Welcome

log = logging.getLogger("arena.server")

#: Messages queued for one connection before it counts as not reading (``slow_reader``).
SEND_QUEUE_LIMIT = 4096
#: Answers queued for one table before readers wait (back-pressure on the sending bots only).
TABLE_INBOX_LIMIT = 256
#: Bytes read from a socket at a time.
RECEIVE_CHUNK = 65536
#: Seconds a closing connection gets to flush what is queued for it.
FLUSH_GRACE = 2.0
#: What ``bye`` says, by reason.
BYE_MESSAGES = {ErrorCode.SERVER_SHUTDOWN: "the server is stopping",
                ErrorCode.SERIES_OVER: "the series is over: thank you for playing"}
#: Seconds running games get to be logged as aborted at shutdown.
SHUTDOWN_GRACE = 5.0


@attrs.frozen
class ServerConfig:
    spec: GameSpec
    options: Any
    host: str = "127.0.0.1"
    port: int = 7777
    move_timeout: float = 5.0
    log_dir: Path = Path("arena-logs")
    seed: str | None = None
    roster: tuple[RosterEntry, ...] | None = None  # None: seat in arrival order
    games: int = 1  # with a roster: how many games to play


@attrs.define
class GameRecord:
    """A finished (or aborted) game, as the match runner reports it."""

    number: int
    game_id: str
    bots: tuple[int | None, ...]  # roster index per seat (None without a roster)
    names: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    aborted: str | None
    defaults: tuple[int, ...]
    errors: tuple[int, ...]
    rounds: int | None
    log_path: Path | None
    seconds: float


class Session:
    """One connection: who it is, its outgoing queue, and where it sits."""

    def __init__(self, number: int, conn: ServerConnection) -> None:
        self.number = number
        self.conn = conn
        self.name = f"conn{number}"
        self.token: str | None = None
        self.roster_index: int | None = None
        self.table: Table | None = None
        self.seat: int | None = None
        self.requests = RequestCounter()
        self.alive = True
        self.closing = False
        self._out_send, self.out_receive = trio.open_memory_channel[bytes](SEND_QUEUE_LIMIT)
        self.cancel_scope: trio.CancelScope | None = None

    def send(self, message: Any) -> None:
        """Queue a message; a full queue means the bot is not reading: drop the connection."""
        if not self.alive or self.closing:
            return
        try:
            data = self.conn.send(message)
        except Exception:  # our bug (a message too long to send, say): skip it, log it
            log.exception("could not send %s to %s", message.TYPE, self.name)
            return
        try:
            self._out_send.send_nowait(data)
        except trio.WouldBlock:
            self.drop(ErrorCode.SLOW_READER)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            self.alive = False

    def finish(self, last: Any = None) -> None:
        """Send ``last`` (if any), then close once the queue is flushed."""
        if last is not None:
            self.send(last)
        self.closing = True
        self._out_send.close()

    def drop(self, code: ErrorCode) -> None:
        """Close now, without flushing: the bot is misbehaving."""
        log.info("dropping %s: %s", self.name, code.value)
        self.alive = False
        self._out_send.close()
        if self.cancel_scope is not None:
            self.cancel_scope.cancel()


class Table:
    def __init__(self, number: int, driver: MatchDriver, sessions: list[Session | None],
                 planned: PlannedGame | None) -> None:
        self.number = number
        self.driver = driver
        self.sessions = sessions
        self.planned = planned
        self.inbox_send, self.inbox_receive = trio.open_memory_channel[tuple](TABLE_INBOX_LIMIT)
        self.started = time.monotonic()
        self.scope = trio.CancelScope()  # cancelled to abort the game (server shutdown)
        self.abort_reason = ErrorCode.SERVER_SHUTDOWN


class ArenaServer:
    def __init__(self, config: ServerConfig, *,
                 on_game_over: Callable[[GameRecord], None] | None = None) -> None:
        self.config = config
        self.spec = config.spec
        self.players: int = config.options.players
        self.run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)
        # never sent, never logged: every table's seed is derived from it (secret_seed)
        self.seed = config.seed if config.seed is not None else secrets.token_hex(16)
        self._connections = itertools.count(1)
        self._tables = itertools.count(1)
        self.sessions: set[Session] = set()
        self.tables: set[Table] = set()
        self.records: list[GameRecord] = []
        self.on_game_over = on_game_over
        self.roster = (RosterLobby(list(config.roster), config.games)
                       if config.roster is not None else None)
        self.lobby = ArrivalLobby(self.players)
        self.all_games_done = trio.Event()
        self.port: int | None = None
        self._nursery: trio.Nursery | None = None
        self._shutting_down = False

    # -- running --

    async def serve(self, listen: bool = True, *,
                    task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until cancelled or :meth:`shutdown`; reports the port bound.
        With ``listen=False`` nothing listens: connections come in through
        :meth:`handle_stream` (tests use in-memory streams)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            if listen:
                listeners = await nursery.start(functools.partial(
                    trio.serve_tcp, self.handle_stream, self.config.port,
                    host=self.config.host, handler_nursery=nursery))
                self.port = listeners[0].socket.getsockname()[1]
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
            while self.tables:
                await trio.sleep(0.01)
        for session in list(self.sessions):
            session.finish(Bye(reason=reason.value, message=BYE_MESSAGES.get(reason)))
        with trio.move_on_after(FLUSH_GRACE):
            while self.sessions:
                await trio.sleep(0.01)
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()

    # -- connections --

    async def handle_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one connection to its end; never raises for anything the peer does."""
        session = Session(next(self._connections),
                          ServerConnection(game=self.spec.name, max_line=MAX_LINE_BYTES))
        if self._shutting_down:
            await stream.aclose()
            return
        self.sessions.add(session)
        try:
            async with trio.open_nursery() as nursery:
                session.cancel_scope = nursery.cancel_scope
                nursery.start_soon(self._write_loop, session, stream)
                session.send(Welcome(
                    protocol=PROTOCOL_VERSION, server="arena", game=self.spec.name,
                    players=self.players,
                    limits={"max_line_bytes": MAX_LINE_BYTES, "max_tries": MAX_TRIES,
                            "move_timeout_ms": round(self.config.move_timeout * 1000)}))
                await self._read_loop(session, stream)
                session.finish()  # the writer flushes the queue, then the nursery ends
                nursery.cancel_scope.deadline = trio.current_time() + FLUSH_GRACE
        except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the peer went away
        except* Exception:  # one bad connection never takes the server down
            log.exception("connection %s failed", session.name)
        finally:
            session.alive = False
            self.sessions.discard(session)
            self._session_gone(session)
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                await stream.aclose()

    async def _write_loop(self, session: Session, stream: trio.abc.Stream) -> None:
        async for data in session.out_receive:
            await stream.send_all(data)
        # the queue was closed and everything in it is sent: the connection is over
        if session.cancel_scope is not None:
            session.cancel_scope.cancel()

    async def _read_loop(self, session: Session, stream: trio.abc.Stream) -> None:
        conn = session.conn
        while session.alive:
            event = conn.next_event()
            if event is None:
                try:
                    data = await stream.receive_some(RECEIVE_CHUNK)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    data = b""
                conn.receive_data(bytes(data))
                continue
            if event is ENDED:
                return
            if isinstance(event, PeerError):
                await self._peer_error(session, event)
                if event.fatal:
                    return
            elif isinstance(event, Hello):
                self._hello(session, event)
            elif isinstance(event, Action):
                await self._action(session, event)
            elif isinstance(event, Bye):
                return

    async def _peer_error(self, session: Session, error: PeerError) -> None:
        table = session.table
        if table is not None and not error.fatal:
            await self._to_table(session, ("bad", session, error))
        else:
            session.send(Error(code=error.code.value, message=error.detail, fatal=error.fatal))

    def _hello(self, session: Session, hello: Hello) -> None:
        session.name = hello.name.strip()
        session.token = hello.token
        if self._shutting_down:
            session.finish(Bye(reason=ErrorCode.SERVER_SHUTDOWN.value,
                               message=BYE_MESSAGES[ErrorCode.SERVER_SHUTDOWN]))
            return
        if self.roster is not None:
            index, refusal = self.roster.admit(hello.token, session)
            if refusal is not None:
                session.send(Error(code=refusal.value, fatal=True,
                                   message="this server seats bots by token; send the token "
                                   "you were given (ARENA_TOKEN) in hello"
                                   if refusal is ErrorCode.UNKNOWN_TOKEN
                                   else "another connection already uses that token"))
                session.conn.close()
                session.finish()
                return
            assert index is not None
            session.roster_index = index
            session.name = self.roster.roster[index].name
            self._maybe_start(self.roster.join(index, session))
        else:
            for table_sessions in self.lobby.join(session):
                self._start_table(table_sessions, None)

    async def _action(self, session: Session, action: Action) -> None:
        if session.table is not None:
            await self._to_table(session, ("answer", session, action))
            return
        session.send(notice_for_closed(session.requests, action.id))

    async def _to_table(self, session: Session, item: tuple) -> None:
        table = session.table
        assert table is not None
        try:
            await table.inbox_send.send(item)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            if item[0] == "answer":  # the game ended while the answer was on its way
                session.send(notice_for_closed(session.requests, item[2].id))

    def _session_gone(self, session: Session) -> None:
        if session.table is not None:
            try:
                session.table.inbox_send.send_nowait(("gone", session, None))
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                try:
                    assert self._nursery is not None
                    self._nursery.start_soon(self._late_gone, session.table, session)
                except RuntimeError:  # the server itself is gone
                    pass
        if self.roster is not None and session.roster_index is not None:
            self._maybe_start(self.roster.gone(session.roster_index))
        else:
            self.lobby.leave(session)

    async def _late_gone(self, table: Table, session: Session) -> None:
        try:
            await table.inbox_send.send(("gone", session, None))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    # -- tables --

    def _maybe_start(self, planned: PlannedGame | None) -> None:
        roster = self.roster
        if roster is None:
            return
        if planned is None:
            if roster.done:
                self.all_games_done.set()
            return
        sessions = [roster.session_of(index) for index in planned.bots]
        self._start_table(sessions, planned)

    def forget_bot(self, index: int) -> None:
        """With a roster: the bot's process ended; do not wait for it any more."""
        if self.roster is not None and self.roster.session_of(index) is None:
            self._maybe_start(self.roster.gone(index))

    def give_up_waiting(self) -> None:
        """With a roster: start without the bots that have not connected yet."""
        if self.roster is not None:
            self._maybe_start(self.roster.give_up_waiting())

    def _start_table(self, sessions: list[Session | None], planned: PlannedGame | None) -> None:
        if self._shutting_down:
            return
        number = next(self._tables)
        game_id = f"{self.run_id}-t{number}"
        if planned is not None and self.roster is not None:
            names = [self.roster.roster[i].name for i in planned.bots]
        else:
            names = [s.name if s is not None else "(absent)" for s in sessions]
        driver = MatchDriver(
            self.spec, self.config.options, secret_seed(self.seed, "table", number), names,
            game_id=game_id, table=number, move_timeout=self.config.move_timeout,
            counters=[s.requests if s is not None else RequestCounter() for s in sessions],
            started_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        table = Table(number, driver, sessions, planned)
        for seat, session in enumerate(sessions):
            if session is not None:
                session.table, session.seat = table, seat
        self.tables.add(table)
        assert self._nursery is not None, "serve() is not running"
        self._nursery.start_soon(self._run_table, table)

    async def _run_table(self, table: Table) -> None:
        driver = table.driver
        try:
            with table.scope:
                now = trio.current_time()
                for seat, session in enumerate(table.sessions):
                    if session is None or not session.alive:
                        driver.disconnect(seat, now)
                self._dispatch(table, driver.start(now))
                while not driver.finished:
                    deadline = driver.next_deadline()
                    with trio.move_on_at(math.inf if deadline is None else deadline):
                        kind, session, payload = await table.inbox_receive.receive()
                        self._dispatch(table, self._table_input(table, kind, session, payload))
                        continue
                    self._dispatch(table, driver.expire(trio.current_time()))
        except Exception:  # a bug in a game or the driver costs this table only
            log.exception("table %s failed", table.number)
            self._abort_table(table, ErrorCode.INTERNAL_ERROR)
        finally:  # also when cancelled from outside: the game is logged either way
            if not driver.finished:
                self._abort_table(table, table.abort_reason)
            table.inbox_send.close()
            self._end_table(table)

    def _abort_table(self, table: Table, reason: ErrorCode) -> None:
        try:
            self._dispatch(table, table.driver.abort(reason.value, trio.current_time()))
        except Exception:
            log.exception("table %s could not be aborted cleanly", table.number)

    def _table_input(self, table: Table, kind: str, session: Session | None,
                     payload: Any) -> list:
        driver = table.driver
        now = trio.current_time()
        if session is None or session.table is not table or session.seat is None:
            return []
        seat = session.seat
        if kind == "answer":
            return driver.answer(seat, payload.id, payload.action, now)
        if kind == "bad":
            return driver.bad_input(seat, payload, now)
        if kind == "gone":
            table.sessions[seat] = None
            session.table = session.seat = None
            return driver.disconnect(seat, now)
        raise ValueError(f"unknown table input {kind!r}")

    def _dispatch(self, table: Table, outgoing: list) -> None:
        for item in outgoing:
            session = table.sessions[item.seat]
            if session is not None:
                session.send(item.message)

    def _end_table(self, table: Table) -> None:
        driver = table.driver
        self.tables.discard(table)
        log_path = None
        try:
            log_path = driver.log.write(self.config.log_dir)
        except Exception:
            log.exception("could not write the log of table %s", table.number)
        record = self._record(table, log_path)
        self.records.append(record)
        if self.on_game_over is not None:
            try:
                self.on_game_over(record)
            except Exception:
                log.exception("on_game_over failed for table %s", table.number)
        sessions = [s for s in table.sessions if s is not None]
        for session in sessions:
            session.table = session.seat = None
        if self._shutting_down:
            return
        if self.roster is not None:
            self._maybe_start(self.roster.game_over())
        else:
            for session in sessions:
                if session.alive and not session.closing:
                    for table_sessions in self.lobby.join(session):
                        self._start_table(table_sessions, None)

    def _record(self, table: Table, log_path: Path | None) -> GameRecord:
        driver = table.driver
        result = driver.result
        n = len(driver.players)
        return GameRecord(
            number=table.planned.number if table.planned else table.number,
            game_id=driver.game_id,
            bots=table.planned.bots if table.planned else (None,) * n,
            names=tuple(driver.players),
            scores=tuple(result.scores) if result else (),
            ranks=tuple(result.ranks) if result else (),
            winners=tuple(result.winners) if result else (),
            aborted=driver.aborted,
            defaults=tuple(sum(s.defaults.values()) for s in driver.stats),
            errors=tuple(s.errors for s in driver.stats),
            rounds=result.rounds if result else None,
            log_path=log_path,
            seconds=time.monotonic() - table.started,
        )

