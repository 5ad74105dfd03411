"""One connection's loops: its reader (bytes in, events to the reception, the table or the
spectator desk) and its writer (what the link could not write at once).

The reader reads a socket directly when data is there and asks trio only to wait for more;
a line is decoded by the connection's protocol state machine, and an answer goes to the table
of the seat, which plays it in the reader's own task when it is idle (``Table.put``).
"""

from __future__ import annotations

import os

import trio

from arena.edge.config import ServerConfig
from arena.edge.ready import Handed, ReadySockets
from arena.edge.reception import Reception
from arena.edge.session import Link, Session
from arena.edge.table import Answer, BadLine
from arena.edge.tables import TableHall
from protocol.connection import ENDED, NEED_DATA
from protocol.errors import ErrorCode, PeerError
from protocol.limits import MAX_LINE_BYTES
from protocol.messages import Action, Bye, Error, Hello, Watch
from protocol.ratelimit import TokenBucket

#: Bytes read from a socket at a time.
RECEIVE_CHUNK = 65536
#: Reads a connection's reader makes without waiting before it gives way to other tasks.
READS_BEFORE_YIELD = 8
#: Bytes written to a socket in one call at most when lines are queued for it.
WRITE_BURST_BYTES = 256 * 1024
#: Hellos waiting for a slow check (``prepare_hello``: a bot registered before issue 29, a
#: scrypt of some 100 ms each, one at a time) at most; more are refused at once with
#: ``too_many_hellos``.  Without a bound a flood of wrong tokens for such a name piled up
#: connections (each kept open until its check), filling the server's connection limit.
MAX_SLOW_HELLOS_WAITING = 32
#: Of those, from one network address at most (one address cannot hold the queue for a name;
#: the server's own pipes, ``local``, are not a peer's address).
MAX_SLOW_HELLOS_PER_ADDRESS = 1


