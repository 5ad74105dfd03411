"""Time and peak memory of ``arena ratings --db FILE`` on a big event, end to end (issue 30 §2).

    python benchmarks/ratings_speed.py [--repeats 5] [--old-path DIR] [--bots 200]
        [--sets 10000] [--players 3] [--db FILE] [--parts]

The event: ``--bots`` bots of random strength in ``--sets`` duplicate sets of ``--players``
bots drawn at random, each set seated as the schedule seats it (every order for 2 or 3
players, the cyclic rotations for 4 to 6: 200 bots x 10,000 sets of 3 is 60,000 games), ranks
from the bots' strength plus noise per game, ties possible.  It is stored once in an SQLite
event database as the storage writes it (the rows of ``arena.events.storage.game_row``, in
one transaction) and kept in the temporary folder for the next run; ``--db`` times an
existing event instead.

Each run is the command as a user types it, in a fresh process (``arena ratings --db FILE``,
the console script beside this Python, else ``python -m arena.cli``; 200 bootstrap resamples,
the table printed to a file), with the checkout measured first on ``PYTHONPATH``; bytecode
caches are written and used (one run of each checkout first, untimed).  The script prints,
for each checkout, the median (min-max) over ``--repeats`` runs of

- wall: seconds from start to exit;
- cpu: the process's user plus system CPU seconds (on a loaded machine the wall figure
  measures the load as well; the CPU seconds much less so);
- rss: its peak resident memory (``ru_maxrss``).

``--old-path DIR`` measures another checkout too (``git worktree add /tmp/ratings-old
648eb94``), run for run alternating with this tree, and says whether both printed the same
table.  ``--parts`` adds, for this tree, the CPU seconds of the command's phases in one
process (imports, reading the games, the leaderboard).  The last lines say whether the goal,
the command within 2 s, is met by wall and by CPU in every run of this tree, and the machine's
load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESAMPLES = 200
GOAL_S = 2.0
#: The command: the console script installed beside this Python (it imports ``arena.cli``
#: from the checkout first on ``PYTHONPATH``), else ``python -m arena.cli``.
SCRIPT = Path(sys.executable).with_name("arena")
ARENA = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "arena.cli"]
#: Bumped when the generated event changes, so that a cached database is not reused.
EVENT_VERSION = 1


def event_path(bots: int, sets: int, players: int) -> Path:
    folder = Path(tempfile.gettempdir()) / "arena-ratings-speed"
    return folder / f"event-v{EVENT_VERSION}-{bots}x{sets}x{players}.db"


def make_event(path: Path, bots: int, sets: int, players: int, seed: int = 1) -> int:
    """Store the random event in ``path`` (this tree's storage); the number of games."""
    from arena.events.schedule import seatings
    from arena.events.storage import SqliteStorage, game_row
    from arena.gameplay.records import GameRecord, PlannedTable

    rng = random.Random(seed)
    strength = [rng.gauss(0, 1) for _ in range(bots)]
    rows = []
    for set_index in range(sets):
        seed_text = f"s{set_index}"
        group = rng.sample(range(bots), players)
        for rotation, seated in enumerate(seatings(group, duplicate=True)):
            points = tuple(round(3 * (strength[p] + rng.gauss(0, 1))) for p in seated)
            ranks = tuple(1 + sum(x > mine for x in points) for mine in points)
            zeros = (0,) * len(seated)
            table = PlannedTable(len(rows), set_index, rotation, seated, seed_text)
            rows.append(game_row(GameRecord(
                number=table.index, game_id="sim", entrants=seated, names=(), seed=seed_text,
                scores=points, ranks=ranks, winners=(), aborted=None, defaults=zeros,
                errors=zeros, rounds=1, log_path=None, seconds=0.0, tag=table)))
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.unlink(missing_ok=True)
    storage = SqliteStorage(part)
    storage.write_event({"seed": "ratings-speed", "game": "sim"},
                        [(f"bot{i}", "random") for i in range(bots)])
    with storage.db:
        storage.db.executemany(
            f"INSERT INTO games VALUES ({', '.join('?' * len(rows[0]))})", rows)
    storage.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    storage.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{part}{suffix}").unlink(missing_ok=True)
    part.rename(path)
    return len(rows)


def run(arena: Path, db: Path, out: Path) -> dict[str, float]:
    """One ``arena ratings`` in a fresh process: wall and CPU seconds, peak RSS in MB."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(arena)
    errors = out.with_suffix(".err")
    with out.open("w") as stdout, errors.open("w") as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(
            [*ARENA, "ratings", "--db", str(db), "--resamples", str(RESAMPLES)],
            stdout=stdout, stderr=stderr, env=env,
            cwd=out.parent)  # not a checkout: -m puts the working folder first on sys.path
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"arena ratings failed in {arena}: {errors.read_text()}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": usage.ru_maxrss / 1024}


def parts(db: Path) -> dict[str, float]:
    """The command's phases in this process (this tree), in CPU seconds."""
    clock = time.process_time()
    from arena.cli.entry import main  # noqa: F401 - what the command imports first
    from arena.cli.events import opened_to_read
    from arena.events.headtohead import as_json_rows  # noqa: F401 - as the command does
    from arena.events.leaderboard import format_table, results_leaderboard
    from arena.events.storage import names_and_results

    phases = {"imports": time.process_time() - clock}
    clock = time.process_time()
    storage = opened_to_read(db)
    names, results = names_and_results(storage)
    phases["read"] = time.process_time() - clock
    clock = time.process_time()
    format_table(results_leaderboard(names, results, resamples=RESAMPLES,
                                     seed=storage.meta().get("seed", 0)))
    phases["leaderboard"] = time.process_time() - clock
    return phases


def spread(values: list[float], unit: str, digits: int = 2) -> str:
    return (f"{statistics.median(values):.{digits}f} {unit} "
            f"({min(values):.{digits}f}-{max(values):.{digits}f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--sets", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--db", type=Path, help="time this event database instead")
    parser.add_argument("--old-path", type=Path, help="another checkout of arena, run too")
    parser.add_argument("--parts", action="store_true", help="the phases of this tree too")
    parser.add_argument("--child-parts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_parts:
        print(json.dumps(parts(args.child_parts)))
        return
    db = args.db or event_path(args.bots, args.sets, args.players)
    if not db.exists():
        started = time.perf_counter()
        games = make_event(db, args.bots, args.sets, args.players)
        print(f"made {db}: {games:,} games in {time.perf_counter() - started:.0f} s")
    trees = [("this tree", HERE.parent)]
    if args.old_path:
        trees.append((f"old ({args.old_path})", args.old_path.resolve()))
    print(f"arena ratings --db {db} ({db.stat().st_size / 2**20:.0f} MB) with {RESAMPLES} "
          f"resamples; median (min-max) of {args.repeats} runs, each a fresh process, "
          f"the checkouts alternating; load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as folder:
        outputs = {label: Path(folder) / f"out{i}.txt" for i, (label, _) in enumerate(trees)}
        for label, arena in trees:  # untimed: writes the bytecode caches
            run(arena, db, outputs[label])
        runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
        for _ in range(args.repeats):
            for label, arena in trees:
                runs[label].append(run(arena, db, outputs[label]))
        texts = {label: path.read_text() for label, path in outputs.items()}
    for label, _ in trees:
        figures = runs[label]
        print(f"{label:>30}: wall {spread([r['wall'] for r in figures], 's')}, "
              f"cpu {spread([r['cpu'] for r in figures], 's')}, "
              f"peak rss {spread([r['rss'] for r in figures], 'MB', 0)}", flush=True)
    if args.old_path:
        same = len(set(texts.values())) == 1
        print(f"{'':>30}  the printed tables are {'identical' if same else 'DIFFERENT'} "
              f"({len(texts['this tree'].splitlines())} lines)")
    if args.parts:
        phases = json.loads(subprocess.run(
            [sys.executable, __file__, "--child-parts", str(db)], capture_output=True,
            text=True, check=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)},
        ).stdout)
        print(f"{'':>30}  this tree's phases, CPU s in one process: " + ", ".join(
            f"{name} {seconds:.2f}" for name, seconds in phases.items()))
    for what in ("wall", "cpu"):
        worst = max(r[what] for r in runs["this tree"])
        print(f"{'':>30}  goal, the command within {GOAL_S:g} s, by {what}: "
              f"{'met' if worst <= GOAL_S else 'NOT met'} (slowest run {worst:.2f} s)")
    print(f"{'':>30}  load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(wall counts the machine's other load)")


if __name__ == "__main__":
    main()
