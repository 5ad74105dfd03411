"""Hosted bots' speed (issue 33 §5): how long from "the seating wants this bot" to its hello,
and whether a crowded ladder of hosted bots times anybody out.

    python benchmarks/hosted_speed.py [--trials 15] [--game chochlik]
    python benchmarks/hosted_speed.py --ladder 300 [--bots 40] [--cores 2] [--processes 40]
                                      [--server-arg=--hands=1 ...]

**Start**: a built Python bot (``tests/check_bots/honest.py``) and a compiled one (C,
``tests/launch/hosted_bots/first_legal.c``) are submitted as ``arena bots submit`` does (built
and validated in the sandbox), each in a database of its own.  Each trial makes a server (no
listener) and a hosted pool of one process (:class:`arena.launch.hosted_pool.HostedPool`, as
``arena serve --hosted 1`` runs it) and measures, by the pool's own record, the time from the
moment its policy chose to start the version to the moment its hello was admitted by the
server: the build's folder unpacked (cold only), the sandbox made, the program started, the
welcome read and the hello written.  *Cold*: as at the server's first start of the version:
the build's folder removed before the trial (it is fetched from the database by its digest and
unpacked again) and the language's toolchain not yet asked for its version; *warm*: both done
before (and the page cache holds the files).  Prints the median and the spread (min to
max) of each; the goals are under 150 ms warm and under 1 s cold.

**Ladder** (``--ladder SECONDS``): ``--bots`` hosted Python bots (one validated submission,
the others given the same build through the store, as many versions of one build) on a
ladder ``arena serve --db --hosted PROCESSES --cores CORES`` for SECONDS, no bot connected
from outside; then Ctrl-C.  Counted from the stored games' logs: games, decisions, and
decisions played by default for a timeout (each bot answers at once, so every timeout is the
host's); prints the server's CPU use.  Timings are distorted by other load on the machine:
quote ``uptime`` with them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.edge.server import ArenaServer, ServerConfig  # noqa: E402
from arena.events.hosted_store import SqliteHosted  # noqa: E402
from arena.events.registry import Registry  # noqa: E402
from arena.games import GAMES  # noqa: E402
from arena.kit.hosted import HostedSettings, submit  # noqa: E402
from arena.launch.hosted_pool import (  # noqa: E402
    TOOLCHAINS,
    HostedPool,
    HostedTokens,
    PoolSettings,
)
from arena.seating.arrival import ArrivalSeating  # noqa: E402

PYTHON_BOT = ROOT / "tests" / "check_bots" / "honest.py"
C_BOT = ROOT / "tests" / "launch" / "hosted_bots" / "first_legal.c"


def submitted(folder: Path, name: str, source: Path, game: str) -> Path:
    """A database holding ``name``'s one version (built and validated), active."""
    db = folder / f"{name}.db"
    with Registry(db) as registry:
        registry.add(name)
    with SqliteHosted(db) as store:
        version = submit(store, name, source, None,
                         HostedSettings(game=game, builds=folder / f"{name}.db.builds",
                                        protect=(str(db),)), lambda line: None)
    if version.state.value != "active":
        raise SystemExit(f"{name}: {version.state.value}: {version.reason}")
    return db


async def one_start(db: Path, game: str, logs: Path) -> float:
    """Seconds from the pool's choice to start the version to its hello's admission."""
    spec = GAMES[game]
    options = spec.parse_options({})
    tokens = HostedTokens(None)
    server = ArenaServer(ServerConfig(spec=spec, options=options, host="127.0.0.1", port=0,
                                      move_timeout=5.0, log_dir=logs, idle_timeout=None),
                         seating=ArrivalSeating(options.players, checker=tokens.check))
    settings = PoolSettings(most=1, builds=db.with_name(db.name + ".builds"), cores=1,
                            protect=(str(db),), hide=(logs,))
    pool = HostedPool(server, lambda: SqliteHosted(db), settings, tokens, print)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve, False)
        nursery.start_soon(pool.run)
        with trio.fail_after(30):
            while not pool.hello_times():
                await tokens.changed.wait()
        nursery.cancel_scope.cancel()
    return pool.hello_times()[0][1]


