"""Benchmark: how soon a ladder with many stored games serves (``arena serve --db FILE``).

    python benchmarks/ladder_start.py [--games 100000] [--bots 200] [--repeat 3]
                                      [--compare OTHER_CHECKOUT]

A temp SQLite ladder of vollewolle (2 players) holds ``--bots`` registered bots and
``--games`` synthetic stored games among them (ranks drawn from a strength model), written
straight into its tables.  ``arena serve --db`` then starts on it (``-v``), two of its bots
(reference random bots) connect as soon as it listens, and the times from the start of the
process are printed: the banner (it listens), the first game over, and (this checkout) the line
saying the stored games are rated.  Each run is on a fresh copy of the file.  With ``--compare
DIR`` the same is measured with the ``arena`` of another checkout (``git worktree add
/tmp/old <commit>``), the runs alternating.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.events.registry import Registry, identity  # noqa: E402
from arena.events.storage import SqliteStorage  # noqa: E402
from arena.events.tokens import token_digest  # noqa: E402

TOKEN = "benchmark-token-not-secret"


def make_ladder(db: Path, bots: int, games: int, seed: int = 1) -> None:
    """The ladder: ``bots`` registered (the two that connect with :data:`TOKEN`, the others
    with no usable token), games among them."""
    rng = random.Random(seed)
    names = [f"bot{i:03d}" for i in range(bots)]
    salts = [i.to_bytes(16, "big") for i in range(bots)]
    registry = Registry(db)
    with registry.db:
        for i, (name, salt) in enumerate(zip(names, salts)):
            digest = token_digest(TOKEN, salt) if i < 2 else bytes(32)
            registry.db.execute("INSERT INTO bots VALUES (?, ?, ?, ?, 'blake2b')",
                                (name, name.casefold(), salt, digest))
        registry.db.execute("PRAGMA user_version = 1")
    registry.close()
    storage = SqliteStorage(db)
    storage.write_event({"game": "vollewolle", "options": {"players": 2}, "ladder": True},
                        [(name, identity(salt)) for name, salt in zip(names, salts)])
    strength = [rng.gauss(0, 1) for _ in names]
    rows = []
    for planned in range(games):
        a, b = rng.sample(range(bots), 2)
        ranks = [1, 2] if strength[a] + rng.gauss(0, 1) > strength[b] else [2, 1]
        rows.append((planned, planned, 0, f"s{planned}", json.dumps([a, b]),
                     json.dumps([2 - ranks[0], 2 - ranks[1]]), json.dumps(ranks), None,
                     "[0, 0]", "[0, 0]", 1, f"g{planned}", None, 1.0,
                     "2026-01-01T00:00:00+0000"))
    with storage.db:
        storage.db.executemany("INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    storage.close()


def lines_of(stream: object, into: queue.Queue[tuple[float, str]]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put((time.perf_counter(), line))


def start_once(db: Path, root: Path, folder: Path) -> dict[str, float]:
    """One start of ``arena serve`` (of ``root``) on a copy of ``db``: seconds to each mark."""
    copy = folder / "run.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
    shutil.copy(db, copy)
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1"}
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "-v", "serve", "--game", "vollewolle", "--players", "2",
         "--db", str(copy), "--port", "0", "--log-dir", str(folder / "logs")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root)
    seen: queue.Queue[tuple[float, str]] = queue.Queue()
    for stream in (server.stdout, server.stderr):
        threading.Thread(target=lines_of, args=(stream, seen), daemon=True).start()
    marks: dict[str, float] = {}
    bots: list[subprocess.Popen[bytes]] = []
    try:
        deadline = time.monotonic() + 300
        while not {"listens", "first game", "rated"} <= set(marks):
            at, line = seen.get(timeout=max(1.0, deadline - time.monotonic()))
            if "hosting vollewolle" in line and "listens" not in marks:
                marks["listens"] = at - started
                port = line.split(":")[-1].split(";")[0]
                bots = [subprocess.Popen([sys.executable, "-m", "reference_bots.random",
                                          "--port", port, "--name", name, "--token", TOKEN],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         env=env, cwd=root) for name in ("bot000", "bot001")]
            elif line.startswith("table ") and "first game" not in marks:
                marks["first game"] = at - started
                if "rated" not in marks and root != ROOT:
                    marks["rated"] = marks["listens"]  # (an arena that rates before serving)
            elif "stored games rated" in line:  # (this checkout's -v line)
                marks["rated"] = at - started
    finally:
        for process in (server, *bots):
            process.terminate()
        for process in (server, *bots):
            process.wait(30)
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare", metavar="DIR", default=None)
    args = parser.parse_args()
    roots = [ROOT] + ([Path(args.compare).resolve()] if args.compare else [])
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        db = folder / "ladder.db"
        began = time.perf_counter()
        make_ladder(db, args.bots, args.games)
        print(f"ladder: {args.bots} bots, {args.games:,} stored games, written in "
              f"{time.perf_counter() - began:.1f} s; load average {os.getloadavg()[0]:.1f}")
        found: dict[Path, list[dict[str, float]]] = {root: [] for root in roots}
        for _ in range(args.repeat):
            for root in roots:
                found[root].append(start_once(db, root, folder))
        print(f"seconds from the start (median [min..max] of {args.repeat} runs, alternating):")
        for root in roots:
            cells = []
            for mark in ("listens", "first game", "rated"):
                values = [run[mark] for run in found[root]]
                cells.append(f"{mark} {statistics.median(values):5.2f} "
                             f"[{min(values):.2f}..{max(values):.2f}]")
            print("  " + "   ".join(cells) + f"   {root}")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
