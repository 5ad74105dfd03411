"""Decisions per second of ``arena tournament`` end to end, and the CPU every process spends per
decision, at concurrency 1 and 2, with one server process and with two (``--workers``).

    python benchmarks/tournament_speed.py [--quick] [--sets 30] [--rounds 5] [--game chochlik]
                                          [--bots reference|random] [--layouts c1,c2,...]
                                          [--bots-from DIR ...]
    PYTHONPATH=/tmp/base python benchmarks/tournament_speed.py --quick    # the code before
    python benchmarks/tournament_speed.py --quick --bots-from /tmp/base --bots-from .

Four bots (``reference``: two of the game's heuristic bot and two random; ``random``: four
random) play a duplicate round robin at tables of 3, as ``arena tournament`` plays it: the real
server, the reference bots as subprocesses over TCP, every game stored in SQLite with its log.
The runner is called in this process, so this process's CPU is the runner's (with one worker,
the server's; its garbage collector tuned as the command tunes it, where the code does).
Layouts: concurrency 1; concurrency 2 in one server process; concurrency
2 spread over 2 worker processes (``--workers 2``, n/a where the code has no workers); and,
left out by ``--quick``, concurrency 4 in one and in 2 processes.  Every round plays each layout
once, in alternating order (A B C, C B A, ...), so that a shared machine's drift hits all alike.
The code before issue 9 let its own bots send the server's default of 200 lines a second, which
throws a bot out after a 2-second burst at today's speeds: for that code the benchmark raises
the limit as the runner now does, and any run in which the server played defaults is flagged.
``--bots-from DIR`` (repeatable) runs the bots' package ``reference_bots`` from DIR, and only it
(the server stays this code): every layout is then played once with each, to compare bots.

Per layout, min / median / max over the rounds:

- decisions/s end to end: every action line in the stored games' logs, over the wall time of
  the whole run, from starting the bots to the last one gone; "steady" leaves the start-up and
  the end out: the decisions of every game but the first, over the time between the first
  game's end and the last one's;
- CPU per decision in µs: the runner (this process), the worker processes (their servers), the
  bots (every bot process, its start-up included), and all of them together.  The start-up CPU
  of one bot process (interpreter and imports: a bot that finds no server) is printed apart;
- the ratio of 2 workers to 1 at concurrency 2 (and 4), per round (the two runs of a round
  are neighbours in time);
- the CPU the machine's other processes used meanwhile, in cores (``/proc/stat``): on a shared
  machine the rates follow it, the CPU per decision much less.

The last line is ``SUMMARY <json>``: the P4 rows of issue 9 (decisions/s at concurrency 2 with
1 and 2 workers, target 3,000; the ratio, target 1.7), with the total CPU per decision.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.events.settings import EventSettings
from arena.events.storage import SqliteStorage
from arena.gameplay.gamelog import log_lines
from arena.games import get_game
from arena.launch.runner import BUILTIN_BOTS, BotSpec
from arena.launch.tournament import Tournament

#: Lines a second each bot may send: as the runner allows now (the code before issue 9 kept the
#: server's default of 200, which throws a fast bot out after its 2-second burst).
BOT_LINES_PER_SECOND = 20_000.0
#: Bot processes started to measure the start-up CPU of one.
STARTUP_SAMPLES = 3
HEURISTIC_BOTS = {"chochlik": "chochlik-heuristic", "vollewolle": "vollewolle-heuristic",
                  "wypas": "wypas-heuristic"}


def workers_runner() -> Any:
    """The runner that spreads an event over worker processes, from the same code as the rest
    of ``arena`` (an editable install may offer a newer module to older code); None if none."""
    try:
        module = importlib.import_module("arena.launch.workers")
    except ImportError:
        return None
    same_code = Path(module.__file__ or "").parent == Path(
        sys.modules["arena.launch.tournament"].__file__ or "").parent
    return module.TournamentWorkers if same_code else None


TournamentWorkers = workers_runner()


@dataclass(frozen=True)
class Layout:
    name: str
    concurrency: int
    workers: int
    bots_from: Path | None = None  # a folder holding the bots' package, or this code's own

    def with_bots_from(self, folder: Path) -> Layout:
        return Layout(f"{self.name} [{folder} bots]", self.concurrency, self.workers, folder)


@dataclass(frozen=True)
class Run:
    """One tournament: its wall time, decisions, and CPU seconds by kind of process."""

    layout: Layout
    seconds: float
    decisions: int
    games: int
    defaults: int
    steady_rate: float | None
    runner_cpu: float
    children_cpu: float  # workers and bots together (every child this process reaped)
    others_cores: float  # the CPU every other process on the machine used, in cores
    bot_cpu: float | None  # None when the workers did not say how much their bots used
    bot_processes: int

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds

    def per_decision(self, seconds: float | None) -> float | None:
        return None if seconds is None else seconds / self.decisions * 1e6

    @property
    def worker_cpu(self) -> float | None:
        return None if self.bot_cpu is None else self.children_cpu - self.bot_cpu


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def machine_busy() -> float:
    """CPU seconds every process on the machine has used (``/proc/stat``; Linux)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def count_decisions(log_path: str | None) -> int:
    """The action lines of one game's log (each is one decision, the bot's or a default)."""
    if log_path is None:
        return 0
    return sum(json.loads(line).get("type") == "action" for line in log_lines(log_path)
               if line.strip())


