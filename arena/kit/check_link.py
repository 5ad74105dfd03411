"""The trio edge of ``arena check-bot``: one connection to the bot under test, and what its
inbox receives (a connection, a message, the bot's process ending).

Every source (the listener, each connection's reader, the process watcher) puts its news into
one inbox, so the scripted series waits on one channel with one deadline.
"""

from __future__ import annotations

from typing import Any

import attrs
import trio

from arena.edge.peer_process import Address, socket_addresses
from arena.edge.transcript import Transcript
from protocol.connection import ENDED, NEED_DATA, ServerConnection
from protocol.limits import MAX_LINE_BYTES


class Link:
    """One connection to the bot: its stream and the protocol's server-side state machine.
    Sending on a closed or broken link does nothing (the reader reports the end).  With a
    ``transcript``, every line exchanged is written to it, as ``arena serve`` writes them."""

    def __init__(self, stream: trio.abc.Stream, game: str,
                 transcript: Transcript | None = None) -> None:
        self.stream = stream
        #: (bot side, checker side) of a TCP connection; None for a pipe.
        self.addresses: tuple[Address, Address] | None = None
        if isinstance(stream, trio.SocketStream):
            self.addresses = socket_addresses(stream.socket)  # type: ignore[arg-type]
        self.connection = ServerConnection(game=game)
        self.closed = False
        self.transcript = transcript

    async def send(self, message: Any, line: bytes | None = None) -> None:
        if self.closed or not self.connection.may_send(message.TYPE):
            return
        data = self.connection.send(message, line)
        if self.transcript is not None:
            self.transcript.sent(data)
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.closed = True

    async def close(self) -> None:
        """Close our side at once (the bot sees the connection end)."""
        self.closed = True
        self.connection.close()
        with trio.move_on_after(1):
            await self.stream.aclose()

    async def read_into(self, inbox: trio.MemorySendChannel[Any]) -> None:
        """Put every message (or :class:`~protocol.errors.PeerError`) the bot sends into
        ``inbox``, then ``ENDED`` once when the connection ends or is closed."""
        try:
            while True:
                try:
                    data = bytes(await self.stream.receive_some())
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    data = b""
                self.connection.receive_data(data)
                while (event := self.connection.next_event()) is not NEED_DATA:
                    if self.transcript is not None and event is not ENDED:
                        self.transcript.received(self.connection.last_line, MAX_LINE_BYTES)
                    await inbox.send(Received(self, event, self.connection.last_line))
                    if event is ENDED:
                        return
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return  # the inbox is closed: the check is over
        finally:
            if self.transcript is not None:
                self.transcript.close()


@attrs.frozen(eq=False)
class Connected:
    """The bot opened a connection."""

    link: Link


@attrs.frozen(eq=False)
class Received:
    """What the bot sent on ``link``: a message, a PeerError, or ``ENDED``; ``line``: the
    line it came from (None when it was too long to keep)."""

    link: Link
    item: Any
    line: bytes | None = None


@attrs.frozen
class Exited:
    """The bot's process ended with this status."""

    code: int
