"""Churn against ``arena serve``: honest games a second with and without a client that loops
``connect, hello, close`` as fast as it can.

    python benchmarks/churn.py [--honest 12] [--windows 6] [--window-seconds 5]
                               [--churn-address 127.0.0.2] [--arena-path DIR]
                               [--server-arg=--hands=1 ...]

The server runs as a subprocess (``python -m arena serve``, chochlik, 3 players, one hand a
game unless ``--server-arg`` says otherwise, logs in a temporary folder).  ``--honest`` bots
connect from 127.0.0.1, say hello once and play game after game, answering every request at
once with a random legal action.  The measured time is cut into ``--windows`` windows of
``--window-seconds``, alternately without and with the churning client (which connects from
``--churn-address``, another loopback address, as a stranger would; it runs in a process of its
own, so it takes no time from the honest bots' process), so both conditions share the
machine's moods.  Prints the honest games finished a second in each window, the median
(min to max) per condition and their ratio, the churner's connections and how they ended, then
one ``SUMMARY <json>`` line.  ``--arena-path DIR`` runs the server from another checkout (its
code first on ``PYTHONPATH``), e.g. the code before a change.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import trio


class Counts:
    def __init__(self) -> None:
        self.game_ends = 0  # over every honest bot (each game is seen by every seat)
        self.aborted = 0
        self.honest_errors: collections.Counter[str] = collections.Counter()
        self.churn_on = False
        self.churn_cycles = 0
        self.churn_ends: collections.Counter[str] = collections.Counter()
        self.stopping = False


async def honest_bot(counts: Counts, port: int, name: str, rng: random.Random) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    buffer = b""
    sent_hello = False
    async with stream:
        while not counts.stopping:
            data = await stream.receive_some(65536)
            if not data:
                if not counts.stopping:
                    counts.honest_errors["closed"] += 1
                return
            *lines, buffer = (buffer + data).split(b"\n")
            for line in lines:
                if line.startswith(b'{"type":"event"'):
                    continue
                message = json.loads(line)
                kind = message["type"]
                if kind == "welcome" and not sent_hello:
                    sent_hello = True
                    await stream.send_all(json.dumps(
                        {"type": "hello", "name": name, "events": "with_requests"}).encode()
                        + b"\n")
                elif kind == "request":
                    await stream.send_all(json.dumps(
                        {"type": "action", "id": message["id"],
                         "action": rng.choice(message["legal"])}).encode() + b"\n")
                elif kind == "game_end":
                    if message.get("aborted"):
                        counts.aborted += 1
                    else:
                        counts.game_ends += 1
                elif kind == "error":
                    counts.honest_errors[message.get("code", "?")] += 1


async def churner(counts: Counts, port: int, address: str, seconds: float) -> None:
    """connect, hello, close, as fast as it can, for ``seconds``."""
    with trio.move_on_after(seconds):
        while True:
            await churn_once(counts, port, address)


async def churn_once(counts: Counts, port: int, address: str) -> None:
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    try:
        await sock.bind((address, 0))
        await sock.connect(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        counts.churn_ends[f"connect failed: {exc.strerror}"] += 1
        await trio.sleep(0.01)
        return
    stream = trio.SocketStream(sock)
    counts.churn_cycles += 1
    try:
        first = await stream.receive_some(65536)
        if b'"welcome"' not in first:
            counts.churn_ends["refused at connect"] += 1
            return
        await stream.send_all(b'{"type":"hello","name":"ghost"}\n')
        counts.churn_ends["hello, closed"] += 1
    except (trio.BrokenResourceError, OSError):
        counts.churn_ends["reset"] += 1
    finally:
        await stream.aclose()


def churn_process(args: argparse.Namespace) -> int:
    """``--churn-for PORT``: the churning client alone, for ``--window-seconds``; prints its
    counts as JSON."""
    counts = Counts()
    trio.run(churner, counts, args.churn_for, args.churn_address, args.window_seconds)
    print(json.dumps({"cycles": counts.churn_cycles, "ends": dict(counts.churn_ends)}))
    return 0


def start_server(args: argparse.Namespace, folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if args.arena_path:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(args.arena_path).resolve())]
            + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    out = folder / "server.out"
    command = [sys.executable, "-m", "arena", "serve", "--game", "chochlik", "--players", "3",
               "--port", "0", "--log-dir", str(folder / "logs"), *args.server_arg]
    with open(out, "wb") as sink, open(folder / "server.err", "wb") as err:
        # python -m puts the working folder first on sys.path: run in the other checkout
        process = subprocess.Popen(command, stdout=sink, stderr=err, env=env,
                                   stdin=subprocess.DEVNULL, start_new_session=True,
                                   cwd=args.arena_path or None)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = re.search(r"on \S+:(\d+);", out.read_text())
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise SystemExit("the server did not start:\n" + (folder / "server.err").read_text()[-2000:])


async def drive(args: argparse.Namespace, port: int) -> tuple[list[tuple[bool, float]], Counts]:
    counts = Counts()
    windows: list[tuple[bool, float]] = []  # (churning, honest games a second)
    async with trio.open_nursery() as nursery:
        for i in range(args.honest):
            nursery.start_soon(honest_bot, counts, port, f"honest{i:02d}", random.Random(i))
        await trio.sleep(args.warmup)
        for window in range(args.windows):
            counts.churn_on = window % 2 == 1
            before, began = counts.game_ends, trio.current_time()
            if counts.churn_on:
                done = await trio.run_process(
                    [sys.executable, __file__, "--churn-for", str(port), "--churn-address",
                     args.churn_address, "--window-seconds", str(args.window_seconds)],
                    capture_stdout=True)
                found = json.loads(done.stdout)
                counts.churn_cycles += found["cycles"]
                counts.churn_ends.update(found["ends"])
            else:
                await trio.sleep(args.window_seconds)
            games = (counts.game_ends - before) / 3
            windows.append((counts.churn_on, games / (trio.current_time() - began)))
            print(f"window {window + 1}: {'churn' if counts.churn_on else 'quiet'}  "
                  f"{windows[-1][1]:6.1f} honest games/s", flush=True)
        counts.stopping = True
        nursery.cancel_scope.cancel()
    return windows, counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=12)
    parser.add_argument("--windows", type=int, default=6)
    parser.add_argument("--window-seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--churn-address", default="127.0.0.2")
    parser.add_argument("--arena-path", metavar="DIR")
    parser.add_argument("--server-arg", action="append", default=None, metavar="ARG")
    parser.add_argument("--churn-for", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.churn_for is not None:
        return churn_process(args)
    if args.server_arg is None:
        args.server_arg = ["--hands", "1"]
    if args.windows < 2 or args.windows * args.window_seconds > 120:
        parser.error("need 2 or more windows, 120 s at most in all")
    folder = Path(tempfile.mkdtemp(prefix="arena-churn-"))
    process, port = start_server(args, folder)
    try:
        windows, counts = trio.run(drive, args, port)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)
    quiet = [rate for churning, rate in windows if not churning]
    churn = [rate for churning, rate in windows if churning]
    q, c = statistics.median(quiet), statistics.median(churn)
    print(f"\nserver code: {args.arena_path or 'this tree'}; {args.honest} honest bots; "
          f"{args.windows} windows of {args.window_seconds:g} s")
    print(f"honest games/s without churn  {q:6.1f}  ({min(quiet):.1f} to {max(quiet):.1f})")
    print(f"honest games/s with churn     {c:6.1f}  ({min(churn):.1f} to {max(churn):.1f})")
    print(f"with / without                {c / q if q else float('nan'):6.2f}")
    churn_seconds = len(churn) * args.window_seconds
    print(f"churner: {counts.churn_cycles} connections ({counts.churn_cycles / churn_seconds:.0f}"
          f"/s), " + ", ".join(f"{k} x{v}" for k, v in counts.churn_ends.most_common()))
    print(f"honest bots: aborted games {counts.aborted}, errors "
          + (", ".join(f"{k} x{v}" for k, v in counts.honest_errors.most_common()) or "none"))
    print("SUMMARY " + json.dumps({"quiet": quiet, "churn": churn, "ratio": c / q if q else None,
                                   "churn_cycles": counts.churn_cycles}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