def starts(args: argparse.Namespace, folder: Path) -> None:
    logs = folder / "logs"
    logs.mkdir()
    for name, source in (("python", PYTHON_BOT), ("c", C_BOT)):
        db = submitted(folder, name, source, args.game)
        builds = db.with_name(db.name + ".builds")
        for mode in ("cold", "warm"):
            seconds = []
            for _ in range(args.trials):
                if mode == "cold":  # as at a server's first start of it
                    for build in builds.iterdir():
                        shutil.rmtree(build)
                    TOOLCHAINS.clear()
                seconds.append(trio.run(one_start, db, args.game, logs))
            goal = 1.0 if mode == "cold" else 0.150
            print(f"{name:<6} {mode}: median {statistics.median(seconds) * 1000:6.1f} ms "
                  f"(min {min(seconds) * 1000:.1f}, max {max(seconds) * 1000:.1f}; "
                  f"{args.trials} trials; goal < {goal * 1000:.0f} ms)", flush=True)


def many_versions(folder: Path, bots: int, game: str) -> Path:
    """``bots`` registered bots, each with an active version of one validated build."""
    db = submitted(folder, "bot1", PYTHON_BOT, game)
    with SqliteHosted(db) as store:
        first = store.version("bot1", 1)
        assert first.build_digest is not None
        files = store.build(first.build_digest)
        source = store.source("bot1", 1)
    with Registry(db) as registry:
        for number in range(2, bots + 1):
            registry.add(f"bot{number}")
    with SqliteHosted(db) as store:
        for number in range(2, bots + 1):
            name = f"bot{number}"
            version = store.submit(name, "python", source, first.source_digest)
            store.built(name, version.number, files, first.build_digest, "", first.run)
            store.passed(name, version.number, "as bot1's")
    return db


def ladder(args: argparse.Namespace, folder: Path) -> None:
    db = many_versions(folder, args.bots, args.game)
    logs = folder / "ladder-logs"
    command = [sys.executable, "-m", "arena", "serve", "--game", args.game, "--db", str(db),
               "--hosted", str(args.processes), "--cores", str(args.cores), "--port", "0",
               "--log-dir", str(logs), "--quiet", "--plain-logs", *args.server_arg]
    print("running:", " ".join(command[2:]), flush=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    began = time.monotonic()
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        time.sleep(args.ladder)
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=60)
    elapsed = time.monotonic() - began
    games = decisions = timeouts = 0
    for path in logs.glob("*.jsonl*"):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as file:
            lines = [json.loads(line) for line in file]
        if not any(line["type"] == "result" for line in lines):
            continue  # aborted at the stop
        games += 1
        for line in lines:
            if line["type"] == "action":
                decisions += 1
                timeouts += line.get("reason") == "timeout"
    crashes = [line for line in err.splitlines() if "hosted" in line and "ended" in line]
    print(f"ladder: {args.bots} hosted bots, {args.processes} processes, {args.cores} cores, "
          f"{elapsed:.0f} s: {games} games, {decisions} decisions, {timeouts} timeouts "
          f"(the host's), {len(crashes)} crashes", flush=True)
    for line in crashes[:5]:
        print("  ", line)
    if server.returncode not in (0, 130) or not games:
        print(f"the server ended with status {server.returncode}:", *err.splitlines()[-15:],
              sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=15)
    parser.add_argument("--game", default="chochlik")
    parser.add_argument("--ladder", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--processes", type=int, default=40)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--server-arg", action="append", default=[],
                        help="An option for the ladder's server (--server-arg=--hands=1).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-hosted-speed-") as folder:
        if args.ladder is None:
            starts(args, Path(folder))
        else:
            ladder(args, Path(folder))


if __name__ == "__main__":
    main()
