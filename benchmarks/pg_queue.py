"""The cost and reach of PostgreSQL as the queue and store of ``arena worker`` (issue 22).

    python benchmarks/pg_queue.py [--quick] [--db URL] [--parts latency,scale,games]

Starts a throwaway PostgreSQL server (tests/pg_fixture.py: initdb in a temporary folder, a
Unix socket; fsync off as in the tests, so the figures are the coordinator's work, not a
disk's) unless ``--db URL`` names one, and measures:

- **latency**: one worker claims a table and stores an instant fake game, ``--games`` times
  (arena.events.pg_queue.WorkQueue: the real claim and store transactions): claim and store
  latency p50/p99 in ms, and the database's CPU per game (the server processes' user+system
  CPU, read from /proc, over the games).
- **scale**: ``--workers`` simulated workers (default 100: connections in
  ``--processes`` processes of threads) claim and store instant fake games for ``--seconds``:
  claims per second sustained (goal >= 1,000/s), and every claimed table checked to have been
  claimed by one worker only (no double claim) and stored once.
- **games**: real games per minute with 1, 2 and 4 ``arena worker`` processes on this machine
  (chochlik, four reference bots, ``--sets`` duplicate sets; one table at a time per worker),
  from their start to the last game stored; the counts interleaved over the repeats.

Each figure is given with its spread over ``--repeats`` runs (median, min to max).  The last
line is ``SUMMARY <json>``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.events.pg_queue import WorkQueue, plan  # noqa: E402
from arena.events.pg_storage import PostgresStorage, connect  # noqa: E402
from arena.gameplay.records import GameRecord, PlannedTable  # noqa: E402


def fake_game(planned: int) -> GameRecord:
    table = PlannedTable(planned, planned // 6, planned % 6, (0, 1, 2), "s")
    return GameRecord(number=planned, game_id=f"g{planned}", entrants=(0, 1, 2), names=(),
                      seed="s", scores=(3, 2, 1), ranks=(1, 2, 3), winners=(0,), aborted=None,
                      defaults=(0, 0, 0), errors=(0, 0, 0), rounds=3, log_path=None,
                      seconds=0.01, tag=table)


def new_database(admin_url: str, name: str) -> str:
    with connect(admin_url) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name}")
        db.execute(f"CREATE DATABASE {name}")
    return admin_url.replace("/postgres", f"/{name}", 1)


def new_event(admin_url: str, name: str, tables: int) -> str:
    url = new_database(admin_url, name)
    storage = PostgresStorage(url)
    storage.write_event({"seed": "bench"}, [("a", "x"), ("b", "x"), ("c", "x")])
    storage.close()
    plan(url, range(tables))
    return url


def server_cpu(url: str) -> float:
    """The CPU seconds (user + system) the server's processes have used so far: the
    postmaster's own and its ended children's (cutime, cstime), and its live children's."""
    with connect(url) as db:
        row = db.execute("SELECT setting FROM pg_settings WHERE name = 'data_directory'"
                         ).fetchone()
    assert row is not None
    master = int((Path(row[0]) / "postmaster.pid").read_text().split()[0])
    pids = [master] + [int(p) for p in Path(f"/proc/{master}/task/{master}/children")
                       .read_text().split()]
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        if pid == master:
            total += (int(fields[13]) + int(fields[14])) / ticks  # cutime, cstime
    return total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency(admin_url: str, games: int) -> dict[str, float]:
    url = new_event(admin_url, "bench_latency", games)
    queue = WorkQueue(url, "bench", lease_seconds=60)
    queue.register("bench", os.getpid())
    claims, stores = [], []
    cpu_before = server_cpu(url)
    for _ in range(games):
        started = time.perf_counter()
        (table,) = queue.claim(1)
        claimed = time.perf_counter()
        assert queue.store(fake_game(table))
        stores.append(time.perf_counter() - claimed)
        claims.append(claimed - started)
    cpu = server_cpu(url) - cpu_before
    queue.close()
    return {"claim_p50_ms": percentile(claims, 0.5) * 1e3,
            "claim_p99_ms": percentile(claims, 0.99) * 1e3,
            "store_p50_ms": percentile(stores, 0.5) * 1e3,
            "store_p99_ms": percentile(stores, 0.99) * 1e3,
            "db_cpu_us_per_game": cpu / games * 1e6}


