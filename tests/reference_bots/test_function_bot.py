"""A Python bot is one function: play_function connects, plays every game, and uses it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers import log_files, read_records

ROOT = Path(__file__).resolve().parent.parent.parent

BOT = '''
import sys
from reference_bots.client import play_function

def choose(observation, legal):
    assert isinstance(observation, dict)
    return legal[-1]

sys.exit(play_function(choose, "last-legal"))
'''


def test_a_function_is_a_whole_bot(tmp_path):
    bot = tmp_path / "last_legal.py"
    bot.write_text(BOT)
    logs = tmp_path / "logs"
    result = subprocess.run(
        [sys.executable, "-m", "arena", "match", "--game", "chochlik", "--hands", "1",
         "--bot", f"last={sys.executable} {bot}", "--bot", "random", "--bot", "random",
         "--games", "2", "--log-dir", str(logs)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout + result.stderr
    checked = 0
    for log in log_files(logs):
        records = read_records(log)
        seat = records[0]["names"].index("last")
        offered = {}
        for record in records:
            if record["type"] == "request" and record["seat"] == seat:
                offered[record["id"]] = record["legal"]
            if record["type"] == "action" and record["seat"] == seat:
                assert record["by"] == "bot" and record["action"] == offered[record["id"]][-1]
                checked += 1
    assert checked > 10
