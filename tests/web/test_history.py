"""A bot page's rating history from the rating snapshots an SQLite file holds (a ladder's or an
event's): the batch fit's Elo and interval where a snapshot has the fit, the live rating with
its own band otherwise, and the page says which."""

from __future__ import annotations

import pytest

from arena.events.export import open_event
from arena.events.live_rating import LiveRow
from arena.events.snapshots import write_snapshot
from arena.web.data import fit
from arena.web.history import LIVE_BAND, Point
from arena.web.pages import bot_page
from tests.web.events import HOSTILE, make_event

NAMES = ["alpha", "beta", HOSTILE, "delta"]


def test_the_history_is_read_from_the_snapshots_fit_or_live_and_the_page_says_which(tmp_path):
    db = make_event(tmp_path, NAMES, tables=6)
    live = [LiveRow(place, name, 1600.0 - 50 * place, 80.0 + place, 3)
            for place, name in enumerate(NAMES, start=1)]
    write_snapshot(db, 1.0, 3, live)  # live only
    write_snapshot(db, 2.0, 6, live[:2] + [LiveRow(9, "gone", 1500.0, 200.0, 1)],
                   {"alpha": (1570.0, 1500.0, 1640.0), "beta": (1490.0, None, None)})
    storage = open_event(db)
    try:
        standings, _ = fit(storage, resamples=20)
    finally:
        storage.close()
    history = standings.history
    assert history.source == "snapshots"
    band = LIVE_BAND * 81.0
    assert history.by_bot[0] == [Point(3, 1550.0, 1550.0 - band, 1550.0 + band, "live"),
                                 Point(6, 1570.0, 1500.0, 1640.0, "fit")]
    assert history.by_bot[1][-1] == Point(6, 1490.0, None, None, "fit")  # thin: no band
    assert [p.games for p in history.by_bot[2]] == [3] and sorted(history.by_bot) == [0, 1, 2, 3]
    page = bot_page(standings, 0)
    assert "3 games: 1550 (live rating)" in page and "6 games: 1570 (batch fit)" in page
    assert "the live rating (openskill)" in page and HOSTILE not in bot_page(standings, 2)
    assert history.by_bot[0][0].high == pytest.approx(1550.0 + 1.96 * 81.0)


def test_without_snapshots_the_history_is_fitted_on_prefixes_of_the_games(tmp_path):
    storage = open_event(make_event(tmp_path, NAMES, tables=6))
    try:
        history = fit(storage, resamples=20)[0].history
    finally:
        storage.close()
    assert history.source == "computed"
    assert all(point.kind == "fit" for points in history.by_bot.values() for point in points)
