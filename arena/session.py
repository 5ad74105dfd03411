"""One connection as the server keeps it: who it is, its outgoing queue, and where it sits.

A session is kept apart from a seat: a seat outlives a bot that leaves it, and a session
outlives the games it plays.  Outgoing messages go through a bounded queue, so a bot that stops
reading never blocks a table: when its queue is full (in messages or in bytes) it is dropped
(``slow_reader``) and the default policy plays its seat.
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


class Session:
    def __init__(self, number: int, conn: ServerConnection, *, address: str = "local",
                 max_queued_bytes: int = SEND_QUEUE_BYTES,
                 sockets: tuple[Address, Address] | None = None,
                 bound_token: str | None = None) -> None:
        """``sockets``: (peer, local) addresses of a TCP connection; ``bound_token``: the token
        of a connection the server made itself (a runner's pipe to its bot): it needs none."""
        self.number = number
        self.address = address
        self.sockets = sockets
        self.bound_token = bound_token
        self.max_queued_bytes = max_queued_bytes
        self.queued_bytes = 0  # written to the queue, not yet to the socket
        self.idle_since: float | None = None  # admitted and waiting for a seat since then
        self.conn = conn
        self.name = f"conn{number}"
        self.token: str | None = None
        self.admitted = False
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
        if self.queued_bytes + len(data) > self.max_queued_bytes:
            self.drop(ErrorCode.SLOW_READER)
            return
        try:
            self._out_send.send_nowait(data)
            self.queued_bytes += len(data)
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

    @property
    def idle(self) -> bool:
        """Connected, admitted, not leaving, and at no table."""
        return self.alive and not self.closing and self.admitted and self.table is None
