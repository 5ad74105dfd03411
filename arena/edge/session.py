"""A bot as the server keeps it (a session: who it is, where it sits) and the connection it
speaks through (a link: its outgoing queue).

A session is kept apart from a seat: a seat outlives a bot that leaves it, and a session
outlives the games it plays.  A session is kept apart from its connection too: a bot that
reconnects with its token gets its session back on a new link, seat and all.  Outgoing messages
go through a bounded queue, so a bot that stops reading never blocks a table: when its queue is
full (in messages or in bytes) it is dropped (``slow_reader``) and the default policy plays its
seat.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Protocol

import attrs
import trio

from arena.edge.peer_process import Address
from arena.edge.transcript import Transcript
from protocol.connection import ServerConnection
from protocol.errors import ErrorCode
from protocol.requests import RequestCounter

log = logging.getLogger("arena.server")

#: Messages queued for one connection before it counts as not reading (``slow_reader``).
SEND_QUEUE_LIMIT = 4096
#: Bytes queued for one connection before it counts as not reading (``slow_reader``).
SEND_QUEUE_BYTES = 4 * 1024 * 1024


class SeatHolder(Protocol):
    """What a session needs of the table its seat is at (``arena.edge.table.Table``)."""

    number: int

    async def put(self, item: Any) -> None: ...

    def put_nowait(self, item: Any) -> bool: ...

    def play_now(self, item: Any) -> bool: ...

    def play_answer(self, session: Session, action: Any) -> bool: ...

    async def settle(self, session: Session) -> None: ...


class Watched(Protocol):
    """What a spectator needs of the table it watches."""

    def unwatch(self, session: Session) -> None: ...


@attrs.define(eq=False)
class Seat:
    """One seat at a table: the table owns it; ``session`` is the bot in it (None once that
    bot is gone for good), and that session's ``seat`` points back here while it sits."""

    table: SeatHolder
    number: int
    session: Session | None = None


class Link:
    """One connection's own state: its protocol state machine, its outgoing queue and its
    scope.  A session speaks through one link at a time; a bot that reconnects gives its
    session a new link (the seat stays where it was).

    Writing: lines are queued, then :meth:`push` sends what is queued.  When the connection is
    a socket (``fd``) and its writer task is not busy, ``push`` writes at once, without a task
    switch (the socket is non-blocking: whatever the kernel does not take stays queued); else
    it wakes the writer task, which sends the queue a burst at a time with trio.  So a table
    step that queues an event and a request for a seat costs that seat one system call.
    """

    def __init__(self, conn: ServerConnection, *, address: str = "local",
                 max_queued_bytes: int = SEND_QUEUE_BYTES,
                 sockets: tuple[Address, Address] | None = None) -> None:
        self.conn = conn
        self.address = address
        self.sockets = sockets
        self.max_queued_bytes = max_queued_bytes
        self.queued_bytes = 0  # queued, not yet written to the socket
        self.alive = True
        self.closing = False
        #: The connection was lost (end of stream, reset), not ended by either side: the bot
        #: may come back.
        self.lost = False
        #: The connection is ending (the peer stopped sending, said bye, or got a fatal
        #: error): its last replies are still being sent.
        self.ending = False
        #: The socket's file descriptor for direct writes (None: only the writer task writes,
        #: as for a pipe or an in-memory stream).  Set to None before the socket is closed.
        self.fd: int | None = None
        self.cancel_scope: trio.CancelScope | None = None
        self.owner: Session | None = None  # the session it speaks for
        self._queue: list[bytes] = []
        self.reads_in_a_row = 0  # reads that found data without waiting (the reader's turn)
        self.drained = False  # the last read emptied the socket (the reader's)
        self.transcript: Transcript | None = None  # every line exchanged, when asked for
        self._writer_busy = False  # the writer task is sending: no direct write now
        self._writer_lot = trio.lowlevel.ParkingLot()

    def queue(self, data: bytes, name: str) -> bool:
        """Queue ``data`` (sent by the next :meth:`push`); False if the link is not writable
        (closed, or just dropped because its bot does not read)."""
        if not self.alive or self.closing:
            return False
        if (self.queued_bytes + len(data) > self.max_queued_bytes
                or len(self._queue) >= SEND_QUEUE_LIMIT):
            self.drop(ErrorCode.SLOW_READER, name)
            return False
        self._queue.append(data)
        self.queued_bytes += len(data)
        if self.transcript is not None:
            self.transcript.sent(data)
        return True

    def send(self, data: bytes, name: str) -> None:
        if self.queue(data, name):
            self.push()

    def push(self) -> None:
        """Send what is queued: at once if the socket takes it, else through the writer."""
        queue = self._queue
        if not queue:
            return
        if self.fd is not None and not self._writer_busy and self.alive:
            data = b"".join(queue) if len(queue) > 1 else queue[0]
            try:
                written = os.write(self.fd, data)
            except OSError:  # full (EAGAIN) or broken: the writer task finds out which
                written = 0
            self.queued_bytes -= written
            if written == len(data):
                queue.clear()
                return
            self._queue = [data[written:]]
        self._writer_lot.unpark_all()

    def queue_lines(self, lines: list[bytes]) -> bool:
        """Queue several lines in one call, when the link is writable, keeps no transcript
        and has room for all of them (False: nothing was queued; :meth:`queue` them one by
        one, which also drops a link that has no room)."""
        if not self.alive or self.closing or self.transcript is not None:
            return False
        size = sum(map(len, lines))
        queue = self._queue
        if (self.queued_bytes + size > self.max_queued_bytes
                or len(queue) + len(lines) > SEND_QUEUE_LIMIT):
            return False
        queue += lines
        self.queued_bytes += size
        return True

    def take_burst(self, limit: int) -> bytes | None:
        """For the writer task: up to about ``limit`` queued bytes at once (None: nothing)."""
        queue = self._queue
        if not queue:
            return None
        size = count = 0
        while count < len(queue) and size < limit:
            size += len(queue[count])
            count += 1
        burst = b"".join(queue[:count]) if count > 1 else queue[0]
        del queue[:count]
        return burst

    async def write_all(self, stream: trio.abc.Stream, burst_limit: int) -> None:
        """The writer task: send what is queued until the link is finished and the queue is
        empty (or it is dropped)."""
        while self.alive:
            burst = self.take_burst(burst_limit)
            if burst is None:
                if self.closing:
                    return
                await self._writer_lot.park()
                continue
            self._writer_busy = True
            try:
                await stream.send_all(burst)
            finally:
                self._writer_busy = False
            self.queued_bytes -= len(burst)

    def take_queued(self) -> list[bytes]:
        """Everything queued and not yet written (for tests of what would be sent)."""
        queued, self._queue = self._queue, []
        self.queued_bytes = 0
        return queued

    def finish(self) -> None:
        """Send nothing more: the writer sends what is queued, then ends."""
        self.closing = True
        self._writer_lot.unpark_all()

    def drop(self, code: ErrorCode, name: str) -> None:
        log.info("dropping %s: %s", name, code.value)
        self.alive = False
        self._queue = []
        self._writer_lot.unpark_all()
        if self.cancel_scope is not None:
            self.cancel_scope.cancel()


