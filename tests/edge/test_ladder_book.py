"""The ladder's results book: games kept when the database cannot take them (a full disk, a
lock held by another program), said once on the operator's terminal, stored when it can."""

from __future__ import annotations

import contextlib
import logging
import math
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from arena.edge.ladder_book import RETRY_SECONDS, LadderBook, LadderError
from arena.events.live_rating import LiveRating
from arena.events.registry import Registry
from arena.events.snapshots import SnapshotPolicy, history
from arena.events.storage import SqliteStorage
from arena.gameplay.records import GameRecord, PlannedTable
from arena.seating.ladder import LadderSeating

META = {"game": "vollewolle", "options": {"players": 2}}


def record(number: int, names: tuple[str, ...] = ("alice", "bob"),
           tag: PlannedTable | None = None) -> GameRecord:
    return GameRecord(number=number, game_id=f"g{number}", entrants=(None, None), names=names,
                      seed=f"s{number}", scores=(1, 0), ranks=(1, 2), winners=(0,),
                      aborted=None, defaults=(0, 0), errors=(0, 0), rounds=3, log_path=None,
                      seconds=0.1, tag=tag)


class Flaky:
    """A storage whose writes fail while ``failing`` says so (as a full disk would)."""

    def __init__(self, inner: SqliteStorage) -> None:
        self.inner, self.failing, self.path = inner, "database or disk is full", inner.path
        self.tell, self.tries = trio.open_memory_channel[str](math.inf)
        #: The games of each write that succeeded, once it did.
        self.wrote, self.written = trio.open_memory_channel[list[str]](math.inf)

    def add_games(self, games: list[GameRecord]) -> int:
        trio.from_thread.run_sync(self.tell.send_nowait, games[0].game_id)
        if self.failing:
            raise sqlite3.OperationalError(self.failing)
        added = self.inner.add_games(games)
        trio.from_thread.run_sync(self.wrote.send_nowait, [game.game_id for game in games])
        return added

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def book_on(db: Path, *names: str) -> tuple[LadderBook, Flaky]:
    registry = Registry(db, shared=True)
    for name in names:
        registry.add(name)
    flaky = Flaky(SqliteStorage(db))
    return LadderBook(flaky, registry, {**META, "ladder": True}), flaky  # type: ignore[arg-type]


async def test_games_a_full_disk_refused_are_kept_said_once_and_stored_later(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, autojump_clock: trio.testing.MockClock):
    book, flaky = book_on(tmp_path / "ladder.db", "alice", "bob")
    caplog.set_level(logging.WARNING, "arena.server")
    async with book.writing():
        for number in range(3):
            book.game_over(record(number))
            assert await flaky.tries.receive() == "g0"  # the first game kept is tried first
        assert book.unstored == 3
        flaky.failing = ""  # no new game comes: the writer's own retry stores them
        start = trio.current_time()
        while await flaky.tries.receive() != "g2":  # (the retries of g0 before this one)
            pass
        assert trio.current_time() - start <= RETRY_SECONDS
    assert book.unstored == 0
    said = [r.getMessage() for r in caplog.records]
    assert len([m for m in said if "database or disk is full" in m]) == 1, said
    assert any("written again" in m for m in said)
    games = SqliteStorage(tmp_path / "ladder.db").games()
    assert [(g.planned, g.game_id, g.names) for g in games] == [
        (i, f"g{i}", ("alice", "bob")) for i in range(3)]


async def test_what_cannot_be_stored_by_the_end_is_counted(
        tmp_path: Path, autojump_clock: trio.testing.MockClock):
    book, flaky = book_on(tmp_path / "ladder.db", "alice", "bob")
    async with book.writing():
        book.game_over(record(0))
    assert book.unstored == 1 and book.failure == "database or disk is full"


