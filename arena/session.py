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
from typing import TYPE_CHECKING, Any

import trio

from arena.match import RequestCounter
from arena.peer_process import Address
from protocol.connection import ServerConnection
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from arena.table import Table

log = logging.getLogger("arena.server")

#: Messages queued for one connection before it counts as not reading (``slow_reader``).
SEND_QUEUE_LIMIT = 4096
#: Bytes queued for one connection before it counts as not reading (``slow_reader``).
SEND_QUEUE_BYTES = 4 * 1024 * 1024


class Link:
    """One connection's own state: its protocol state machine, its outgoing queue and its
    scope.  A session speaks through one link at a time; a bot that reconnects gives its
    session a new link (the seat stays where it was)."""

    def __init__(self, conn: ServerConnection, *, address: str = "local",
                 max_queued_bytes: int = SEND_QUEUE_BYTES,
                 sockets: tuple[Address, Address] | None = None) -> None:
        self.conn = conn
        self.address = address
        self.sockets = sockets
        self.max_queued_bytes = max_queued_bytes
        self.queued_bytes = 0  # written to the queue, not yet to the socket
        self.alive = True
        self.closing = False
        #: The connection was lost (end of stream, reset), not ended by either side: the bot
        #: may come back.
        self.lost = False
        #: The connection is ending (the peer stopped sending, said bye, or got a fatal
        #: error): its last replies are still being sent.
        self.ending = False
        self._out_send, self.out_receive = trio.open_memory_channel[bytes](SEND_QUEUE_LIMIT)
        self.cancel_scope: trio.CancelScope | None = None
        self.owner: Session | None = None  # the session it speaks for

    def send(self, data: bytes, name: str) -> None:
        if self.queued_bytes + len(data) > self.max_queued_bytes:
            self.drop(ErrorCode.SLOW_READER, name)
            return
        try:
            self._out_send.send_nowait(data)
            self.queued_bytes += len(data)
        except trio.WouldBlock:
            self.drop(ErrorCode.SLOW_READER, name)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            self.alive = False

    def finish(self) -> None:
        self.closing = True
        self._out_send.close()

    def drop(self, code: ErrorCode, name: str) -> None:
        log.info("dropping %s: %s", name, code.value)
        self.alive = False
        self._out_send.close()
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
        self.table: Table | None = None
        self.seat: int | None = None
        self.spectator = False  # said hello as a spectator: never seated
        self.watching: Table | None = None  # the table it watches, as a spectator
        self.requests = RequestCounter()

    # the current link's state, for the code that does not care which link it is
    @property
    def conn(self) -> ServerConnection:
        return self.link.conn

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

    @property
    def out_receive(self) -> trio.MemoryReceiveChannel[bytes]:
        return self.link.out_receive

    def rebind(self, link: Link) -> None:
        """The bot came back on a new connection: speak through it from now on."""
        self.link = link
        link.owner = self
        self.away_until = None

    def send(self, message: Any) -> None:
        """Queue a message; a full queue means the bot is not reading: drop the connection."""
        link = self.link
        if not link.alive or link.closing:
            return
        if not link.conn.may_send(message.TYPE):  # closing: only its last error or bye goes
            return
        try:
            data = link.conn.send(message)
        except Exception:  # our bug (a message too long to send, say): skip it, log it
            log.exception("could not send %s to %s", message.TYPE, self.name)
            return
        link.send(data, self.name)

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
        return self.alive and not self.closing and self.admitted and self.table is None