def simulated_workers(url: str, first: int, count: int, seconds: float, out: Any) -> None:
    """``count`` workers (threads, a connection each) claiming and storing for ``seconds``;
    puts (claimed tables, stored count) of each on ``out``."""
    start = threading.Barrier(count)

    def worker(number: int) -> None:
        queue = WorkQueue(url, f"sim{first + number}", lease_seconds=600)
        queue.register("sim", os.getpid())
        taken, stored = [], 0
        start.wait()
        began = time.time()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            claimed = queue.claim(1)
            if not claimed:
                break
            taken += claimed
            stored += queue.store(fake_game(claimed[0]))
        out.put((taken, stored, began, time.time()))
        queue.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def scale(admin_url: str, workers: int, processes: int, seconds: float,
          tables: int) -> dict[str, float]:
    url = new_event(admin_url, "bench_scale", tables)
    out: Any = multiprocessing.Queue()
    per = [workers // processes + (i < workers % processes) for i in range(processes)]
    children = [multiprocessing.Process(target=simulated_workers,
                                        args=(url, sum(per[:i]), n, seconds, out))
                for i, n in enumerate(per)]
    cpu_before = server_cpu(url)
    for child in children:
        child.start()
    results = [out.get() for _ in range(workers)]
    for child in children:
        child.join()
    elapsed = max(r[3] for r in results) - min(r[2] for r in results)  # all claiming
    cpu = server_cpu(url) - cpu_before  # with the connections' setup: an upper bound
    claimed = [table for taken, *_ in results for table in taken]
    stored = sum(count for _, count, *_ in results)
    with connect(url) as db:
        row = db.execute("SELECT count(*), count(DISTINCT planned) FROM games").fetchone()
    assert row is not None
    in_db, distinct = row
    double = len(claimed) - len(set(claimed))
    if double or stored != len(claimed) or in_db != distinct or in_db != stored:
        raise SystemExit(f"DOUBLE CLAIM or lost store: {double} tables claimed twice, "
                         f"{len(claimed)} claims, {stored} stores, {in_db} rows")
    return {"claims_per_s": len(claimed) / elapsed, "claims": len(claimed),
            "db_cpu_us_per_game": cpu / max(1, len(claimed)) * 1e6, "double_claims": 0}


def games_per_minute(admin_url: str, workers: int, sets: int) -> float:
    url = new_database(admin_url, f"bench_games_{workers}")
    planned = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "--game", "chochlik", "--sets", str(sets),
         "--seed", "bench", "--db", url, "--plan-only", "--bot", "random", "--bot", "random",
         "--bot", "chochlik-heuristic", "--bot", "chochlik-heuristic"],
        capture_output=True, text=True, cwd=ROOT, check=False)
    if planned.returncode:
        raise SystemExit(planned.stdout + planned.stderr)
    total = int(planned.stdout.split(" games planned")[0].rsplit(" ", 1)[1])
    folder = tempfile.mkdtemp(prefix="arena-bench-")
    started = time.monotonic()
    running = [subprocess.Popen([sys.executable, "-m", "arena", "worker", "--db", url,
                                 "--log-dir", f"{folder}/logs{i}"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for i in range(workers)]
    for process in running:
        process.wait()
    elapsed = time.monotonic() - started
    with connect(url) as db:
        row = db.execute("SELECT count(*) FROM games").fetchone()
    assert row is not None and row[0] == total, (row, total)
    return total / elapsed * 60


def spread(values: list[float]) -> str:
    return (f"{statistics.median(values):10.2f}  ({min(values):.2f} to {max(values):.2f}, "
            f"{len(values)} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="an admin URL (postgresql://.../postgres) of a server "
                        "to use instead of a throwaway one")
    parser.add_argument("--parts", default="latency,scale,games")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=100)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--sets", type=int, default=8)
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.games, args.seconds, args.sets = 1, 200, 3.0, 2
    parts = args.parts.split(",")
    server = None
    if args.db is None:
        from tests.pg_fixture import PgServer

        server = PgServer(port=5400 + os.getpid() % 500).start()
        admin = server.url()
    else:
        admin = args.db
    rows: list[dict[str, Any]] = []
    try:
        if "latency" in parts:
            runs = [latency(admin, args.games) for _ in range(args.repeats)]
            print(f"latency over {args.games} claim+store cycles (one worker):")
            for key in runs[0]:
                values = [run[key] for run in runs]
                print(f"  {key:<22}{spread(values)}")
                rows.append({"name": f"pg queue: {key}", "median": statistics.median(values),
                             "min": min(values), "max": max(values)})
        if "scale" in parts:
            runs = [scale(admin, args.workers, args.processes, args.seconds,
                          max(20_000, int(args.seconds * 5_000)))
                    for _ in range(args.repeats)]
            print(f"{args.workers} simulated workers ({args.processes} processes), instant "
                  f"games, {args.seconds:g} s: no double claim in "
                  f"{sum(int(r['claims']) for r in runs)} claims")
            for key in ("claims_per_s", "db_cpu_us_per_game"):
                values = [run[key] for run in runs]
                print(f"  {key:<22}{spread(values)}" + ("   (goal >= 1000/s)"
                                                        if key == "claims_per_s" else ""))
                rows.append({"name": f"pg queue: {args.workers} workers {key}",
                             "median": statistics.median(values), "min": min(values),
                             "max": max(values),
                             "target": 1000 if key == "claims_per_s" else None})
        if "games" in parts:
            print(f"real games per minute (chochlik, 4 reference bots, {args.sets} sets, "
                  f"{os.cpu_count()} cores):")
            rates: dict[int, list[float]] = {1: [], 2: [], 4: []}
            for _ in range(args.repeats):  # interleaved: a change of the machine's load
                for workers in rates:      # falls on every count alike
                    rates[workers].append(games_per_minute(admin, workers, args.sets))
            for workers, values in rates.items():
                print(f"  {workers} worker(s){'':<12}{spread(values)}")
                rows.append({"name": f"pg queue: games/min with {workers} workers",
                             "median": statistics.median(values), "min": min(values),
                             "max": max(values)})
    finally:
        if server is not None:
            server.cleanup()
    print("SUMMARY " + json.dumps(rows))


if __name__ == "__main__":
    main()
