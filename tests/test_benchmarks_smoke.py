"""The benchmarks run and print what the summary collector reads (no timing is checked here:
speed is measured by the benchmarks themselves)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def summary_rows(output: str) -> list[dict[str, Any]]:
    lines = [line for line in output.splitlines() if line.startswith("SUMMARY ")]
    assert len(lines) == 1, output
    return json.loads(lines[0].removeprefix("SUMMARY "))


def test_decision_path_runs_and_summarises() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "decision_path.py"), "--bots", "3", "--seconds", "0.4",
         "--window", "0.1", "--warmup", "0.1", "--record-games", "1"],  # windows: min < max
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = summary_rows(done.stdout)
    by_name = {row["name"]: row for row in rows}
    assert all(row["goal"] == "P1" for row in rows)
    for server in ("arena", "fan-out echo", "plain echo"):
        row = by_name[f"decision path: {server} decisions/s"]
        assert row["unit"] == "decisions/s" and row["target"] is None
        assert 0 < row["min"] <= row["median"] <= row["max"]
        assert row["value"] == row["median"]
        assert row["cpu_us_per_decision"] > 0
    goal = by_name["decision path: arena / fan-out echo decisions/s"]
    assert goal["target"] == 0.8 and goal["unit"] == "ratio"
    assert 0 < goal["min"] <= goal["median"] <= goal["max"]


def test_token_flood_runs_and_summarises(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "token_flood.py"), "--rounds", "1",
         "--window-seconds", "2", "--addresses", "2", "--probe-every", "0.2"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    found = summary_rows(done.stdout)["this tree"]
    assert found["quiet"]["count"] > 0 and found["flood"]["count"] > 0, done.stdout
    assert found["bad_token"]["count"] == found["unknown_token"]["count"] == 20
    assert "flood: 0 hellos" not in done.stdout


def test_churn_runs_from_several_addresses_and_summarises() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "churn.py"), "--honest", "3", "--windows", "2",
         "--window-seconds", "1", "--warmup", "0.5", "--churn-addresses", "2",
         "--churn-loops", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    [run] = summary_rows(done.stdout)
    assert run["arena_path"] is None
    [(quiet, churn)] = run["windows"]
    assert not quiet["churning"] and churn["churning"]
    assert quiet["honest"] > 0 and quiet["junk"] == 0
    assert churn["churn_cycles"] > 0 and run["churn_cycles"] == [churn["churn_cycles"]]
    assert "honest games with / without (paired)" in done.stdout
