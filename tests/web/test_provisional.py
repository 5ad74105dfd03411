"""A large event's first page answers at once: while the first fit runs (26 s at 100,000
games), the leaderboard shows the file's newest rating snapshot with a line saying the
leaderboard is being computed, then the fitted one."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import trio
from hypercorn.trio import serve

from arena.events.live_rating import LiveRow
from arena.events.snapshots import write_snapshot
from arena.web import data as data_module
from arena.web.app import make_app
from arena.web.data import EventData
from arena.web.serve import config_for
from tests.web.events import HOSTILE, HeldFit, get, make_event

NAMES = ["alpha", "beta", HOSTILE]
PUBLISHED = {"alpha": (1612.0, 1540.0, 1690.0), "beta": (1480.0, 1400.0, 1555.0),
             HOSTILE: (1408.0, None, None)}


async def test_the_first_page_of_a_long_first_fit_shows_the_published_ratings_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    db = make_event(tmp_path, NAMES, tables=6)
    write_snapshot(db, 1_767_225_600.0, 6, [LiveRow(k, name, 1500.0, 100.0, 4) for k, name in
                                            enumerate(NAMES, start=1)], PUBLISHED)
    storage = HeldFit(db)
    monkeypatch.setattr(data_module, "where_of", lambda storage: None)  # the fit: a thread
    data = EventData(storage, waited_games=0)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        [base] = await nursery.start(functools.partial(serve, make_app(data),
                                                       config_for("127.0.0.1", 0)))
        status, page = await get(base + "/")
        assert status == 200 and "The leaderboard of 6 games is being computed" in page
        assert "published at 6 games (2026-01-01 00:00 UTC, the batch fit)" in page
        assert HOSTILE not in page and "&lt;script&gt;" in page
        assert page.index(">alpha<") < page.index(">beta<") < page.index("&lt;script&gt;")
        assert "1540..1690" in page
        _, text = await get(base + "/leaderboard.json")
        board = json.loads(text)
        assert board["provisional"] and [(r["name"], r["elo"], r["low"]) for r in board[
            "rows"]] == [(name, *PUBLISHED[name][:2]) for name in NAMES]
        storage.gate.set()  # the fit ends: the page shows it (its games and results)
        with trio.fail_after(60):
            while data.standings is None:
                await data.published()
        _, text = await get(base + "/leaderboard.json")
        board = json.loads(text)
        assert board["provisional"] is None and all(r["games"] > 0 for r in board["rows"])
        status, page = await get(base + "/")
        assert status == 200 and "being computed" not in page
        nursery.cancel_scope.cancel()


async def test_a_short_first_fit_is_waited_for_and_without_snapshots_nothing_is_made_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    db = make_event(tmp_path, NAMES, tables=6)
    storages = [HeldFit(db), HeldFit(db)]
    monkeypatch.setattr(data_module, "where_of", lambda storage: None)
    long_fit = EventData(storages[0], waited_games=5)  # type: ignore[arg-type]
    short_fit = EventData(storages[1], waited_games=6)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(long_fit.keep_fresh)
        nursery.start_soon(short_fit.keep_fresh)
        shown = await long_fit.current(provisional=True)
        assert shown.provisional is not None and "Shown meanwhile" not in shown.provisional
        assert shown.rows == () and shown.names == tuple(NAMES)
        storages[1].gate.set()
        with trio.fail_after(60):
            fitted = await short_fit.current(provisional=True)
        assert fitted.provisional is None and len(fitted.rows) == len(NAMES)
        storages[0].gate.set()
        nursery.cancel_scope.cancel()


def test_the_published_ratings_read_through_any_storage_equal_the_files_own(tmp_path: Path):
    """PostgreSQL events have no file: their provisional page reads the storage's snapshots
    (``latest_of``), which must say what the file's quick read says."""
    from arena.events.storage import SqliteStorage
    from arena.web.history import latest_of, latest_snapshot

    db = make_event(tmp_path, NAMES, tables=6)
    rows = [LiveRow(k, name, 1500.0 + k, 100.0, 4) for k, name in enumerate(NAMES, start=1)]
    storage = SqliteStorage(db)
    storage.add_snapshot(1_767_225_600.0, 3, rows)
    assert latest_of(storage.snapshots()) == latest_snapshot(db)
    assert latest_snapshot(db).kind == "live"  # type: ignore[union-attr]
    storage.add_snapshot(1_767_225_660.0, 6, rows, PUBLISHED)
    storage.add_snapshot(1_767_225_720.0, 9, rows)  # a later live one: the fit's still shown
    published = latest_of(storage.snapshots())
    assert published == latest_snapshot(db) and published is not None
    assert (published.kind, published.games, published.ratings) == ("fit", 6, PUBLISHED)
    storage.close()
