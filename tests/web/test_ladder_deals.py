"""A ladder's pages never give away a deal that is still being played: ``arena serve --db
--web`` with registered bots playing duplicate sets, and a client that fetches the replays of
the newest games the pages know (each view and the page) each time a table starts.  Whatever it
was shown, no game with the same deal (the same seed) was stored after: none was unplayed or in
play.  Nor does the file, read as another program would, ever hold part of a set (a deal read
with fewer games than later), nor is a table of a duplicate set ever listed among the live
tables."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

from tests.cli.test_bots_command import add
from tests.serve_harness import DEADLINE, Served

#: Registered bots (enough that four often wait at once: a set forms then).
BOTS = 16
#: Duplicate sets whose replays the client must have been shown before it stops.
SETS_SHOWN = 3
#: Replays the client asks for each time a table starts: those of the newest games the pages
#: know (the nearest to a deal still in play).  Asking for every game falls ever further behind
#: on a busy machine, where the pages' process, ranked below the games, answers slowly.
ASKED = 4
#: Tables started at most before the client gives up waiting for them.
MOST_TABLES = 200


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=DEADLINE) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def stored(db: Path) -> list[tuple[int, str, str]]:
    """(planned, seed, game id) of every stored game, read as another program would."""
    with sqlite3.connect(db, timeout=DEADLINE) as reader:
        rows = reader.execute("SELECT planned, seed, game_id FROM games ORDER BY planned")
        return [(planned, seed, game_id) for planned, seed, game_id in rows]


def test_no_replay_of_a_ladder_game_shows_a_deal_still_being_played(tmp_path: Path):
    db = tmp_path / "ladder.db"
    tokens = {f"bot{i}": add(db, f"bot{i}") for i in range(BOTS)}
    shown: dict[int, int] = {}  # planned -> games stored once its replay was shown
    listed: set[str] = set()  # game ids the live tables listed
    texts: list[str] = []
    read: dict[str, int] = {}  # seed -> its stored games when first read
    grown: set[str] = set()  # seeds read with fewer games than later: read while in play
    with Served(tmp_path, "--game", "vollewolle", "--players", "2", "--db", str(db),
                "--web", "0", "--quiet", verbose=True) as served:
        [base] = [m.group(1) for line in served.out.seen
                  if (m := re.search(r"the pages at (http://127\.0\.0\.1:\d+)/", line))]
        for name, token in tokens.items():
            served.bots.append(subprocess.Popen(
                [sys.executable, "-m", "tests.web.paced_random", "--port", str(served.port),
                 "--name", name, "--token", token], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        for _ in range(MOST_TABLES):
            served.err.expect(r"arena\.server: table \d+: ")  # the pace: a table started
            status, live = fetch(base + "/live.json")
            assert status == 200, live
            listed.update(table["game_id"] for table in json.loads(live)["tables"])
            board = fetch(base + "/leaderboard.json")[1]
            texts.append(board)
            known = json.loads(board)["version"]  # the games the pages know: 0 .. known - 1
            now = stored(db)
            for seed, count in Counter(seed for _, seed, _ in now).items():
                if read.setdefault(seed, count) != count:  # a deal stored part by part
                    grown.add(seed)
            unshown = [planned for planned, _, _ in now if planned < known and planned not in shown]
            for planned in unshown[-ASKED:]:
                status, full = fetch(f"{base}/game/{planned}.json?view=full")
                if status != 200:
                    assert status == 404, full
                    continue
                views = [fetch(f"{base}/game/{planned}{page}") for page in (
                    ".json?view=public", ".json?view=seat0", ".json?view=seat1", "")]
                assert all(status == 200 for status, _ in views), views
                texts += [full, *(text for _, text in views)]
                shown[planned] = len(stored(db))
            seeds = [seed for planned, seed, _ in stored(db) if planned in shown]
            if sum(seeds.count(seed) > 1 for seed in set(seeds)) >= SETS_SHOWN:
                break
        else:
            raise AssertionError(f"{SETS_SHOWN} duplicate sets were never shown: {shown}")
        assert served.interrupt() == 0
    games = stored(db)
    seed_of = {planned: seed for planned, seed, _ in games}
    leaked = {planned: [later for later, seed, _ in games
                        if seed == seed_of[planned] and later >= count]
              for planned, count in shown.items()}
    assert not any(leaked.values()), f"shown while its deal was still played: {leaked}"
    assert not grown, f"deals read while their sets were still played: {grown}"
    sets = {seed for seed in seed_of.values() if list(seed_of.values()).count(seed) > 1}
    assert not [game_id for _, seed, game_id in games if game_id in listed and seed in sets]
    assert not [seed for seed in seed_of.values() if any(seed in text for text in texts)]