class Session:
    """A bot as the server knows it: its name, token, request counter and seat, speaking
    through its current :class:`Link`."""

    def __init__(self, number: int, conn: ServerConnection, *, address: str = "local",
                 max_queued_bytes: int = SEND_QUEUE_BYTES,
                 sockets: tuple[Address, Address] | None = None,
                 bound_token: str | None = None) -> None:
        """``sockets``: (peer, local) addresses of a TCP connection; ``bound_token``: the token
        of a connection the server made itself (a runner's pipe to its bot): it needs none."""
        self.number = number
        self.link = Link(conn, address=address, max_queued_bytes=max_queued_bytes,
                         sockets=sockets)
        self.link.owner = self
        self.bound_token = bound_token
        self.idle_since: float | None = None  # admitted and waiting for a seat since then
        #: The connection was lost and the bot may reconnect until then (None: not away).
        self.away_until: float | None = None
        self.name = f"conn{number}"
        self.token: str | None = None
        self.admitted = False
        self.seat: Seat | None = None  # where it sits (its table's record)
        self.spectator = False  # said hello as a spectator: never seated
        self.watching: Watched | None = None  # the table it watches, as a spectator
        #: Its events wait for its next other message (hello ``events: with_requests``).
        self.events_with_requests = False
        #: Its connection ends when its game does (:meth:`TableHall.dismiss`).
        self.parting = False

    # the current link's state, for the code that does not care which link it is
    @property
    def conn(self) -> ServerConnection:
        return self.link.conn

    @property
    def requests(self) -> RequestCounter:
        """The numbering of the requests sent to its bot (its connection's; kept when the bot
        reconnects)."""
        return self.link.conn.requests

    @property
    def address(self) -> str:
        return self.link.address

    @property
    def sockets(self) -> tuple[Address, Address] | None:
        return self.link.sockets

    @property
    def alive(self) -> bool:
        return self.link.alive

    @property
    def closing(self) -> bool:
        return self.link.closing

    @property
    def leaving(self) -> bool:
        """Its connection is ending or over (it may still come back, see ``away_until``)."""
        return self.link.ending or not self.link.alive

    @property
    def queued_bytes(self) -> int:
        return self.link.queued_bytes

    def rebind(self, link: Link) -> None:
        """The bot came back on a new connection: speak through it from now on."""
        link.conn.resume(self.link.conn)
        self.link = link
        link.owner = self
        self.away_until = None

    def send(self, message: Any) -> None:
        """Send a message (queued if the socket is busy); a full queue means the bot is not
        reading: drop the connection."""
        if self.queue(message):
            self.link.push()

    def queue(self, message: Any, line: bytes | None = None) -> int:
        """Queue a message for the next :meth:`Link.push` (``line``: its bytes, encoded
        already); returns the bytes queued (0: nothing was)."""
        link = self.link
        if not link.alive or link.closing:
            return 0
        try:  # closing: only its last error or bye goes
            data = link.conn.offer(message, line)
        except Exception:  # our bug (a message too long to send, say): skip it, log it
            log.exception("could not send %s to %s", message.TYPE, self.name)
            return 0
        if data is None or not link.queue(data, self.name):
            return 0
        return len(data)

    def queue_all(self, messages: list[Any], lines: list[bytes]) -> bool:
        """Queue messages already encoded (``lines``, one per message; each a message the
        game sends: ``game_start``, ``request``, ``cancel``, ``event``, ``game_end`` or
        ``error``), in order: in one call when the connection allows them all now and the link
        takes them all, else one by one as :meth:`queue` does.  True if any was queued."""
        link = self.link
        if link.conn.takes_game_messages() and link.queue_lines(lines):
            return True
        queued = False
        for message, line in zip(messages, lines, strict=True):
            if self.queue(message, line):
                queued = True
        return queued

    def finish(self, last: Any = None) -> None:
        """Send ``last`` (if any), then close once the queue is flushed."""
        if last is not None:
            self.send(last)
        self.link.finish()

    def drop(self, code: ErrorCode) -> None:
        """Close now, without flushing: the bot is misbehaving."""
        self.link.drop(code, self.name)

    @property
    def idle(self) -> bool:
        """Connected, admitted, not leaving, and at no table."""
        return self.alive and not self.closing and self.admitted and self.seat is None
