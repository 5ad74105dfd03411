"""Rating snapshots on both backends (SQLite, and a real PostgreSQL server: tests/pg_fixture.py),
through the one storage interface: written and read back alike, ``arena ratings --history``
printing them, an event's live board and its batch fit's process writing them, a ladder's book
taking them, the web pages' history reading them; a PostgreSQL database made before the
snapshots' table gains it by a migration."""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.edge.ladder_book import LadderBook
from arena.events import pg_storage
from arena.events.live_rating import LiveRating
from arena.events.pg_open import open_storage
from arena.events.registry import Registry
from arena.events.snapshots import SnapshotPolicy
from arena.launch.live_board import LiveBoard
from arena.web.history import rating_history
from tests.edge.test_ladder_book import META, Flaky, record
from tests.events.test_leaderboard import trio_sets
from tests.events.test_live_rating import game as rated_game
from tests.events.test_storage import NAMES, game


def where(storage) -> str:
    """What ``--db`` names the storage by (a file, or the URL)."""
    return getattr(storage, "url", None) or str(storage.path)


def event_at(storage_at, games=()):
    storage = storage_at("ev.db")
    storage.write_event({"seed": "x"}, [(name, "random") for name in NAMES])
    for stored in games:
        storage.add_game(stored)
    return storage


def test_snapshots_are_written_and_read_back_alike(storage_at):
    storage = event_at(storage_at, [game(0)])
    assert storage.snapshots() == {}
    live = LiveRating(players=3)
    live.add(rated_game(NAMES, (1, 2, 3)))
    storage.add_snapshot(1_700_000_000.0, 1, live.ranking())
    storage.add_snapshot(1_700_000_030.0, 1, live.ranking(), {"a": (1600.0, None, None)})
    live.add(rated_game(NAMES, (1, 2, 3)))
    storage.add_snapshot(1_700_000_060.0, 2, live.ranking(),
                         {"a": (1620.0, 1550.0, 1700.0), "b": (1500.0, None, None)})
    storage.close()
    found = storage_at("ev.db").snapshots()
    assert list(found) == ["a", "b", "c"] and [s.games for s in found["a"]] == [1, 2]
    first, second = found["a"]
    assert (first.taken_at, first.elo, first.low) == (1_700_000_030.0, 1600.0, None)  # replaced
    assert (second.elo, second.low, second.high) == (1620.0, 1550.0, 1700.0)
    assert second.mean > first.mean > 1500 > found["c"][1].mean
    assert found["b"][1].elo == 1500.0 and found["c"][1].elo is None
    assert storage_at("ev.db").snapshots("b") == {"b": found["b"]}
    assert storage_at("ev.db").snapshots("zed") == {}

    result = CliRunner().invoke(main, ["ratings", "--db", where(storage), "--history"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 + 6 and lines[1].split()[:3] == ["a", "2023-11-14", "22:13:50"]
    assert lines[2].split()[-2:] == ["1620", "1550..1700"]
    unknown = CliRunner().invoke(main, ["ratings", "--db", where(storage), "--history", "zed"])
    assert unknown.exit_code == 2 and "the bots with some: a, b, c" in unknown.output


async def test_an_events_live_board_and_its_fit_write_snapshots(storage_at):
    games = (trio_sets(3, (0, 1, 2), (2, 0, 1))  # c best, then a, then b
             + trio_sets(2, (0, 1, 2), (0, 2, 1), first_planned=100))
    storage = event_at(storage_at, games)
    printed: list[str] = []
    board = LiveBoard(where(storage), NAMES, 3, echo=printed.append, seed="x", resamples=10,
                      policy=SnapshotPolicy(every_games=4, share=0.0), clock=lambda: 5.0)
    for played in games:
        board.game_over(played)
    await board.refresh()  # the fit's process, on the database the URL or path names
    assert [line.split()[1] for line in printed[0].splitlines()[-3:]] == ["c", "a", "b"]
    assert "95% interval" in printed[0]
    board.close()
    await board.write_snapshots()
    found = storage.snapshots()
    assert [s.games for s in found["c"]] == [4, 8, 12, 15]
    assert [s.elo is not None for s in found["c"]] == [False, False, False, True]  # the fit's
    assert found["c"][-1].low < found["c"][-1].elo < found["c"][-1].high
    history = rating_history(storage, NAMES, storage.games())
    assert history.source == "snapshots" and [p.games for p in history.by_bot[2]] == [4, 8, 12, 15]


async def test_a_ladders_book_takes_snapshots_in_its_database(storage_at, request):
    storage = storage_at("ladder.db")
    if hasattr(storage, "url"):
        from arena.events.pg_registry import PgRegistry

        registry = PgRegistry(storage.url, shared=True)
    else:
        registry = Registry(storage.path, shared=True)
    request.addfinalizer(registry.close)
    for name in ("alice", "bob"):
        registry.add(name)
    flaky = Flaky(storage)
    flaky.failing = ""
    book = LadderBook(flaky, registry, {**META, "ladder": True},  # type: ignore[arg-type]
                      policy=SnapshotPolicy(every_games=2, share=0.0, every_seconds=math.inf),
                      clock=lambda: 7.0)
    assert str(book.snapshots) == where(storage)  # where the ladder's batch fit reads and writes
    async with book.writing():
        for number in range(5):  # one game a trip of the writer
            book.game_over(record(number))
            assert await flaky.tries.receive() == f"g{number}"
    found = storage.snapshots()
    assert [snap.games for snap in found["alice"]] == [2, 4, 5]  # the last: at the end
    assert found["alice"][-1].mean == pytest.approx(book.rating.estimate("alice")[0])


def test_a_postgresql_database_made_before_snapshots_gains_them(pg_url, monkeypatch):
    with monkeypatch.context() as before:
        before.setattr(pg_storage, "PG_MIGRATIONS", pg_storage.PG_MIGRATIONS[:3])
        old = open_storage(pg_url)
        old.write_event({"seed": "x"}, [(name, "random") for name in NAMES])
        old.add_game(game(0))
        assert old.schema_version() == 3
        old.close()
    storage = open_storage(pg_url)
    assert storage.schema_version() == len(pg_storage.PG_MIGRATIONS)
    assert storage.games() == [game(0)]
    live = LiveRating(players=3)
    live.add(rated_game(NAMES, (1, 2, 3)))
    storage.add_snapshot(1.0, 1, live.ranking())
    assert sorted(storage.snapshots()) == list(NAMES)
    storage.close()
