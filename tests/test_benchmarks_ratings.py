"""benchmarks/ratings_speed.py runs on a small event and prints its figures (no timing is
checked here: speed is measured by the benchmark itself)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_ratings_benchmark_times_the_command_against_another_checkout(tmp_path) -> None:
    db = tmp_path / "small.db"
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import ratings_speed
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert ratings_speed.make_event(db, bots=6, sets=12, players=3) == 72  # 6 orders a set
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "ratings_speed.py"), "--db", str(db),
         "--repeats", "2", "--old-path", str(ROOT), "--parts"],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.strip().startswith(("this tree:", f"old ({ROOT}):")) for line in lines) == 2
    assert any("the printed tables are identical" in line for line in lines), done.stdout
    assert any("phases, CPU s in one process: imports" in line for line in lines)
    assert sum("goal, the command within 2 s" in line for line in lines) == 2
