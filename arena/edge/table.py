"""One table: one game's task, fed typed inputs, writing its log when the game ends.

The table owns a :class:`~arena.gameplay.driver.MatchDriver` (pure) and the clock: it feeds it
answers,
bad lines and departures from its inbox, and deadlines from trio's clock, and sends what the
driver returns to the sessions holding the seats.  A bug in a game or the driver costs this
table only: it is logged as aborted (``internal_error``) and the others go on.  A table
cancelled from outside (server shutdown) is logged as aborted too: nothing is lost.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from typing import Any

import attrs
import trio

from arena.edge.cores import Cores
from arena.edge.session import Seat, Session
from arena.gameplay.driver import PUBLIC, MatchDriver, Outgoing
from arena.gameplay.records import GameRecord
from arena.seating.policies import SeatedTable
from protocol.connection import GAME_MESSAGES
from protocol.errors import ErrorCode, PeerError
from protocol.messages import Action, Error

log = logging.getLogger("arena.server")

#: Seconds a table that needs everyone (arrival seating) waits before its game starts, so that
#: a bot that said hello and closed at once is noticed and costs the others no game.
SETTLE_SECONDS = 0.05
#: Inputs queued for one table before readers wait (back-pressure on the sending bots only).
TABLE_INBOX_LIMIT = 256
#: A table's wake-up is moved to a later deadline only when it would come before this share
#: of the time left to it (see :meth:`Table.play_now`).
LATE_ENOUGH = 0.9


def _too_early(current: float, deadline: float, now: float) -> bool:
    """Whether a wake-up at ``current`` comes too long before ``deadline`` (both after
    ``now``): then it is moved; else the table may wake once for nothing, near the end."""
    return current - now < LATE_ENOUGH * (deadline - now)


@attrs.frozen
class Answer:
    """A session answered a request."""

    session: Session
    action: Action


@attrs.frozen
class BadLine:
    """A session sent a line that is not a usable message (it may cost a try: only of a request
    already sent when the line was read, ``newest_sent``)."""

    session: Session
    error: PeerError
    newest_sent: int | None = None


@attrs.frozen
class Gone:
    """A session's connection ended: the default policy plays its seat from now on."""

    session: Session


@attrs.frozen
class Away:
    """A session's connection was lost, and its bot may come back (a reconnection)."""

    session: Session


@attrs.frozen
class Rejoin:
    """A session's bot came back on a new connection: send it the game again."""

    session: Session


@attrs.frozen
class Flush:
    """A marker: ``done`` is set once the table has handled everything the session sent
    before it (so its replies are queued before the connection closes)."""

    session: Session
    done: trio.Event


TableInput = Answer | BadLine | Gone | Away | Rejoin | Flush