def entrants(game: str, bots: str) -> list[BotSpec]:
    strong = BUILTIN_BOTS[HEURISTIC_BOTS[game]] if bots == "reference" else BUILTIN_BOTS["random"]
    return [BotSpec("h1", strong), BotSpec("h2", strong),
            BotSpec("r1", BUILTIN_BOTS["random"]), BotSpec("r2", BUILTIN_BOTS["random"])]


def bots_path(source: Path, folder: Path) -> str:
    """A PYTHONPATH for the bots in which ``reference_bots`` comes from ``source`` and the rest
    from this process's own path: a folder with the one package in it."""
    own = folder / ("bots" + source.resolve().as_posix().replace("/", "_"))
    if not own.exists():
        own.mkdir(parents=True)
        (own / "reference_bots").symlink_to((source / "reference_bots").resolve())
    return os.pathsep.join([str(own), *filter(None, [os.environ.get("PYTHONPATH")])])


def event_runner(layout: Layout, game: str, bots: str, sets: int, folder: Path,
                 on_game_over: Any) -> tuple[Any, SqliteStorage]:
    """The layout's runner for a fresh event (in one process, or over workers) and its
    storage."""
    spec = get_game(game)
    options = {"players": 3, **spec.tournament_options(3)}
    event = EventSettings(game=game, options=dict(spec.options_to_dict(
        spec.parse_options(options))), format="round-robin", duplicate=True, sets=sets,
        seed="speed", move_timeout=5.0)
    storage = SqliteStorage(folder / f"{layout.name}.db")
    arguments: dict[str, Any] = dict(log_dir=folder / f"logs-{layout.name}",
                                     concurrency=layout.concurrency, on_game_over=on_game_over)
    runner: Any = Tournament
    if layout.workers > 1:
        runner, arguments["workers"] = TournamentWorkers, layout.workers
    built = runner(spec, spec.parse_options(event.options), entrants(game, bots),
                   event.planned(4), storage, **arguments)
    server = getattr(built, "server", None)  # one process: the code before has no other
    if server is not None and server.config.max_messages_per_second < BOT_LINES_PER_SECOND:
        server.config = attrs.evolve(server.config,
                                     max_messages_per_second=BOT_LINES_PER_SECOND)
    return built, storage


async def play(layout: Layout, game: str, bots: str, sets: int, folder: Path) -> Run:
    ends: dict[int, float] = {}  # when each game (by its place in the schedule) was stored
    runner, storage = event_runner(layout, game, bots, sets, folder,
                                   lambda stored: ends.setdefault(stored.planned,
                                                                  time.monotonic()))
    environment = dict(os.environ)
    if layout.bots_from is not None:  # the bot processes (and workers) inherit it
        os.environ["PYTHONPATH"] = bots_path(layout.bots_from, folder.parent)
    cpu_before, children_before = time.process_time(), children_cpu()
    busy_before = machine_busy()
    started = time.monotonic()
    try:
        report = await runner.run()
    finally:
        os.environ.clear()
        os.environ.update(environment)
    seconds = time.monotonic() - started
    runner_cpu = time.process_time() - cpu_before
    children = children_cpu() - children_before
    others = max(0.0, machine_busy() - busy_before - runner_cpu - children) / seconds
    games = storage.games()
    storage.close()
    decisions = {stored.planned: count_decisions(stored.log_path) for stored in games}
    ordered = sorted((ends[planned], count) for planned, count in decisions.items())
    steady = (sum(count for _, count in ordered[1:]) / (ordered[-1][0] - ordered[0][0])
              if len(ordered) > 2 and ordered[-1][0] > ordered[0][0] else None)
    bot_cpu = children if layout.workers == 1 else getattr(report, "bot_cpu_seconds", None)
    return Run(layout, seconds, sum(decisions.values()), len(games),
               sum(sum(stored.defaults) for stored in games), steady, runner_cpu, children,
               others, bot_cpu, len(report.runs))


