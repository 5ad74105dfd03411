"""An event's standings for the pages: the leaderboard, head-to-head and each bot's games, read
through the ``Storage`` protocol and fitted by ``arena.events`` in a process of its own
(:mod:`arena.web.fitproc`: the serving process neither reads every game nor holds the GIL for
the fit), or in a worker thread for a storage no other process can open; never on the event
loop.  The fit is kept until the number of stored games changes (checked at most once a
:data:`CHECK_EVERY` seconds, when a page asks); meanwhile pages get the standings fitted last,
so a page never waits for a fit except the very first.  Nor does the leaderboard wait for the
first when it is long (more than :data:`WAITED_GAMES` games stored: 26 s at 100,000): it shows
at once the **provisional** standings, the newest rating snapshot of the file (the batch fit's
published Elo and intervals, or else the live rating's; read in a few indexed rows), with a
line saying the leaderboard is being computed, and updates itself when it is.

The standings are compact: the games a page lists (each bot's recent games and its games with
errors or defaults), and of every other game only what its replay needs (:class:`GameRef`).
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
from arena.events.storage import Storage, names_and_games
from arena.gameplay.records import GameRecord
from arena.web.fitproc import FitFailed, fit_in_process, where_of
from arena.web.history import History, latest_of, latest_snapshot, rating_history

#: Seconds between two looks at the games count (each look is one query).
CHECK_EVERY = 1.0
#: Seconds between two looks of an open leaderboard page at the standings' version.
REFRESH = 5.0
#: Games listed on a bot's page (its recent ones, and its ones with errors or defaults).
RECENT_GAMES = 30
#: Stored games at most for which the leaderboard waits for the first fit (a second or two).
WAITED_GAMES = 5_000
#: What the pages say when no event is given.
NO_EVENT = "no event database given (arena web --db FILE)"


@attrs.frozen
class GameRef:
    """What a stored game's replay needs: its set, its seats' entrants, its log."""

    planned: int
    set_index: int
    entrants: tuple[int, ...]
    log_path: Path | None


@attrs.frozen
class Standings:
    """Everything the pages show of an event at one moment (``version``: its games count)."""

    version: int
    meta: dict[str, Any]
    names: tuple[str, ...]
    #: The games the pages list (not every stored game: see ``refs``).
    games: tuple[GameRecord, ...]
    rows: tuple[Row, ...]
    versus: tuple[HeadToHead, ...]
    #: Each entrant's last :data:`RECENT_GAMES` games, as indices into ``games``, in schedule
    #: order; and its last ones with errors or defaults.
    by_bot: dict[int, list[int]] = attrs.field(eq=False)
    history: History = attrs.field(eq=False)
    #: Every stored game by its planned number: (set, entrants, log path or None).
    refs: dict[int, tuple[int, tuple[int, ...], str | None]] = attrs.field(eq=False,
                                                                          factory=dict)
    #: Each set's games stored.
    set_games: dict[int, int] = attrs.field(eq=False, factory=dict)
    troubled: dict[int, list[int]] = attrs.field(eq=False, factory=dict)
    #: Why there is nothing to show (no storage given, say); None when there is an event.
    empty: str | None = None
    #: Set in provisional standings (no fit yet: only their rows, from a snapshot, if any):
    #: the line saying so.
    provisional: str | None = None
    #: When the fit was made (seconds since the epoch; None: no fit).
    computed_at: float | None = None

    @property
    def groups(self) -> int:
        """The groups of bots that played (a bot with no game yet is no group: it is
        provisional)."""
        return max((row.group for row in self.rows if row.games), default=0)

    @property
    def caveat(self) -> str | None:
        return caveat() if any(row.thin for row in self.rows) else None

    def game(self, planned: int) -> GameRef | None:
        ref = self.refs.get(planned)
        if ref is None:
            return None
        set_index, entrants, log = ref
        return GameRef(planned, set_index, entrants, None if log is None else Path(log))

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


def provisional(storage: Storage, count: int) -> Standings:
    """The standings shown while the first fit of ``count`` games runs: the newest rating
    snapshot's rows (bots by name), or none (blocking: a few small reads)."""
    names = tuple(name for name, _ in storage.entrants())
    path = getattr(storage, "path", None)
    snapshots = getattr(storage, "snapshots", None)
    published = (latest_snapshot(path) if isinstance(path, Path) else
                 latest_of(snapshots()) if callable(snapshots) else None)
    line = (f"The leaderboard of {count:,} games is being computed (a first fit after a start "
            "takes a while on a large event); this page shows it when it is ready.")
    rows: list[Row] = []
    if published is not None:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(published.taken_at))
        line += (f" Shown meanwhile: the ratings published at {published.games:,} games "
                 f"({when} UTC, " + ("the batch fit" if published.kind == "fit"
                                     else "the live rating, openskill") + ").")
        order = sorted((-published.ratings[name][0], entrant, name)
                       for entrant, name in enumerate(names) if name in published.ratings)
        rows = [Row(place, entrant, name, -minus, *published.ratings[name][1:], None, 0, 0.0,
                    0.0, 0, thin=published.ratings[name][1] is None)
                for place, (minus, entrant, name) in enumerate(order, start=1)]
    return Standings(version=count, meta=storage.meta(), names=names, games=(),
                     rows=tuple(rows), versus=(), by_bot={}, history=History({}, "pending"),
                     provisional=line)


