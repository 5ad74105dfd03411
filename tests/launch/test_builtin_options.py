"""A built-in bot with options, through the real CLI: ``--bot "chochlik-heuristic
--random-rate 0.25"`` plays as that bot; an option it does not accept stops it with its usage
error, which the runner shows.  (Where a test runs a second command only for what it stores or
prints on stdout, that one runs in this process.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def arena_here(*args: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    """The same command in this process (its bots in theirs), run from ``cwd``."""
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(main, list(args))


def match(bot: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return arena("match", "--game", "chochlik", "--bot", bot, "--bot", "random", "--bot",
                 "random", "--games", "2", "--hands", "1", cwd=cwd)


def status_of(stdout: str, bot: str) -> str:
    row = next(line for line in stdout.splitlines() if line.split()[:1] == [bot])
    return row.split(maxsplit=8)[-1]


def test_a_builtin_bot_with_its_options_plays_every_seat_itself(tmp_path: Path) -> None:
    done = match("chochlik-heuristic --random-rate 0.25", tmp_path)
    assert done.returncode == 0, done.stderr
    for bot in ("chochlik-heuristic", "random-1", "random-2"):
        assert status_of(done.stdout, bot) == "ok"
    output = next((tmp_path / "arena-logs" / "bots").glob("*-chochlik-heuristic.txt"))
    assert "error" not in output.read_text()


def test_an_option_the_builtin_bot_does_not_accept_shows_its_usage_error(tmp_path: Path) -> None:
    done = match("chochlik-heuristic --no-such-option 1", tmp_path)
    assert done.returncode == 1
    assert status_of(done.stdout, "chochlik-heuristic") == "never connected (exit 2)"
    assert "  | usage: chochlik_heuristic.py" in done.stderr
    assert "unrecognized arguments: --no-such-option 1" in done.stderr


def test_a_named_builtin_bot_takes_options_too(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    done = arena_here("match", "--game", "chochlik", "--bot",
                      "careful=chochlik-heuristic --random-rate 0", "--bot", "random", "--bot",
                      "random", "--games", "2", "--hands", "1", cwd=tmp_path,
                      monkeypatch=monkeypatch)
    assert done.exit_code == 0, done.output
    assert status_of(done.stdout, "careful") == "ok"


def test_a_tournament_bot_whose_command_is_not_found_stops_the_event_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bots = ["--bot", "a=random", "--bot", "b=random --seed 3"]
    done = arena("tournament", "--game", "chochlik", *bots, "--bot", "c=no-such-bot-program",
                 "--games", "3", "--hands", "1", "--db", "t.db", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "Error: bot c cannot start (command not found: no-such-bot-program): fix its --bot "
        "command or leave it out; no game was played"]
    assert not (tmp_path / "arena-logs").exists()
    # the event was not stored: the same --db takes the fixed command
    again = arena_here("tournament", "--game", "chochlik", *bots, "--bot", "c=random",
                       "--games", "3", "--hands", "1", "--db", "t.db", "--duplicate",
                       cwd=tmp_path, monkeypatch=monkeypatch)
    assert again.exit_code == 0, again.output
    assert "6 of 6 games stored in t.db" in again.stdout


def test_a_tournament_bot_that_ends_before_it_connects_stops_the_event(tmp_path: Path) -> None:
    done = arena("tournament", "--game", "chochlik", "--bot", "a=random", "--bot", "b=random",
                 "--bot", "c=chochlik-heuristic --no-such-option", "--games", "3", "--hands",
                 "1", "--db", "t.db", "--duplicate", cwd=tmp_path)
    assert done.returncode == 1
    assert "0 of 6 games stored in t.db" in done.stdout  # no seat of c played by defaults
    assert "unrecognized arguments: --no-such-option" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "arena: stopped the event: bot c ended before it connected (its output is above): "
        "fix that, then --resume, or play the event again with a corrected --bot and a new "
        "--db")
