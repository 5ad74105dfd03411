"""The live leaderboard of a running event: the live rating in the loop, the batch fit in a
process of its own that reads the database itself and writes a snapshot, live-only snapshots
by the policy, and a failed fit said in a line."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.events.progress import LiveView
from arena.events.snapshots import SnapshotPolicy, history
from arena.events.storage import SqliteStorage
from arena.launch.live_board import LiveBoard
from tests.events.test_leaderboard import trio_sets
from tests.events.test_ratings_command import stored

NAMES = ["a", "b", "c"]


def event(tmp_path: Path) -> tuple[Path, list]:
    games = (trio_sets(3, (0, 1, 2), (2, 0, 1))  # c best, then a, then b
             + trio_sets(2, (0, 1, 2), (0, 2, 1), first_planned=100))
    return Path(stored(tmp_path, NAMES, games)), games


async def test_the_fit_runs_in_its_own_process_and_writes_a_snapshot(tmp_path, monkeypatch):
    db, games = event(tmp_path)

    def no_reads_here(self):  # the loop's process never reads the games
        raise AssertionError("the event's process read the stored games")

    monkeypatch.setattr(SqliteStorage, "games", no_reads_here)
    printed: list[str] = []
    board = LiveBoard(db, NAMES, 3, echo=printed.append, seed="x", resamples=20,
                      clock=lambda: 1_700_000_000.0)
    for game in games:
        board.game_over(game)
    await board.refresh()
    text = printed[0].splitlines()
    assert text[0] == "live rating (openskill), 15 games:"
    assert [line.split()[1] for line in text[2:5]] == [row.name for row in board.ranking()]
    assert "95% interval" in text[5]
    assert [line.split()[1] for line in text[6:9]] == ["c", "a", "b"]
    found = history(db)
    assert sorted(found) == NAMES and all(len(found[name]) == 1 for name in NAMES)
    c = found["c"][0]
    assert c.games == 15 and c.taken_at == 1_700_000_000.0
    assert c.elo is not None and c.low is not None and c.low <= c.elo <= c.high and c.low < c.high
    assert c.mean == pytest.approx(board.live.estimate("c")[0])


async def test_live_snapshots_are_written_as_the_policy_says(tmp_path):
    db, games = event(tmp_path)
    board = LiveBoard(db, NAMES, 3, echo=print,
                      policy=SnapshotPolicy(every_games=4, share=0.0),
                      clock=lambda: 0.0)
    for game in games[:10]:
        board.game_over(game)
    board.close()
    await board.write_snapshots()  # ends once the queued ones are written
    found = history(db)
    assert [snap.games for snap in found["a"]] == [4, 8]
    assert all(snap.elo is None for snap in found["a"])  # live only: no fit came with them


async def test_a_failed_fit_is_one_line(tmp_path):
    db = tmp_path / "broken.db"
    db.write_bytes(b"not a database at all" * 100)
    printed: list[str] = []
    board = LiveBoard(db, NAMES, 3, echo=printed.append)
    await board.refresh()
    assert printed[0].splitlines()[-1].startswith("arena: the leaderboard's fit failed (exit 1)")
    assert "Traceback" not in printed[0]


def test_the_progress_line_shows_the_live_ratings_leaders(tmp_path):
    db, games = event(tmp_path)
    board = LiveBoard(db, NAMES, 3, echo=print, earlier=games[:9])  # c won the first sets
    line = LiveView(NAMES, total=15, done=9, started=0.0).line(60.0, board.leaders())
    c, a, b = (round(board.live.estimate(name)[0]) for name in "cab")
    assert c > a > b and line.endswith(f"| c {c}, a {a}, b {b}")


async def test_a_ladders_fit_runs_every_so_often_only_after_new_games(tmp_path, mock_clock):
    import functools
    import math

    import trio
    import trio.testing

    from arena.events.live_rating import LiveRating
    from arena.launch.live_board import fit_periodically

    db, games = event(tmp_path)
    live = LiveRating(3, NAMES)
    for game in games:
        live.add(game)
    reports, reported = trio.open_memory_channel[str | None](math.inf)

    async def after(seconds: float) -> None:  # the fit's loop is back asleep (or fitting)
        mock_clock.jump(seconds)
        await trio.testing.wait_all_tasks_blocked()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(
            fit_periodically, db, live, every=60.0, report=reports.send_nowait,
            clock=lambda: 5.0, seed="x", resamples=20))
        await after(0.0)  # asleep
        await after(60.0)  # the first turn: no game since the start, no fit
        assert history(db) == {} and reported.statistics().current_buffer_used == 0
        live.add(games[0])  # one more game (for the live rating only)
        await after(60.0)
        assert await reported.receive() is None
        found = history(db)
        assert sorted(found) == NAMES and [s.games for s in found["c"]] == [16]
        assert found["c"][0].elo is not None and found["c"][0].taken_at == 5.0
        assert found["c"][0].mean == pytest.approx(live.estimate("c")[0])
        await after(60.0)  # no game since: no fit
        assert reported.statistics().current_buffer_used == 0
        nursery.cancel_scope.cancel()


async def test_a_live_snapshots_ranking_is_made_off_the_event_loop(tmp_path, monkeypatch):
    """Ranking hundreds of bots takes tens of ms: the loop queues a copy of the live rating
    and the writer's thread ranks it (as the ladder's book does)."""
    import contextlib

    import trio

    from arena.events.live_rating import LiveRating

    in_the_loop = []
    ranking = LiveRating.ranking

    def watched(self, names=()):
        with contextlib.suppress(RuntimeError):  # (no trio task: a worker thread)
            in_the_loop.append(trio.lowlevel.current_task().name)
        return ranking(self, names)

    monkeypatch.setattr(LiveRating, "ranking", watched)
    db, games = event(tmp_path)
    board = LiveBoard(db, NAMES, 3, echo=print,
                      policy=SnapshotPolicy(every_games=4, share=0.0),
                      clock=lambda: 0.0)
    for game in games[:10]:
        board.game_over(game)
    board.close()
    await board.write_snapshots()
    assert [snap.games for snap in history(db)["a"]] == [4, 8] and in_the_loop == []
