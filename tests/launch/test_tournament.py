"""``arena tournament`` end to end: real bot subprocesses, SQLite, resume after a drain and
after a kill, with deterministic bots so that runs can be compared game by game."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from arena.cli import main
from arena.events.settings import EventSettings, instances_needed
from arena.events.storage import SqliteStorage
from arena.games import get_game
from arena.launch.runner import BotSpec
from arena.launch.tournament import Tournament
from tests.events.test_storage import old_database

#: A bot whose every answer depends only on the request: legal[(id * k) % len(legal)] would
#: depend on numbering, so it picks by position in the legal list alone.
PICKER = """
import json, os, socket, sys
pick = int(sys.argv[1])
sock = socket.create_connection((os.environ["ARENA_HOST"], int(os.environ["ARENA_PORT"])))
out = sock.makefile("wb")
for line in sock.makefile("rb"):
    msg = json.loads(line)
    answer = None
    if msg["type"] == "welcome":
        answer = {"type": "hello", "name": "p",
                  "token": open(os.environ["ARENA_TOKEN_FILE"]).read()}
    elif msg["type"] == "request":
        answer = {"type": "action", "id": msg["id"],
                  "action": msg["legal"][pick % len(msg["legal"])]}
    elif msg["type"] == "bye" or (msg["type"] == "error" and msg.get("fatal")):
        break
    if answer:
        out.write(json.dumps(answer).encode() + b"\\n")
        out.flush()
"""


def pickers(tmp_path: Path) -> list[BotSpec]:
    script = tmp_path / "picker.py"
    script.write_text(PICKER)
    return [BotSpec(f"pick{k}", f"{sys.executable} {script} {k}") for k in (0, 1, 2, 5)]


def settings(sets: int = 2) -> EventSettings:
    return EventSettings(game="chochlik", options={"players": 3, "target": None, "hands": 1},
                         format="round-robin", duplicate=True, sets=sets, seed="t",
                         move_timeout=5.0)


def results(storage) -> dict[int, tuple]:
    return {g.planned: (g.entrants, g.scores) for g in storage.games()}


async def play(tmp_path: Path, name: str, bots, event: EventSettings, *, concurrency: int,
               drain_after: int | None = None):
    spec = get_game(event.game)
    storage = SqliteStorage(tmp_path / f"{name}.db")
    stored = []

    def on_game(game):
        stored.append(game)
        if drain_after is not None and len(stored) == drain_after:
            tournament.drain()

    tournament = Tournament(spec, spec.parse_options(event.options), bots,
                            event.planned(len(bots)), storage, log_dir=tmp_path / name,
                            concurrency=concurrency, on_game_over=on_game)
    report = await tournament.run()
    return storage, report


def test_instances_cover_the_tables_that_run_at_once():
    planned = settings(sets=4).planned(4)
    assert instances_needed(planned, 4, 2) == [2, 2, 2, 2]
    assert instances_needed(planned[:1], 4, 3) == [1, 1, 1, 0]


async def test_an_event_stores_every_game_once_and_resumes_after_a_drain(tmp_path):
    bots = pickers(tmp_path)
    event = settings()  # 4 bots, tables of 3: 2 sets of 6 games
    whole, report = await play(tmp_path, "whole", bots, event, concurrency=2)
    assert report.remaining == 0 and report.played == 12
    assert all(run.status == "ok" for run in report.runs)
    assert len(whole.games()) == 12 and len(report.runs) == 8  # 2 instances per bot

    cut, first = await play(tmp_path, "cut", bots, event, concurrency=2, drain_after=3)
    assert 3 <= first.played < 12 and first.remaining == 12 - first.played
    cut.close()
    resumed, second = await play(tmp_path, "cut", bots, event, concurrency=1)
    assert second.played == 12 - first.played and second.remaining == 0
    assert results(resumed) == results(whole)  # deterministic bots: the same games


async def test_bots_a_drain_stopped_before_they_connected_were_not_needed(tmp_path):
    """Drained before any table started (Ctrl-C at once, or a worker whose bots start slowly):
    bots still within their connect timeout are "not needed", not failures.  The bots here
    start slowly (they would connect only after a minute), so none has connected when the
    drain ends the event, whatever the machine's load (a fast picker sometimes had)."""
    bots = [BotSpec(f"slow{k}", f"{sys.executable} -c \"import time; time.sleep(60)\"")
            for k in range(4)]
    event = settings()
    spec = get_game(event.game)
    tournament = Tournament(spec, spec.parse_options(event.options), bots,
                            event.planned(len(bots)), SqliteStorage(tmp_path / "none.db"),
                            log_dir=tmp_path / "none", concurrency=2)
    tournament.drain()
    report = await tournament.run()
    assert report.played == 0 and report.remaining == 12
    assert {run.status for run in report.runs} == {"not needed"}
    assert not any(run.failed for run in report.runs)