async def test_a_seatings_duplicate_set_is_one_stored_set_and_entrants_stay_stable(
        tmp_path: Path):
    db = tmp_path / "ladder.db"
    book, flaky = book_on(db, "alice", "bob")
    flaky.failing = ""
    async with book.writing():
        book.game_over(record(0, tag=PlannedTable(-1, 7, 0, (), "x")))
        book.game_over(record(1, ("bob", "alice"), tag=PlannedTable(-1, 7, 1, (), "x")))
        book.set_over(7)
        book.game_over(record(2))
    Registry(db).rename("alice", "Alicia")
    Registry(db).add("carol")
    book.registry.remove("bob")
    async with book.writing():
        book.game_over(record(3, ("Alicia", "carol")))
        book.game_over(record(4, ("bob", "carol")))  # removed while it played
    games = SqliteStorage(db).games()
    assert [(g.planned, g.set_index, g.rotation, g.entrants) for g in games] == [
        (0, 0, 0, (0, 1)), (1, 0, 1, (1, 0)), (2, 1, 0, (0, 1)), (3, 2, 0, (0, 2)),
        (4, 3, 0, (1, 2))]
    assert [name for name, _ in SqliteStorage(db).entrants()] == ["Alicia", "bob", "carol"]
    assert book.rating.played == {"Alicia": 4, "bob": 4, "carol": 2}  # a rating goes with its
    assert book.rating.estimate("alice") == (1500.0, book.rating.newcomer_uncertainty)  # name
    assert book.rating.estimate("Alicia")[0] > 1500  # it won its games


async def test_a_sets_games_are_stored_together_once_the_seating_says_it_is_over(
        tmp_path: Path):
    """A set's games share a deal: none is in the file while another is still to be played;
    when the server stops, no table runs, and the sets held are stored."""
    db = tmp_path / "ladder.db"
    book, flaky = book_on(db, "alice", "bob")
    flaky.failing = ""
    async with book.writing():
        book.game_over(record(0, tag=PlannedTable(-1, 4, 0, (), "x")))
        book.game_over(record(1))  # a table of its own: stored at once
        assert await flaky.written.receive() == ["g1"]
        assert [g.game_id for g in SqliteStorage(db).games()] == ["g1"]
        book.game_over(record(2, ("bob", "alice"), tag=PlannedTable(-1, 4, 1, (), "x")))
        book.game_over(record(3, tag=PlannedTable(-1, 5, 0, (), "y")))
        book.set_over(4)
        assert await flaky.written.receive() == ["g0", "g2"]  # in one transaction
        assert [g.game_id for g in SqliteStorage(db).games()] == ["g1", "g0", "g2"]  # (g3:
        # its set is not over)
    assert await flaky.written.receive() == ["g3"] and book.unstored == 0
    games = SqliteStorage(db).games()
    assert [(g.game_id, g.planned, g.set_index, g.rotation) for g in games] == [
        ("g1", 0, 0, 0), ("g0", 1, 1, 0), ("g2", 2, 1, 1), ("g3", 3, 2, 0)]


async def test_live_rating_snapshots_are_taken_as_the_policy_says_and_at_the_end(
        tmp_path: Path):
    db = tmp_path / "ladder.db"
    registry = Registry(db, shared=True)
    for name in ("alice", "bob"):
        registry.add(name)
    flaky = Flaky(SqliteStorage(db))
    flaky.failing = ""
    book = LadderBook(flaky, registry, {**META, "ladder": True},  # type: ignore[arg-type]
                      policy=SnapshotPolicy(every_games=2, share=0.0, every_seconds=math.inf),
                      clock=lambda: 7.0)
    async with book.writing():
        for number in range(5):  # one game a trip of the writer
            book.game_over(record(number))
            assert await flaky.tries.receive() == f"g{number}"
    found = history(db)
    assert sorted(found) == ["alice", "bob"]
    assert [snap.games for snap in found["alice"]] == [2, 4, 5]  # the last: at the end
    last = found["alice"][-1]
    assert (last.mean, last.uncertainty) == pytest.approx(book.rating.estimate("alice"))
    assert last.taken_at == 7.0 and last.elo is None  # live only


def test_a_file_holding_an_event_is_refused(tmp_path: Path):
    db = tmp_path / "event.db"
    SqliteStorage(db).write_event({"game": "vollewolle", "format": "round-robin"},
                                  [("a", "x"), ("b", "y")])
    with pytest.raises(LadderError, match="holds an event, not a ladder"):
        book_on(db)


class Gated:
    """A ladder's storage whose stored games are read only once the test opens ``gate`` (a
    large ladder's take seconds), and which no other process can open (so they are rated in
    a worker thread)."""

    def __init__(self, inner: SqliteStorage) -> None:
        self.inner, self.gate = inner, threading.Event()

    def games(self) -> list[GameRecord]:
        if not self.gate.wait(timeout=5):  # (only without the fix: read before serving)
            raise AssertionError("the stored games were read before any bot was seated")
        return self.inner.games()

    def __getattr__(self, name: str) -> Any:
        if name in ("meta", "entrants", "write_event", "add_games", "close"):
            return getattr(self.inner, name)
        raise AttributeError(name)


