"""An event's standings for the pages: the leaderboard, head-to-head and each bot's games, read
through the ``Storage`` protocol and fitted by ``arena.events`` in a worker thread, never on the
event loop.  The fit is kept until the number of stored games changes (checked at most once a
:data:`CHECK_EVERY` seconds, when a page asks); meanwhile pages get the standings fitted last,
so a page never waits for a fit except the very first.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.events.headtohead import HeadToHead, head_to_head
from arena.events.leaderboard import DEFAULT_RESAMPLES, Row, caveat, leaderboard
from arena.events.storage import Storage
from arena.gameplay.records import GameRecord
from arena.web.history import History, rating_history

#: Seconds between two looks at the games count (each look is one query).
CHECK_EVERY = 1.0
#: Seconds between two looks of an open leaderboard page at the standings' version.
REFRESH = 5.0
#: What the pages say when no event is given.
NO_EVENT = "no event database given (arena web --db FILE)"


@attrs.frozen
class Standings:
    """Everything the pages show of an event at one moment (``version``: its games count)."""

    version: int
    meta: dict[str, Any]
    names: tuple[str, ...]
    games: tuple[GameRecord, ...]
    rows: tuple[Row, ...]
    versus: tuple[HeadToHead, ...]
    #: Each entrant's games, as indices into ``games``, in schedule order.
    by_bot: dict[int, list[int]] = attrs.field(eq=False)
    history: History = attrs.field(eq=False)
    #: Each stored game's index in ``games`` by its planned number, and each set's games.
    by_planned: dict[int, int] = attrs.field(eq=False, factory=dict)
    set_games: dict[int, int] = attrs.field(eq=False, factory=dict)
    #: Why there is nothing to show (no storage given, say); None when there is an event.
    empty: str | None = None

    @property
    def groups(self) -> int:
        return max((row.group for row in self.rows), default=0)

    @property
    def caveat(self) -> str | None:
        return caveat() if any(row.thin for row in self.rows) else None

    def game(self, planned: int) -> GameRecord | None:
        index = self.by_planned.get(planned)
        return None if index is None else self.games[index]

    def row_of(self, entrant: int) -> Row | None:
        return next((row for row in self.rows if row.entrant == entrant), None)

    def versus_of(self, entrant: int) -> list[dict[str, Any]]:
        """``entrant``'s results against each bot it met, from its side."""
        lines = []
        for e in self.versus:
            a, b = e.entrants
            if entrant == a:
                lines.append({"opponent": b, "name": e.opponent, "wins": e.wins, "ties": e.ties,
                              "losses": e.losses, "games": e.games})
            elif entrant == b:
                lines.append({"opponent": a, "name": e.bot, "wins": e.losses, "ties": e.ties,
                              "losses": e.wins, "games": e.games})
        return lines


def nothing(reason: str) -> Standings:
    return Standings(version=-1, meta={}, names=(), games=(), rows=(), versus=(), by_bot={},
                     history=History({}, "none"), empty=reason)


def games_count(storage: Storage) -> int:
    """The stored games, counted cheaply: a backend's ``count_games()`` when it has one, one
    query for SQLite, else every game read (the protocol's only way)."""
    count = getattr(storage, "count_games", None)
    if callable(count):
        return int(count())
    db = getattr(storage, "db", None)
    if isinstance(db, sqlite3.Connection):
        return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    return len(storage.games())


def fit(storage: Storage, *, resamples: int, history: bool = True) -> Standings:
    """The standings now (blocking: reads every game and fits them)."""
    names = tuple(name for name, _ in storage.entrants())
    games = tuple(storage.games())
    meta = storage.meta()
    seed = meta.get("seed", 0)
    rows = tuple(leaderboard(names, games, resamples=resamples, seed=seed))
    by_bot: dict[int, list[int]] = {entrant: [] for entrant in range(len(names))}
    for index, game in enumerate(games):
        for entrant in set(game.table.entrants):
            by_bot.setdefault(entrant, []).append(index)
    set_games: dict[int, int] = {}
    for game in games:
        set_games[game.set_index] = set_games.get(game.set_index, 0) + 1
    return Standings(version=len(games), meta=meta, names=names, games=games, rows=rows,
                     versus=tuple(head_to_head(names, games)), by_bot=by_bot,
                     by_planned={game.planned: i for i, game in enumerate(games)},
                     set_games=set_games,
                     history=rating_history(storage, names, games, seed=seed) if history
                     else History({}, "pending"))


class EventData:
    """The standings of one stored event, kept fresh in the background (:meth:`keep_fresh`, a
    task of the web server) and read by the pages (:meth:`current`)."""

    def __init__(self, storage: Storage | None, *, resamples: int = DEFAULT_RESAMPLES,
                 logs: Path | None = None, check_every: float = CHECK_EVERY,
                 refresh: float = REFRESH,
                 empty: str = NO_EVENT,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.storage = storage
        self.resamples = resamples
        self.logs = logs
        self.check_every = check_every
        #: Seconds between two looks of an open leaderboard page at the games count.
        self.refresh_every = refresh
        self.clock = clock
        self.standings: Standings | None = None if storage is not None else nothing(empty)
        self._lock = threading.Lock()  # the storage's connection: one thread at a time
        self._wanted = trio.Event()
        self._fresh = trio.Event()
        self._asked = -float("inf")
        #: Fits made (for tests and the benchmark).
        self.fits = 0

    def refresh(self, published: Callable[[], object] = lambda: None) -> bool:
        """Fit again if the games count changed (blocking: call it in a worker thread);
        True when it did.  ``published`` is called when new standings are out (twice: without
        the new history, then with it)."""
        if self.storage is None:
            return False
        with self._lock:
            count = games_count(self.storage)
            if self.standings is not None and count == self.standings.version:
                return False
            standings = fit(self.storage, resamples=self.resamples, history=False)
        # the pages need not wait for the history (the longer part): until it is fitted again
        # they show the one before (none before the first)
        before = self.standings
        if before is not None:
            standings = attrs.evolve(standings, history=before.history)
        self.standings = standings
        self.fits += 1
        published()
        with self._lock:
            history = rating_history(self.storage, standings.names, standings.games,
                                     seed=standings.meta.get("seed", 0))
        self.standings = attrs.evolve(standings, history=history)
        published()
        return True

    async def keep_fresh(self) -> None:
        """Refit whenever a page asked and the games count changed, in a worker thread."""
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            await trio.to_thread.run_sync(
                self.refresh, lambda: trio.from_thread.run_sync(self._published),
                abandon_on_cancel=True)

    def _published(self) -> None:
        self._fresh.set()
        self._fresh = trio.Event()

    def _pending(self) -> bool:
        return self.standings is None or self.standings.history.source == "pending"

    async def current(self, *, history: bool = False) -> Standings:
        """The standings fitted last (waiting only for the first fit, and with ``history``
        for the first history); asks for a refit when the last look at the games count is
        older than ``check_every``."""
        now = self.clock()
        if now - self._asked >= self.check_every:
            self._asked = now
            self._wanted.set()
        while self.standings is None or (history and self._pending()):
            await self._fresh.wait()
        return self.standings

    def log_path(self, game: GameRecord) -> Path | None:
        """Where ``game``'s log is: as stored, or by its name in the ``--logs`` folder."""
        if game.log_path is None:
            return None
        if self.logs is not None:
            return self.logs / game.log_path.name
        return game.log_path


def recent(standings: Standings, entrant: int, count: int) -> Sequence[GameRecord]:
    """``entrant``'s last ``count`` games, the latest first."""
    return [standings.games[i] for i in reversed(standings.by_bot.get(entrant, [])[-count:])]