async def test_an_event_stopped_at_once_stores_no_game_nobody_played(tmp_path):
    """Cancelled (a second Ctrl-C): as the bots go, the seating may still start tables with
    nobody to play them; those are left to the resume, not stored as aborted."""
    bots = pickers(tmp_path)
    event = settings(sets=4)
    spec = get_game(event.game)
    storage = SqliteStorage(tmp_path / "stopped.db")
    with trio.CancelScope() as scope:
        tournament = Tournament(
            spec, spec.parse_options(event.options), bots, event.planned(len(bots)), storage,
            log_dir=tmp_path / "logs",
            on_game_over=lambda game: scope.cancel() if tournament.played >= 3 else None)
        await tournament.run()
    assert scope.cancelled_caught
    stopped = storage.games()
    assert 3 <= len(stopped) < 24 and all(game.aborted is None for game in stopped)
    storage.close()
    resumed, report = await play(tmp_path, "stopped", bots, event, concurrency=2)
    assert report.played == 24 - len(stopped) and report.remaining == 0
    assert all(game.aborted is None for game in resumed.games())


def test_a_killed_event_resumes_without_losing_or_repeating_a_game(tmp_path):
    script = tmp_path / "picker.py"
    script.write_text(PICKER)
    db = tmp_path / "killed.db"

    def event_args(db: Path, logs: str) -> list[str]:
        bots = [arg for k in (0, 1, 2) for arg in ("--bot", f"p{k}={sys.executable} {script} {k}")]
        return ["tournament", "--game", "chochlik", *bots, "--sets", "3", "--hands", "1",
                "--duplicate",
                "--seed", "k", "--db", str(db), "--log-dir", str(tmp_path / logs),
                "--resamples", "0"]

    event = subprocess.Popen([sys.executable, "-m", "arena.cli", *event_args(db, "logs")],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for line in event.stdout:  # the live view: a line per stored game
            if re.search(r"\] 4/18 ", line):
                break
        event.send_signal(signal.SIGKILL)
        event.wait(timeout=20)
    finally:
        if event.poll() is None:
            event.kill()
        event.stdout.close()
    before = len(SqliteStorage(db).games())
    assert 4 <= before < 18
    result = CliRunner().invoke(main, ["tournament", "--resume", "--db", str(db),
                                       "--log-dir", str(tmp_path / "logs"),
                                       "--resamples", "0"])
    assert result.exit_code == 0, result.output
    games = SqliteStorage(db).games()
    assert [g.planned for g in games] == list(range(18))
    assert "18 of 18 games stored" in result.output

    fresh = tmp_path / "fresh.db"
    clean = CliRunner().invoke(main, event_args(fresh, "logs2"))
    assert clean.exit_code == 0, (clean.output, repr(clean.exception))
    assert results(SqliteStorage(fresh)) == results(SqliteStorage(db))


def test_an_event_database_written_before_game_records_resumes(tmp_path):
    """A database as 6aa8bd6 wrote it, 4 of its 12 games stored: the resume keeps their rows
    as they were and plays the other 8, the games an uninterrupted run plays."""
    script = tmp_path / "picker.py"
    script.write_text(PICKER)
    bots = [(f"p{k}", f"{sys.executable} {script} {k}") for k in (0, 1, 2)]
    db = tmp_path / "old.db"
    old_database(db, bots)
    old_rows = set(sqlite3.connect(db).execute("SELECT * FROM games").fetchall())
    result = CliRunner().invoke(main, ["tournament", "--resume", "--db", str(db),
                                       "--log-dir", str(tmp_path / "logs"),
                                       "--resamples", "0"])
    assert result.exit_code == 0, (result.output, repr(result.exception))
    assert "8 to play" in result.output and "12 of 12 games stored" in result.output
    assert old_rows <= set(sqlite3.connect(db).execute("SELECT * FROM games").fetchall())
    fresh = tmp_path / "fresh.db"
    clean = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", *[arg for name, command in bots
                                              for arg in ("--bot", f"{name}={command}")],
        "--sets", "2", "--hands", "3", "--seed", "old", "--db", str(fresh), "--duplicate",
        "--log-dir", str(tmp_path / "logs2"), "--resamples", "0"])
    assert clean.exit_code == 0, (clean.output, repr(clean.exception))
    played = set(range(12)) - {row[0] for row in old_rows}
    resumed, uninterrupted = results(SqliteStorage(db)), results(SqliteStorage(fresh))
    assert {k: resumed[k] for k in played} == {k: uninterrupted[k] for k in played}