def startup_cpu(command: str) -> float:
    """CPU seconds of one bot process that starts, finds no server and exits."""
    before = children_cpu()
    argv = command.replace("{python}", sys.executable).split()
    for _ in range(STARTUP_SAMPLES):
        subprocess.run([*argv, "--host", "127.0.0.1", "--port", "1"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (children_cpu() - before) / STARTUP_SAMPLES


def spread(values: list[float]) -> tuple[float, float, float] | None:
    if not values:
        return None
    return min(values), statistics.median(values), max(values)


def show(values: Sequence[float | None], digits: int = 0) -> str:
    known = [v for v in values if v is not None]
    low_mid_high = spread(known) if len(known) == len(values) else None
    if low_mid_high is None:
        return "n/a"
    return " / ".join(f"{v:,.{digits}f}" for v in low_mid_high)


def summary_row(name: str, values: list[float], target: float, unit: str,
                cpu: float | None) -> dict[str, Any]:
    low_mid_high = spread(values)
    low, mid, high = low_mid_high if low_mid_high else (None, None, None)
    return {"goal": "P4", "name": name, "value": mid, "min": low, "median": mid, "max": high,
            "target": target, "unit": unit,
            "cpu_us_per_decision": None if cpu is None else round(cpu, 1)}


def supported(layout: Layout) -> bool:
    if layout.workers == 1:
        return True
    return TournamentWorkers is not None and "workers" in inspect.signature(
        TournamentWorkers).parameters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="about 30 s: 10 sets, 3 rounds, no concurrency 4")
    parser.add_argument("--sets", type=int, default=None, help="duplicate sets per run "
                        "(6 games each; default 30, --quick 10)")
    parser.add_argument("--rounds", type=int, default=None, help="default 5, --quick 3")
    parser.add_argument("--game", default="chochlik", choices=sorted(HEURISTIC_BOTS))
    parser.add_argument("--bots", default="reference", choices=["reference", "random"])
    parser.add_argument("--layouts", default=None, metavar="LIST",
                        help="only these layouts, e.g. c1,c2,c2w2,c4,c4w2")
    parser.add_argument("--bots-from", type=Path, action="append", default=[], metavar="DIR",
                        help="take the bots' package from DIR (repeatable: every layout is "
                             "played with each)")
    args = parser.parse_args()
    sets = args.sets or (10 if args.quick else 30)
    rounds = args.rounds or (3 if args.quick else 5)
    layouts = [Layout("c1", 1, 1), Layout("c2", 2, 1), Layout("c2 w2", 2, 2)]
    if not args.quick:
        layouts += [Layout("c4", 4, 1), Layout("c4 w2", 4, 2)]
    if args.layouts:
        layouts = [layout for layout in layouts + [Layout("c4", 4, 1), Layout("c4 w2", 4, 2)]
                   if layout.name.replace(" ", "") in args.layouts.split(",")]
    if args.bots_from:
        layouts = [layout.with_bots_from(source) for layout in layouts
                   for source in args.bots_from]
    runnable = [layout for layout in layouts if supported(layout)]
    tune = getattr(importlib.import_module("arena.edge.server"), "tune_garbage_collector", None)
    if tune is not None:
        tune()  # as arena tournament does in its runner and in every worker
    print(f"{args.game}, bots {args.bots}, {sets} sets ({sets * 6} games) per run, "
          f"{rounds} rounds; python {sys.version.split()[0]}; code from "
          f"{Path(sys.modules['arena'].__file__ or '').parent.parent}", flush=True)
    for layout in layouts:
        if layout not in runnable:
            print(f"{layout.name}: n/a (this code has no --workers)")
    commands = [spec.command for spec in entrants(args.game, args.bots)]
    startup = {command: startup_cpu(command) for command in sorted(set(commands))}
    print("bot start-up CPU (interpreter and imports, one process): " + ", ".join(
        f"{command.split()[-1]} {seconds * 1000:.0f} ms" for command, seconds in startup.items()))
    runs = measure(runnable, rounds, args.game, args.bots, sets)
    print_table(layouts, runs, statistics.mean(startup[command] for command in commands))
    print("SUMMARY " + json.dumps(summary(layouts, runs, args.bots_from[0] if args.bots_from
                                          else None)))


def measure(layouts: list[Layout], rounds: int, game: str, bots: str,
            sets: int) -> dict[Layout, list[Run]]:
    """Every layout once per round, in alternating order."""
    runs: dict[Layout, list[Run]] = {layout: [] for layout in layouts}
    with tempfile.TemporaryDirectory(prefix="tournament-speed-") as folder:
        for round_number in range(rounds):
            order = layouts if round_number % 2 == 0 else layouts[::-1]
            for layout in order:
                run = trio.run(play, layout, game, bots, sets,
                               Path(folder) / f"round{round_number}")
                runs[layout].append(run)
                print(f"round {round_number + 1} {layout.name}: {run.decisions} decisions "
                      f"({run.games} games, {run.defaults} defaults) in {run.seconds:.2f} s = "
                      f"{run.rate:,.0f}/s; CPU runner {run.runner_cpu:.2f} s, children "
                      f"{run.children_cpu:.2f} s ({run.bot_processes} bots); other processes "
                      f"{run.others_cores:.2f} cores", flush=True)
                if run.defaults:
                    print("  WARNING: the server played defaults for bots: not their rate")
    return runs


def print_table(layouts: list[Layout], runs: dict[Layout, list[Run]],
                startup_seconds: float) -> None:
    print("\nmin / median / max over the rounds; CPU in µs per decision")
    for layout in layouts:
        done = runs.get(layout, [])
        if not done:
            print(f"{layout.name}: n/a")
            continue
        running_bots = [None if r.bot_cpu is None else
                        r.per_decision(r.bot_cpu - r.bot_processes * startup_seconds)
                        for r in done]
        workers = (show([r.per_decision(r.worker_cpu) for r in done])
                   if layout.workers > 1 else "-")
        print(f"{layout.name}: decisions/s {show([r.rate for r in done])} end to end, "
              f"{show([r.steady_rate for r in done])} steady\n"
              f"    CPU: runner {show([r.per_decision(r.runner_cpu) for r in done])}, "
              f"workers {workers}, "
              f"bots {show([r.per_decision(r.bot_cpu) for r in done])} "
              f"({show(running_bots)} without their start-up), "
              f"all {show([r.per_decision(r.runner_cpu + r.children_cpu) for r in done])}\n"
              f"    other processes meanwhile: {show([r.others_cores for r in done], 2)} "
              "cores")


def summary(layouts: list[Layout], runs: dict[Layout, list[Run]],
            bots_from: Path | None) -> list[dict[str, Any]]:
    """The P4 rows: concurrency 2 with 1 and 2 workers, and their ratio per round."""
    def runs_of(workers: int, concurrency: int = 2) -> list[Run]:
        return next((runs.get(layout, []) for layout in layouts
                     if (layout.concurrency, layout.workers, layout.bots_from)
                     == (concurrency, workers, bots_from)), [])

    def total_cpu(done: list[Run]) -> float | None:
        if not done:
            return None
        return statistics.median((r.runner_cpu + r.children_cpu) / r.decisions * 1e6
                                 for r in done)

    paired = list(zip(runs_of(1, 4), runs_of(2, 4)))
    if paired:
        print(f"2 workers / 1 worker at concurrency 4: "
              f"{show([b.rate / a.rate for a, b in paired], 2)}")
    one, two = runs_of(1), runs_of(2)
    ratios = [b.rate / a.rate for a, b in zip(one, two)]
    print(f"2 workers / 1 worker at concurrency 2: {show(ratios, 2)} (target 1.7)")
    return [
        summary_row("tournament decisions/s, concurrency 2, 1 worker",
                    [r.rate for r in one], 3000, "decisions/s", total_cpu(one)),
        summary_row("tournament decisions/s, concurrency 2, 2 workers",
                    [r.rate for r in two], 3000, "decisions/s", total_cpu(two)),
        summary_row("tournament 2 workers / 1 worker, concurrency 2", ratios, 1.7, "x", None),
    ]


if __name__ == "__main__":
    main()
