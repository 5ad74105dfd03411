"""Running tables for the pages, as a spectator sees them (``arena serve --web``).

The pages run in a process of their own; the game server feeds them its tables over one
private stream (:mod:`arena.edge.page_feed`: the spectators' public view, none of a duplicate
set, nothing when the server admits no spectators or only registered ones).  Here each table
the pages show is asked for once (``watch N``) and kept as a :class:`PageWatcher`, which every
browser that follows the table reads: the server's cost does not grow with the pages'
visitors, and no browser's connection reaches the game server.  The list of tables is asked
for at most once per :data:`LIST_TICK` however many pages ask for it.  Each public message
goes to the pages with its step's sentence and the board's changed parts
(:mod:`arena.web.boards`), folded once per table from the public messages alone; the hands
revealed at the end are left out.  When the feed ends (the game server is gone) every watcher
is over and :attr:`LiveTables.gone` is set.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import trio

from arena.web.boards import Drawing
from protocol.limits import MAX_LINE_BYTES
from protocol.linebuffer import TOO_LONG, LineBuffer

#: Pages following live tables at once (each holds a connection open), by default.
MAX_FOLLOWERS = 256
#: Seconds a table list from the game server is shown before it is asked for again.
LIST_TICK = 0.5
#: Seconds a page waits for a table list from the game server (then: the last one known).
LIST_TIMEOUT = 5.0
#: Bytes read from the feed at once.
READ_BYTES = 65536
#: What the feed puts before a spectator's line at most (``N `` or ``tables ``).
PREFIX_BYTES = 32


class PageWatcher:
    """One table's public messages, kept as the JSON a spectator is sent, waking the pages
    that follow it."""

    def __init__(self, table: int) -> None:
        self.table = table
        self.messages: list[dict[str, Any]] = []
        #: Each message as a server-sent event, encoded once for every page that follows.
        self.events: list[str] = []
        self.over = False
        #: The game's board, folded from the public messages (from the game's start).
        self.drawing: Drawing | None = None
        self._changed = trio.Event()

    def add(self, line: bytes) -> None:
        """One public message of the table, as the spectators' line."""
        if self.over:
            return
        decoded = json.loads(line)
        if decoded.get("type") == "game_end":
            decoded.pop("reveal", None)  # the hands at the end: not on the public pages
            self.over = True
        if decoded.get("type") == "game_start":
            self.drawing = Drawing(str(decoded.get("game")), decoded.get("names") or [],
                                   decoded.get("info") or {})
        elif self.drawing is not None:  # the step's sentence and the board's changed parts
            decoded.update(self.drawing.step(decoded))
        self.messages.append(decoded)
        self.events.append(f"data: {json.dumps(decoded)}\n\n")
        self._wake()

    def finish(self) -> None:
        if not self.over:
            self.over = True
            self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def changed(self) -> None:
        """Wait for the next message (or the end)."""
        await self._changed.wait()


class LiveTables:
    """The game server's running tables, read from its feed ``feed`` (a stream:
    :mod:`arena.edge.page_feed`); ``spectators``: the server's ``--spectators`` (anything but
    ``open`` shows no table, and the server's feed sends none)."""

    def __init__(self, feed: trio.abc.Stream, spectators: str = "open",
                 max_followers: int = MAX_FOLLOWERS) -> None:
        self.feed = feed
        self.spectators = spectators
        self.watchers: dict[int, PageWatcher] = {}
        self.max_followers = max_followers
        #: Pages following a table now (its event stream open).
        self.followers = 0
        #: Set when the feed is over (the game server is gone).
        self.gone = trio.Event()
        self._tables: list[dict[str, Any]] = []
        self._listed_at = -float("inf")
        self._answer: trio.Event | None = None  # a list asked for and not answered yet
        self._sending = trio.Lock()

    @property
    def full(self) -> bool:
        """Whether as many pages follow tables as may (another is refused)."""
        return self.followers >= self.max_followers

    @contextlib.contextmanager
    def following(self) -> Iterator[None]:
        """A page's event stream, open (counted) while the block runs."""
        self.followers += 1
        try:
            yield
        finally:
            self.followers -= 1

    @property
    def refused(self) -> str | None:
        """Why no table is shown (None: they are)."""
        if self.spectators != "open":
            return (f"this server admits {'no' if self.spectators == 'none' else 'only registered'}"
                    " spectators: its tables are not shown here")
        return None

    @property
    def registered_only(self) -> bool:
        """Whether the server admits registered spectators only (the page says how to
        watch)."""
        return self.spectators == "registered"

    async def listing(self) -> list[dict[str, Any]]:
        """The watchable running tables (table, game_id, names): the game server's list,
        asked for at most once per :data:`LIST_TICK` (the last one known if it does not
        answer within :data:`LIST_TIMEOUT`)."""
        if self.refused is not None or self.gone.is_set():
            return []
        if trio.current_time() - self._listed_at < LIST_TICK:
            return self._tables
        answer = self._answer
        if answer is None:
            answer = self._answer = trio.Event()
            await self._send(b"list\n")
        with trio.move_on_after(LIST_TIMEOUT):
            await answer.wait()
        return self._tables

    async def watcher(self, number: int) -> PageWatcher | None:
        """The pages' watcher of table ``number`` (None: no such watchable running table)."""
        known = self.watchers.get(number)
        if known is not None:
            return known
        if not any(entry["table"] == number for entry in await self.listing()):
            return None
        known = self.watchers.get(number)  # asked for meanwhile
        if known is not None:
            return known
        watcher = self.watchers[number] = PageWatcher(number)
        await self._send(b"watch %d\n" % number)
        return watcher

    async def _send(self, line: bytes) -> None:
        async with self._sending:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await self.feed.send_all(line)

    async def run(self) -> None:
        """Read the feed until it ends; then every watcher is over and :attr:`gone` set."""
        lines = LineBuffer(MAX_LINE_BYTES + PREFIX_BYTES)
        try:
            while data := await self.feed.receive_some(READ_BYTES):
                lines.feed(bytes(data))
                while (line := lines.next_line()) is not None:
                    if line is TOO_LONG:
                        raise ValueError("a line of the feed is too long")
                    assert isinstance(line, bytes)
                    self._take(line)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            for watcher in self.watchers.values():
                watcher.finish()
            self.watchers.clear()
            self.gone.set()
            if self._answer is not None:
                self._answer.set()

    def _take(self, line: bytes) -> None:
        head, _, rest = line.partition(b" ")
        if head.isdigit():
            watcher = self.watchers.get(int(head))
            if watcher is not None:
                watcher.add(rest)
        elif head == b"end":
            ended = self.watchers.pop(int(rest), None)
            if ended is not None:
                ended.finish()
        elif head == b"tables":
            self._tables = json.loads(rest)["tables"]
            self._listed_at = trio.current_time()
            answer, self._answer = self._answer, None
            if answer is not None:
                answer.set()
        else:
            raise ValueError(f"the feed sent {line[:40]!r}")
