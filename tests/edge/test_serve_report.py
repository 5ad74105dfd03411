"""What ``arena serve`` tells its operator: status lines on stderr (connections, seatings, open
seats; at most one a second), a running tally and a summary on stdout, ``--games N``,
``--quiet`` and ``-v``."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import trio
import trio.testing

from arena.edge.serve_report import (
    STATUS_SECONDS,
    Notes,
    Tally,
    TallyClock,
    report_loop,
    status_line,
)
from arena.edge.serve_run import GameLimit
from arena.gameplay.records import GameRecord
from arena.seating.policies import ArrivalSeating
from tests.helpers import log_files
from tests.serve_harness import Served


def record(game_id: str, names: tuple[str, ...], scores: tuple[int, ...],
           winners: tuple[int, ...], aborted: str | None = None) -> GameRecord:
    return GameRecord(number=0, game_id=game_id, entrants=(None,) * len(names), names=names,
                      seed="s", scores=scores, ranks=(), winners=winners, aborted=aborted,
                      defaults=(), errors=(), rounds=1, log_path=None, seconds=1.0)


def test_a_status_line_says_what_changed():
    notes = Notes()
    for number, name in enumerate("abc", start=1):
        notes.connected(number, name)
    assert status_line(notes.take(), 0, 3, 4, 3, 0) == (
        "arena: connected: a, b, c; 3 of 4 seated, waiting for 1 "
        "[3 connections, 0 tables running]")
    assert status_line(notes.take(), 3, 3, 4, 3, 0) is None
    notes.connected(4, "d")
    notes.seated(1, [2, 3, 4, 1], ["b", "c", "d", "a"])
    assert status_line(notes.take(), 3, 0, 4, 4, 1) == (
        "arena: connected: d; seated: table 1 (b, c, d, a); nobody waiting for a seat "
        "[4 connections, 1 tables running]")
    notes.seated(2, [1, 2, 3, 4], ["a", "b", "c", "d"])  # the same players again: no news
    assert notes.take() == []
    notes.left(3, "c")
    notes.connected(5, "e")
    notes.seated(3, [1, 2, 4, 5], ["a", "b", "d", "e"])  # one of them is new
    assert notes.take() == ["connected: e", "left: c", "seated: table 3 (a, b, d, e)"]
    for number in range(20):
        notes.connected(100 + number, f"bot{number:02}")
    assert status_line(notes.take(), 0, 20, 4, 24, 1).startswith(
        "arena: connected: bot00, bot01, bot02, bot03, bot04, bot05 and 14 more; "
        "20 waiting for a seat")


def test_the_tally_counts_games_wins_and_mean_scores_per_name():
    tally = Tally()
    tally.add(record("t1", ("a", "b"), (10, 20), (1,)))
    tally.add(record("t2", ("b", "a"), (5, 5), (0, 1)))  # a shared win counts for both
    tally.add(record("t3", ("a", "b"), (), (), aborted="server_shutdown"))
    lines = tally.lines()
    assert lines[0] == "arena: 3 games played, 1 aborted"
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:4]}
    assert rows == {"b": ["2", "2", "12.5"], "a": ["2", "1", "7.5"]}
    assert lines[-1] == "  last: t3: aborted (server_shutdown)"
    assert lines[-3] == "  last: t1: a=10 b=20"


def test_the_tally_is_due_after_its_seconds_and_its_games_whichever_is_later():
    clock = TallyClock(10, 3, now=0)
    assert not clock.due(20, 2)  # time enough, games not
    assert not clock.due(5, 5)  # games enough, time not
    assert clock.due(10, 3)
    assert not clock.due(30, 5) and clock.due(30, 6)


def test_a_game_limit_starts_no_more_tables_and_is_done_when_they_end():
    seating = GameLimit(ArrivalSeating(2, settle=0), 1)
    assert seating.ready("a", 0) == []
    (table,) = seating.ready("b", 0)
    assert not seating.statistics().done
    assert seating.ready("c", 0) == [] and seating.ready("d", 0) == []  # held back
    seating.game_over(table, 1)
    assert seating.statistics().done


def test_status_lines_come_at_most_once_a_second_however_busy_the_server():
    clock = trio.testing.MockClock(autojump_threshold=0)
    notes = Notes()
    waiting = [0]
    server = SimpleNamespace(statistics=lambda: SimpleNamespace(
        connections=waiting[0], tables_running=0,
        seating=SimpleNamespace(waiting=waiting[0])))
    lines: list[tuple[float, str]] = []

    async def churn() -> None:
        for number in range(1, 101):  # a connection every 50 ms
            notes.connected(number, f"b{number}")
            waiting[0] += 1
            await trio.sleep(0.05)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(report_loop, server, notes, 4,
                               lambda line: lines.append((trio.current_time(), line)),
                               Tally(), None, print)
            await churn()
            await trio.sleep(2 * STATUS_SECONDS)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=clock)
    times = [time for time, _ in lines]
    assert all(b - a >= STATUS_SECONDS for a, b in zip(times, times[1:]))
    assert len(lines) <= 6 and "100 waiting for a seat" in lines[-1][1]
    # a second's connections in one line, listed by arrival up to a point
    assert re.match(r"arena: connected: b1, b2, b3, b4, b5, b6 and 1[45] more;", lines[0][1])


def test_the_operator_sees_connections_and_the_seats_a_table_waits_for(tmp_path: Path):
    with Served(tmp_path, "--game", "vollewolle", "--players", "4") as served:
        for _ in range(3):
            served.bot()
        served.err.expect(r"3 of 4 seated, waiting for 1")
        assert any("connected: random" in line for line in served.err.seen)
        served.bot("--name", "fourth")
        seated = served.err.expect(r"seated: table 1 \(([^)]*)\)").group(1)
        assert sorted(seated.split(", ")) == ["fourth", "random", "random#2", "random#3"]
        assert served.interrupt() == 0


def test_verbose_logs_connections(tmp_path: Path):
    with Served(tmp_path, "--game", "vollewolle", "--players", "2", verbose=True) as served:
        served.client("bob")
        served.err.expect(r"arena\.server: bob connected \(127\.0\.0\.1\)")
        served.client("eve")
        served.err.expect(r"arena\.server: table 1: (bob, eve|eve, bob)")
        assert served.interrupt() == 0


def test_a_running_tally_and_a_summary_at_ctrl_c(tmp_path: Path):
    with Served(tmp_path, "--game", "chochlik", "--hands", "1", "--tally-every", "0",
                "--tally-games", "2") as served:
        for _ in range(3):
            served.bot()
        served.out.expect(r"^arena: ([2-9]|\d\d+) games played$")
        served.out.expect(r"^  random#2 +\d+ +\d+ +-?\d+\.\d$")
        assert served.interrupt() == 0
        rest = served.out.rest()
        summary = rest.index(next(line for line in rest if re.match(r"arena: \d+ games", line)))
        assert rest[summary + 1].split() == ["name", "games", "wins", "mean", "score"]
        assert {line.split()[0] for line in rest[summary + 2:summary + 5]} == {
            "random", "random#2", "random#3"}


def test_games_n_stops_after_n_games_says_bye_and_exits_0(tmp_path: Path):
    with Served(tmp_path, "--game", "chochlik", "--hands", "1", "--games", "3",
                "--quiet") as served:
        bots = [served.bot() for _ in range(3)]
        assert served.process.wait(timeout=60) == 0
        assert all(bot.wait(timeout=60) == 0 for bot in bots)  # told bye
        out = served.out.rest()
        assert "arena: 3 games played: stopping" in out
        assert out[-8] == "arena: 3 games played"  # the summary: 2 headers, 3 names, 3 results
        assert not any(line.startswith("table ") for line in out)  # --quiet
    assert len(log_files(tmp_path / "logs")) == 3


def test_a_table_that_never_started_does_not_count_against_the_game_limit():
    seating = GameLimit(ArrivalSeating(2, settle=0), 1)
    seating.ready("a", 0)
    (table,) = seating.ready("b", 0)
    assert seating.unstarted(table, ["a"], 1) == []  # b was gone: a waits again
    (again,) = seating.ready("c", 2)  # the one game the limit allows is still to come
    assert set(again.sessions) == {"a", "c"}
    assert seating.ready("d", 2) == [] and seating.ready("e", 2) == []  # held back
    seating.game_over(again, 3)
    assert seating.statistics().done
