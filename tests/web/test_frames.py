"""A replay's public view holds the log's public events and nothing private, for every game
and many seeded games; a seat's view holds what that seat was sent."""

from __future__ import annotations

import json
import random

import pytest

from arena.gameplay.gamelog import read_log
from arena.web.frames import FULL, PUBLIC, frames
from tests.web.events import play, unlined
from tests.web.test_live import GAMES, private_only


@pytest.mark.parametrize("game,options", GAMES)
def test_replay_views_show_each_audience_only_its_own(tmp_path, game, options):
    for number in range(3):
        names = [f"bot{i}" for i in range(options["players"])]
        _, path = play(game, options, names, f"seed{number}", f"g{number}", tmp_path,
                       random.Random(number))
        records = read_log(path)
        public = frames(records, PUBLIC)
        text = json.dumps(public, sort_keys=True)
        assert not any(secret in text for secret in private_only(records))
        assert [unlined(s) for s in public["steps"] if s["type"] == "event"] == [
            {"type": "event", "kind": r["kind"], "data": r["data"]}
            for r in records if r["type"] == "event" and r["to"] is None]
        assert {s["type"] for s in public["steps"]} <= {"event", "result", "aborted"}
        assert "reveal" not in public["steps"][-1] and "seed" not in text
        for seat in range(options["players"]):
            mine = frames(records, f"seat{seat}")["steps"]
            assert all(s.get("seat", seat) == seat for s in mine)
            assert all(s["checked"] for s in mine if s["type"] == "request")
            assert [unlined(s) for s in mine if s["type"] == "event"] == [
                {"type": "event", "kind": r["kind"], "data": r["data"]} for r in records
                if r["type"] == "event" and (r["to"] is None or seat in r["to"])]
        full = frames(records, FULL)["steps"]
        assert len([s for s in full if s["type"] == "event"]) == len(
            [r for r in records if r["type"] == "event"])
