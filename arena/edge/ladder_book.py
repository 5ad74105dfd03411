"""A ladder's results (``arena serve --db FILE``): every game that ends is stored as the row an
event stores (a :class:`~arena.gameplay.records.GameRecord` through
:meth:`~arena.events.storage.Storage.add_game`, with its log path), in the file that holds the
registry, so ``arena ratings --db FILE`` and ``arena export --db FILE`` read it while it runs.

A ladder has no schedule: each game gets the next running index (after a restart, the stored
maximum plus one), and its own duplicate set unless the seating played it in one (its ``tag``
then says which set and rotation; the book gives each set a stored number of its own).

**No deal is stored while it is being played.**  The games of a seating's duplicate set share
one deal, so a stored game would show the cards of the set's games still to come to anyone
reading the file (the pages, ``arena export``).  The book holds a set's games back until the
seating says the set is over (:meth:`LadderBook.set_over`: played in full, or ended because a
bot left or kept it waiting, with none of its tables running) and then stores them together,
in one transaction: whatever reads the file sees a set whole or not at all, and every stored
game's deal is played no more.  When the server stops, no table runs: the sets held are stored
then.  (A server killed outright loses the games of its unfinished sets, as it loses the games
it had not yet written.)  Every
registered bot is an entrant, numbered in the order it joined; its entrant row keeps the
registration's identity (a digest of its salt, never its token or hash), so a renamed bot
keeps its number and history, a removed bot keeps its past games, and a bot registered while
the server runs becomes an entrant at its first game.  Aborted games are stored as aborted
(the ratings leave them out).

Writes happen in a worker thread, one at a time, fed by a memory channel from the event
loop.  A write that fails (a full disk, a database locked by another program) is said in one
line on the operator's terminal (once per failure run), and the games are kept in memory and
tried again every :data:`RETRY_SECONDS` and at the end; what still cannot be stored at the
end is counted in :attr:`LadderBook.unstored`.

The seating's ratings are the live rating (:class:`~arena.events.live_rating.LiveRating`,
openskill), learnt from each game as it ends (in the event loop) and from the stored games,
rated at start in a process of their own (``arena.edge.stored_rating``) while the server
already serves: until they are, the seating sees only the games of this run, and the writer
holds the games back (their numbers follow the stored ones); then the games of this run are
rated again after the stored ones (a chunk at a time), and the seating sees the whole rating.
Rating snapshots (``arena.events.snapshots``: live-only ones) are taken as a
:class:`~arena.events.snapshots.SnapshotPolicy` says (once the stored games are rated) and
when the writer ends, written by the writer's thread after the games, through the storage (an
SQLite file or PostgreSQL); the batch fit's snapshots come from a process of their own
(``arena.launch.live_board``'s, given :attr:`LadderBook.snapshots`), started by whoever runs
the ladder.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import time
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.stored_rating import THREAD_GAMES, load_stored
from arena.events.live_rating import LiveRating
from arena.events.registry import Registered, Registry, identity
from arena.events.snapshots import SnapshotPolicy
from arena.events.storage import EventStorage, SqliteStorage
from arena.gameplay.records import GameRecord, PlannedTable
from arena.games.chance import secret_seed

log = logging.getLogger("arena.server")

#: Seconds between tries to store games a failed write held back.
RETRY_SECONDS = 5.0
#: Games of this run rated again at a time (between checkpoints) after the stored ones.
BACKLOG_CHUNK = 100
#: The entrant command of a name that played without being registered (never under ``--db``
#: unless a bot was removed before its first game was stored).
UNREGISTERED = "unregistered"


class LadderError(ValueError):
    """The file holds something else (an event, another game's ladder)."""


@attrs.frozen
class SetOver:
    """The seating's duplicate set ``number`` is over: no game of it runs or will run."""

    number: int


#: What the event loop hands the writer, in order: a game that ended, or a set that is over.
Ended = GameRecord | SetOver


class LadderBook:
    def __init__(self, storage: EventStorage, registry: Registry, meta: Mapping[str, Any], *,
                 policy: SnapshotPolicy | None = None,
                 clock: Callable[[], float] = time.time,
                 thread_games: int = THREAD_GAMES) -> None:
        """``storage`` and ``registry`` are used from the writer thread only (one call at a
        time); ``meta``: the ladder's game and options, as stored; ``policy``: when to take a
        rating snapshot; ``clock``: the wall clock of the snapshots' times; ``thread_games``:
        stored games rated in a worker thread at most (more: in a process)."""
        self.storage = storage
        self.registry = registry
        self.meta = json.loads(json.dumps(dict(meta)))  # as it reads back
        self.path = getattr(storage, "path", "the database")
        stored = storage.meta()
        if stored and not stored.get("ladder"):
            raise LadderError(f"{self.path} holds an event, not a ladder: choose another --db")
        if stored and (stored.get("game"), stored.get("options")) != (self.meta["game"],
                                                                      self.meta["options"]):
            raise LadderError(f"{self.path} holds a ladder of {stored.get('game')} "
                              f"{json.dumps(stored.get('options'))}: serve that game with "
                              "those options, or choose another --db")
        self.players = int(self.meta["options"].get("players", 2))
        #: What ladder seating reads: the live rating of every game, stored (once
        #: :attr:`loaded`) or new.
        self.rating = LiveRating(self.players)
        self.thread_games = thread_games
        #: Set when the stored games are rated (:meth:`writing` starts it).
        self.loaded = trio.Event()
        #: The games ended while the stored ones are rated (None after).
        self.backlog: list[GameRecord] | None = []
        self.policy = policy if policy is not None else SnapshotPolicy()
        self.clock = clock
        #: Where the fit's process finds the ladder (a file, or the URL with its password;
        #: None: a storage of neither kind), and the game count and time of the last snapshot.
        self.snapshots: Path | str | None = getattr(storage, "url", None) or (
            self.path if isinstance(self.path, Path) else None)
        self.last_snapshot = (self.rating.seen, clock())
        self.snapshot_failure: str | None = None
        self.next_index = self.next_set = 0  # (after the stored ones: see _load)
        #: The games of the seating's sets not over yet, by the seating's set number.
        self.held: dict[int, list[GameRecord]] = {}
        self.entrants: list[tuple[str, str]] = storage.entrants()
        self.seen_version = -1
        #: Games ended and sets over, not yet looked at by the writer (the event loop appends).
        self.incoming: list[Ended] = []
        #: Sets of games placed and waiting to be stored, each in one transaction (a failed
        #: write keeps them here, in order).
        self.pending: list[list[GameRecord]] = []
        self.rows: dict[str, Registered] = {}
        #: Renames seen by the writer, for the event loop to apply to :attr:`rating`.
        self.renames: list[tuple[str, str]] = []
        self.failure: str | None = None
        self.handed = 0  # games given to game_over
        self.stored = 0
        self._send: trio.MemorySendChannel[Ended] | None = None
        self.sync_entrants()
        self.renames.clear()  # the stored games were rated under the names they have now
        #: This run's number, 1 for the first (kept in the ladder's settings): ``arena serve
        #: --seed`` derives this run's deals from it too, so a run never deals again the cards
        #: of a game an earlier run stored (which the pages and the export show).
        self.run = int(stored.get("runs", 0)) + 1
        self.meta["runs"] = self.run
        self.storage.write_event(self.meta, self.entrants)

    @classmethod
    def open(cls, path: Path | str, meta: Mapping[str, Any], *,
             registry: Path | str | None = None) -> LadderBook:
        """The ladder in an SQLite file, or in a PostgreSQL database (a URL); ``registry``:
        where the bots are registered, when not in the same place (a server of several games
        keeps each game's ladder apart: ``arena.events.places``)."""
        registry = path if registry is None else registry
        if isinstance(path, str):
            from arena.events.pg_registry import PgRegistry
            from arena.events.pg_storage import PostgresStorage

            assert isinstance(registry, str), "a ladder and its registry: both PostgreSQL"
            return cls(PostgresStorage(path), PgRegistry(registry, shared=True),
                       {**meta, "ladder": True})
        assert isinstance(registry, Path), "a ladder and its registry: both SQLite"
        return cls(SqliteStorage(path), Registry(registry, shared=True),
                   {**meta, "ladder": True})

    def run_seed(self, seed: str) -> str:
        """The seed of this run's deals under ``arena serve --seed`` (see :attr:`run`)."""
        return secret_seed(seed, "ladder-run", self.run)

    @property
    def unstored(self) -> int:
        """Games ended and not stored (yet)."""
        return self.handed - self.stored

    # -- entrants (writer thread) --

    def sync_entrants(self) -> None:
        """Every registered bot is an entrant under its current name (new ones appended)."""
        version = self.registry.version()
        if version == self.seen_version:
            return
        self.rows = self.registry.rows()
        entrants = list(self.entrants)
        number = {command: i for i, (_, command) in enumerate(entrants)}
        for _, row in sorted(self.rows.items()):
            name, key = row.name, identity(row.salt)
            if key not in number:
                number[key] = len(entrants)
                entrants.append((name, key))
            elif entrants[number[key]][0] != name:
                self.renames.append((entrants[number[key]][0], name))
                entrants[number[key]] = (name, key)
        self._write_entrants(entrants)
        self.seen_version = version

    def _write_entrants(self, entrants: list[tuple[str, str]]) -> None:
        if entrants != self.entrants or not self.storage.meta():
            self.storage.write_event(self.meta, entrants)
            self.entrants = entrants

    def entrant_of(self, name: str) -> int:
        """The entrant a name played as: the registered bot of that name, else the latest
        entrant that had it (a bot renamed or removed while it played), else a new one."""
        folded = name.casefold()
        registered = self.rows.get(folded)
        if registered is not None:
            key = identity(registered.salt)
            for i, (_, command) in enumerate(self.entrants):
                if command == key:
                    return i
        for i in reversed(range(len(self.entrants))):
            if self.entrants[i][0].casefold() == folded:
                return i
        self._write_entrants([*self.entrants, (name, UNREGISTERED)])
        return len(self.entrants) - 1

    # -- storing (writer thread) --

    def placed(self, records: list[GameRecord]) -> list[GameRecord]:
        """The games of one set (or a game of its own) as the ladder stores them: their
        indices, the set's stored number, their rotations and entrants."""
        entrants = [tuple(self.entrant_of(name) for name in record.names)
                    for record in records]  # (first: it may fail, and nothing is numbered)
        placed = [attrs.evolve(record, entrants=seats, tag=PlannedTable(
            self.next_index + i, self.next_set, record.tag.rotation if record.tag else 0,
            seats, record.seed))
            for i, (record, seats) in enumerate(zip(records, entrants, strict=True))]
        self.next_index += len(records)
        self.next_set += 1
        return placed

    def _take(self, item: Ended) -> list[GameRecord]:
        """What ``item`` lets the writer store now: a game of its own, a set that is over
        (its games held), or nothing (a game of a set still played, now held)."""
        if isinstance(item, SetOver):
            return self.held.get(item.number, [])
        if item.tag is None:
            return [item]
        self.held.setdefault(item.tag.set_index, []).append(item)
        return []

    def store_pending(self) -> None:
        """Store what may be stored, in order; stops at the first failure (said once)."""
        try:
            self.sync_entrants()
            while self.incoming:
                item = self.incoming[0]
                games = self._take(item)
                if games:
                    self.pending.append(self.placed(games))
                if isinstance(item, SetOver):
                    self.held.pop(item.number, None)
                del self.incoming[0]
            while self.pending:
                self.storage.add_games(self.pending[0])
                self.stored += len(self.pending[0])
                del self.pending[0]
        except Exception as exc:
            problem = str(exc) or type(exc).__name__
            if problem != self.failure:
                log.warning("the ladder's database %s: %s; %d game(s) kept in memory and "
                            "tried again every %g s", self.path,
                            problem, self.unstored, RETRY_SECONDS)
            self.failure = problem
            return
        if self.failure is not None:
            log.warning("the ladder's database is written again: every game kept is stored")
            self.failure = None

    # -- the event loop's side --

    def game_over(self, record: GameRecord) -> None:
        """A game ended (in the event loop): queued for the writer, and rated."""
        self.handed += 1
        self.rating.add(record)
        if self.backlog is not None:
            self.backlog.append(record)
        self._hand(record)

    def set_over(self, number: int) -> None:
        """The seating's set ``number`` is over (in the event loop): its games may be
        stored."""
        self._hand(SetOver(number))

    def _hand(self, item: Ended) -> None:
        if self._send is not None:
            self._send.send_nowait(item)
        else:
            self.incoming.append(item)

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """The writer runs while the body does; at the end every game queued is stored (or
        counted in :attr:`unstored`)."""
        send, receive = trio.open_memory_channel[Ended](math.inf)
        self._send = send
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._write, receive)
            try:
                yield
            finally:
                self._send = None
                send.close()

    async def _load(self) -> None:
        """The stored games rated (off the event loop) and merged with this run's."""
        stored = await load_stored(self.storage, self.players, thread_games=self.thread_games)
        merged = LiveRating(self.players)
        merged.restore(stored.state)
        assert self.backlog is not None
        while self.backlog:  # this run's games after the stored ones, a chunk at a time
            for game in self.backlog[:BACKLOG_CHUNK]:
                merged.add(game)
            del self.backlog[:BACKLOG_CHUNK]
            await trio.lowlevel.checkpoint()
        self.rating.take(merged)
        self.backlog = None
        self.next_index, self.next_set = stored.next_index, stored.next_set
        self.last_snapshot = (int(stored.state["seen"]), self.last_snapshot[1])
        self.loaded.set()
        log.info("the ladder's %d stored games rated: the live rating is whole",
                 stored.state["seen"])

    async def _write(self, receive: trio.MemoryReceiveChannel[Ended]) -> None:
        with trio.CancelScope(shield=True):  # every game queued is stored, also when stopped
            if not self.loaded.is_set():
                await self._load()
            open_ = True
            while open_ or self.unstored:
                with trio.move_on_after(RETRY_SECONDS if self.pending or self.incoming
                                        else math.inf):
                    try:
                        self.incoming.append(await receive.receive())
                    except trio.EndOfChannel:
                        open_ = False
                    while True:  # what else is queued goes in the same trip
                        try:
                            self.incoming.append(receive.receive_nowait())
                        except (trio.WouldBlock, trio.EndOfChannel):
                            break
                if not open_:  # the server stopped: no table runs, every set held is over
                    self.incoming += [SetOver(number) for number in self.held
                                      if SetOver(number) not in self.incoming]
                await trio.to_thread.run_sync(self.store_pending)
                for before, after in self.renames:  # in the loop: the seating reads it here
                    self.rating.rename(before, after)
                self.renames.clear()
                due = self.snapshot_due(final=not open_)  # read in the loop, written off it
                if due is not None:
                    await trio.to_thread.run_sync(self.write_snapshot, *due)
                if not open_ and self.failure is not None:
                    return  # the last try failed: counted in unstored

    # -- rating snapshots --

    def snapshot_due(self, final: bool = False) -> tuple[float, int, LiveRating] | None:
        """(time, games, a copy of the live rating) when a snapshot is due (``final``: any
        game since the last one), else None.  In the event loop (it reads the live rating);
        the ranking is made from the copy in the writer's thread (at 1,000 bots it took the
        loop 100 ms of CPU, a pause of 285 ms on a busy machine)."""
        now, games = self.clock(), self.rating.seen
        last_games, last_time = self.last_snapshot
        if (self.snapshots is None or self.failure is not None or self.backlog is not None
                or games <= last_games
                or not (final or self.policy.due(games, now, last_games, last_time))):
            return None
        self.last_snapshot = (games, now)
        return now, games, self.rating.copy()

    def write_snapshot(self, taken_at: float, games: int, rating: LiveRating) -> None:
        """In the writer's thread; a failure is said once (the next snapshot comes soon)."""
        try:
            self.storage.add_snapshot(taken_at, games, rating.ranking())
        except Exception as exc:  # either backend's (a full disk, a database restarting)
            problem = str(exc) or type(exc).__name__
            if problem != self.snapshot_failure:
                log.warning("no rating snapshot in %s: %s", self.path, problem)
            self.snapshot_failure = problem
        else:
            self.snapshot_failure = None

    def close(self) -> None:
        self.storage.close()
        self.registry.close()
