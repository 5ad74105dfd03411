"""What every part of the edge shares: its config, the nursery ``serve`` runs, whether the
server is stopping, and the operator's notes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import trio

from arena.edge.config import ServerConfig
from arena.edge.cores import Cores
from arena.edge.serve_report import Notes


class Stage:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.nursery: trio.Nursery | None = None
        self.shutting_down = False
        self.hurried_at: float | None = None  # when a second Ctrl-C asked to stop now
        self.hurried = trio.Event()  # set then
        #: Told of each connection, departure and table (``arena serve``'s operator report).
        self.notes: Notes | None = None
        self._changed = trio.Event()
        #: Fair time for hosted bots (``arena serve --hosted``): None, none are held.
        self.cores: Cores | None = None

    def poke(self) -> None:
        """Something a stop (or a test) waits on changed: a table started or ended, a
        connection ended, or the stop was hurried."""
        self._changed.set()
        self._changed = trio.Event()

    async def next_change(self) -> None:
        await self._changed.wait()

    def start_soon(self, task: Callable[..., Awaitable[Any]], *args: Any) -> None:
        assert self.nursery is not None, "serve() is not running"
        self.nursery.start_soon(task, *args)
