"""``arena worker`` processes play an event planned in PostgreSQL (``arena tournament --db URL
--plan-only``) to the end: every planned game stored exactly once, the same games and ratings
as one process playing the same seeds, progress by worker in ``--status``, and the event's
rating snapshot taken at the end (``arena ratings --history``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.leaderboard import leaderboard
from arena.events.pg_queue import event_status
from arena.events.pg_storage import PostgresStorage
from arena.events.settings import EventSettings
from arena.launch.runner import BotSpec
from tests.launch.test_tournament import pickers, play, results

#: Seconds a test waits for its workers at most (they take a few under load).
WORKERS_DONE = 90


def plan_event(url: str, bots: list[BotSpec], sets: int = 2) -> None:
    planned = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", "--hands", "1", "--seed", "w", "--sets", str(sets),
        "--duplicate",
        "--db", url, "--plan-only", *[f"--bot={bot.name}={bot.command}" for bot in bots]])
    assert planned.exit_code == 0, planned.output
    assert f"{4 * 3 * sets // 2} games planned" in planned.output


def start_worker(url: str, folder: Path, *extra: str, netns: str | None = None,
                 **popen) -> subprocess.Popen:
    """An ``arena worker`` process (in the network namespace ``netns``, if given)."""
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [*(["ip", "netns", "exec", netns] if netns else []),
         sys.executable, "-m", "arena", "worker", "--db", url, "--batch", "2",
         "--log-dir", str(folder / "logs"), *extra],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}, **popen)


def finished(worker: subprocess.Popen) -> str:
    output, _ = worker.communicate(timeout=WORKERS_DONE)
    assert worker.returncode == 0, output
    return output


def ratings(db: str) -> list:
    rated = CliRunner().invoke(main, ["ratings", "--db", db, "--format", "json",
                                      "--resamples", "0"])
    assert rated.exit_code == 0, rated.output
    return json.loads(rated.output)


def ratings_of(storage, names: list[str]) -> list:
    return [(row.name, row.elo) for row in leaderboard(names, storage.games(), resamples=0)]


@pytest.mark.parametrize("count", [2, 3])
async def test_worker_processes_store_every_game_once_as_one_process_plays_it(
        tmp_path, pg_url, count):
    bots = pickers(tmp_path)
    plan_event(pg_url, bots, sets=1)  # 6 games, 3 batches of 2
    workers = [start_worker(pg_url, tmp_path / f"w{i}") for i in range(count)]
    outputs = [finished(worker) for worker in workers]
    stored = PostgresStorage(pg_url)
    settings = EventSettings.from_meta(stored.meta())
    one, report = await play(tmp_path, "one", bots, settings, concurrency=1)
    assert report.played == 6
    assert results(stored) == results(one)  # the same 6 games, each stored once
    names = [bot.name for bot in bots]
    assert ratings_of(stored, names) == ratings_of(one, names)
    assert [row["elo"] for row in ratings(pg_url)] == [elo for _, elo in ratings_of(one, names)]
    status = event_status(pg_url)
    assert (status.planned, status.stored) == (6, 6)
    assert len(status.workers) == count and {w.state for w in status.workers} == {"done"}
    by_worker = {w.worker: w.stored for w in status.workers}
    assert sum(by_worker.values()) == 6
    for output in outputs:  # what each said it stored is what the database says
        name, said = output.strip().splitlines()[-1].split(": ")
        assert by_worker[name.removeprefix("arena worker ")] == int(said.split()[0])
    shown = CliRunner().invoke(main, ["tournament", "--db", pg_url, "--status"])
    assert "6/6 games stored" in shown.output and shown.output.count(" done ") == count
    snapshots = stored.snapshots()  # the one the worker that found every game stored took
    assert all([(s.games, s.elo is not None) for s in snapshots[name]] == [(6, True)]
               for name in names[:3]), snapshots
    history = CliRunner().invoke(main, ["ratings", "--db", pg_url, "--history", "pick0"])
    assert history.exit_code == 0 and history.output.splitlines()[1].split()[3] == "6"


def test_a_worker_refuses_bots_it_cannot_launch_and_a_database_without_an_event(
        tmp_path, pg_url, pg_server):
    bots = pickers(tmp_path)[:2]
    planned = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", "--db", pg_url, "--plan-only",
        *[f"--bot={bot.name}={bot.command}" for bot in bots], "--bot", "far=@remote"])
    assert planned.exit_code == 0, planned.output
    remote = CliRunner().invoke(main, ["worker", "--db", pg_url])
    assert remote.exit_code == 2 and "far connect(s) by themselves" in remote.output
    unknown = CliRunner().invoke(main, ["worker", "--db", pg_url, "--bot", "nobody=random"])
    assert unknown.exit_code == 2 and "nobody: no such entrant" in unknown.output
    empty = CliRunner().invoke(main, ["worker", "--db", pg_server.new_database()])
    assert empty.exit_code == 1 and "holds no event" in empty.output
    assert "Traceback" not in remote.output + unknown.output + empty.output
