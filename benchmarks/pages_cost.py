"""What the competition pages cost the games (``arena serve --db --web``; issue 29, section 5).

    python benchmarks/pages_cost.py [--before-commit 8fa5b6d | --before DIR] [--rounds 2]
                                    [--bots 150] [--rate 300] [--seconds 15] [--watchers 50]
                                    [--page-rate 30] [--verbose]

A server storing its games (``benchmarks/load_bots.py --ladder``: the bots registered in a
fresh database, every game stored; arrival seating, as a ladder's duplicate sets may not be
watched, and ``--spectators open``; one-hand chochlik games) is served with ``--web PORT`` and
played by ``--bots`` light bots offering ``--rate`` decisions a second, each run once without
page load and once with it: ``--watchers`` clients following live tables' event streams (each
picks a running table from ``/live.json`` and follows it to its end, then another) and a flood
of ``--page-rate`` page requests a second (open loop, 8 at once at most, a new connection each,
in turn ``/``, ``/leaderboard.json``, ``/bot/K``, ``/versus``, ``/live``, ``/live.json``), from
a process of their own, in a session of its own whose scheduling group is at
``--load-niceness`` (0 by default: a fair share of the machine; 19 models browsers elsewhere,
but on a busy machine the load then barely runs, and the pages answered 9 to 66 requests in a
run at a load average of 20).  The runs alternate in each round: the code before (a
``git archive`` of ``--before-commit`` in a temp folder, or the checkout ``--before``), then
this tree, each without and with the load.

Printed for each run: the server's decision latency p50 / p99 (load_bots' figure: the time
from a bot's action to the next request at its table), the games finished in the measured
window and the games stored in all, the page requests answered over the whole run (from the
server's start) and their p50 / p99, the messages the watchers followed, the server's CPU per
decision (its own process: not the pages') and load_bots' client loop lag p99; then, per code,
the ratio of the run with the load to the run without (median over the rounds, and the
spread).  The goal: p99 and games within 10 %.

The clients (load_bots' bots, the watchers, the flood) share the machine with the server: run
it in a session of its own (``setsid``) on a machine as quiet as can be, and say how loaded it
was.  Linux only (load_bots reads ``/proc``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from web_pages import follow, free_port  # noqa: E402

#: The load's process runs in a session of its own whose group has this niceness (by default).
LOAD_NICENESS = 0
#: Page requests in flight at once at most (the flood's threads).
FLOOD_THREADS = 8
#: The pages the flood asks for, in turn ({bot}: a bot's number).
FLOOD_PATHS = ("/", "/leaderboard.json", "/bot/{bot}", "/versus", "/live", "/live.json")


class Flood:
    """``rate`` page requests a second to 127.0.0.1:``port`` until stopped (open loop)."""

    def __init__(self, port: int, rate: float, bots: int) -> None:
        self.port = port
        self.rate = rate
        self.bots = bots
        self.stop = threading.Event()
        self.times: list[float] = []  # seconds each answered request took
        self.failed = 0
        self.why: dict[str, int] = {}  # failures by page and reason (status or exception)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _one(self, path: str) -> None:
        started = time.perf_counter()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            connection.close()
            why = None if response.status == 200 else str(response.status)
        except (OSError, http.client.HTTPException) as exc:
            why = type(exc).__name__
        if why is None:
            self.times.append(time.perf_counter() - started)
        else:
            self.failed += 1
            kind = path.split("/")[1] or "leaderboard"
            self.why[f"{kind} {why}"] = self.why.get(f"{kind} {why}", 0) + 1

    def _run(self) -> None:
        with ThreadPoolExecutor(FLOOD_THREADS) as pool:
            start = time.perf_counter()
            sent = 0
            while not self.stop.is_set():
                due = start + sent / self.rate
                if self.stop.wait(max(0.0, due - time.perf_counter())):
                    break
                path = FLOOD_PATHS[sent % len(FLOOD_PATHS)].format(bot=sent % self.bots)
                pool.submit(self._one, path)
                sent += 1


def row(output: str, name: str) -> str:
    found = re.search(rf"^{re.escape(name)}\s+(.*)$", output, re.M)
    return found.group(1) if found else ""


def load(args: argparse.Namespace) -> None:
    """``--load-only PORT``: the watchers and the flood, until standard input closes; then
    their figures as one JSON line."""
    try:  # its session's scheduling group (Linux: sched_autogroup), else the process
        Path("/proc/self/autogroup").write_text(f"{args.load_niceness}\n")
    except OSError:
        os.nice(args.load_niceness)
    stop, counts = threading.Event(), [0]
    for _ in range(args.watchers):
        threading.Thread(target=follow, args=(args.load_only, stop, counts), daemon=True).start()
    flood = Flood(args.load_only, args.page_rate, args.bots)
    flood.thread.start()
    sys.stdin.read()
    stop.set()
    flood.stop.set()
    times = sorted(flood.times)
    print(json.dumps({
        "pages": len(times), "failed": flood.failed, "why": flood.why,
        "page_p50": 1000 * times[len(times) // 2] if times else float("nan"),
        "page_p99": 1000 * times[int(0.99 * (len(times) - 1))] if times else float("nan"),
        "followed": counts[0]}), flush=True)
    os._exit(0)  # not waiting for requests still in flight (their threads would go on)


def one_run(args: argparse.Namespace, code: Path | None, loaded: bool,
            registry: Path) -> dict[str, Any]:
    """One load_bots --ladder run of ``code`` (None: this tree), with or without the load
    (a process of its own in a session of its own, at ``--load-niceness``)."""
    web = free_port()
    command = [sys.executable, str(ROOT / "benchmarks" / "load_bots.py"), "--ladder",
               "--ladder-registry", str(registry), "--bots", str(args.bots), "--seconds",
               str(args.seconds), "--rate", str(args.rate), "--server-arg=--hands=1",
               # arrival seating: the ladder's duplicate sets may not be watched; with --db
               # only registered spectators are admitted by default, and the pages show none
               "--server-arg=--seating=arrival", "--server-arg=--spectators=open",
               f"--server-arg=--web={web}"]
    if code is not None:
        command += ["--arena-path", str(code)]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    loader: subprocess.Popen[str] | None = None
    lines: list[str] = []
    assert run.stdout is not None
    try:
        for line in run.stdout:  # the load starts once the server listens, to the run's end
            lines.append(line)
            if loaded and loader is None and "connecting" in line:
                loader = subprocess.Popen(
                    [sys.executable, __file__, "--load-only", str(web), "--watchers",
                     str(args.watchers), "--page-rate", str(args.page_rate), "--bots",
                     str(args.bots), "--load-niceness", str(args.load_niceness)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                    start_new_session=True)
        run.wait()
    except BaseException:  # Ctrl-C: load_bots stops its server; the load goes too
        run.send_signal(signal.SIGINT)
        if loader is not None:
            loader.kill()
        run.wait()
        raise
    output = "".join(lines)
    figures: dict[str, Any] = {"pages": 0, "failed": 0, "why": {}, "page_p50": float("nan"),
                               "page_p99": float("nan"), "followed": 0}
    if loader is not None:
        figures = json.loads(loader.communicate("")[0])
    if args.verbose:
        print(output)
    latency = row(output, "latency p50 / p90 / p99").removesuffix(" ms").split(" / ")
    games = re.match(r"(\d+) / (\d+)", row(output, "games started / finished"))
    stored = re.match(r"([\d,]+)", row(output, "games stored in the ladder"))
    cpu = re.match(r"([\d,]+) us", row(output, "server CPU per decision"))
    lag = row(output, "client loop lag p50 / p99 / max").split(" / ")
    return {
        "cpu_us": float(cpu.group(1).replace(",", "")) if cpu else float("nan"),
        "lag99": float(lag[1].replace(",", "")) if len(lag) == 3 else float("nan"),
        "p50": float(latency[0].replace(",", "")) if len(latency) == 3 else float("nan"),
        "p99": float(latency[2].replace(",", "")) if len(latency) == 3 else float("nan"),
        "games": float(games.group(2)) if games else float("nan"),
        "stored": float(stored.group(1).replace(",", "")) if stored else float("nan"),
        **figures, "status": "FAILED" if "FAILED" in output else "ok",
    }


def before_tree(args: argparse.Namespace, folder: Path) -> Path:
    if args.before:
        return Path(args.before).resolve()
    tree = folder / f"arena-{args.before_commit}"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before_commit],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def spread(values: list[float]) -> str:
    return (f"{statistics.median(values):.2f} ({min(values):.2f} to {max(values):.2f})"
            if values else "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-commit", default="8fa5b6d")
    parser.add_argument("--before", metavar="DIR", default=None,
                        help="the code before: this checkout (instead of --before-commit)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--bots", type=int, default=150)
    parser.add_argument("--rate", type=float, default=300.0)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--page-rate", type=float, default=30.0)
    parser.add_argument("--load-niceness", type=int, default=LOAD_NICENESS,
                        help="the niceness of the load's session (its scheduling group)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--load-only", type=int, metavar="PORT", default=None,
                        help=argparse.SUPPRESS)  # the load's own process
    args = parser.parse_args()
    if args.load_only is not None:
        load(args)
        return
    with tempfile.TemporaryDirectory(prefix="arena-pages-cost-") as temp:
        folder = Path(temp)
        codes = {f"before ({args.before or args.before_commit})": before_tree(args, folder),
                 "after (this tree)": None}
        registry = folder / "registry.sqlite"
        print(f"{args.bots} bots offering {args.rate:g} decisions/s, one-hand chochlik, every "
              f"game stored (serve --db --seating arrival --spectators open --web), "
              f"{args.seconds:g} s measured; load: {args.watchers} "
              f"watchers + {args.page_rate:g} page requests/s at niceness "
              f"{args.load_niceness}; {os.cpu_count()} cores, load "
              f"average before {os.getloadavg()[0]:.2f}")
        print(f"{'round':>5}  {'code':<22} {'load':<6} {'p50 ms':>7} {'p99 ms':>7} "
              f"{'games':>6} {'stored':>6} {'pages':>6} {'pg p50':>7} {'pg p99':>7} "
              f"{'followed':>8} {'srv us':>6} {'lag99':>6}  run")
        results: dict[tuple[str, bool], list[dict[str, float | str]]] = {}
        for round_ in range(1, args.rounds + 1):
            for name, code in codes.items():
                for loaded in (False, True):
                    got = one_run(args, code, loaded, registry)
                    results.setdefault((name, loaded), []).append(got)
                    print(f"{round_:>5}  {name:<22} {'pages' if loaded else 'none':<6} "
                          f"{got['p50']:>7.2f} {got['p99']:>7.2f} {got['games']:>6.0f} "
                          f"{got['stored']:>6.0f} {got['pages']:>6} {got['page_p50']:>7.1f} "
                          f"{got['page_p99']:>7.1f} {got['followed']:>8} "
                          f"{got['cpu_us']:>6.0f} {got['lag99']:>6.1f}  {got['status']}"
                          f"{' (pages failed: ' + str(got['why']) + ')' if got['failed'] else ''}"
                          f"; load average {os.getloadavg()[0]:.2f}", flush=True)
        print("\nwith the load / without it, per round (median, range): goal 0.90 to 1.10")
        print(f"{'code':<22} {'p99 ratio':>26} {'games ratio':>26}")
        for name in codes:
            pairs = list(zip(results[(name, False)], results[(name, True)]))
            p99 = [float(b["p99"]) / float(a["p99"]) for a, b in pairs]
            games = [float(b["games"]) / float(a["games"]) for a, b in pairs]
            print(f"{name:<22} {spread(p99):>26} {spread(games):>26}")


if __name__ == "__main__":
    main()
