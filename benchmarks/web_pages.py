"""Benchmark of the competition pages (``arena web``, ``arena serve --web``).

    python benchmarks/web_pages.py [--bots 200] [--games 100000] [--loads 40]
                                   [--watchers 50] [--load-seconds 15] [--skip-live]
                                   [--compare OTHER_CHECKOUT] [--refit-seconds 30]
                                   [--snapshot] [--cold-starts 3]

**Page loads.** A temp SQLite event of ``--bots`` bots and ``--games`` synthetic games
(chochlik, tables of 3, duplicate sets of 6 seatings, ranks drawn from a strength model; one
real game's log for the replay page) is served by ``arena web`` in a subprocess. The first page
(``/``, a cold start: the server just listens) is timed, and whether it was the provisional
leaderboard (the first fit still running: the newest rating snapshot, with ``--snapshot`` one
the event's fit would have written, else a line saying it is being computed), then the time
until the fitted leaderboard shows; then each page is loaded ``--loads`` times over one
keep-alive connection: p50 / p99 / max in ms (goal: under 200 ms). Then a few games are added
(the count changes: the pages refit, in the fit's process) and the leaderboard is loaded
without pause for ``--refit-seconds`` (the refit, its rating history included), to show that
pages do not wait for it: p50 / p99 / max, and when the new count showed. With ``--compare
DIR`` the same is measured, in the same run and on the same event, with the ``arena`` of
another checkout (``git worktree add /tmp/old <commit>``), the two side by side.

**Watchers.**  ``benchmarks/load_bots.py`` runs twice side by side, both with ``arena serve
--web PORT``: once with no page watching, once with ``--watchers`` clients following live
tables' server-sent event streams (each picks a running table from /live.json and follows it
to its end, then another).  The server's decision latency p50 / p90 / p99 of both runs is
printed together (load_bots' own figure; its other rows are in its output with ``--verbose``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from itertools import permutations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.events.live_rating import LiveRow  # noqa: E402
from arena.events.snapshots import write_snapshot  # noqa: E402
from arena.events.storage import SqliteStorage  # noqa: E402
from arena.gameplay.driver import MatchDriver  # noqa: E402
from arena.games import get_game  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_event(folder: Path, bots: int, games: int, seed: int = 1,
               snapshot: bool = False) -> Path:
    """The synthetic event: rows written straight into the games table, one transaction;
    ``snapshot``: and a rating snapshot at the end, as its fit would publish it (Elo from the
    strength model)."""
    rng = random.Random(seed)
    db = folder / "event.db"
    names = [f"bot{i:03d}" for i in range(bots)]
    storage = SqliteStorage(db)
    storage.write_event({"game": "chochlik", "options": {"players": 3}, "duplicate": True,
                         "seed": "bench"}, [(name, "builtin") for name in names])
    strength = [rng.gauss(0, 1) for _ in names]
    rows = []
    planned = 0
    while planned < games:
        entrants = rng.sample(range(bots), 3)
        noise = [strength[e] + rng.gauss(0, 1.5) for e in entrants]
        for rotation, order in enumerate(permutations(range(3))):
            if planned >= games:
                break
            seated = [entrants[k] for k in order]
            score = [noise[k] for k in order]
            ranks = [1 + sum(other > mine for other in score) for mine in score]
            rows.append((planned, planned // 6, rotation, f"s{planned // 6}", json.dumps(seated),
                         json.dumps([round(10 * s) for s in score]), json.dumps(ranks), None,
                         json.dumps([0, 0, 0]), json.dumps([0, 0, 0]), 1, f"g{planned}",
                         None, 1.0, "2026-01-01T00:00:00+0000"))
            planned += 1
    with storage.db:
        storage.db.executemany("INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    if snapshot:
        write_snapshot(db, time.time(), games,
                       [LiveRow(0, name, 1500 + 200 * s, 30.0, 0) for name, s in zip(names,
                                                                                 strength)],
                       {name: (1500 + 200 * s, 1460 + 200 * s, 1540 + 200 * s)
                        for name, s in zip(names, strength)})
    log = real_log(folder, [names[e] for e in json.loads(rows[0][4])])
    with storage.db:
        storage.db.execute("UPDATE games SET log_path = ? WHERE planned = 0", (str(log),))
    storage.close()
    return db


def real_log(folder: Path, names: list[str]) -> Path:
    """One real game (random answers), for the replay page."""
    spec = get_game("chochlik")
    driver = MatchDriver(spec, spec.parse_options({"players": 3}), "bench", names,
                         game_id="bench", table=1, move_timeout=5)
    driver.start(0.0)
    rng = random.Random(3)
    while not driver.finished:
        seat, request = next(iter(driver.open.items()))
        driver.answer(seat, request.id, rng.choice(request.legal), 0.1)
    return driver.log.write(folder / "logs", sync=False)


def add_games(db: Path, count: int) -> None:
    with sqlite3.connect(db) as connection:
        top = connection.execute("SELECT MAX(planned) FROM games").fetchone()[0]
        connection.executemany(
            "INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(top + 1 + k, (top + 1 + k) // 6, 0, "x", json.dumps([k % 7, 7 + k % 5, 20]),
              "[3, 2, 1]", "[1, 2, 3]", None, "[0, 0, 0]", "[0, 0, 0]", 1, f"n{k}", None, 1.0,
              "2026-01-01T00:00:00+0000") for k in range(count)])


def load(connection: http.client.HTTPConnection, path: str) -> tuple[float, int]:
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status}: {body[:200]!r}")
    return (time.perf_counter() - started) * 1000, len(body)


def fetch(connection: http.client.HTTPConnection, path: str) -> bytes:
    connection.request("GET", path)
    return connection.getresponse().read()


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered) + 0.5) - 1)]
    return f"{statistics.median(ordered):7.1f} {p99:7.1f} {ordered[-1]:7.1f}"


def page_loads(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        started = time.perf_counter()
        db = make_event(folder, args.bots, args.games, snapshot=args.snapshot)
        print(f"event: {args.bots} bots, {args.games:,} games written in "
              f"{time.perf_counter() - started:.1f} s")
        roots = [ROOT] + ([Path(args.compare).resolve()] if args.compare else [])
        if args.cold_starts:
            cold_starts(args, db, roots)
        refits = []
        for root in roots:
            print(f"arena of {root}:")
            refits.append((root, pages_of(args, db, root)))
        print(f"the leaderboard '/' in the {args.refit_seconds:.0f} s after games were added, "
              "side by side:")
        for root, line in refits:
            print(f"  {line}  {root}")


def start_web(db: Path, root: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``arena web`` (of ``root``) on ``db``, once it listens; its port."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(root)}
    server = subprocess.Popen([sys.executable, "-m", "arena", "web", "--db", str(db),
                               "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                              cwd=root)  # python -m puts the folder it starts in first
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=600):
                return server, port
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                server.kill()
                raise SystemExit("arena web did not start") from None
            time.sleep(0.02)


def first_page(connection: http.client.HTTPConnection) -> tuple[float, str]:
    """The first page '/' of a server that just listens: ms, and what it was."""
    started = time.perf_counter()
    connection.request("GET", "/")
    first = connection.getresponse().read()
    ms = (time.perf_counter() - started) * 1000
    pending = b"is being computed" in first
    return ms, (f"{'provisional: the first fit still running' if pending else 'fitted'}, "
                f"{len(first):,} bytes, {first.count(b'bot-row')} bot rows")


def cold_starts(args: argparse.Namespace, db: Path, roots: list[Path]) -> None:
    """The first page of ``--cold-starts`` fresh servers of each arena, alternating."""
    found: dict[Path, list[float]] = {root: [] for root in roots}
    said: dict[Path, str] = {}
    for _ in range(args.cold_starts):
        for root in roots:
            server, port = start_web(db, root)
            try:
                ms, said[root] = first_page(http.client.HTTPConnection("127.0.0.1", port,
                                                                       timeout=600))
                found[root].append(ms)
            finally:
                server.terminate()
                server.wait(30)
    print(f"first page '/' at a cold start, {args.cold_starts} starts alternating "
          f"(load average {os.getloadavg()[0]:.1f}):")
    for root in roots:
        times = found[root]
        print(f"  median {statistics.median(times):7.0f} ms [{min(times):.0f}..{max(times):.0f}]"
              f"  ({said[root]})  {root}")


def pages_of(args: argparse.Namespace, db: Path, root: Path) -> str:
    """The page loads of ``db`` served by the ``arena`` of ``root``; the refit's line."""
    server, port = start_web(db, root)
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        started = time.perf_counter()
        ms, what = first_page(connection)
        print(f"first page '/' at a cold start: {ms:.0f} ms ({what})")
        while json.loads(fetch(connection, "/leaderboard.json")).get("provisional"):
            time.sleep(0.2)
        print(f"the fitted leaderboard after {time.perf_counter() - started:.1f} s")
        print(f"{'page':<22} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}  bytes")
        for path in ("/", "/leaderboard.json", "/bot/0", f"/bot/{args.bots - 1}", "/versus",
                     "/game/0", "/game/0?view=seat1", "/live"):
            load(connection, path)  # built once per fit: the first load builds it
            times, size = [], 0
            for _ in range(args.loads):
                ms, size = load(connection, path)
                times.append(ms)
            print(f"{path:<22} {quantiles(times)}  {size:,}")
        before = json.loads(fetch(connection, "/leaderboard.json"))["version"]
        add_games(db, 12)
        times = []  # the leaderboard while the refit runs, its history too
        refit_started = time.perf_counter()
        shown = None
        while time.perf_counter() - refit_started < args.refit_seconds:
            times.append(load(connection, "/")[0])
            if shown is None and len(times) % 20 == 0 and json.loads(fetch(
                    connection, "/leaderboard.json"))["version"] != before:
                shown = time.perf_counter() - refit_started
        line = (f"p50 / p99 / max ms {quantiles(times)}  ({len(times)} loads; the new count "
                f"showed after {'-' if shown is None else f'{shown:.1f}'} s)")
        print(f"{'/ during a refit':<22} {line}")
        return line
    finally:
        server.terminate()
        server.wait(30)