class Table:
    def __init__(self, seated: SeatedTable, driver: MatchDriver,
                 sessions: Sequence[Session | None], cores: Cores | None = None) -> None:
        """``cores``: hosted bots' requests wait for a core (:mod:`arena.edge.cores`)."""
        self.seated = seated
        self.cores = cores
        self.number = driver.table
        self.driver = driver
        #: The table's seats, by number: each names the session in it (None: gone).
        self.seats = [Seat(self, number, session) for number, session in enumerate(sessions)]
        self.inbox_send, self.inbox_receive = trio.open_memory_channel[TableInput](
            TABLE_INBOX_LIMIT)
        self.started = time.monotonic()
        self.watchers: list[Session] = []  # spectators: the public view, then the full one
        self.scope = trio.CancelScope()  # cancelled to abort the game (server shutdown)
        self.abort_reason = ErrorCode.SERVER_SHUTDOWN
        #: The table did not start: a session it needed was gone (``needs_everyone``).
        self.unstarted = False
        #: A bug in the game or the driver: the game is aborted (``internal_error``).
        self.failed = False
        #: The wait for the next input while the table is idle (see :meth:`play_now`).
        self._waiting: trio.CancelScope | None = None
        #: Inputs handed to the inbox and not yet taken by the table's task (cheaper to keep
        #: than to ask the channel for its statistics at every answer).
        self._in_inbox = 0
        for seat in self.seats:
            if seat.session is not None:
                seat.session.seat = seat

    @property
    def sessions(self) -> list[Session | None]:
        """The session in each seat (None: gone)."""
        return [seat.session for seat in self.seats]

    async def put(self, item: TableInput) -> None:
        """Hand an input to the table; an answer that arrives after the game ended gets its
        ``stale_request`` notice here."""
        if self.play_now(item):
            return
        self._in_inbox += 1
        try:
            await self.inbox_send.send(item)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            self._in_inbox -= 1
            self._late(item)
        except BaseException:  # cancelled while the inbox was full: the item never went in
            self._in_inbox -= 1
            raise

    async def settle(self, session: Session, patience: float = 1.0) -> None:
        """Wait (at most ``patience`` seconds) until the table has answered every line
        ``session`` sent so far."""
        done = trio.Event()
        with trio.move_on_after(patience):
            await self.put(Flush(session, done))
            await done.wait()

    @staticmethod
    def _late(item: TableInput) -> None:
        """The reply to an input that came after the game ended: every line gets one."""
        if isinstance(item, Flush):
            item.done.set()
        elif isinstance(item, Answer):
            item.session.send(item.session.conn.notice_for_closed(item.action.id))
        elif isinstance(item, BadLine):
            item.session.send(Error(code=item.error.code.value, message=item.error.detail))

    def put_nowait(self, item: TableInput) -> bool:
        if self.play_now(item):
            return True
        try:
            self.inbox_send.send_nowait(item)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        self._in_inbox += 1
        return True

    def _someone_gone(self) -> bool:
        return any(s is not None and s.leaving and s.away_until is None
                   for s in self.sessions)

    async def run(self) -> None:
        """Play the game to its end (or abort it); never raises for what a bot does."""
        driver = self.driver
        if self.seated.needs_everyone:
            await trio.sleep(SETTLE_SECONDS)  # see connections that closed as they sat down
            if self._someone_gone():
                self.unstarted = True
                self.inbox_send.close()
                while True:
                    try:
                        self._late(self.inbox_receive.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        return
        try:
            with self.scope:
                now = trio.current_time()
                for seat, session in enumerate(self.sessions):
                    if session is None or (not session.alive and session.away_until is None):
                        driver.disconnect(seat, now)  # a table never waits for the gone
                    elif not session.alive:
                        driver.connection_lost(seat)  # it may come back
                self._dispatch(driver.start(now))
                while not driver.finished and not self.failed:
                    deadline = driver.next_deadline()
                    with trio.move_on_at(math.inf if deadline is None else deadline) as wait:
                        self._waiting = wait
                        try:
                            item = await self.inbox_receive.receive()
                        finally:
                            self._waiting = None
                        self._in_inbox -= 1
                        self._dispatch(self._feed(item))
                        continue
                    if not driver.finished and not self.failed:
                        self._dispatch(driver.expire(trio.current_time()))
        except Exception:  # a bug in a game or the driver costs this table only
            log.exception("table %s failed", self.number)
            self.failed = True
        finally:  # also when cancelled from outside: the game is logged either way
            if self.failed:
                self._abort(ErrorCode.INTERNAL_ERROR)
            if not driver.finished:
                self._abort(self.abort_reason)
            self.inbox_send.close()
            if self.cores is not None:
                self.cores.forget(self)
            self._release_watchers()
            while True:  # lines queued as the game ended are answered too
                try:
                    self._late(self.inbox_receive.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel):
                    break

    def play_now(self, item: TableInput) -> bool:
        """Handle ``item`` in the caller's task when the table is idle (waiting for its next
        input, none queued): the game is pure and synchronous, so a bot's answer is played
        and the replies are written without a switch to the table's task.  The table's wait
        is then moved to the new next deadline (or ended, when the game is over)."""
        if self._waiting is None or self._in_inbox:
            return False
        return self._play_idle(item, None)

    def play_answer(self, session: Session, action: Action) -> bool:
        """As ``play_now(Answer(session, action))``, without making the Answer."""
        if self._waiting is None or self._in_inbox:
            return False
        return self._play_idle(session, action)

    def _play_idle(self, item: TableInput | Session, action: Action | None) -> bool:
        """:meth:`play_now` of ``item`` (with ``action``: of ``Answer(item, action)``)."""
        wait = self._waiting
        self._waiting = None  # an input that comes meanwhile waits its turn in the inbox
        now = trio.current_time()
        try:
            self._dispatch(self._feed(item, now) if action is None  # type: ignore[arg-type]
                           else self._answer(item, action, now))  # type: ignore[arg-type]
        except Exception:  # as in run: a bug costs this table only
            log.exception("table %s failed", self.number)
            self.failed = True
        assert wait is not None
        self._waiting = wait
        driver = self.driver
        if driver.finished or self.failed:
            wait.cancel()
            return True
        deadline = driver.next_deadline()
        if deadline is None:
            deadline = math.inf
        current = wait.deadline
        if deadline < current or (deadline > current and _too_early(current, deadline, now)):
            # a later one too, unless the wake-up set is still close to it: else the table
            # would wake at a deadline already met, find nothing due and wait again; with
            # many tables at a few decisions a second each, that is a wake-up for every third
            # decision or so (moving it costs less); but moving it at every decision costs
            # too, while a wake-up set at 90 % of the time left is met only by a slow answer
            wait.deadline = deadline
        return True

    def sent_held(self, seat: int, request_id: int, now: float) -> None:
        """A request held back for a core goes out now: its clock starts (the table wakes at
        its deadline)."""
        self.driver.sent(seat, request_id, now)
        wait = self._waiting
        deadline = self.driver.next_deadline()
        if wait is not None and deadline is not None and deadline < wait.deadline:
            wait.deadline = deadline

    def watch(self, session: Session) -> int:
        """A spectator starts watching: the game and its public events so far, then live.
        Returns the bytes that cost (they count against its budget)."""
        if self.driver.finished:
            return 0
        self.watchers.append(session)
        self.driver.watched = True
        sent = 0
        for message in self.driver.public_view():
            sent += session.queue(message)
        session.link.push()
        return sent

    def unwatch(self, session: Session) -> None:
        if session in self.watchers:
            self.watchers.remove(session)

    def _release_watchers(self) -> None:
        """The game is over: spectators get the full view (every private event) and go."""
        if not self.watchers:
            return
        full = self.driver.full_view()
        for session in self.watchers:
            for message in full:
                session.send(message)
            if session.watching is self:
                session.watching = None
                session.idle_since = trio.current_time()
        self.watchers = []

    def release(self) -> list[Session]:
        """The game is over: the sessions still seated here leave their seats."""
        sessions = [s for s in self.sessions if s is not None]
        for session in sessions:
            session.seat = None
        return sessions

    def record(self, log_path: object) -> GameRecord:
        driver, seated = self.driver, self.seated
        result = driver.result
        return GameRecord(
            number=seated.number, game_id=driver.game_id, entrants=seated.entrants,
            names=tuple(driver.players), seed=driver.seed,
            scores=tuple(result.scores) if result else (),
            ranks=tuple(result.ranks) if result else (),
            winners=tuple(result.winners) if result else (),
            aborted=driver.aborted,
            defaults=tuple(sum(s.defaults.values()) for s in driver.stats),
            errors=tuple(s.errors for s in driver.stats),
            rounds=result.rounds if result else None,
            log_path=log_path,  # type: ignore[arg-type]
            seconds=time.monotonic() - self.started, tag=seated.tag,
            timeouts=tuple(s.defaults.get(ErrorCode.TIMEOUT.value, 0) for s in driver.stats),
            decisions=tuple(s.decisions for s in driver.stats))

    def _abort(self, reason: ErrorCode) -> None:
        try:
            self._dispatch(self.driver.abort(reason.value, trio.current_time()))
        except Exception:
            log.exception("table %s could not be aborted cleanly", self.number)

    def _answer(self, session: Session, action: Action, now: float) -> list[Outgoing]:
        """:meth:`_feed` of ``Answer(session, action)``."""
        place = session.seat
        if place is None or place.table is not self:
            return []
        return self.driver.answer(place.number, action.id, action.action, now)

    def _feed(self, item: TableInput, now: float | None = None) -> list[Outgoing]:
        if isinstance(item, Flush):
            item.done.set()
            return []
        session = item.session
        place = session.seat
        if place is None or place.table is not self:
            return []
        seat, driver = place.number, self.driver
        if now is None:
            now = trio.current_time()
        if isinstance(item, Answer):
            return driver.answer(seat, item.action.id, item.action.action, now)
        if isinstance(item, BadLine):
            return driver.bad_input(seat, item.error, now, item.newest_sent)
        if isinstance(item, Away):
            driver.connection_lost(seat)
            return []
        if isinstance(item, Rejoin):
            return driver.resync(seat, now)
        place.session = session.seat = None
        return driver.disconnect(seat, now)

    def _dispatch(self, outgoing: list[Outgoing]) -> None:
        """Send what the driver returned (each message encoded once, by the driver, whatever
        number of seats see it); each seat's connection gets its lines of the step queued in
        one call (:meth:`Session.queue_all`), a spectator's one by one; each is written once."""
        seats = self.seats
        cores = self.cores
        if cores is not None:
            cores.settle(self)
        batches: dict[Session, tuple[list[Any], list[bytes]]] = {}  # messages, lines
        watched: dict[Any, bool] = {}  # spectators' links written to; True: write now
        for seat, message, line in outgoing:
            if line is None:  # our bug (a line over the limit): skip it, log it
                log.error("could not send %s at table %s: its line is over the limit",
                          message.TYPE, self.number)
                continue
            if message.TYPE not in GAME_MESSAGES:  # our bug: a game sends only those
                log.error("could not send %s at table %s: not a game's message",
                          message.TYPE, self.number)
                continue
            if seat == PUBLIC:  # spectators (sessions, or a page's stand-in for one)
                for watcher in self.watchers:
                    if watcher.queue(message, line):
                        urgent = message.TYPE != "event" or not watcher.events_with_requests
                        watched[watcher.link] = urgent or watched.get(watcher.link, False)
                continue
            session = seats[seat].session
            if session is None:
                continue
            batch = batches.get(session)
            if batch is None:
                batches[session] = ([message], [line])
            else:
                batch[0].append(message)
                batch[1].append(line)
        for session, (messages, lines) in batches.items():
            if cores is not None and cores.hosts(session):
                if cores.send(self, session, session.seat.number if session.seat else -1,
                              messages, lines):
                    session.link.push()
                continue
            if session.queue_all(messages, lines) and (  # (only events: they wait for the
                    not session.events_with_requests  # next request of a seat that asked so)
                    or any(message.TYPE != "event" for message in messages)):
                session.link.push()
        for link, urgent in watched.items():
            if urgent:
                link.push()
