"""Running tables for the pages, as a spectator sees them (``arena serve --web``).

The pages watch a table the way a spectator connection does: a :class:`PageWatcher` is added
to the table's spectators (``Table.watch``), so the table sends it the spectators' public view
(the game, every public event so far, then each public event as it happens) and nothing else
while the game runs.  One watcher per table, however many browsers follow it: the server's
cost does not grow with the pages' visitors.  The tables listed are those
``arena.edge.spectators.list_tables`` lists (none of a duplicate set), and none at all when the
server admits no spectators or only registered ones (``--spectators``).  After the game the
table sends spectators its private events (the full view): the pages leave them out.  Each
public message goes to the pages with its step's sentence and the board's changed parts
(:mod:`arena.web.boards`), folded once per table from the public messages alone.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import trio

from arena.edge.spectators import list_tables
from arena.web.boards import Drawing
from protocol.codec import encode


class PageWatcher:
    """What a table takes for a spectator's session: it keeps the public messages, as the
    JSON a spectator is sent, and wakes the pages that follow it."""

    events_with_requests = False

    def __init__(self, table: int) -> None:
        self.table = table
        self.messages: list[dict[str, Any]] = []
        #: Each message as a server-sent event, encoded once for every page that follows.
        self.events: list[str] = []
        self.over = False
        self.watching: Any = None
        self.idle_since: float | None = None
        self.link = self
        #: The game's board, folded from the public messages (from the game's start).
        self.drawing: Drawing | None = None
        self._changed = trio.Event()

    def push(self) -> None:
        """The table's "send what is queued now": the messages were kept as they came."""

    def queue(self, message: Any, line: bytes | None = None) -> int:
        if self.over or getattr(message, "to", None) is not None:
            return 0  # the full view after the game: private events, not for the pages
        data = line if line is not None else encode(message)
        decoded = json.loads(data)
        if decoded.get("type") == "game_end":
            decoded.pop("reveal", None)  # the hands at the end: not on the public pages
            self.over = True
        if decoded.get("type") == "game_start":
            self.drawing = Drawing(str(decoded.get("game")), decoded.get("names") or [],
                                   decoded.get("info") or {})
        elif self.drawing is not None:  # the step's sentence and the board's changed parts
            decoded.update(self.drawing.step(decoded))
        text = json.dumps(decoded)
        self.messages.append(decoded)
        self.events.append(f"data: {text}\n\n")
        self._changed.set()
        self._changed = trio.Event()
        return len(data)

    def send(self, message: Any) -> None:
        self.queue(message)

    def finish(self) -> None:
        if not self.over:
            self.over = True
            self._changed.set()

    async def changed(self) -> None:
        """Wait for the next message (or the end)."""
        await self._changed.wait()


#: Pages following live tables at once (each holds a connection open), by default.
MAX_FOLLOWERS = 256


class LiveTables:
    """The running tables of ``server`` (an ``ArenaServer``) as the pages show them."""

    def __init__(self, server: Any, max_followers: int = MAX_FOLLOWERS) -> None:
        self.server = server
        self.watchers: dict[int, PageWatcher] = {}
        self.max_followers = max_followers
        #: Pages following a table now (its event stream open).
        self.followers = 0

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
        mode = self.server.config.spectators.mode
        if mode != "open":
            return (f"this server admits {'no' if mode == 'none' else 'only registered'} "
                    "spectators: its tables are not shown here")
        return None

    def listing(self) -> list[dict[str, Any]]:
        """The watchable running tables: table, game_id, names."""
        if self.refused is not None:
            return []
        tables: list[dict[str, Any]] = list_tables(self.server.tables).tables
        running = {entry["table"] for entry in tables}
        for number in [n for n in self.watchers if n not in running]:
            self.watchers.pop(number).finish()
        return tables

    def watcher(self, number: int) -> PageWatcher | None:
        """The pages' watcher of table ``number`` (None: no such watchable running table)."""
        known = self.watchers.get(number)
        if known is not None:
            return known
        if not any(entry["table"] == number for entry in self.listing()):
            return None
        table = next(t for t in self.server.tables if t.number == number)
        watcher = PageWatcher(number)
        watcher.watching = table
        table.watch(watcher)
        self.watchers[number] = watcher
        return watcher