class ConnectionLoops:
    def __init__(self, reception: Reception, hall: TableHall) -> None:
        self.reception = reception
        self.hall = hall
        self.stage = reception.stage
        #: Hellos prepared at once in worker threads (``prepare_hello``: a registration from
        #: before issue 29, its scrypt taking 16 MB and a core for some 100 ms): one, so a
        #: flood of them leaves the other core to the games and every other hello.
        self.preparing = trio.CapacityLimiter(1)
        #: Links whose hello is being prepared: said in time, so the hello deadline spares
        #: them (the server's slowness, not theirs).
        self.checking: set[Link] = set()
        #: Where readers wait for data on their sockets (its task runs while the server
        #: serves); answers found there are played there.
        self.ready = ReadySockets(RECEIVE_CHUNK)

    @staticmethod
    async def write_loop(link: Link, stream: trio.abc.Stream) -> None:
        """Write what the link could not write at once, a burst at a time (see
        :class:`~arena.edge.session.Link`); when it is finished and flushed, the connection
        ends."""
        await link.write_all(stream, WRITE_BURST_BYTES)
        if link.cancel_scope is not None:
            link.cancel_scope.cancel()

    @property
    def config(self) -> ServerConfig:
        return self.stage.config

    async def hello_deadline(self, link: Link) -> None:
        """A connection that has not said a valid hello in time is closed."""
        limit = self.config.hello_timeout
        await trio.sleep(limit)
        session = link.owner
        if session is not None and not session.admitted and link.alive and not link.closing \
                and link not in self.checking:
            session.send(Error(code=ErrorCode.HELLO_TIMEOUT.value, fatal=True,
                               message=f"no valid hello within {limit:g} s"))
            link.conn.close()
            link.finish()

    async def read_loop(self, session: Session, stream: trio.abc.Stream) -> None:
        link = session.link
        conn = link.conn
        bucket = TokenBucket(self.config.max_messages_per_second)
        ready = self.ready
        handed: Handed = None  # an event the readers' shared task gave back (see ready.py)
        while link.alive:
            if handed is not None:
                # read, noted in the transcript and judged as an answer there: as read then
                event, first, newest = handed
                handed = None
            else:
                event = conn.next_event()
                if event is NEED_DATA:
                    if ready.running and link.fd is not None:
                        handed = await ready.wait(link, session)  # answers are played there
                        continue
                    try:
                        data = await self._receive(link, stream)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        data = b""
                    if not data:
                        link.lost = True
                    conn.receive_data(data)
                    continue
                if event is not ENDED and link.transcript is not None:
                    link.transcript.received(conn.last_line, MAX_LINE_BYTES)
                first = type(event) is Action and conn.first_answer(event)
                newest = conn.requests.newest
            if event is ENDED:
                await self._settle(session)
                return
            if first:
                # a bot answers as fast as it is asked: only other lines are rationed; it is
                # mostly played at once, in this task (no coroutine, no Answer made)
                seat = session.seat
                if seat is None or not seat.table.play_answer(session, event):
                    await self._action(session, event)
                continue
            if not bucket.allow(trio.current_time()):
                await self._settle(session)
                session.send(Error(code=ErrorCode.TOO_FAST.value, fatal=True, message=(
                    f"more than {self.config.max_messages_per_second:g} lines a second")))
                conn.close()
                return
            if isinstance(event, PeerError):
                if event.fatal:
                    await self._settle(session)
                await self._peer_error(session, event, newest)
                if event.fatal:
                    return
            elif isinstance(event, Hello):
                await self._until_bound(session, event)
                if not await self._prepare(session, event):
                    return
                session = self.reception.hello(session, event)
                if link.transcript is not None and session.admitted:
                    link.transcript.named(session.name)
            elif isinstance(event, Action):
                seat = session.seat  # mostly played at once, in this task: no coroutine
                if seat is None or not seat.table.play_now(Answer(session, event)):
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
        fair, a reader that keeps finding data gives way every :data:`READS_BEFORE_YIELD`.  A read
        that got less than it asked for emptied the socket: the next one waits for data first
        (a bot that was just answered has rarely sent more yet, and a read that finds nothing
        costs a system call and an exception)."""
        fd = link.fd
        if fd is None:
            return bytes(await stream.receive_some(RECEIVE_CHUNK))
        if link.drained:  # the last read emptied the socket: wait, do not try a read first
            link.drained = False
            link.reads_in_a_row = 0
            await trio.lowlevel.wait_readable(fd)
        else:
            link.reads_in_a_row += 1
            if link.reads_in_a_row >= READS_BEFORE_YIELD:
                link.reads_in_a_row = 0
                await trio.lowlevel.checkpoint()
        while True:
            try:
                data = os.read(fd, RECEIVE_CHUNK)
            except BlockingIOError:
                link.reads_in_a_row = 0
                await trio.lowlevel.wait_readable(fd)
                continue
            link.drained = 0 < len(data) < RECEIVE_CHUNK
            return data

    async def _until_bound(self, session: Session, hello: Hello) -> None:
        """A hello with a token the runner gave out but has not bound to its process yet
        waits for the binding (at most the hello timeout), so the process check sees it."""
        binding = self.reception.binding
        token = session.bound_token or hello.token
        if binding is not None and token is not None and binding.pending(token):
            with trio.move_on_after(self.config.hello_timeout):
                await binding.until_bound(token)

    async def _prepare(self, session: Session, hello: Hello) -> bool:
        """What ``prepare_hello`` calls slow is done in a worker thread, one at a time (the
        hello deadline waits); every other hello is checked at once by the seating.  False:
        too many wait already, and this connection was refused (``too_many_hellos``)."""
        preparer = self.config.prepare_hello
        if preparer is None or (hello.role == "spectator"
                                and self.config.spectators.checker is None):
            return True
        name = hello.name.strip()
        if not preparer.slow(name, hello.token):
            return True
        link = session.link
        mine = 0 if session.address == "local" else sum(
            1 for waiting in self.checking if waiting.address == session.address)
        if len(self.checking) >= MAX_SLOW_HELLOS_WAITING or mine >= MAX_SLOW_HELLOS_PER_ADDRESS:
            await self._settle(session)
            session.send(Error(code=ErrorCode.TOO_MANY_HELLOS.value, fatal=True, message=(
                f"{MAX_SLOW_HELLOS_WAITING} hellos (or one of your address's) wait for their "
                "token's check already (bots registered before issue 29): connect again in a "
                "moment")))
            link.conn.close()
            return False
        self.checking.add(link)
        try:
            await trio.to_thread.run_sync(preparer.prepare, name, hello.token,
                                          limiter=self.preparing)
        finally:
            self.checking.discard(link)
        return True

    @staticmethod
    async def _settle(session: Session) -> None:
        """Before a connection's last words: its table answers every line it sent first."""
        session.link.ending = True
        if session.seat is not None:
            await session.seat.table.settle(session)

    @staticmethod
    async def _peer_error(session: Session, error: PeerError, newest_sent: int) -> None:
        """``newest_sent``: the newest request id sent when the line was read (it may cost a
        try of that request only, or of an older one)."""
        seat = session.seat
        if seat is not None and not error.fatal:
            await seat.table.put(BadLine(session, error, newest_sent))
        else:
            session.send(Error(code=error.code.value, message=error.detail, fatal=error.fatal))

    @staticmethod
    async def _action(session: Session, action: Action) -> None:
        if session.seat is not None:
            await session.seat.table.put(Answer(session, action))
            return
        session.send(session.conn.notice_for_closed(action.id))

    def _watch(self, session: Session, watch: Watch, budget: TokenBucket) -> bool:
        """A spectator asks which tables run, or starts watching one (False: it is over its
        limits and was told so: close it)."""
        if not session.spectator:
            session.send(Error(code=ErrorCode.UNEXPECTED_MESSAGE.value,
                               message="watch is for spectators (hello with role spectator)"))
            return True
        return self.reception.spectators.watch(session, watch, self.hall.tables, budget,
                                               trio.current_time())
