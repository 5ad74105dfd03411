"""Every performance benchmark of issue 9 in one command, with one table of its goals.

    python benchmarks/run_all.py [--quick] [--long] [--only P1,P3] [--json FILE]
                                 [--before FILE] [--arena-path DIR]

Runs, each in its own process, one after the other (never two at once: they would share the
cores):

- P1 ``decision_path.py``: arena's decisions/s against a fan-out echo server sending the same
  lines to the same sockets, in paired windows;
- P2 ``load_bots.py``: 1,000 bots on 3-seat chochlik tables offering 1,000 decisions/s
  (60 s measured; ``--long``: the issue's 10 minutes; ``--quick``: 20 s);
- P3 ``engine_speed.py``: each engine's decisions/s per core with the acting seat's
  observation built (process CPU time, alternating windows);
- P4 ``tournament_speed.py``: a tournament between reference bots as subprocesses.

Each benchmark prints its own report, then one ``SUMMARY <json>`` line; this script gathers
those into one table: the median, the spread (min to max over the benchmark's windows or
runs), the target, the median as a fraction of the target, and whether the goal is met.

``--arena-path DIR`` measures another checkout of arena (its ``arena`` package comes first on
``PYTHONPATH``; the benchmark scripts are this tree's), e.g. the code before a change:
``git worktree add /tmp/before <commit>``.  ``--json FILE`` keeps the rows; ``--before FILE``
prints such an earlier run's medians beside this one's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def commands(quick: bool, long: bool, arena_path: str | None) -> dict[str, list[str]]:
    """The command line of each goal's benchmark."""
    load_seconds = "20" if quick else "600" if long else "60"
    return {
        "P1": ["decision_path.py"] + (["--quick"] if quick else [])
        + (["--arena-path", arena_path] if arena_path else []),  # its server's own PYTHONPATH
        "P2": ["load_bots.py", "--bots", "1000", "--rate", "1000", "--seconds", load_seconds],
        "P3": ["engine_speed.py"] + (["--quick"] if quick else []),
        "P4": ["tournament_speed.py"] + (["--quick"] if quick else []),
    }


def run_one(goal: str, argv: list[str], arena_path: str | None) -> list[dict[str, Any]]:
    env = dict(os.environ)
    if arena_path:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(arena_path).resolve())] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                                 else []))
    print(f"\n=== {goal}: {' '.join(argv)}" + (f"  (arena from {arena_path})"
                                                 if arena_path else ""), flush=True)
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, str(HERE / argv[0]), *argv[1:]], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rows: list[dict[str, Any]] = []
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("SUMMARY "):
            rows.extend(json.loads(line[len("SUMMARY "):]))
        else:
            print(line, end="", flush=True)
    status = process.wait()
    print(f"=== {goal}: exit status {status} after {time.monotonic() - started:.0f} s",
          flush=True)
    if not rows:
        rows.append({"goal": goal, "name": f"{argv[0]} printed no SUMMARY (exit {status})",
                     "value": None, "target": None})
    return rows


def better(row: dict[str, Any]) -> str:
    if row.get("better"):
        return str(row["better"])
    return "lower" if row.get("unit") in ("ms", "KiB", "us") else "higher"


def verdict(row: dict[str, Any]) -> str:
    value, target = row.get("value"), row.get("target")
    if value is None or target is None:
        return ""
    if better(row) == "lower":
        return "met" if value <= target else "MISSED"
    return "met" if value >= target else "MISSED"


def number(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and abs(value) < 10:
        return f"{value:.2f}"
    return f"{value:,.0f}"


def table(rows: list[dict[str, Any]], before: dict[str, Any] | None) -> str:
    head = ["goal", "figure", "median", "min..max", "target", "of target", "", "unit"]
    if before is not None:
        head[2:2] = ["before"]
    lines = []
    for row in rows:
        value, target = row.get("value"), row.get("target")
        low, high = row.get("min"), row.get("max")
        cells = [row["goal"], row["name"], number(value),
                 f"{number(low)}..{number(high)}" if low is not None else "-",
                 number(target),
                 f"{value / target:.2f}" if value is not None and target else "-",
                 verdict(row), row.get("unit", "")]
        if before is not None:
            old = before.get(f"{row['goal']}|{row['name']}")
            cells[2:2] = [number(old.get("value")) if old else "n/a"]
        lines.append(cells)
    widths = [max(len(str(c)) for c in column) for column in zip(head, *lines)]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(head, widths)).rstrip(),
           "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
            for cells in lines]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (a few minutes)")
    parser.add_argument("--long", action="store_true", help="P2 for 10 minutes, as the issue")
    parser.add_argument("--only", default="", help="goals to run, e.g. P1,P3 (default: all)")
    parser.add_argument("--arena-path", default=None, help="measure arena from this checkout")
    parser.add_argument("--json", type=Path, default=None, help="write the rows here")
    parser.add_argument("--before", type=Path, default=None,
                        help="an earlier --json file to print beside this run")
    args = parser.parse_args()
    wanted = {g.strip().upper() for g in args.only.split(",") if g.strip()}
    rows: list[dict[str, Any]] = []
    for goal, argv in commands(args.quick, args.long, args.arena_path).items():
        if not wanted or goal in wanted:
            rows.extend(run_one(goal, argv, args.arena_path))
    before = None
    if args.before is not None:
        before = {f"{r['goal']}|{r['name']}": r for r in json.loads(args.before.read_text())}
    print("\n" + table(rows, before))
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
