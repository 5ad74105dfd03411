"""The pages of a stored event, fetched over HTTP from the trio server (``arena web``)."""

from __future__ import annotations

import json

import pytest
import trio

from arena.events.export import open_event
from arena.gameplay.gamelog import read_log
from arena.web.serve import serve_pages
from tests.web.events import HOSTILE, get, make_event, unlined

NAMES = ["alpha", "beta", HOSTILE, "delta"]


async def test_every_page_shows_the_event_and_escapes_names(tmp_path):
    db = make_event(tmp_path, NAMES, tables=8)
    storage = open_event(db)
    async with trio.open_nursery() as nursery:
        base = await nursery.start(lambda task_status: serve_pages(storage, port=0,
                                                                   task_status=task_status))
        status, board = await get(base + "/")
        assert status == 200
        for name in ("alpha", "beta", "delta"):
            assert f">{name}</a>" in board
        assert HOSTILE not in board and "&lt;script&gt;alert(1)&lt;/script&gt;" in board
        status, text = await get(base + "/leaderboard.json")
        rows = json.loads(text)["rows"]
        assert sorted(row["name"] for row in rows) == sorted(NAMES)
        assert all(row["games"] > 0 for row in rows)
        for entrant in range(len(NAMES)):
            status, page = await get(f"{base}/bot/{entrant}")
            assert status == 200 and HOSTILE not in page
            assert 'class="history"' in page and "/game/" in page
        status, page = await get(base + "/versus")
        assert status == 200 and HOSTILE not in page and '<td class="score"' in page
        status, page = await get(base + "/game/0")
        assert status == 200 and HOSTILE not in page
        status, _ = await get(base + "/game/999")
        assert status == 404
        status, _ = await get(base + "/bot/99")
        assert status == 404
        status, page = await get(base + "/live")
        assert status == 200 and "no live server here" in page
        nursery.cancel_scope.cancel()
    storage.close()


async def test_a_replay_view_holds_what_its_audience_was_sent(tmp_path):
    db = make_event(tmp_path, NAMES[:3], tables=1)
    storage = open_event(db)
    log = storage.games()[0].log_path
    records = read_log(log)
    async with trio.open_nursery() as nursery:
        base = await nursery.start(lambda task_status: serve_pages(storage, port=0,
                                                                   task_status=task_status))
        _, text = await get(base + "/game/0.json?view=public")
        public = json.loads(text)
        events = [unlined(s) for s in public["steps"] if s["type"] == "event"]
        assert events == [{"type": "event", "kind": r["kind"], "data": r["data"]}
                          for r in records if r["type"] == "event" and r["to"] is None]
        assert {s["type"] for s in public["steps"]} == {"event", "result"}
        _, text = await get(base + "/game/0.json?view=seat1")
        seat = json.loads(text)
        requests = [s for s in seat["steps"] if s["type"] == "request"]
        assert requests and all(s["seat"] == 1 and s["checked"] for s in requests)
        assert [unlined(s) for s in seat["steps"] if s["type"] == "event"] == [
            {"type": "event", "kind": r["kind"], "data": r["data"]} for r in records
            if r["type"] == "event" and (r["to"] is None or 1 in r["to"])]
        status, _ = await get(base + "/game/0.json?view=seat7")
        assert status == 404
        nursery.cancel_scope.cancel()
    storage.close()


def test_arena_web_refuses_a_file_that_is_not_an_event_in_one_line(tmp_path):
    from click.testing import CliRunner

    from arena.cli.commands import main

    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    for db in (tmp_path / "missing.db", other):
        result = CliRunner().invoke(main, ["web", "--db", str(db)])
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert str(db) in result.output
    assert other.read_text() == "hello\n"


async def test_a_game_of_an_unfinished_duplicate_set_is_not_shown(tmp_path):
    from arena.events.storage import SqliteStorage

    db = make_event(tmp_path, NAMES[:3], tables=1)
    writer = SqliteStorage(db)  # the same deal is still to be played at 5 other seatings
    writer.write_event({"duplicate": True}, [(name, "builtin") for name in NAMES[:3]])
    writer.close()
    storage = open_event(db)
    async with trio.open_nursery() as nursery:
        base = await nursery.start(lambda task_status: serve_pages(storage, port=0,
                                                                   task_status=task_status))
        for view in ("public", "seat0", "full"):
            status, text = await get(f"{base}/game/0.json?view={view}")
            assert status == 404 and "duplicate set" in text
        nursery.cancel_scope.cancel()
    storage.close()


@pytest.mark.parametrize("kind", [{"format": "round-robin"},
                                  {"format": "duel", "sprt": [-10.0, 10.0, 0.05, 0.05]}])
async def test_a_duplicate_set_is_shown_once_every_seating_of_it_is_stored(tmp_path, kind):
    """A tournament's or an SPRT run's set of six seatings: set 0 stored whole, set 1 two of
    six (its deal still to be played at four seatings)."""
    from arena.events.storage import SqliteStorage

    db = make_event(tmp_path, NAMES[:3], tables=8, per_set=6)
    writer = SqliteStorage(db)
    writer.write_event({"duplicate": True, "sets": 2, **kind},
                       [(name, "builtin") for name in NAMES[:3]])
    writer.close()
    storage = open_event(db)
    async with trio.open_nursery() as nursery:
        base = await nursery.start(lambda task_status: serve_pages(storage, port=0,
                                                                   task_status=task_status))
        for planned in range(8):
            for view in ("public", "seat0", "seat2", "full"):
                status, text = await get(f"{base}/game/{planned}.json?view={view}")
                assert (status, "seed" in text) == ((200, False) if planned < 6 else (404, False))
            status, text = await get(f"{base}/game/{planned}")
            assert status == (200 if planned < 6 else 404)
            assert planned < 6 or "duplicate set" in text
        status, page = await get(f"{base}/bot/0")  # its games listed, linked once shown
        assert status == 200 and 'href="/game/5"' in page and 'href="/game/6"' not in page
        nursery.cancel_scope.cancel()
    storage.close()


def test_arena_serve_web_serves_the_pages_beside_the_live_server(tmp_path):
    import re
    import urllib.request

    from tests.serve_harness import Served

    with Served(tmp_path, "--game", "chochlik", "--web", "0") as served:
        [address] = [m.group(1) for line in served.out.seen
                     if (m := re.search(r"the pages at (http://127\.0\.0\.1:\d+)/", line))]
        with urllib.request.urlopen(address + "/live", timeout=30) as response:
            page = response.read().decode()
        assert "No table is running now." in page
        with urllib.request.urlopen(address + "/", timeout=30) as response:
            assert "no games stored here" in response.read().decode()
        assert served.interrupt() == 0
