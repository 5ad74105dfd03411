"""``arena match``'s runner: real bot subprocesses over TCP, seated by token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import trio

from arena.gameplay.replay import replay_log
from arena.games import get_game
from arena.launch.runner import BUILTIN_BOTS, bot_argv, plan_bots, run_match

SPEC = get_game("chochlik")
QUIT_AFTER_FIRST_REQUEST = (
    "{python} -c \"import json,socket,sys; s=socket.create_connection(('{host}',{port}));"
    "f=s.makefile('rb'); f.readline();"
    "s.sendall(json.dumps({'type':'hello','name':'q','token':'{token}'}).encode()+b'\\n');"
    "next(line for line in iter(f.readline, b'') if b'request' in line);"
    "sys.exit(2)\""
)


def test_bots_are_named_after_their_command_and_numbered_when_repeated():
    bots = plan_bots(["random", "random", "python3 -u my_bot.py --fast", "./bin/zed {port}",
                      "node /tmp/js/bot.js", "{python} -m pkg.smart", "python3 -c 'pass'",
                      "alice=java -jar Alice.jar", "bob=random", "java -cp out Bot",
                      "java -jar build/Carol.jar", "node -r ts-node/register dave.ts",
                      "python3 -I erin.py", "perl -W frank.pl"])
    assert [b.name for b in bots] == ["random-1", "random-2", "my_bot", "zed", "bot", "smart",
                                      "python3", "alice", "bob", "Bot", "Carol", "dave",
                                      "erin", "frank"]
    assert bots[0].command == BUILTIN_BOTS["random"] == bots[8].command
    assert bots[7].command == "java -jar Alice.jar"


def test_a_builtin_bot_name_followed_by_options_runs_the_builtin_bot_with_them():
    bots = plan_bots(["chochlik-heuristic --random-rate 0.25", "random", "random --seed 3",
                      "carl=random --seed 'a b'", "randomly --x"])
    assert [b.name for b in bots] == ["chochlik-heuristic", "random-1", "random-2", "carl",
                                      "randomly"]
    assert bots[0].command == BUILTIN_BOTS["chochlik-heuristic"] + " --random-rate 0.25"
    assert bots[2].command == BUILTIN_BOTS["random"] + " --seed 3"
    argv = bot_argv(bots[3].command, host="h", port=1, name="carl", token="t")
    assert argv[-2:] == ["--seed", "a b"]
    assert bots[4].command == "randomly --x"  # a name that only starts like a built-in one


def test_placeholders_are_replaced_in_every_word():
    argv = bot_argv("bot --at={host}:{port} -n {name} {token}", host="h", port=1, name="n",
                    token="t")
    assert argv == ["bot", "--at=h:1", "-n", "n", "t"]
    assert bot_argv("{python} x", host="h", port=1, name="n", token="t")[0] == sys.executable


async def test_three_random_bots_play_games_with_rotating_seats(tmp_path: Path):
    report = await run_match(SPEC, SPEC.parse_options({"players": 3, "hands": 1}),
                             plan_bots(["random"] * 3), games=3, seed="r", move_timeout=5,
                             log_dir=tmp_path)
    assert report.ok, report.table()
    # game g seats bot i at seat (i + g) % 3; record.bots lists the bot in each seat
    assert [r.bots for r in report.records] == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    rows = report.rows()
    assert [row["games"] for row in rows] == [3, 3, 3]
    assert sum(row["wins"] for row in rows) == 3.0
    assert all(row["defaults"] == 0 and row["errors"] == 0 for row in rows)
    assert "random-1" in report.table()
    for record in report.records:
        assert record.log_path is not None
        assert replay_log(record.log_path).startswith("scores")
        names = [rows[i]["bot"] for i in record.bots if i is not None]  # None: no bot
        assert list(record.names) == names  # results are attributed by token, per seat


async def test_a_bot_that_crashes_or_never_connects_is_reported_not_waited_on(tmp_path: Path):
    bots = plan_bots(["random", "{python} -c \"raise SystemExit(3)\"", QUIT_AFTER_FIRST_REQUEST])
    with trio.fail_after(60):
        report = await run_match(SPEC, SPEC.parse_options({"players": 3, "hands": 1}), bots,
                                 games=2, seed="c", move_timeout=5, log_dir=tmp_path,
                                 connect_timeout=20)
    statuses = [run.status for run in report.bots]
    assert statuses == ["ok", "never connected (exit 3)", "left early (exit 2)"]
    assert not report.ok
    assert len(report.records) == 2 and not any(r.aborted for r in report.records)
    rows = report.rows()
    assert rows[1]["defaults"] > 0 and rows[2]["defaults"] > 0 and rows[0]["defaults"] == 0
    # its seat's result is its own, whoever played it: the wins add up to the games
    assert abs(sum(row["wins"] for row in rows) - 2.0) < 1e-9


#: A bot whose process ends at its first request while a child of it holds its connection
#: open a moment longer (a wrapper script whose child lingers): the runner sees the process
#: end before the server sees the connection end.
ENDS_BEFORE_ITS_CONNECTION = (
    "{python} -c \"import json,os,socket,sys,time; s=socket.create_connection(('{host}',{port}));"
    "f=s.makefile('rb'); f.readline();"
    "s.sendall(json.dumps({'type':'hello','name':'q','token':'{token}'}).encode()+b'\\n');"
    "next(line for line in iter(f.readline, b'') if b'request' in line);"
    "os.fork() == 0 and time.sleep(1.5); os._exit(2)\""
)


async def test_a_bot_whose_process_ends_before_its_connection_is_not_waited_for(
        tmp_path: Path):
    """Its process ended (the runner withdrew it) before the server saw its connection end,
    which then kept its seat for the 30 s reconnection grace: about one run in three of the
    test above took 30 s that way."""
    bots = plan_bots(["random", "random", ENDS_BEFORE_ITS_CONNECTION])
    with trio.fail_after(20):  # (the grace is 30 s)
        report = await run_match(SPEC, SPEC.parse_options({"players": 3, "hands": 1}), bots,
                                 games=2, seed="c", move_timeout=5, log_dir=tmp_path,
                                 connect_timeout=20)
    assert [run.status for run in report.bots] == ["ok", "ok", "left early (exit 2)"]
    assert len(report.records) == 2 and report.rows()[2]["defaults"] > 0


def test_a_bot_refused_at_hello_is_credited_its_seats_win_and_the_table_says_so(tmp_path: Path):
    from arena.gameplay.records import GameRecord
    from arena.launch.runner import BotRun, MatchReport

    runs = [BotRun(bot, f"t{i}", tmp_path / f"{i}.txt", connected=i != 1)
            for i, bot in enumerate(plan_bots(["random", "random", "random"]))]
    record = GameRecord(number=0, game_id="g", entrants=(0, 1, 2), names=("a", "b", "c"),
                        seed="s", scores=(1, 9, 2), ranks=(3, 1, 2), winners=(1,),
                        aborted=None, defaults=(0, 40, 0), errors=(0, 0, 0), rounds=1,
                        log_path=None, seconds=1.0)
    report = MatchReport("chochlik", "hand", runs, [record], 1.0, tmp_path)
    rows = report.rows()
    assert rows[1]["wins"] == 1 and rows[1]["status"] == "never connected" and not report.ok
    assert "the seat of a bot played by defaults is credited to that bot" in report.table()


async def test_a_bot_that_never_connects_is_given_up_after_the_connect_timeout(tmp_path: Path):
    bots = plan_bots(["random", "random", "{python} -c \"import time; time.sleep(120)\""])
    with trio.fail_after(60):
        report = await run_match(SPEC, SPEC.parse_options({"players": 3, "hands": 1}), bots,
                                 games=1, seed="n", move_timeout=5, log_dir=tmp_path,
                                 connect_timeout=1.0)
    assert report.bots[2].status.startswith("never connected")
    assert len(report.records) == 1


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess (with this project on its path)."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, timeout=120, env=env)


def test_a_bot_command_that_does_not_exist_is_named_before_any_game(tmp_path: Path):
    for transport in ([], ["--stdio"]):
        done = _arena("match", "--game", "chochlik", "--hands", "1", "--bot", "random",
                      "--bot", "random", "--bot", "nosuchprogram-xyz", "--connect-timeout",
                      "5", "--log-dir", str(tmp_path / "logs"), *transport)
        assert done.returncode == 1, done.stderr
        assert ("Error: bot nosuchprogram-xyz cannot start (command not found: "
                "nosuchprogram-xyz): fix its --bot command or leave it out; no game was "
                "played") in done.stderr
        assert "Traceback" not in done.stderr
        assert not (tmp_path / "logs").exists()


def test_a_bot_that_dies_at_start_shows_its_last_lines(tmp_path: Path):
    crash = ("crasher={python} -c \"import sys; print('loading'); "
             "sys.exit('ModuleNotFoundError: no module named xyz')\"")
    done = _arena("match", "--game", "chochlik", "--hands", "1", "--bot", "random", "--bot",
                  "random", "--bot", crash, "--connect-timeout", "5", "--log-dir",
                  str(tmp_path))
    assert done.returncode == 1
    assert "crasher: never connected (exit 1); its output is in " in done.stderr
    assert "  | loading\n  | ModuleNotFoundError: no module named xyz" in done.stderr


def test_check_bot_names_a_command_that_does_not_exist():
    done = _arena("check-bot", "--game", "chochlik", "--connect-timeout", "5", "--",
                  "nosuchprogram-xyz")
    assert done.returncode == 1
    assert "command not found: nosuchprogram-xyz" in done.stdout, done.stdout


def test_a_tournament_names_a_command_that_does_not_exist(tmp_path: Path):
    done = _arena("tournament", "--game", "chochlik", "--bot", "random", "--bot", "random",
                  "--bot", "nosuchprogram-xyz", "--sets", "1", "--hands", "1",
                  "--connect-timeout", "5", "--db", str(tmp_path / "event.db"), "--log-dir",
                  str(tmp_path / "logs"), "--resamples", "0")
    assert done.returncode == 1
    # issue 20: before anything is stored or played (it was: its seat played by defaults)
    assert ("Error: bot nosuchprogram-xyz cannot start (command not found: nosuchprogram-xyz): "
            "fix its --bot command or leave it out; no game was played") in done.stderr
    assert not (tmp_path / "logs").exists()


def test_a_match_stops_before_its_first_game_when_a_bot_cannot_start(tmp_path: Path):
    """Issue 30: ``arena match`` played the whole series for a bot that could not start (its
    seat by defaults: the phantom bot "won" half the games); now it stops as a tournament
    does, and a script that is not executable is told to run with its interpreter."""
    script = tmp_path / "mybot.py"
    script.write_text("print('hello')\n")  # not executable
    done = _arena("match", "--game", "chochlik", "--bot", str(script), "--bot", "random",
                  "--bot", "random", "--games", "4", "--hands", "1",
                  "--log-dir", str(tmp_path / "logs"))
    assert done.returncode == 1
    assert (f"Error: bot mybot cannot start (not an executable file: {script}): give its "
            f"interpreter: --bot \"python3 {script}\"; no game was played") in done.stderr
    assert "game 1/4" not in done.stdout
    assert not (tmp_path / "logs").exists()
