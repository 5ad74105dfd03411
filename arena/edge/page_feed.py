"""The live tables' feed to the pages' process (``arena serve --web``).

The pages run in a process of their own (``arena.web.pagesproc``); the game server sends them
one feed per watched table over one private stream (a socket pair whose other end only that
process holds), whatever number of browsers follow the table there.  What goes over it is what
a spectator may see and nothing more:

- only when the server admits any spectator (``--spectators open``): with ``none`` or
  ``registered`` the list is empty and every ``watch`` is refused;
- only the tables a spectator may watch (:func:`arena.edge.spectators.list_tables`: none of a
  duplicate set);
- only the table's public messages (the spectators' lines, byte for byte), up to its
  ``game_end``; the full view a spectator gets after the game is never sent.

The lines, each ending in a newline.  The pages ask (at most :data:`MAX_REQUEST_BYTES` each):

- ``list``: answered ``tables <the spectators' tables line>`` (built at most once per
  :data:`arena.edge.spectators.LISTING_TICK` and shared with the spectators);
- ``watch N``: table N's public messages so far, then each as it comes, as ``N <line>``, and
  ``end N`` when they are over (at once when N cannot be watched).  Watching a table already
  fed changes nothing.

What comes within :data:`WRITE_TICK` goes in one write.

Anything else, or more than :data:`MAX_BACKLOG` bytes the pages have not read, ends the feed
(the pages' process is then stuck or broken: its supervisor says so and starts another).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

import attrs
import trio

from arena.edge.spectators import SpectatorDesk, list_tables
from protocol.codec import encode

#: Bytes of one request from the pages at most (``watch`` and a table number).
MAX_REQUEST_BYTES = 64
#: Bytes queued for the pages and not yet read by them at most (the feed then ends).
MAX_BACKLOG = 16 * 2**20
#: Bytes read from the pages at once.
READ_BYTES = 4096
#: Seconds at least between two writes to the pages: what comes meanwhile goes in one write
#: (a step of every watched table would otherwise be a write, and a wake-up of the pages).
WRITE_TICK = 0.05


class FeedBroken(Exception):
    """The pages sent what the feed does not know, or fell :data:`MAX_BACKLOG` behind."""


@attrs.frozen
class FeedStatistics:
    """The feed so far: tables fed (each once, however many browsers follow it), those fed
    now, lines and bytes sent, lists answered."""

    tables_fed: int
    feeding: int
    lines: int
    bytes: int
    lists: int


class TableFeed:
    """What a table takes for a spectator's session (``Table.watch``): its public lines go to
    the feed, prefixed with the table's number, up to the game's end."""

    events_with_requests = False

    def __init__(self, feed: PageFeed, number: int) -> None:
        self.feed = feed
        self.number = number
        self.link = feed  # the table pushes the feed once a step, not once per message
        self.idle_since: float | None = None
        self.over = False
        self._prefix = b"%d " % number
        self._watching: Any = None

    @property
    def watching(self) -> Any:
        return self._watching

    @watching.setter
    def watching(self, table: Any) -> None:
        """The table lets its spectators go (None) when its game is over: the feed ends."""
        self._watching = table
        if table is None:
            self.end()

    def queue(self, message: Any, line: bytes | None = None) -> int:
        if self.over or getattr(message, "to", None) is not None:
            return 0  # a private event (the full view, after the game): never on the feed
        data = line if line is not None else encode(message)
        self.feed.put(self._prefix + data)
        if message.TYPE == "game_end":
            self.end()
        return len(data)

    def send(self, message: Any) -> None:
        """The table's full view after the game (to spectators only): the feed is over."""
        self.end()

    def push(self) -> None:
        self.feed.push()

    def end(self) -> None:
        if not self.over:
            self.over = True
            self.feed.ended(self)


