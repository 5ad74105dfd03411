"""A full disk or an unwritable log folder costs one clear line per failure, never a
traceback; the ``.part`` files of logs that could not be finished do not stay to keep the disk
full, and ``--resume`` removes those an earlier run of the event left (issue 17 item 6).

Tests run as root, so a read-only folder would not stop them: the unwritable folder is one
under a regular file (NotADirectoryError), and the full disk is an ENOSPC injected where the
log is written."""

from __future__ import annotations

import errno
import logging
import random
import subprocess
import sys
from pathlib import Path

import trio
from click.testing import CliRunner

from arena.cli import main
from arena.events.settings import EventSettings
from arena.events.storage import SqliteStorage
from arena.gameplay.gamelog import SPOOL_LINES, GameLog
from tests.helpers import in_memory_clients, make_server

ROOT = Path(__file__).resolve().parent.parent


def full_disk(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def unwritable(tmp_path: Path) -> Path:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    return blocker / "logs"


def test_serve_with_an_unwritable_log_folder_says_so_in_one_line(tmp_path):
    """Through the real CLI, as a person runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "serve", "--game", "chochlik", "--port", "0",
         "--log-dir", str(unwritable(tmp_path))],
        capture_output=True, text=True, timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stderr.strip().splitlines() == [
        f"Error: cannot write game logs to {unwritable(tmp_path)}: Not a directory"]


def test_tournament_and_sprt_with_an_unwritable_log_folder_say_so_in_one_line(tmp_path):
    bots = ["--bot", "random", "--bot", "random"]
    for command in (["tournament", *bots, "--bot", "random", "--games", "1"],
                    ["sprt", *bots, "--field", "random"]):
        result = CliRunner().invoke(main, [command[0], "--game", "chochlik", *command[1:],
                                           "--db", str(tmp_path / f"{command[0]}.db"),
                                           "--log-dir", str(unwritable(tmp_path))])
        assert result.exit_code == 1, (command, result.output, repr(result.exception))
        assert "Error: cannot write game logs to" in result.output
        assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)


async def test_a_full_disk_costs_one_line_per_log_and_leaves_no_part_file(
        nursery, tmp_path, monkeypatch, caplog):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    monkeypatch.setattr("os.replace", full_disk)  # the disk is full when the log is finished
    clients = await in_memory_clients(nursery, server, 3)
    rng = random.Random(1)
    with caplog.at_level(logging.INFO, logger="arena.server"):
        async with trio.open_nursery() as players:
            for client in clients:
                players.start_soon(client.play_randomly, rng)
        (record,) = server.records
        logs = tmp_path / "logs"
        assert [p.name for p in logs.iterdir() if p.name.endswith(".part")]  # spooled part
        for _ in range(5):  # after every later game and at the stop: tried again
            server.write_logs()
        await server.shutdown()
    # the finished game's log, and the next game's (begun, then aborted by the stop)
    assert len(server.unwritten_logs) == 2
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(failures) == 2 and not any(r.exc_info for r in caplog.records), failures
    assert record.game_id in failures[0]
    for game_log, line in zip(server.unwritten_logs, failures):
        assert game_log.name in line and "No space left on device" in line
        assert "\n" not in line
    assert not [p.name for p in logs.iterdir() if p.name.endswith(".part")]  # disk freed


def test_resume_removes_the_events_stale_part_files_and_only_those(tmp_path):
    db, logs = tmp_path / "event.db", tmp_path / "logs"
    first = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", "--bot", "random", "--bot", "random", "--bot",
        "random", "--games", "1", "--hands", "1", "--seed", "z", "--db", str(db),
        "--log-dir", str(logs), "--resamples", "0"])
    assert first.exit_code == 0, first.output
    storage = SqliteStorage(db)
    seed = EventSettings.from_meta(storage.meta()).planned(3)[0].seed

    def killed_game(game_id: str, seed: str) -> Path:
        """What a killed run leaves: the spooled part of a game's log."""
        log = GameLog.begin(game="chochlik", game_id=game_id, table=1, seed=seed,
                            names=["a", "b", "c"], options={}, move_timeout_ms=5000,
                            started_at="")
        log.spool_to(logs)
        for number in range(SPOOL_LINES + 36):  # one batch spooled, the rest in memory
            log.note(0, f"note {number}")
        (part,) = logs.glob(f"*{game_id}*.part")
        return part

    ours, theirs = killed_game("old-t1", seed), killed_game("other-t1", "another event")
    resumed = CliRunner().invoke(main, ["tournament", "--resume", "--db", str(db),
                                        "--log-dir", str(logs), "--resamples", "0"])
    assert resumed.exit_code == 0, resumed.output
    assert not ours.exists() and theirs.exists()
    assert "removed 1 unfinished game log" in resumed.output


def test_a_tournament_whose_logs_the_disk_refused_says_so_and_exits_1(tmp_path, monkeypatch):
    monkeypatch.setattr("os.replace", full_disk)
    result = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", "--bot", "random", "--bot", "random", "--bot",
        "random", "--games", "1", "--hands", "1", "--db", str(tmp_path / "event.db"),
        "--log-dir", str(tmp_path / "logs"), "--resamples", "0"])
    assert result.exit_code == 1, result.output
    assert "game log(s) could not be written to" in result.output
    assert "Traceback" not in result.output
    assert not list((tmp_path / "logs").glob("*.part"))