def follow(port: int, stop: threading.Event, counts: list[int]) -> None:
    """One page watcher: follow a running table's stream to its end, then another."""
    rng = random.Random()
    while not stop.is_set():
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/live.json")
            tables = json.loads(connection.getresponse().read())["tables"]
            if not tables:
                stop.wait(0.2)
                continue
            connection.request("GET", f"/live/{rng.choice(tables)['table']}/stream")
            response = connection.getresponse()
            while not stop.is_set():
                line = response.fp.readline()
                if not line or line.startswith(b"event: end"):
                    break
                if line.startswith(b"data:"):
                    counts[0] += 1
            connection.close()
        except (OSError, http.client.HTTPException, ValueError):
            stop.wait(0.2)


def load_run(args: argparse.Namespace, watchers: int) -> str:
    web = free_port()
    command = [sys.executable, str(ROOT / "benchmarks" / "load_bots.py"), "--bots",
               str(args.load_bots), "--seconds", str(args.load_seconds), "--rate",
               str(args.rate), f"--server-arg=--web={web}"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    stop, counts = threading.Event(), [0]
    threads = [threading.Thread(target=follow, args=(web, stop, counts), daemon=True)
               for _ in range(watchers)]
    for thread in threads:
        thread.start()
    output, _ = run.communicate()
    stop.set()
    if args.verbose:
        print(output)
    latency = next((line for line in output.splitlines() if "latency p50" in line),
                   "latency: not reported (see --verbose)")
    return f"{watchers:>3} watchers ({counts[0]:,} messages followed): {latency.strip()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--loads", type=int, default=40)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--load-bots", type=int, default=150)
    parser.add_argument("--load-seconds", type=float, default=15.0)
    parser.add_argument("--rate", type=float, default=300.0)
    parser.add_argument("--rounds", type=int, default=2, help="load_bots runs of each kind")
    parser.add_argument("--compare", metavar="DIR", default=None,
                        help="also measure the pages with the arena of this checkout")
    parser.add_argument("--refit-seconds", type=float, default=30.0)
    parser.add_argument("--cold-starts", type=int, default=3,
                        help="fresh servers whose first page is timed (0: none)")
    parser.add_argument("--snapshot", action="store_true",
                        help="the event holds a rating snapshot (as its fit writes)")
    parser.add_argument("--skip-pages", action="store_true")
    parser.add_argument("--skip-live", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if not args.skip_pages:
        page_loads(args)
    if not args.skip_live:
        print("server decision latency (load_bots.py), the runs alternating:")
        for _ in range(args.rounds):
            for watchers in (0, args.watchers):
                print(load_run(args, watchers))


if __name__ == "__main__":
    main()
