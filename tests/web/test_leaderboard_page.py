"""The leaderboard page's text: bots that have not played yet listed apart as provisional, and
when the standings were computed."""

from __future__ import annotations

import re
import time

from arena.events.export import open_event
from arena.events.storage import SqliteStorage
from arena.web.data import fit
from arena.web.pages import leaderboard_page, versus_page
from tests.web.events import make_event

NAMES = ["alpha", "beta", "gamma"]


def test_bots_that_have_not_played_are_provisional_and_the_time_of_the_fit_is_said(tmp_path):
    db = make_event(tmp_path, NAMES, tables=3)
    writer = SqliteStorage(db)  # two bots registered since: no game yet
    writer.write_event({"game": "chochlik", "options": {"hands": 1, "players": 3}, "seed": "t",
                        "duplicate": False},
                       [(name, "builtin") for name in [*NAMES, "newcomer", "latecomer"]])
    writer.close()
    storage = open_event(db)
    before = time.time()
    try:
        standings, _ = fit(storage, resamples=10)
    finally:
        storage.close()
    assert "newcomer" not in versus_page(standings)  # nothing to show of them there
    page = leaderboard_page(standings)
    assert "groups that never met" not in page and "group 1 of" not in page
    played, _, provisional = page.partition('class="provisional-bots"')
    assert all(f">{name}</a>" in played for name in NAMES)
    assert "newcomer" not in played and "latecomer" not in played
    assert ">newcomer</a>" in provisional and ">latecomer</a>" in provisional
    assert "not played yet" in provisional
    said = re.search(r"computed at (\d\d:\d\d:\d\d) UTC", page)
    assert said is not None
    assert said.group(1) in {time.strftime("%H:%M:%S", time.gmtime(t))
                             for t in (before, before + 1, before + 2)}
