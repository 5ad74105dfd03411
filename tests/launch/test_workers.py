"""``arena tournament --workers N``: the tables dealt over worker processes, every game stored
once in the one database, the same games as in one process for deterministic bots, drain,
resume and stopping at once."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
import trio
from click.testing import CliRunner

from arena.cli import main
from arena.events.storage import SqliteStorage
from arena.gameplay.records import GameRecord
from arena.games import get_game
from arena.launch.runner import BotLaunch
from arena.launch.sandbox import Sandbox
from arena.launch.workers import Share, TournamentWorkers, deal, game_from, game_line
from tests.launch.test_tournament import PICKER, pickers, play, results, settings


def test_tables_are_dealt_in_schedule_order_in_proportion_to_each_workers_tables_at_once():
    planned = settings(sets=2).planned(4)  # 12 tables
    shares = deal(planned, concurrency=3, workers=2)
    assert [at_once for at_once, _ in shares] == [2, 1]
    first, second = (tables for _, tables in shares)
    assert [t.index for t in first] == [t.index for i, t in enumerate(planned) if i % 3 != 2]
    assert [t.index for t in second] == [t.index for i, t in enumerate(planned) if i % 3 == 2]
    assert [len(tables) for _, tables in deal(planned[:1], 2, 2)] == [1]  # none: not started
    with pytest.raises(ValueError, match="between 1 and --concurrency"):
        deal(planned, concurrency=1, workers=2)


def test_a_share_and_a_game_cross_the_pipe_unchanged(tmp_path):
    table = settings().planned(4)[5]
    share = Share(game="chochlik", options={"players": 3, "target": None, "hands": 3},
                  bots=[("a", "random"), ("b", "x {port}"), ("c", "c"), ("d", "d")],
                  tables=[table], concurrency=2,
                  log_dir=str(tmp_path), move_timeout=5.0, reaction_timeout=1.0,
                  time_bank=0.0, connect_timeout=10.0, stdio=True,
                  sandbox={"memory_mb": 512, "cpu_seconds": 3, "max_file_mb": 64,
                           "max_open_files": 256})
    assert Share.from_line(share.to_line()) == share
    tournament = share.tournament(SqliteStorage(tmp_path / "unused.db"))
    assert tournament.launch == BotLaunch(stdio=True, sandbox=Sandbox(512, 3))
    game = GameRecord(number=5, game_id="g", entrants=table.entrants, names=("a", "c", "b"),
                      seed=table.seed, scores=(3, -1, 0), ranks=(1, 3, 2), winners=(0,),
                      aborted=None, defaults=(0, 0, 1), errors=(0, 0, 0), rounds=3,
                      log_path=Path("/x.jsonl"), seconds=0.5, tag=table, timeouts=(0, 0, 1),
                      decisions=(7, 7, 6))
    assert game_from(json.loads(game_line(game))["game"]) == game  # every field, tag and all
    unplayed = attrs.evolve(game, scores=(), ranks=(), winners=(), aborted="internal_error",
                            rounds=None, log_path=None)
    assert game_from(json.loads(game_line(unplayed))["game"]) == unplayed


async def play_with_workers(tmp_path: Path, name: str, bots, event, *, workers: int,
                            concurrency: int, drain_after: int | None = None):
    spec = get_game(event.game)
    storage = SqliteStorage(tmp_path / f"{name}.db")
    stored = []

    def on_game(game):
        stored.append(game)
        if drain_after is not None and len(stored) == drain_after:
            runner.drain()

    runner = TournamentWorkers(spec, spec.parse_options(event.options), bots,
                               event.planned(len(bots)), storage, log_dir=tmp_path / name,
                               workers=workers, concurrency=concurrency, on_game_over=on_game)
    report = await runner.run()
    return storage, report


async def test_two_workers_store_the_same_games_as_one_process(tmp_path):
    bots = pickers(tmp_path)
    event = settings()  # 4 bots, tables of 3: 2 sets of 6 games
    alone, _ = await play(tmp_path, "alone", bots, event, concurrency=2)
    spread, report = await play_with_workers(tmp_path, "spread", bots, event, workers=2,
                                             concurrency=2)
    assert report.remaining == 0 and report.played == 12 and not report.failures
    assert len(report.runs) == 8 and all(run.status == "ok" for run in report.runs)
    assert results(spread) == results(alone)  # the same keys, the same games
    games = spread.games()
    assert all(sum(game.defaults) == 0 for game in games)
    assert all([await trio.Path(game.log_path).exists() for game in games])
    assert len({game.game_id for game in games}) == 12
    assert report.worker_cpu_seconds > 0 and report.bot_cpu_seconds > 0


async def test_an_event_drained_with_workers_resumes_with_workers(tmp_path):
    bots = pickers(tmp_path)
    event = settings(sets=3)
    whole, _ = await play(tmp_path, "whole", bots, event, concurrency=2)
    cut, first = await play_with_workers(tmp_path, "cut", bots, event, workers=2,
                                         concurrency=2, drain_after=2)
    assert 2 <= first.played < 18 and first.remaining == 18 - first.played
    # drained, not thrown out (under load some bots had not connected yet: not needed)
    statuses = [(run.spec.name, run.status) for run in first.runs]
    assert all(status in ("ok", "not needed") for _, status in statuses), statuses
    cut.close()
    resumed, second = await play_with_workers(tmp_path, "cut", bots, event, workers=2,
                                              concurrency=3)
    assert second.played == 18 - first.played and second.remaining == 0
    assert results(resumed) == results(whole)


async def test_stopping_at_once_keeps_the_finished_games_and_leaves_no_worker(tmp_path,
                                                                             monkeypatch):
    bots = pickers(tmp_path)
    event = settings(sets=20)
    spec = get_game(event.game)
    storage = SqliteStorage(tmp_path / "stopped.db")
    workers = []
    open_process = trio.lowlevel.open_process

    async def open_worker(*args, **kwargs):
        workers.append(await open_process(*args, **kwargs))
        return workers[-1]

    monkeypatch.setattr(trio.lowlevel, "open_process", open_worker)
    with trio.CancelScope() as scope:
        runner = TournamentWorkers(
            spec, spec.parse_options(event.options), bots, event.planned(len(bots)), storage,
            log_dir=tmp_path / "logs", workers=2, concurrency=2,
            on_game_over=lambda game: scope.cancel() if runner.played >= 3 else None)
        await runner.run()
    assert scope.cancelled_caught
    games = storage.games()
    assert 3 <= len(games) < 120 and all(game.aborted is None for game in games)
    # the games that ended while the bots were being stopped may hold a default or two
    assert sum(sum(game.defaults) > 0 for game in games) <= 2
    assert len(workers) == 2 and all(worker.returncode is not None for worker in workers)


async def test_a_worker_that_dies_is_reported_and_its_games_are_left_to_the_resume(
        tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", shutil.which("false"))  # every worker exits at once
    storage, report = await play_with_workers(tmp_path, "dead", pickers(tmp_path), settings(),
                                              workers=2, concurrency=2)
    assert report.played == 0 and report.remaining == 12 and not storage.games()
    assert report.failures == [f"worker {n} ended without its report (its output is above)"
                               for n in (1, 2)]


def test_workers_need_as_many_tables_at_once_and_launched_bots(tmp_path):
    runner = CliRunner()
    too_many = runner.invoke(main, ["tournament", "--game", "chochlik", "--bot", "random",
                                    "--bot", "random", "--bot", "random", "--workers", "3",
                                    "--concurrency", "2", "--db", str(tmp_path / "a.db")])
    assert too_many.exit_code == 2 and "--concurrency 3 or more" in too_many.output
    tokens = tmp_path / "tokens"
    tokens.write_text("far remote-token-0123456789\n")
    remote = runner.invoke(main, ["tournament", "--game", "chochlik", "--bot", "a=random",
                                  "--bot", "b=random", "--bot", "far=@remote", "--tokens",
                                  str(tokens), "--workers", "2", "--concurrency", "2",
                                  "--db", str(tmp_path / "b.db"), "--log-dir", str(tmp_path)])
    assert remote.exit_code == 2 and "--workers 1" in remote.output


def test_a_first_ctrl_c_drains_every_worker_and_the_event_resumes_with_workers(tmp_path):
    script = tmp_path / "picker.py"
    script.write_text(PICKER)
    db = tmp_path / "drained.db"
    bots = [arg for k in (0, 1, 2) for arg in ("--bot", f"p{k}={sys.executable} {script} {k}")]
    event = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "--game", "chochlik", *bots,
         "--sets", "6", "--hands", "1", "--seed", "d", "--db", str(db), "--concurrency", "2",
         "--workers", "2", "--log-dir", str(tmp_path / "logs"), "--resamples", "0",
         "--duplicate"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        for line in event.stdout:
            if re.search(r"\] 2/36 ", line):
                break
        os.killpg(event.pid, signal.SIGINT)  # as a terminal does: the workers are not in it
        output = event.stdout.read()
        assert event.wait(timeout=60) == 1
    finally:
        if event.poll() is None:
            event.kill()
        event.stdout.close()
    games = SqliteStorage(db).games()
    assert "finishing the running games" in output and "Traceback" not in output
    assert f"{len(games)} of 36 games stored" in output and "continue with --resume" in output
    assert 2 <= len(games) < 36
    assert all(sum(game.defaults) == 0 for game in games)  # the bots played them all
    resumed = CliRunner().invoke(main, ["tournament", "--resume", "--db", str(db),
                                        "--concurrency", "2", "--workers", "2",
                                        "--log-dir", str(tmp_path / "logs"),
                                        "--resamples", "0"])
    assert resumed.exit_code == 0, resumed.output
    assert "36 of 36 games stored" in resumed.output
    assert [g.planned for g in SqliteStorage(db).games()] == list(range(36))