def fit(storage: Storage, *, resamples: int, history: bool = True
        ) -> tuple[Standings, list[GameRecord]]:
    """The standings now, and every stored game (blocking: reads every game and fits them)."""
    names_read, games = names_and_games(storage)
    names = tuple(names_read)
    meta = storage.meta()
    seed = meta.get("seed", 0)
    rows = tuple(leaderboard(names, games, resamples=resamples, seed=seed))
    recent: dict[int, list[int]] = {entrant: [] for entrant in range(len(names))}
    troubled: dict[int, list[int]] = {entrant: [] for entrant in range(len(names))}
    for index, game in enumerate(games):
        for seat, entrant in enumerate(game.table.entrants):
            if entrant in game.table.entrants[:seat]:
                continue
            recent.setdefault(entrant, []).append(index)
            if any(game.defaults[s] or game.errors[s] for s, e in enumerate(
                    game.table.entrants) if e == entrant and s < len(game.defaults)):
                troubled.setdefault(entrant, []).append(index)
    kept = sorted({i for lists in (recent, troubled) for indices in lists.values()
                   for i in indices[-RECENT_GAMES:]})
    where = {index: k for k, index in enumerate(kept)}
    set_games: dict[int, int] = {}
    for game in games:
        set_games[game.set_index] = set_games.get(game.set_index, 0) + 1
    standings = Standings(
        version=len(games), meta=meta, names=names, games=tuple(games[i] for i in kept),
        rows=rows, versus=tuple(head_to_head(names, games)),
        by_bot={e: [where[i] for i in indices[-RECENT_GAMES:]] for e, indices in recent.items()},
        troubled={e: [where[i] for i in indices[-RECENT_GAMES:]]
                  for e, indices in troubled.items()},
        refs={game.planned: (game.set_index, tuple(game.table.entrants),
                             None if game.log_path is None else str(game.log_path))
              for game in games},
        set_games=set_games, computed_at=time.time(),
        history=rating_history(storage, names, games, seed=seed) if history
        else History({}, "pending"))
    return standings, games


