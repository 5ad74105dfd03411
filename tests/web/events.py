"""Stored events for the pages' tests: real games (the driver, random answers, real logs) in
a real SQLite storage, fast enough for tests (one-hand chochlik)."""

from __future__ import annotations

import itertools
import random
import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio
import trio.testing

from arena.edge.page_feed import PageFeed
from arena.events.export import open_event
from arena.events.storage import SqliteStorage
from arena.gameplay.driver import MatchDriver
from arena.gameplay.records import GameRecord, PlannedTable
from arena.games import get_game
from arena.web.live import LiveTables

HOSTILE = "<script>alert(1)</script>"


def play(game: str, options: dict[str, Any], names: Sequence[str], seed: str, game_id: str,
         logs: Path, rng: random.Random) -> tuple[MatchDriver, Path]:
    spec = get_game(game)
    driver = MatchDriver(spec, spec.parse_options(options), seed, list(names),
                         game_id=game_id, table=1, move_timeout=5)
    driver.start(0.0)
    while not driver.finished:
        seat, request = next(iter(driver.open.items()))
        driver.answer(seat, request.id, rng.choice(request.legal), 0.1)
    return driver, driver.log.write(logs, sync=False)


def make_event(folder: Path, names: Sequence[str], *, tables: int = 6, game: str = "chochlik",
               options: dict[str, Any] | None = None, players: int = 3,
               per_set: int = 1) -> Path:
    """An event of ``tables`` games (``per_set`` of them to a set, one deal each) among
    ``names``: the database's path; the logs are in ``folder / "logs"``."""
    options = options if options is not None else {"hands": 1, "players": players}
    db = folder / "event.db"
    storage = SqliteStorage(db)
    storage.write_event({"game": game, "options": options, "duplicate": False, "seed": "t"},
                        [(name, "builtin") for name in names])
    rng = random.Random(7)
    seatings = itertools.cycle(itertools.combinations(range(len(names)), players))
    for index in range(tables):
        entrants = next(seatings)
        seed = f"seed{index // per_set}"
        driver, path = play(game, options, [names[e] for e in entrants], seed, f"g{index}",
                            folder / "logs", rng)
        result = driver.result
        assert result is not None
        storage.add_game(GameRecord(
            number=index, game_id=f"g{index}", entrants=entrants,
            names=tuple(names[e] for e in entrants), seed=seed, scores=tuple(result.scores),
            ranks=tuple(result.ranks), winners=tuple(result.winners), aborted=None,
            defaults=tuple(sum(s.defaults.values()) for s in driver.stats),
            errors=tuple(s.errors for s in driver.stats), rounds=result.rounds, log_path=path,
            seconds=0.1, tag=PlannedTable(index, index // per_set, index % per_set,
                                          tuple(entrants), seed)))
    storage.close()
    return db


async def get(url: str) -> tuple[int, str]:
    """A page's status and text (a worker thread: urllib blocks)."""
    def fetch() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
    return await trio.to_thread.run_sync(fetch)


def unlined(step: dict[str, Any]) -> dict[str, Any]:
    """A replay step without its log line number, sentence and board (to compare with the
    log's records)."""
    return {key: value for key, value in step.items() if key not in ("line", "text", "board")}


class HeldFit:
    """The event's storage, its games read (by the fit) only once ``gate`` opens."""

    def __init__(self, db: Path) -> None:
        self.inner, self.gate = open_event(db), threading.Event()
        self.path = db
        self.done = threading.Event()  # (a test's server runs until it is set)

    def games(self) -> list[GameRecord]:
        if not self.gate.wait(timeout=20):  # (only without the fix: the page waited for it)
            raise AssertionError("the first page waited for the first fit")
        return self.inner.games()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def fed_live(nursery: trio.Nursery, server: Any, *, run: bool = True,
             **options: Any) -> tuple[LiveTables, PageFeed]:
    """The pages' running tables read from ``server``'s feed, as in ``arena serve --web``
    (over a stream in memory rather than the socket pair between two processes); ``run``:
    read the feed in ``nursery`` (else the pages' app does, as it is served)."""
    ours, theirs = trio.testing.memory_stream_pair()
    feed = PageFeed(lambda: server.tables, server.spectators)
    nursery.start_soon(feed.serve, ours)
    live = LiveTables(theirs, server.config.spectators.mode, **options)
    if run:
        nursery.start_soon(live.run)
    return live, feed
