"""``load_bots.py --scaling 30,1000``: the server's CPU per decision at a few numbers of
connections, side by side in one run (issue 20, section 4: at 1,000 connections at most 1.3 x
its cost at 30).

Each count is one ``load_bots.py`` run of its own (its own server, the same ``--rate``,
``--seconds`` and other options), and the counts take turns, ``--repeat`` times, the order
reversed every other round (30, 1000, 1000, 30, ...), so that both saw the same machine.  Per
count: the server's CPU microseconds per decision (min / median / max over its runs), the
decisions/s, the p99 latency and the longest pause (the worst run); then the ratio of each count's
CPU per decision to the first count's, per round (min / median / max).  With ``--arena-path``
every run uses that checkout's server.  The last line is ``SUMMARY <json>``.

Ladder mode (``--ladder``: ``arena serve --db``, ladder seating, issue 20): each run serves a
fresh database, its bots registered by copying a registry made once per count (in a temporary
folder: :func:`run_args`); the table adds the games stored against the games the server
played (every run), and after the runs ``ladder_seating.py`` times one seating decision with
each count of bots waiting (the server's own decisions are not timed one by one).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The 1.3 x of issue 20: CPU per decision at the largest count over the smallest.
SCALING_TARGET = 1.3


def run_args(argv: Sequence[str], bots: int, keep: Path | None = None) -> list[str]:
    """``load_bots.py``'s own arguments for one run at ``bots`` connections: the caller's,
    less ``--scaling``/``--repeat``/``--bots``; with ``--ladder``, ``--ladder-registry`` a file
    of ``keep`` per count (each run copies it into a fresh database)."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in ("--scaling", "--repeat", "--bots"):
            skip = "=" not in arg
            continue
        out.append(arg)
    ladder = ["--ladder-registry", str(keep / f"registry-{bots}.sqlite")] \
        if keep is not None and "--ladder" in out else []
    return [*out, "--bots", str(bots), *ladder]


def one_run(argv: Sequence[str], bots: int, keep: Path | None = None) -> dict[str, Any]:
    """One ``load_bots.py`` run; its SUMMARY figures (and whether it failed)."""
    done = subprocess.run([sys.executable, str(HERE / "load_bots.py"),
                           *run_args(argv, bots, keep)],
                          capture_output=True, text=True, check=False)
    summary = [line for line in done.stdout.splitlines() if line.startswith("SUMMARY ")]
    if not summary:
        print(done.stdout[-3000:] + done.stderr[-3000:])
        raise SystemExit(f"load_bots.py --bots {bots} gave no SUMMARY")
    rows = json.loads(summary[-1][len("SUMMARY "):])
    figures = {"failed": done.returncode != 0, "rate": rows[0]["value"],
               "cpu_us": rows[0]["cpu_us_per_decision"], "p99_ms": rows[1]["value"],
               "pause_ms": rows[2]["value"], "stored": rows[0].get("games_stored"),
               "played": rows[0].get("games_played")}
    ladder = "" if figures["stored"] is None else (
        f", {figures['stored']:,} games stored of {figures['played']} played")
    print(f"  {bots:>5} bots: {figures['rate']:,.0f} decisions/s, "
          f"{figures['cpu_us']:,.0f} us CPU per decision, p99 {figures['p99_ms']:,.1f} ms, "
          f"longest pause {figures['pause_ms']:,.0f} ms{ladder}"
          + ("  (the run FAILED: see load_bots.py's report)" if figures["failed"] else ""),
          flush=True)
    return figures


def spread(values: Sequence[float]) -> str:
    return " / ".join(f"{v:,.2f}" if v < 10 else f"{v:,.0f}"
                      for v in (min(values), statistics.median(values), max(values)))


def seating_times(argv: Sequence[str], counts: Sequence[int]) -> list[dict[str, Any]]:
    """``ladder_seating.py`` at each count of bots waiting (the players of the runs): its
    lines, and its SUMMARY rows."""
    players = next((arg.split("=", 1)[1] if "=" in arg else argv[i + 1]
                    for i, arg in enumerate(argv) if arg.split("=", 1)[0] == "--players"), "3")
    rows: list[dict[str, Any]] = []
    for count in counts:
        print(f"\nladder_seating.py --waiting {count} --players {players}", flush=True)
        done = subprocess.run([sys.executable, str(HERE / "ladder_seating.py"), "--waiting",
                               str(count), "--players", players, "--decisions", "200"],
                              capture_output=True, text=True, check=False)
        lines = done.stdout.splitlines()
        print("\n".join(line for line in lines if line.startswith(("wall:", "cpu:")))
              or done.stderr[-2000:])
        rows.extend(json.loads(line[len("SUMMARY "):]) for line in lines[-1:]
                    if line.startswith("SUMMARY "))
    return [row for group in rows for row in group]


def scaling(argv: Sequence[str], counts: Sequence[int], repeat: int) -> int:
    runs: dict[int, list[dict[str, Any]]] = {count: [] for count in counts}
    with tempfile.TemporaryDirectory(prefix="arena-ladder-registries-") as keep:
        for number in range(repeat):
            print(f"round {number + 1}/{repeat}", flush=True)
            for count in (counts if number % 2 == 0 else counts[::-1]):
                runs[count].append(one_run(argv, count, Path(keep)))
    first = counts[0]
    print(f"\n{'bots':>6} {'CPU us/decision min/med/max':>28} {'decisions/s (median)':>21} "
          f"{'p99 ms (worst)':>15} {'longest pause ms (worst)':>25}")
    rows = []
    for count in counts:
        mine = runs[count]
        print(f"{count:>6} {spread([r['cpu_us'] for r in mine]):>28} "
              f"{statistics.median(r['rate'] for r in mine):>21,.0f} "
              f"{max(r['p99_ms'] for r in mine):>15,.1f} "
              f"{max(r['pause_ms'] for r in mine):>25,.0f}")
    for count in counts[1:]:
        ratios = [b["cpu_us"] / a["cpu_us"] for a, b in zip(runs[first], runs[count])]
        mid = statistics.median(ratios)
        print(f"CPU per decision at {count} / at {first} bots (per round): {spread(ratios)}"
              f"   target <= {SCALING_TARGET:g}: {'met' if mid <= SCALING_TARGET else 'MISSED'}")
        rows.append({"goal": "P2", "name": f"CPU per decision at {count} / {first} bots",
                     "value": mid, "min": min(ratios), "median": mid, "max": max(ratios),
                     "target": SCALING_TARGET, "unit": "ratio", "better": "lower"})
    last = runs[counts[-1]]
    rows.append({"goal": "P2", "name": f"{counts[-1]} bots: p99 latency (worst run)",
                 "value": max(r["p99_ms"] for r in last), "target": 50, "unit": "ms",
                 "better": "lower"})
    rows.append({"goal": "P2", "name": f"{counts[-1]} bots: longest pause (worst run)",
                 "value": max(r["pause_ms"] for r in last), "target": 20, "unit": "ms",
                 "better": "lower"})
    if "--ladder" in argv:
        rows.extend(seating_times(argv, counts))
    print("SUMMARY " + json.dumps(rows))
    return 1 if any(r["failed"] for mine in runs.values() for r in mine) else 0