class PageFeed:
    """The feed of ``tables()`` (the server's running tables) to the pages, under the
    spectators' rules of ``desk``; ``clock()`` is the server's time (``trio.current_time``)."""

    def __init__(self, tables: Callable[[], Iterable[Any]], desk: SpectatorDesk,
                 clock: Callable[[], float] = trio.current_time) -> None:
        self.tables = tables
        self.desk = desk
        self.clock = clock
        self.fed: dict[int, TableFeed] = {}
        self._out: list[bytes] = []
        self._queued = 0
        self._wake = trio.Event()
        self._broken: str | None = None
        self._serving: trio.CancelScope | None = None
        self._tables_fed = self._lines = self._bytes = self._lists = 0

    def statistics(self) -> FeedStatistics:
        return FeedStatistics(tables_fed=self._tables_fed, feeding=len(self.fed),
                              lines=self._lines, bytes=self._bytes, lists=self._lists)

    @property
    def open(self) -> bool:
        """Whether spectators (hence the pages) may watch at all."""
        return self.desk.rules.mode == "open"

    # -- what the tables and the requests queue --

    def put(self, line: bytes) -> None:
        self._out.append(line)
        self._queued += len(line)
        self._lines += 1
        self._bytes += len(line)
        if self._queued > MAX_BACKLOG:
            self._broken = f"the pages fell more than {MAX_BACKLOG:,} bytes behind"
            if self._serving is not None:
                self._serving.cancel()

    def push(self) -> None:
        self._wake.set()

    def ended(self, fed: TableFeed) -> None:
        if self.fed.get(fed.number) is fed:
            del self.fed[fed.number]
        self.put(b"end %d\n" % fed.number)
        self.push()

    def request(self, line: bytes) -> None:
        """One request of the pages (without its newline); :class:`FeedBroken` if it is not
        one the feed knows."""
        verb, _, argument = line.partition(b" ")
        if verb == b"list" and not argument:
            self._lists += 1
            if self.open:
                _, listed = self.desk.listing.get(self.clock(),
                                                  lambda: list_tables(self.tables()))
            else:
                listed = b'{"type":"tables","tables":[]}\n'
            self.put(b"tables " + listed)
        elif verb == b"watch" and argument.isdigit():
            self.watch(int(argument))
        else:
            raise FeedBroken(f"the pages sent {line[:40]!r}")
        self.push()

    def watch(self, number: int) -> None:
        if number in self.fed:
            return
        table = next((t for t in self.tables() if t.number == number), None)
        if (not self.open or table is None or table.driver.finished
                or table.seated.seed is not None):  # a duplicate set's deal: never shown
            self.put(b"end %d\n" % number)
            return
        fed = self.fed[number] = TableFeed(self, number)
        self._tables_fed += 1
        fed.watching = table
        table.watch(fed)

    def close(self) -> None:
        """The feed is over: its tables stop feeding it."""
        for fed in list(self.fed.values()):
            table = fed.watching
            fed.over = True
            if table is not None:
                table.unwatch(fed)
        self.fed.clear()

    # -- the stream --

    async def serve(self, stream: trio.abc.Stream) -> str | None:
        """Answer the pages over ``stream`` until it ends (the pages' process is gone) or
        the feed breaks; why it broke (None: it ended).  The tables stop feeding it either
        way."""
        try:
            async with trio.open_nursery() as nursery:
                self._serving = nursery.cancel_scope

                async def write() -> None:
                    with contextlib.suppress(trio.BrokenResourceError,
                                             trio.ClosedResourceError):
                        await self._write(stream)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(write)
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await self._read(stream)
                nursery.cancel_scope.cancel()
        finally:
            self.close()
        return self._broken

    async def _read(self, stream: trio.abc.Stream) -> None:
        buffer = bytearray()
        while data := await stream.receive_some(READ_BYTES):
            buffer += data
            while (end := buffer.find(b"\n")) >= 0:
                line = bytes(buffer[:end])
                del buffer[:end + 1]
                try:
                    self.request(line)
                except FeedBroken as exc:
                    self._broken = str(exc)
                    return
            if len(buffer) > MAX_REQUEST_BYTES:
                self._broken = f"the pages sent a line of more than {MAX_REQUEST_BYTES} bytes"
                return

    async def _write(self, stream: trio.abc.Stream) -> None:
        while self._broken is None:
            if self._out:
                data = b"".join(self._out)
                self._out.clear()
                await stream.send_all(data)
                self._queued -= len(data)
                await trio.sleep(WRITE_TICK)
            else:
                await self._wake.wait()
                self._wake = trio.Event()
