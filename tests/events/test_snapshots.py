"""Rating snapshots: when to take one (a pure policy, plain times), what a snapshot keeps, and
``arena ratings --history [NAME]`` printing them."""

from __future__ import annotations

import sqlite3

from click.testing import CliRunner

from arena.cli import main
from arena.events.live_rating import LiveRating
from arena.events.snapshots import SnapshotPolicy, history, write_snapshot
from tests.events.test_live_rating import game
from tests.events.test_ratings_command import stored
from tests.events.test_storage import game as stored_game


def test_the_policy_takes_one_every_n_games_or_t_seconds_with_new_games():
    policy = SnapshotPolicy(every_games=10, every_seconds=60.0, share=0.0)
    assert not policy.due(9, now=59.0, last_games=0, last_time=0.0)
    assert policy.due(10, now=1.0, last_games=0, last_time=0.0)
    assert policy.due(11, now=60.0, last_games=10, last_time=0.0)  # a minute, one more game
    assert not policy.due(10, now=500.0, last_games=10, last_time=0.0)  # no new game
    assert not policy.due(15, now=59.9, last_games=10, last_time=0.0)


def test_a_young_event_is_snapshotted_often_enough_to_draw():
    """Every tenth of the games so far (at least one) until that is ``every_games``: 240 games
    give dozens of points, not the 3 of one every 100 games."""
    policy = SnapshotPolicy(every_games=100, every_seconds=600.0)
    taken, last = [], 0
    for games in range(1, 2001):
        if policy.due(games, now=0.0, last_games=last, last_time=0.0):
            taken.append(games)
            last = games
    assert taken[:3] == [1, 2, 3]
    assert 30 <= len([g for g in taken if g <= 240]) <= 60
    late = [b - a for a, b in zip(taken, taken[1:]) if a >= 1000]
    assert late and set(late) == {100}


def run(*args):
    return CliRunner().invoke(main, ["ratings", *args])


def test_history_prints_each_bots_snapshots_and_the_fit_when_there_was_one(tmp_path):
    db = stored(tmp_path, ["a", "b", "c"], [stored_game(0), stored_game(1)])
    live = LiveRating(players=3)
    live.add(game(["a", "b", "c"], (1, 2, 3)))
    write_snapshot(tmp_path / "event.db", 1_700_000_000.0, 1, live.ranking())
    live.add(game(["a", "b", "c"], (1, 2, 3)))
    write_snapshot(tmp_path / "event.db", 1_700_000_060.0, 2, live.ranking(),
                   {"a": (1620.0, 1550.0, 1700.0), "b": (1500.0, None, None)})
    found = history(tmp_path / "event.db")
    assert list(found) == ["a", "b", "c"] and [s.games for s in found["a"]] == [1, 2]
    assert found["a"][1].mean > found["a"][0].mean > 1500 > found["c"][1].mean
    assert found["a"][1].elo == 1620.0 and found["a"][0].elo is None

    result = run("--db", db, "--history")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:4] == ["bot", "taken", "(UTC)", "games"]
    assert len(lines) == 1 + 6
    assert lines[1].split()[:3] == ["a", "2023-11-14", "22:13:20"]
    assert lines[2].split()[3] == "2" and lines[2].split()[-2:] == ["1620", "1550..1700"]
    assert lines[4].split()[-2:] == ["1500", "-"]  # b: a fit without an interval (thin)

    only = run("--db", db, "--history", "b")
    assert only.exit_code == 0 and [line.split()[0] for line in only.output.splitlines()] == [
        "bot", "b", "b"]


def test_history_of_an_unknown_bot_or_of_no_snapshots_is_one_line(tmp_path):
    db = stored(tmp_path, ["a", "b", "c"], [stored_game(0)])
    empty = run("--db", db, "--history")
    assert empty.exit_code == 0 and "no rating snapshots yet" in empty.output
    tables = {name for (name,) in sqlite3.connect(db).execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "rating_snapshots" not in tables  # reading never makes the table
    live = LiveRating(players=3)
    live.add(game(["a", "b", "c"], (1, 2, 3)))
    write_snapshot(tmp_path / "event.db", 0.0, 1, live.ranking())
    unknown = run("--db", db, "--history", "zed")
    assert unknown.exit_code == 2
    assert "no rating snapshots of 'zed'; the bots with some: a, b, c" in unknown.output
    assert "Traceback" not in unknown.output
