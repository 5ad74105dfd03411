"""The readers' shared wait: one task reads every socket whose reader is waiting for data, and
plays the answers it finds there, so that a bot's answer costs no task switch of its own.

A connection's reader (``arena.edge.reader``) that has no whole line left parks here
(:meth:`ReadySockets.wait`) instead of asking trio to wait for its socket.  Its socket joins
one epoll of this module's, level-triggered, and stays in it while the reader is parked.  When
trio says that epoll has something, :meth:`ReadySockets.run` reads each ready socket once and
feeds the connection's protocol state machine; an answer to the newest request is played at
once (``Table.play_answer``, as the reader does).  Anything else (a hello, a bad line, a late
answer, a table that is busy, the end of the stream) goes back to the reader with that event:
its socket leaves the epoll, and the reader handles the event as it would have, then reads
and parks again.  So the reader's order of lines, its limits and its back-pressure are kept;
what is saved, per answer, is trio's registration of the socket, the reader's wake-up and
its task switch (and, when several bots answered at once, one wait for all of them).

A socket leaves the epoll before its reader is woken or cancelled, so it is never in it when
the connection closes it.  What goes wrong while a socket is served (a transcript's full disk,
a bug) is raised in that socket's reader, which ends its connection as it would have.
When this task ends (the server stops), the parked readers are
woken with nothing, and go on reading their sockets themselves.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
from typing import TYPE_CHECKING, Any

import outcome
import trio

from protocol.connection import ENDED, NEED_DATA
from protocol.limits import MAX_LINE_BYTES
from protocol.messages import Action

if TYPE_CHECKING:
    from arena.edge.session import Link, Session

log = logging.getLogger("arena.server")

#: Sockets served in one turn at most: the turn then gives way to the other tasks (a turn of
#: this many answers holds the loop a few milliseconds at most).
SOCKETS_PER_TURN = 64

#: What a parked reader is woken with: the event the shared task did not handle, whether it was
#: the first answer to the newest request, and the newest request id sent on the connection when
#: the line was read (what the line is judged by: SPEC §3, a bad line costs a try only of a
#: request sent before it was read); None: read the socket yourself.
Handed = tuple[Any, bool, int] | None


class ReadySockets:
    def __init__(self, chunk: int) -> None:
        self.chunk = chunk
        self.running = False
        self._epoll: select.epoll | None = None
        #: The parked readers, by socket: (link, session, the reader's task).
        self._parked: dict[int, tuple[Link, Session, trio.lowlevel.Task]] = {}

    async def wait(self, link: Link, session: Session) -> Handed:
        """Park the reader of ``link`` (speaking for ``session``) until a line comes that the
        shared task does not handle itself; that line's event comes back (see :data:`Handed`).
        Only for a socket (``link.fd``) and while :meth:`run` runs."""
        fd = link.fd
        epoll = self._epoll
        assert fd is not None and epoll is not None and fd not in self._parked
        try:
            epoll.register(fd, select.EPOLLIN)
        except FileExistsError:  # left in it by a failed unregister: the same wait
            epoll.modify(fd, select.EPOLLIN)
        self._parked[fd] = (link, session, trio.lowlevel.current_task())

        def abort(_: Any) -> trio.lowlevel.Abort:
            self._leave(fd)
            return trio.lowlevel.Abort.SUCCEEDED

        handed: Handed = await trio.lowlevel.wait_task_rescheduled(abort)
        return handed

    def _leave(self, fd: int) -> None:
        if self._parked.pop(fd, None) is not None and self._epoll is not None:
            with contextlib.suppress(OSError):  # already gone from it
                self._epoll.unregister(fd)

    def _wake(self, fd: int, handed: Handed) -> None:
        parked = self._parked.get(fd)
        if parked is not None:
            self._leave(fd)
            trio.lowlevel.reschedule(parked[2], outcome.Value(handed))

    def _fail(self, fd: int, exc: Exception) -> None:
        parked = self._parked.get(fd)
        if parked is None:  # its reader is gone already: nobody else will say it
            log.error("reading connection socket %s failed", fd, exc_info=exc)
            return
        self._leave(fd)
        trio.lowlevel.reschedule(parked[2], outcome.Error(exc))

    async def run(self) -> None:
        """Serve the parked readers' sockets until cancelled (where the system has no epoll,
        it returns at once: every reader reads its own socket)."""
        if not hasattr(select, "epoll"):
            return
        epoll = self._epoll = select.epoll()
        self.running = True
        try:
            while True:
                await trio.lowlevel.wait_readable(epoll.fileno())
                for fd, _ in epoll.poll(0, SOCKETS_PER_TURN):
                    parked = self._parked.get(fd)  # a reader woken meanwhile is not here
                    if parked is None:
                        continue
                    try:
                        self._serve(fd, *parked)
                    except Exception as exc:  # (a transcript's full disk, our bug): raised
                        self._fail(fd, exc)  # in that reader, as if it had read the line
        finally:
            self.running = False
            for fd in list(self._parked):
                self._wake(fd, None)
            self._epoll = None
            epoll.close()

    def _serve(self, fd: int, link: Link, session: Session, _task: Any) -> None:
        """Read ``fd`` once and play the answers found; hand anything else to the reader."""
        try:
            data = os.read(fd, self.chunk)
        except BlockingIOError:  # nothing there after all
            return
        except OSError:  # reset: the end of the stream, as the reader treats it
            data = b""
        conn = link.conn
        if not data:
            link.lost = True
        conn.receive_data(data)
        while True:
            event = conn.next_event()
            if event is NEED_DATA:
                return  # stays parked
            first = False
            if event is not ENDED:
                if link.transcript is not None:
                    link.transcript.received(conn.last_line, MAX_LINE_BYTES)
                if type(event) is Action and conn.first_answer(event):
                    first = True
                    seat = session.seat
                    if seat is not None and seat.table.play_answer(session, event):
                        if not link.alive or fd not in self._parked:
                            self._wake(fd, None)  # its writes failed, or its reader is gone
                            return
                        continue
            self._wake(fd, (event, first, conn.requests.newest))
            return
