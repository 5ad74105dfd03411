"""The ``arena`` command line, with click's CliRunner, and ``arena serve`` stopped by Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_games_lists_chochlik():
    code, out = run("games")
    assert code == 0 and "chochlik" in out


def test_match_prints_a_result_table_and_replay_checks_the_logs(tmp_path: Path):
    code, out = run("match", "--game", "chochlik", "--bot", "random", "--bot", "random",
                    "--bot", "chochlik-heuristic", "--games", "2", "--hands", "1",
                    "--seed", "cli", "--log-dir", str(tmp_path))
    assert code == 0, out
    assert re.search(r"chochlik-heuristic\s+2\s", out) and "2 game(s), 2 hand(s)" in out
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert len(logs) == 2
    code, out = run("replay", str(logs[0]))
    assert code == 0 and "reproduces" in out
    code, out = run("replay", "--show", "--seat", "1", str(logs[0]))
    assert code == 0 and "dealt" in out
    lines = logs[0].read_text().splitlines()
    result = json.loads(lines[-1])
    result["scores"][0] += 1
    logs[0].write_text("\n".join(lines[:-1] + [json.dumps(result)]) + "\n")
    code, out = run("replay", str(logs[0]))
    assert code == 1 and "does NOT reproduce" in out


def test_usage_errors_exit_2():
    assert run("serve", "--game", "chochlik", "--players", "5")[0] == 2
    assert run("serve", "--game", "nope")[0] == 2
    assert run("match", "--game", "chochlik", "--bot", "random", "--bot", "random")[0] == 2
    assert run("serve", "--game", "chochlik", "-o", "colour")[0] == 2


def test_serve_stops_cleanly_on_ctrl_c_and_logs_the_running_game(tmp_path: Path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    server = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--game", "chochlik", "--port", "0",
         "--target", "0", "--hands", "500", "--log-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    bots = []
    try:
        banner = server.stdout.readline()
        port = int(re.search(r":(\d+);", banner).group(1))
        bots = [subprocess.Popen([sys.executable, "-m", "reference_bots.random", "--port",
                                  str(port), "--name", f"r{i}"]) for i in range(3)]
        time.sleep(1.5)
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=20) == 0
        assert all(bot.wait(timeout=20) == 0 for bot in bots)  # told bye, they exit
    finally:
        for process in [server, *bots]:
            if process.poll() is None:
                process.kill()
    (log,) = tmp_path.glob("*.jsonl")
    last = json.loads(log.read_text().splitlines()[-1])
    assert last == {"type": "aborted", "reason": "server_shutdown"}
