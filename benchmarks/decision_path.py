"""The decision path of ``arena serve`` against servers that only move the same bytes (issue 9,
goal P1: arena decisions/s >= 0.8 x the fan-out echo).

    python benchmarks/decision_path.py [--seconds 30] [--bots 30] [--quick]
                                       [--arena-path DIR] [--before-path DIR] [--window 2]
                                       [--keep]

What runs: three servers, each a subprocess on loopback, driven one at a time by the same
client code in this process (``decision_client.py``: plain non-blocking sockets, one epoll per
server, every request answered at once with its first legal action, found by string search;
events are only counted):

- **A, arena**: ``arena serve --game chochlik`` (3-seat tables) from ``--arena-path`` (default:
  this checkout; ``--arena-path /tmp/base`` measures another one), logging games to a temporary
  folder, with the connection limits raised as in ``load_bots.py``, the rate limit raised (one
  table's bots can send more than 200 lines a second) and the move timeout raised to an hour (a
  table waits while the other servers are driven, and must not be played by defaults then).
- **B, fan-out echo** (``echo_servers.py fanout``): a minimal trio server, no arena code, that
  for every line a bot sends answers with the very bytes arena sent at that point, to the same
  connections, each seat's lines of a step in one ``send_all`` (as arena writes them): per
  decision the public event to every seat and the next request to the next seat, game_start /
  game_end at game boundaries, the passing requests of chochlik.  The script
  is recorded first from server A itself with the same client (``decision_record.py``: one
  table, one unrecorded game, then ``--record-games`` games, each step closed by a probe).
  Chochlik's passing (three seats deciding at once) is replayed per seat: each seat's answers
  play the steps that seat's answers caused in the recording, in whatever order they come.
- **C, plain echo** (``echo_servers.py plain``): every line gets one line back to its sender,
  one of arena's recorded requests (same sizes): one line in, one line out, nothing shared.
  It is the floor of what a Python server on this machine costs per decision.

Each server gets ``--bots`` bots (default 30: 10 tables; a multiple of 3), connected at the
start and seated for the whole run.  After a warm-up (``--warmup`` seconds per server) the
client drives the servers in turn in short windows (``--window`` seconds), round after round
(A B C, then C B A, A B C, ...: ``--seconds`` in all), a closed loop so each server runs at
its capacity.  The bots of the servers not being driven do not read or answer: their tables
pause (what was in flight finishes; "CPU while not driven" shows how little that is).  For
each window: decisions (actions the bots sent), the server's CPU time (utime + stime from
``/proc/PID/stat``, 10 ms ticks), the client's CPU (``time.process_time``) and the machine's
(``/proc/stat``; "others" is what other processes took meanwhile).

How to read it: per server, decisions/s and server CPU microseconds per decision are shown as
min / median / max over the windows (absolute rates move with the machine's load, +-30-40 %
on a shared one), then the server's and the client's CPU as a share of a core, the client's CPU
per decision, what other processes took ("others") and the lines and bytes the bots received
per decision (equal for A and B: they moved the same traffic).  A server near 100 % of a core is
the limit; a client near a full core would be (a note says so).  The goal is the **ratio**
arena / fan-out echo, taken per round between adjacent windows (the B window next to each A
window) so both saw the same machine, with its min / median / max over the rounds; arena /
plain echo likewise (its C window is one window further).  "arena / fan-out echo by server
CPU" is the fan-out echo's CPU per decision over arena's, per round: the ratio the rates would
have with a core for each server, steadier than the rates when other processes take turns on
the cores.  The last line is ``SUMMARY <json>``: rows with goal, name, value (the median),
min, median, max, target (0.8 for the goal's ratio, else null), unit and cpu_us_per_decision
(arena's for the ratios).  Exit status 1 when a server died, closed a connection, sent an
error, cancel or bye, or did not stop cleanly on SIGINT, when a window had no decision, or when
the recording failed.  Before and after: ``--arena-path /tmp/base`` runs server A from another
checkout (the echo servers then replay what that one sends); ``--before-path /tmp/base`` adds
that checkout as a fourth server in the same run, **Z, arena before** (driven in turn with the
others, its ratios to the fan-out echo and arena / arena before printed too): before and after
side by side on the same machine.  Linux only (``/proc``, epoll).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decision_client import Group, Tally  # benchmarks/decision_client.py
from decision_record import RecordingError, record_script  # benchmarks/decision_record.py
from load_bots import CLOCK_TICKS, machine_cpu, raise_file_limit  # benchmarks/load_bots.py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PLAYERS = 3  # chochlik's tables
#: Target of goal P1: arena's rate over the fan-out echo's.
P1_TARGET = 0.8
#: Seconds a server has to say which port it took.
START_SECONDS = 30.0
#: ``arena serve`` through ``python -c`` (the project has no ``__main__``), saying where its
#: code came from first, so a run cannot measure another checkout by mistake.
ARENA_BOOTSTRAP = ("import sys, arena; print('arena code:', arena.__path__[0], flush=True); "
                   "from arena.cli import main; sys.argv[0] = 'arena'; main()")
#: Settings of a full run and of ``--quick`` (about 15 s in all).
PRESETS = {
    "full": {"seconds": 30.0, "window": 2.0, "warmup": 1.0, "record_games": 3},
    "quick": {"seconds": 9.0, "window": 1.0, "warmup": 0.5, "record_games": 2},
}
#: A client above this share of a core may be what limits a server's rate.
CLIENT_BOUND = 0.85
SERVERS: tuple[str, ...] = ("A", "B", "C")  # with --before-path: ("A", "Z", "B", "C")
NAMES = {"A": "arena", "Z": "arena before", "B": "fan-out echo", "C": "plain echo"}


class ServerProcess:
    """A server subprocess on 127.0.0.1; its output goes to files in ``folder``."""

    def __init__(self, key: str, command: list[str], folder: Path,
                 env: dict[str, str] | None = None) -> None:
        self.key = key
        self.command = command
        self.folder = folder
        self.env = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}
        self.out_path = folder / f"server-{key}.out"
        self.err_path = folder / f"server-{key}.err"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self) -> None:
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            # cwd is the temporary folder: the interpreter puts its cwd first on sys.path
            self.process = subprocess.Popen(
                self.command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=self.env,
                cwd=self.folder, start_new_session=True)

    def wait_port(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            found = re.search(r" on [\d.]+:(\d+);", self.out_path.read_text())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise SystemExit(f"server {self.key} did not start: {' '.join(self.command)}\n"
                         + self.err_path.read_text()[-3000:])

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def cpu(self) -> float:
        """CPU seconds (user + system) the server used so far."""
        stat = Path(f"/proc/{self.pid}/stat").read_text()
        after = stat.rsplit(")", 1)[1].split()  # fields from the 3rd (state) on
        return (int(after[11]) + int(after[12])) / CLOCK_TICKS

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGINT, then wait: the exit status (None: it had to be killed)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


@dataclass
class Window:
    key: str  # which server
    round: int
    seconds: float
    tally: Tally
    server_cpu: float
    client_cpu: float
    machine_cpu: float

    @property
    def rate(self) -> float:
        return self.tally.decisions / self.seconds

    @property
    def cpu_us(self) -> float:
        """Server CPU microseconds per decision."""
        return 1e6 * self.server_cpu / max(1, self.tally.decisions)

    @property
    def client_us(self) -> float:
        return 1e6 * self.client_cpu / max(1, self.tally.decisions)


class Bench:
    """The three servers, their bots, and the windows measured so far."""

    def __init__(self, servers: dict[str, ServerProcess], groups: dict[str, Group]) -> None:
        self.servers = servers
        self.groups = groups
        self.windows: list[Window] = []
        self.idle_cpu = dict.fromkeys(SERVERS, 0.0)  # server CPU while its bots were idle
        self._left_at: dict[str, float] = {}  # server CPU when its last window ended

    def drive(self, key: str, seconds: float, round_number: int | None) -> Window:
        server = self.servers[key]
        server_before, client_before = server.cpu(), time.process_time()
        machine_before, started = machine_cpu(), time.monotonic()
        if key in self._left_at:
            self.idle_cpu[key] += server_before - self._left_at[key]
        tally = self.groups[key].drive(seconds)
        elapsed = time.monotonic() - started
        server_after = self._left_at[key] = server.cpu()
        window = Window(key, -1 if round_number is None else round_number, elapsed, tally,
                        server_after - server_before, time.process_time() - client_before,
                        machine_cpu() - machine_before)
        if round_number is not None:
            self.windows.append(window)
        return window


def arena_command(args: argparse.Namespace, folder: Path, logs: str = "logs") -> list[str]:
    limit = str(args.bots + 64)
    (folder / logs).mkdir(exist_ok=True)
    return [sys.executable, "-c", ARENA_BOOTSTRAP, "serve", "--game", "chochlik",
            "--players", str(PLAYERS), "--port", "0", "--log-dir", str(folder / logs),
            "--max-connections-per-address", limit, "--max-connections", limit,
            "--idle-timeout", "3600", "--move-timeout", "3600",
            "--max-messages-per-second", "1000000"]


def echo_command(kind: str, script: Path) -> list[str]:
    return [sys.executable, str(HERE / "echo_servers.py"), kind, str(script)]


def describe_code(path: Path) -> str:
    """The commit of the checkout at ``path``, and whether arena/ or protocol/ differ from it."""
    try:
        commit = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        changed = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "--",
                                  "arena", "protocol"],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown commit"
    if not commit:
        return "unknown commit"
    return f"commit {commit}" + (" with uncommitted changes in arena/ or protocol/"
                                 if changed else "")


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def per_round(windows: Sequence[Window], top: str, bottom: str,
              measure: Callable[[Window, Window], float]) -> list[float]:
    """``measure(top's window, bottom's window)`` for every round (one window of each)."""
    by_round: dict[int, dict[str, Window]] = {}
    for window in windows:
        by_round.setdefault(window.round, {})[window.key] = window
    return [measure(pair[top], pair[bottom]) for pair in by_round.values()
            if top in pair and bottom in pair and pair[top].tally.decisions
            and pair[bottom].tally.decisions]


def run(bench: Bench, args: argparse.Namespace, rounds: int) -> None:
    for key in SERVERS:
        bench.drive(key, args.warmup, None)
    for number in range(rounds):
        order = SERVERS if number % 2 == 0 else SERVERS[::-1]
        done = [bench.drive(key, args.window, number) for key in order]
        shown = sorted(done, key=lambda window: window.key)
        print(f"round {number + 1}/{rounds}: " + " | ".join(
            f"{NAMES[w.key]} {w.rate:,.0f}/s {w.cpu_us:,.0f} us" for w in shown), flush=True)


def server_rows(bench: Bench, failed: list[str], notes: list[str]) -> list[dict[str, Any]]:
    """Print one line per server; its SUMMARY row."""
    print(f"\n{'server':<13} {'decisions/s min/med/max':>26} {'server us/decision':>22} "
          f"{'server CPU':>10} {'client':>7} {'client us':>9} {'others':>7} "
          f"{'lines/dec':>9} {'bytes/dec':>9}")
    rows = []
    for key in SERVERS:
        mine = [w for w in bench.windows if w.key == key]
        rates, cpus = spread([w.rate for w in mine]), spread([w.cpu_us for w in mine])
        decisions = max(1, sum(w.tally.decisions for w in mine))
        server_share = statistics.median(w.server_cpu / w.seconds for w in mine)
        client_share = statistics.median(w.client_cpu / w.seconds for w in mine)
        others = statistics.median(
            max(0.0, w.machine_cpu - w.server_cpu - w.client_cpu) / w.seconds for w in mine)
        print(f"{NAMES[key]:<13} {' / '.join(f'{v:,.0f}' for v in rates):>26} "
              f"{' / '.join(f'{v:,.0f}' for v in cpus):>22} {100 * server_share:>9.0f}% "
              f"{100 * client_share:>6.0f}% {statistics.median(w.client_us for w in mine):>9.1f} "
              f"{100 * others:>6.0f}% {sum(w.tally.lines_in for w in mine) / decisions:>9.2f} "
              f"{sum(w.tally.bytes_in for w in mine) / decisions:>9.0f}")
        rows.append({"goal": "P1", "name": f"decision path: {NAMES[key]} decisions/s",
                     "value": rates[1], "min": rates[0], "median": rates[1], "max": rates[2],
                     "target": None, "unit": "decisions/s", "cpu_us_per_decision": cpus[1]})
        if any(w.tally.decisions == 0 for w in mine):
            failed.append(f"{NAMES[key]}: a window without a decision")
        closed = sum(w.tally.closed for w in mine)
        if closed:
            failed.append(f"{NAMES[key]} closed {closed} connection(s)")
        trouble = [line for w in mine for line in w.tally.trouble]
        if trouble:
            failed.append(f"{NAMES[key]} sent {len(trouble)} error, cancel or bye line(s), the "
                          f"first: {trouble[0]!r}")
        if client_share > CLIENT_BOUND:
            notes.append(f"the client used {100 * client_share:.0f} % of a core with "
                         f"{NAMES[key]}: that rate may be the client's")
    return rows


def ratio_rows(bench: Bench) -> list[dict[str, Any]]:
    """Print the ratios over the rounds; their SUMMARY rows."""
    rounds = len({w.round for w in bench.windows})
    print(f"\n{'ratio, per round':<44} {'min':>6} {'median':>7} {'max':>6}   ({rounds} rounds)")
    arena_cpu = statistics.median(w.cpu_us for w in bench.windows if w.key == "A")
    rows = []
    for name, bottom, measure, target in (
            ("arena / fan-out echo decisions/s", "B", by_rate, P1_TARGET),
            ("arena / plain echo decisions/s", "C", by_rate, None),
            ("arena / fan-out echo by server CPU", "B", by_cpu, None),
            ("arena before / fan-out echo decisions/s", "B", by_rate, None),
            ("arena before / fan-out echo by server CPU", "B", by_cpu, None),
            ("arena / arena before by server CPU", "Z", by_cpu, None)):
        top = "Z" if name.startswith("arena before") else "A"
        if "Z" not in SERVERS and "Z" in (top, bottom):
            continue
        ratios = [r for r in per_round(bench.windows, top, bottom, measure) if math.isfinite(r)]
        if not ratios:
            print(f"{name:<44} {'no round measured both servers':>22}")
            continue
        low, mid, high = spread(ratios)
        verdict = "" if target is None else (
            f"   P1: >= {target:g} {'met' if mid >= target else 'MISSED'}")
        print(f"{name:<44} {low:>6.2f} {mid:>7.2f} {high:>6.2f}{verdict}")
        rows.append({"goal": "P1", "name": f"decision path: {name}", "value": mid, "min": low,
                     "median": mid, "max": high, "target": target, "unit": "ratio",
                     "cpu_us_per_decision": arena_cpu})
    return rows


def by_rate(top: Window, bottom: Window) -> float:
    return top.rate / bottom.rate


def by_cpu(top: Window, bottom: Window) -> float:
    """The rates' ratio if both servers had a core each: the inverse of their CPU per
    decision (steadier than the rates when other processes take the machine's cores)."""
    if not top.cpu_us or not bottom.cpu_us:
        return math.nan  # a short window on a loaded machine: no CPU tick was measured
    return bottom.cpu_us / top.cpu_us


def report(bench: Bench, died: dict[str, int], stopped: dict[str, int | None],
           notes: list[str]) -> int:
    failed: list[str] = []
    rows = server_rows(bench, failed, notes)
    rows = ratio_rows(bench) + rows
    print("server CPU while not driven (in all): " + ", ".join(
        f"{NAMES[key]} {bench.idle_cpu[key]:.2f} s" for key in SERVERS))
    print("servers stopped (SIGINT): " + ", ".join(
        f"{NAMES[key]} exit status {stopped.get(key)}" for key in SERVERS))
    failed += [f"server {NAMES[key]} died (exit status {status})" for key, status in died.items()]
    failed += [f"server {NAMES[key]} did not stop cleanly" for key, status in stopped.items()
               if key not in died and status != 0]
    for note in notes:
        print(f"note: {note}")
    print("SUMMARY " + json.dumps(rows))
    if failed:
        print(f"FAILED: {'; '.join(failed)}")
        return 1
    return 0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, help="measured seconds in all (default 30; "
                        "--quick: 9)")
    parser.add_argument("--window", type=float, help="seconds per window (default 2; --quick 1)")
    parser.add_argument("--warmup", type=float, help="seconds of play per server before the "
                        "windows (default 1; --quick 0.5)")
    parser.add_argument("--record-games", type=int, help="games recorded for the fan-out echo "
                        "(default 3; --quick 2)")
    parser.add_argument("--bots", type=int, default=30,
                        help="bots per server, a multiple of 3 (default 30: 10 tables)")
    parser.add_argument("--quick", action="store_true", help="a short run (about 15 s in all)")
    parser.add_argument("--arena-path", type=Path, default=ROOT,
                        help="the checkout whose arena is server A (PYTHONPATH; default: this "
                             "one)")
    parser.add_argument("--before-path", type=Path,
                        help="another checkout run as a fourth server, 'arena before', in the "
                             "same run (before and after side by side)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary folder (servers' output, script, game logs)")
    args = parser.parse_args(argv)
    for name, value in PRESETS["quick" if args.quick else "full"].items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.bots < PLAYERS or args.bots % PLAYERS:
        parser.error(f"--bots must be a positive multiple of {PLAYERS}")
    if min(args.seconds, args.window) <= 0 or args.warmup < 0 or args.record_games < 1:
        parser.error("need --seconds > 0, --window > 0, --warmup >= 0, --record-games >= 1")
    args.arena_path = args.arena_path.resolve()
    for path in (args.arena_path, args.before_path):
        if path is not None and not any((path / "arena" / cli).exists()
                                        for cli in ("cli", "cli.py")):
            parser.error(f"no arena/cli under {path}")
    if args.before_path is not None:
        args.before_path = args.before_path.resolve()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    global SERVERS
    args = parse_args(argv)
    SERVERS = ("A", "Z", "B", "C") if args.before_path is not None else ("A", "B", "C")
    raise_file_limit()
    rounds = max(2, round(args.seconds / (len(SERVERS) * args.window)))
    folder = Path(tempfile.mkdtemp(prefix="arena-decision-path-"))
    (folder / "logs").mkdir()
    script_path = folder / "script.json"
    servers = {"A": ServerProcess("A", arena_command(args, folder), folder,
                                  {"PYTHONPATH": str(args.arena_path)}),
               "B": ServerProcess("B", echo_command("fanout", script_path), folder),
               "C": ServerProcess("C", echo_command("plain", script_path), folder)}
    if args.before_path is not None:
        servers["Z"] = ServerProcess("Z", arena_command(args, folder, "logs-before"), folder,
                                     {"PYTHONPATH": str(args.before_path)})
    groups: dict[str, Group] = {}
    notes: list[str] = []
    try:
        arena = servers["A"]
        arena.start()
        arena.wait_port()
        source = arena.out_path.read_text().split("arena code: ", 1)[1].split("\n", 1)[0]
        if Path(source).resolve() != args.arena_path / "arena":
            raise SystemExit(f"server A runs the arena of {source}, not of {args.arena_path}")
        print(f"decision path: chochlik, {args.bots} bots ({args.bots // PLAYERS} tables) per "
              f"server, {rounds} rounds of {args.window:g} s windows, warm-up {args.warmup:g} s")
        print(f"A {NAMES['A']}: {args.arena_path} ({describe_code(args.arena_path)})", flush=True)
        try:
            script = record_script(arena.port, PLAYERS, args.record_games)
        except (RecordingError, OSError) as exc:
            print(f"FAILED: recording arena's traffic: {exc}")
            return 1
        script.save(script_path)
        pattern = script.pattern()
        print(f"B {NAMES['B']}: replays {pattern['games']:.0f} recorded games "
              f"({pattern['decisions']:.0f} decisions): per decision "
              f"{pattern['lines_per_decision']:.2f} lines, {pattern['bytes_per_decision']:.0f} "
              f"bytes to the bots, {pattern['writes_per_decision']:.2f} send_all calls")
        print(f"C {NAMES['C']}: one of the {pattern['requests']:.0f} recorded requests back to "
              "the sender of each line", flush=True)
        others = [key for key in SERVERS if key != "A"]
        for key in others:
            servers[key].start()
        for key in others:
            servers[key].wait_port()
        if "Z" in servers:
            print(f"Z {NAMES['Z']}: {args.before_path} ({describe_code(args.before_path)})",
                  flush=True)
        for key in SERVERS:
            groups[key] = Group(NAMES[key], servers[key].port, args.bots, f"dp{key}")
            groups[key].connect()
        gc.collect()
        gc.freeze()  # the bots live to the end: the client's collector can skip them
        bench = Bench(servers, groups)
        run(bench, args, rounds)
        died = {key: server.process.returncode for key, server in servers.items()
                if server.process is not None and server.process.poll() is not None}
        for group in groups.values():
            group.close()
        stopped = {key: server.stop() for key, server in servers.items()}
        return report(bench, died, stopped, notes)
    finally:
        for group in groups.values():
            group.close()
        for server in servers.values():
            server.stop()
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