def test_ratings_prints_the_leaderboard_in_three_formats(tmp_path):
    db = tmp_path / "r.db"
    storage = SqliteStorage(db)
    storage.write_event({"seed": "x"}, [("a", "random"), ("b", "random")])
    from tests.events.test_storage import game

    for i in range(4):
        storage.add_game(game(i, (0, 1, 0), (1, 2, 3), set_index=i))
    runner = CliRunner()
    table = runner.invoke(main, ["ratings", "--db", str(db)])
    assert table.exit_code == 0 and table.output.splitlines()[1].split()[1] == "a"
    csv = runner.invoke(main, ["ratings", "--db", str(db), "--format", "csv"])
    assert csv.output.startswith("place,entrant,name,elo,low,high")
    as_json = runner.invoke(main, ["ratings", "--db", str(db), "--format", "json"])
    assert '"name": "b"' in as_json.output
    anchored = runner.invoke(main, ["ratings", "--db", str(db), "--anchor", "b"])
    assert anchored.output.splitlines()[2].split()[1:3] == ["b", "1500"]
    assert runner.invoke(main, ["ratings", "--db", str(db), "--anchor", "zed"]).exit_code == 2


def test_tournament_usage_errors_exit_2(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "u.db")
    one = runner.invoke(main, ["tournament", "--game", "chochlik", "--bot", "random",
                               "--db", db])
    assert one.exit_code == 2 and "at least two" in one.output
    both = runner.invoke(main, ["tournament", "--game", "chochlik", "--bot", "random",
                                "--bot", "random", "--games", "3", "--sets", "1", "--db", db])
    assert both.exit_code == 2
    nothing = runner.invoke(main, ["tournament", "--resume", "--db", str(tmp_path / "none.db")])
    assert nothing.exit_code == 2 and "no event" in nothing.output