async def test_bots_are_seated_and_rated_while_the_stored_games_are_rated(tmp_path: Path):
    db = tmp_path / "ladder.db"
    book, flaky = book_on(db, "alice", "bob", "carol")
    flaky.failing = ""
    async with book.writing():
        for number in range(3):
            book.game_over(record(number))  # alice beats bob
    gated = Gated(SqliteStorage(db))
    book = LadderBook(gated, Registry(db, shared=True),  # type: ignore[arg-type]
                      {**META, "ladder": True})
    seating = LadderSeating(2, book.rating, seed="s", settle=0.0)
    async with book.writing():
        seating.ready("carol", 0.0)
        [table] = seating.ready("bob", 0.0)  # seated at once, the stored games unread
        assert sorted(table.names) == ["bob", "carol"]
        book.game_over(record(3, ("carol", "bob")))  # carol beats bob
        assert seating.rating.estimate("carol")[0] > 1500  # rated at once: the seating sees it
        assert book.unstored == 1 and not book.loaded.is_set()  # (its number: after theirs)
        gated.gate.set()
        await book.loaded.wait()
        everything = LiveRating(2)
        for game in [*SqliteStorage(db).games(), record(3, ("carol", "bob"))]:
            everything.add(game)
        assert book.rating.state() == everything.state()  # as if rated in order
        assert book.rating.played == {"alice": 3, "bob": 4, "carol": 1}
    assert [g.planned for g in SqliteStorage(db).games()] == [0, 1, 2, 3]


async def test_a_large_ladders_stored_games_are_rated_in_a_process(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    db = tmp_path / "ladder.db"
    book, flaky = book_on(db, "alice", "bob")
    flaky.failing = ""
    async with book.writing():
        for number in range(4):
            book.game_over(record(number, ("alice", "bob")[::1 - 2 * (number % 2)]))
    book = LadderBook(SqliteStorage(db), Registry(db, shared=True), {**META, "ladder": True},
                      thread_games=0)
    async with book.writing():
        book.game_over(record(4))
    everything = LiveRating(2)
    for game in SqliteStorage(db).games():
        everything.add(game)
    assert book.rating.state() == everything.state() and everything.seen == 5
    assert not caplog.records  # (its process failing is said, then they are rated here)
    assert [g.planned for g in SqliteStorage(db).games()] == [0, 1, 2, 3, 4]


async def test_a_snapshots_ranking_is_made_off_the_event_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """At 1,000 bots ranking them took the loop 100 ms of CPU (a 285 ms pause, measured with
    benchmarks/load_bots.py --ladder --server-steps): the loop hands over a copy."""
    in_the_loop = []
    ranking = LiveRating.ranking

    def watched(self: LiveRating, names: Any = ()) -> Any:
        with contextlib.suppress(RuntimeError):  # (no trio task: a worker thread)
            in_the_loop.append(trio.lowlevel.current_task().name)
        return ranking(self, names)

    monkeypatch.setattr(LiveRating, "ranking", watched)
    db = tmp_path / "ladder.db"
    registry = Registry(db, shared=True)
    for name in ("alice", "bob"):
        registry.add(name)
    book = LadderBook(SqliteStorage(db), registry, {**META, "ladder": True},
                      policy=SnapshotPolicy(every_games=1, share=0.0, every_seconds=math.inf))
    async with book.writing():
        for number in range(3):
            book.game_over(record(number))
    assert [snap.games for snap in history(db)["alice"]][-1] == 3 and in_the_loop == []


async def test_a_postgresql_ladders_stored_games_are_rated_in_a_process(
        pg_url: str, caplog: pytest.LogCaptureFixture):
    from arena.events.pg_registry import PgRegistry
    from arena.events.pg_storage import PostgresStorage

    with PgRegistry(pg_url) as registry:
        registry.add("alice")
        registry.add("bob")
    book = LadderBook.open(pg_url, META)
    async with book.writing():
        for number in range(3):
            book.game_over(record(number, ("alice", "bob")[::1 - 2 * (number % 2)]))
    book.close()
    book = LadderBook.open(pg_url, META)
    async with book.writing():
        book.game_over(record(3))
    book.close()
    everything = LiveRating(2)
    stored = PostgresStorage(pg_url)
    for game in stored.games():
        everything.add(game)
    stored.close()
    assert book.rating.state() == everything.state() and everything.seen == 4
    assert not caplog.records  # the process read the database by its URL