class EventData:
    """The standings of one stored event, kept fresh in the background (:meth:`keep_fresh`, a
    task of the web server) and read by the pages (:meth:`current`)."""

    def __init__(self, storage: Storage | None, *, resamples: int = DEFAULT_RESAMPLES,
                 logs: Path | None = None, check_every: float = CHECK_EVERY,
                 refresh: float = REFRESH,
                 empty: str = NO_EVENT, waited_games: int = WAITED_GAMES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``waited_games``: stored games at most for which the leaderboard waits for the
        first fit (beyond: the provisional standings meanwhile)."""
        self.storage = storage
        self.resamples = resamples
        self.logs = logs
        self.check_every = check_every
        #: Seconds between two looks of an open leaderboard page at the games count.
        self.refresh_every = refresh
        self.clock = clock
        self.standings: Standings | None = None if storage is not None else nothing(empty)
        self.waited_games = waited_games
        #: The provisional standings (None: not looked for yet, or the fit is short).
        self.quick: Standings | None = None
        self._looked: trio.Event | None = None  # set once they were looked for
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
            standings, games = fit(self.storage, resamples=self.resamples, history=False)
        # the pages need not wait for the history (the longer part): until it is fitted again
        # they show the one before (none before the first)
        before = self.standings
        if before is not None:
            standings = attrs.evolve(standings, history=before.history)
        self.standings = standings
        self.fits += 1
        published()
        with self._lock:
            history = rating_history(self.storage, standings.names, games,
                                     seed=standings.meta.get("seed", 0))
        self.standings = attrs.evolve(standings, history=history)
        published()
        return True

    def _changed(self) -> bool:
        """Whether the games count differs from the standings' (blocking: one query)."""
        assert self.storage is not None
        with self._lock:
            count = games_count(self.storage)
        return self.standings is None or count != self.standings.version

    async def keep_fresh(self) -> None:
        """Refit whenever a page asked and the games count changed: in the fit's process
        (:mod:`arena.web.fitproc`) when the storage can be opened by another process (a file,
        a URL), else in a worker thread."""
        where = where_of(self.storage)
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            if self.standings is None:
                await self._look()
            if where is None:
                await trio.to_thread.run_sync(
                    self.refresh, lambda: trio.from_thread.run_sync(self._published),
                    abandon_on_cancel=True)
            elif self.storage is not None and await trio.to_thread.run_sync(self._changed):
                try:
                    await fit_in_process(where, self.resamples, self._ready, self._history)
                except FitFailed as exc:
                    if self.standings is None:
                        self.standings = nothing(str(exc))
                        self._published()

    def _ready(self, standings: Standings) -> None:
        before = self.standings
        if before is not None and before.empty is None:
            standings = attrs.evolve(standings, history=before.history)
        self.standings = standings
        self.fits += 1
        self._published()

    def _history(self, history: History) -> None:
        assert self.standings is not None
        self.standings = attrs.evolve(self.standings, history=history)
        self._published()

    def _published(self) -> None:
        self._fresh.set()
        self._fresh = trio.Event()

    async def published(self) -> None:
        """Wait until new standings (or their history) are out."""
        await self._fresh.wait()

    def _pending(self) -> bool:
        return self.standings is None or self.standings.history.source == "pending"

    def _provisional(self) -> Standings | None:
        """The provisional standings, when the first fit is long (blocking: a few reads)."""
        assert self.storage is not None
        with self._lock:
            try:
                count = games_count(self.storage)
                return None if count <= self.waited_games else provisional(self.storage, count)
            except (sqlite3.Error, OSError):  # (the fit will say what is wrong)
                return None

    async def _look(self) -> None:
        """The provisional standings looked for, once (the first fit waits for it: a fit in
        a worker thread holds the storage until it is done)."""
        if self._looked is None:
            self._looked = trio.Event()
            try:
                self.quick = await trio.to_thread.run_sync(self._provisional)
            finally:
                self._looked.set()
        await self._looked.wait()

    async def current(self, *, history: bool = False,
                      provisional: bool = False) -> Standings:
        """The standings fitted last (waiting only for the first fit, and with ``history``
        for the first history); asks for a refit when the last look at the games count is
        older than ``check_every``.  ``provisional``: the provisional standings rather than
        a wait for a long first fit."""
        now = self.clock()
        if now - self._asked >= self.check_every:
            self._asked = now
            self._wanted.set()
        if provisional and self.standings is None:
            await self._look()
            if self.standings is None and self.quick is not None:
                return self.quick
        while self.standings is None or (history and self._pending()):
            await self._fresh.wait()
        return self.standings

    def entrants(self) -> list[tuple[str, str]]:
        """Each entrant's (name, command) (blocking: one query; none without an event)."""
        if self.storage is None:
            return []
        with self._lock:
            return list(self.storage.entrants())

    def log_path(self, game: GameRef) -> Path | None:
        """Where ``game``'s log is: as stored, or by its name in the ``--logs`` folder."""
        if game.log_path is None:
            return None
        if self.logs is not None:
            return self.logs / game.log_path.name
        return game.log_path


def recent(standings: Standings, entrant: int, count: int) -> Sequence[GameRecord]:
    """``entrant``'s last ``count`` games, the latest first."""
    return [standings.games[i] for i in reversed(standings.by_bot.get(entrant, [])[-count:])]