def test_trio_is_not_needed_to_read_ratings():
    assert "trio" not in sys.modules or trio  # the leaderboard modules import no trio
    code = ("import sys, arena.events.leaderboard, arena.events.ratings, arena.events.storage, "
            "arena.events.schedule;"
            "print('trio' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_sprt_accepts_that_the_heuristic_beats_random_and_stops_early(tmp_path):
    result = CliRunner().invoke(main, [
        "sprt", "--game", "chochlik", "--bot", "chochlik-heuristic", "--bot", "random",
        "--field", "random", "--seed", "1", "--concurrency", "2", "--max-sets", "40",
        "--db", str(tmp_path / "s.db"), "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    assert "H1 accepted" in result.output
    sets = len({g.set_index for g in SqliteStorage(tmp_path / "s.db").games()})
    assert sets < 40  # it stopped as soon as the evidence allowed


async def test_the_same_runner_plays_a_vollewolle_event(tmp_path):
    spec = get_game("vollewolle")
    event = EventSettings(game="vollewolle", options={"players": 2}, format="round-robin",
                          duplicate=True, sets=3, seed="v", move_timeout=5.0)
    bots = pickers(tmp_path)[:3]
    storage = SqliteStorage(tmp_path / "v.db")
    tournament = Tournament(spec, spec.parse_options(event.options), bots,
                            event.planned(len(bots)), storage, log_dir=tmp_path / "v",
                            concurrency=2)
    report = await tournament.run()
    assert report.remaining == 0 and len(storage.games()) == 6  # 3 pairs x 2 seatings
    for game in storage.games():
        assert game.aborted is None and sum(game.defaults) == 0


def test_a_first_ctrl_c_finishes_the_running_games_and_stops(tmp_path):
    """Ctrl-C at a terminal signals the whole process group: the arena drains, and the bots,
    in sessions of their own, keep playing the running games to their end."""
    script = tmp_path / "picker.py"
    script.write_text(PICKER)
    db = tmp_path / "drained.db"
    bots = [arg for k in (0, 1, 2) for arg in ("--bot", f"p{k}={sys.executable} {script} {k}")]
    event = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "--game", "chochlik", *bots,
         "--sets", "20", "--hands", "3", "--seed", "d", "--db", str(db), "--concurrency", "2",
         "--duplicate",
         "--log-dir", str(tmp_path / "logs"), "--resamples", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        for line in event.stdout:
            if re.search(r"\] 2/120 ", line):
                break
        os.killpg(event.pid, signal.SIGINT)  # as a terminal does
        output = event.stdout.read()
        assert event.wait(timeout=60) == 1
    finally:
        if event.poll() is None:
            event.kill()
        event.stdout.close()
    games = SqliteStorage(db).games()
    assert "finishing the running games" in output
    assert f"{len(games)} of 120 games stored" in output and "continue with --resume" in output
    assert 2 <= len(games) < 120
    assert all(sum(game.defaults) == 0 for game in games)  # the bots played them all


def test_resume_refuses_to_change_what_the_event_is(tmp_path):
    db = tmp_path / "e.db"
    SqliteStorage(db).write_event({"game": "chochlik"}, [("a", "random")])
    result = CliRunner().invoke(main, ["tournament", "--resume", "--db", str(db),
                                       "--sets", "50", "--seed", "x"])
    assert result.exit_code == 2 and "cannot change --seed, --sets" in result.output


def test_resume_refuses_a_schedule_it_cannot_rebuild(tmp_path):
    db = tmp_path / "p.db"
    meta = {**settings().to_meta(), "plan": "0000"}
    SqliteStorage(db).write_event(meta, [(b.name, b.command) for b in pickers(tmp_path)])
    result = CliRunner().invoke(main, ["tournament", "--resume", "--db", str(db)])
    assert result.exit_code == 2 and "another version of arena" in result.output


def test_the_reaction_timeout_is_stored_with_the_event_and_old_events_still_load(tmp_path,
                                                                               monkeypatch):
    import arena.cli.events

    given = {}
    monkeypatch.setattr(arena.cli.events, "run_event",
                        lambda settings, *args, **kwargs: given.setdefault("s", settings))
    db = tmp_path / "r.db"
    result = CliRunner().invoke(main, ["tournament", "--game", "chochlik", "--bot", "random",
                                       "--bot", "random", "--bot", "random", "--sets", "1",
                                       "--reaction-timeout", "0.5", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert given["s"].reaction_timeout == 0.5
    assert SqliteStorage(db).meta()["reaction_timeout"] == 0.5
    assert EventSettings.from_meta(SqliteStorage(db).meta()) == given["s"]
    old = settings().to_meta()
    del old["reaction_timeout"]  # an event stored before the field existed
    assert EventSettings.from_meta(old) == settings()
    assert settings().reaction_timeout == 1.0


def test_sprt_passes_the_reaction_timeout_to_its_tables(tmp_path, monkeypatch):
    from tests.helpers import stand_in_tournament

    class Captured(Exception):
        pass

    def fake_tournament(*args, **kwargs):
        raise Captured(kwargs)

    stand_in_tournament(monkeypatch, fake_tournament)
    result = CliRunner().invoke(main, [
        "sprt", "--game", "chochlik", "--bot", "a=random", "--bot", "b=random",
        "--field", "random", "--reaction-timeout", "0.75", "--db", str(tmp_path / "s.db")])
    assert isinstance(result.exception, Captured), result.output
    assert result.exception.args[0]["reaction_timeout"] == 0.75


def test_a_tournament_passes_the_reaction_timeout_to_its_server(tmp_path):
    event = settings()
    spec = get_game(event.game)
    tournament = Tournament(spec, spec.parse_options(event.options), pickers(tmp_path),
                            event.planned(4), SqliteStorage(tmp_path / "x.db"),
                            log_dir=tmp_path, reaction_timeout=0.3)
    assert tournament.server.config.reaction_timeout == 0.3


async def test_a_registered_bot_that_connects_by_itself_is_an_entrant(tmp_path):
    """``--bot NAME=@remote`` with ``--tokens``: the runner launches no process for it; the bot
    connects to the event's server with its registered token and plays its scheduled tables."""
    import random as random_module

    from tests.helpers import connect_tcp

    spec = get_game("chochlik")
    event = settings(sets=1)
    bots = pickers(tmp_path)[:2] + [BotSpec("remote", "@remote")]
    token = "remote-token-0123456789"
    storage = SqliteStorage(tmp_path / "remote.db")
    tournament = Tournament(spec, spec.parse_options(event.options), bots,
                            event.planned(len(bots)), storage, log_dir=tmp_path / "logs",
                            registry={"Remote": token})
    assert [i.token for i in tournament.instances if i.entrant == 2] == [token]
    report = None

    async def remote_bot():
        with trio.fail_after(10):
            await tournament.server.listening.wait()  # what the runner's announcement awaits
        client = await connect_tcp(tournament.server.port)
        await client.hello("remote", token=token)
        rng = random_module.Random(3)
        while (message := await client.receive()) is not None:
            if message["type"] == "request":
                await client.send({"type": "action", "id": message["id"],
                                   "action": rng.choice(message["legal"])})

    async with trio.open_nursery() as nursery:
        nursery.start_soon(remote_bot)
        report = await tournament.run()
    assert report.remaining == 0 and report.played == len(event.planned(3))
    assert [run.status for run in report.runs] == ["ok", "ok", "ok"]
    games = storage.games()
    assert all(sum(g.defaults) == 0 for g in games)  # the remote bot answered every request
    with pytest.raises(ValueError, match="no registered token"):
        Tournament(spec, spec.parse_options(event.options), bots, event.planned(3), storage,
                   log_dir=tmp_path / "logs")


def test_a_remote_bot_without_a_registered_token_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", "--bot", "a=random", "--bot", "b=random",
        "--bot", "c=@remote", "--db", str(tmp_path / "e.db"), "--log-dir", str(tmp_path)])
    assert result.exit_code == 2 and "no registered token" in result.output


class HeldStorage(SqliteStorage):
    """A storage whose writes wait (in their thread) until ``release`` is set: a disk that
    stalls.  (Bounded, so that a runner writing in its event loop fails instead of hanging.)"""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.release = threading.Event()

    def add_game(self, game) -> bool:
        assert self.release.wait(timeout=20), "the event loop never released the write"
        return super().add_game(game)


def held_tournament(tmp_path: Path, name: str, on_finished) -> tuple[Tournament, HeldStorage]:
    event = settings(sets=2)
    spec = get_game(event.game)
    storage = HeldStorage(tmp_path / f"{name}.db")
    tournament = Tournament(spec, spec.parse_options(event.options), pickers(tmp_path),
                            event.planned(4), storage, log_dir=tmp_path / name,
                            concurrency=2, on_game_finished=on_finished)
    return tournament, storage


async def test_a_stalled_storage_write_does_not_stop_the_tables(tmp_path):
    """SQLite's commit runs off the event loop: while the first write waits, the tables play
    on (in the loop, a stalled write would stop every clock and table)."""
    finished, stored_then = [], []

    def on_finished(game):
        finished.append(game)
        if len(finished) == 4:  # three more games ended while the first write waited
            stored_then.append(len(storage.games()))
            storage.release.set()

    tournament, storage = held_tournament(tmp_path, "held", on_finished)
    with trio.fail_after(60):
        report = await tournament.run()
    assert stored_then == [0]
    assert report.played == 12 and report.remaining == 0
    assert sorted(g.planned for g in storage.games()) == sorted(g.planned for g in finished)


@pytest.mark.parametrize("stop", ["drain", "cancel"])
async def test_games_waiting_for_a_stalled_write_are_stored_at_a_drain_or_a_stop(tmp_path,
                                                                                   stop):
    """A drain (first Ctrl-C) or a stop at once (second Ctrl-C) while writes wait: every game
    that ended is stored before the run returns."""
    finished = []

    def on_finished(game):
        finished.append(game)
        if len(finished) == 3:
            if stop == "drain":
                tournament.drain()
            else:
                scope.cancel()
            storage.release.set()

    tournament, storage = held_tournament(tmp_path, stop, on_finished)
    with trio.fail_after(60), trio.CancelScope() as scope:
        await tournament.run()
    assert len(finished) >= 3 and tournament.played == len(finished)
    assert sorted(g.planned for g in storage.games()) == sorted(g.planned for g in finished)
