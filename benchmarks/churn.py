"""Churn against ``arena serve``: honest games with and without clients that loop
``connect, hello, close`` from several addresses as fast as they can.

    python benchmarks/churn.py [--honest 12] [--windows 6] [--window-seconds 5]
                               [--churn-addresses 8] [--churn-loops 8]
                               [--churn-linger 0.05:0.15] [--churn-priority niced]
                               [--arena-path DIR] [--before DIR] [--repeats 1]
                               [--server-arg=--hands=1 ...]

The server runs as a subprocess in a session of its own (``python -m arena serve``, chochlik,
3 players, one hand a game unless ``--server-arg`` says otherwise, logs in a temporary folder).
``--honest`` bots connect from 127.0.0.1, say hello once and play game after game, answering
every request at once with a random legal action.  The measured time is cut into ``--windows``
windows of ``--window-seconds``, alternately without and with churn, so both conditions share
the machine's moods (pairs: each churn window is compared with the mean of the quiet windows
beside it).  The churn comes from ``--churn-addresses`` loopback addresses (127.0.0.2,
127.0.0.3, ...: each client socket is bound to one, as strangers on as many hosts would be),
``--churn-loops`` loops each, each ghost waiting ``--churn-linger`` seconds (uniform between
the two bounds) between its hello and its close: long enough to outlast the server's newcomer
settling (50 ms), short enough to leave the table it is seated at before or just after its
game starts.  The churners run in a process of their own at nice 10 in the honest bots'
session (``--churn-priority niced``: they take the time the bots leave, and the session's
share of the machine against the server's); ``--churn-priority idle`` gives them a session of
their own at the lowest group priority, as an attacker's own machines would take none of the
server's time, but on a loaded machine that starves them (a weaker attack, varying from window
to window: read the churners' connections a second).  The server's CPU seconds in each window
are printed too.

Counted from the server's own line per stored game (``table <run>-t<N>: name=score ...``):
honest games (every seat an honest bot), junk games (a ghost sat in one), and tables that never
started (table numbers the server gave that no stored game carries: a seat's connection was
gone before the game began).  Prints each window, then per condition the median (min to max)
over its windows, the paired ratios of honest games, the churners' connections and how they
ended.  ``--arena-path DIR`` runs the server from another checkout (its code first on
``PYTHONPATH``); ``--before DIR`` also measures that checkout (e.g. the code before a change:
``git archive COMMIT | tar -x -C DIR``), ``--repeats`` runs of each, alternately, and prints
both side by side over all their runs; then one ``SUMMARY <json>`` line.
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
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import trio

#: The server's line for a stored game: its table number and who sat there.
GAME_LINE = re.compile(r"^table \S+-t(\d+): (.*?)  \[")
#: The prefix of every honest bot's name (the churners say ``ghost``).
HONEST = "honest"


class Counts:
    def __init__(self) -> None:
        self.aborted = 0
        self.honest_errors: collections.Counter[str] = collections.Counter()
        self.churn_cycles = 0
        self.churn_ends: collections.Counter[str] = collections.Counter()
        self.stopping = False


@attrs.frozen
class Window:
    churning: bool
    seconds: float
    honest: int  # games stored with every seat an honest bot
    junk: int  # games stored with a ghost in a seat
    unstarted: int  # tables numbered and never played
    churn_cycles: int = 0
    server_cpu: float = 0.0  # the server's CPU seconds (user and system)


@attrs.frozen
class Span:
    """A window as measured: the highest table number stored when it began and when it
    ended, and the churners' connections in it."""

    churning: bool
    seconds: float
    low: int
    high: int
    churn_cycles: int
    server_cpu: float


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
                elif kind == "game_end" and message.get("aborted"):
                    counts.aborted += 1
                elif kind == "error":
                    counts.honest_errors[message.get("code", "?")] += 1


async def churner(counts: Counts, port: int, address: str, seconds: float,
                  linger: tuple[float, float], rng: random.Random) -> None:
    """connect, hello, wait (from ``linger[0]`` to ``linger[1]`` seconds), close, as fast as
    it can, for ``seconds``."""
    with trio.move_on_after(seconds):
        while True:
            await churn_once(counts, port, address, rng.uniform(*linger))


async def churn_once(counts: Counts, port: int, address: str, linger: float) -> None:
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
        if linger:
            await trio.sleep(linger)
        counts.churn_ends["hello, closed"] += 1
    except (trio.BrokenResourceError, OSError):
        counts.churn_ends["reset"] += 1
    finally:
        await stream.aclose()


def churn_addresses(count: int) -> list[str]:
    """127.0.0.2, 127.0.0.3, ...: loopback addresses other than the honest bots' own."""
    if not 1 <= count <= 250:
        raise ValueError("1 to 250 churning addresses")
    return [f"127.0.0.{2 + i}" for i in range(count)]


def parse_linger(text: str) -> tuple[float, float]:
    """``0.1`` (always 0.1 s) or ``0.05:0.15`` (uniform between the two)."""
    low, _, high = text.partition(":")
    bounds = float(low), float(high or low)
    if not 0 <= bounds[0] <= bounds[1] <= 10:
        raise ValueError(f"a linger from 0 to 10 s, the lower bound first: {text!r}")
    return bounds


def lower_priority(where: str) -> None:
    """``idle``: a session of its own whose group has the lowest priority (the kernel shares
    time between sessions, ``sched_autogroup``, so only the group's nice value ranks it against
    the server's session); ``niced``: nice 10 in the honest bots' session."""
    if where == "niced":
        os.nice(10)
        return
    os.setsid()
    try:
        with open("/proc/self/autogroup", "w") as group:
            group.write("19")
    except OSError:  # no autogroups here: nice ranks processes across the machine
        os.nice(19)


def churn_process(args: argparse.Namespace) -> int:
    """``--churn-for PORT``: the churning clients alone, for ``--window-seconds``; prints
    their counts as JSON."""
    lower_priority(args.churn_priority)
    counts = Counts()
    linger = parse_linger(args.churn_linger)
    rng = random.Random(args.churn_for)

    async def all_churners() -> None:
        async with trio.open_nursery() as nursery:
            for address in churn_addresses(args.churn_addresses):
                for _ in range(args.churn_loops):
                    nursery.start_soon(churner, counts, args.churn_for, address,
                                       args.window_seconds, linger, rng)

    print("ready", flush=True)  # the window begins now, not when the process was started
    trio.run(all_churners)
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


class GameLines:
    """The server's stored games, read from its output as it grows: table number -> whether
    every seat was an honest bot."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        #: Table number -> every seat honest (None: aborted when the server stopped).
        self.games: dict[int, bool | None] = {}

    def read(self) -> int:
        """Read what was added; returns the highest table number stored so far (0: none)."""
        with open(self.path, "rb") as out:
            out.seek(self.offset)
            data = out.read()
        complete = data.rfind(b"\n") + 1
        self.offset += complete
        for line in data[:complete].decode(errors="replace").splitlines():
            found = GAME_LINE.match(line)
            if found:
                seats = found.group(2).split()
                names = [seat.rpartition("=")[0] for seat in seats]
                self.games[int(found.group(1))] = (
                    all(n.startswith(HONEST) for n in names) if all(names) else None)
        return max(self.games, default=0)


def cpu_seconds(pid: int) -> float:
    """A process's CPU seconds so far, user and system (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def start_churn(args: argparse.Namespace, port: int) -> trio.Process:
    """The churners' process, once it says it is about to begin."""
    churn = await trio.lowlevel.open_process(
        [sys.executable, __file__, "--churn-for", str(port), "--churn-addresses",
         str(args.churn_addresses), "--churn-loops", str(args.churn_loops),
         "--churn-linger", str(args.churn_linger), "--churn-priority", args.churn_priority,
         "--window-seconds", str(args.window_seconds)], stdout=subprocess.PIPE)
    assert churn.stdout is not None
    said = b""
    while not said.endswith(b"ready\n"):
        data = await churn.stdout.receive_some(64)
        if not data:
            raise SystemExit(f"the churners ended before they began ({await churn.wait()})")
        said += data
    return churn


async def churn_counts(churn: trio.Process) -> bytes:
    """What the churners print when they are done (their counts, JSON)."""
    assert churn.stdout is not None
    out = b""
    while data := await churn.stdout.receive_some(65536):
        out += data
    if await churn.wait():
        raise SystemExit(f"the churners failed ({churn.returncode})")
    return out


async def drive(args: argparse.Namespace, port: int, server: int,
                lines: GameLines) -> tuple[list[Span], Counts]:
    counts = Counts()
    spans: list[Span] = []
    async with trio.open_nursery() as nursery:
        for i in range(args.honest):
            nursery.start_soon(honest_bot, counts, port, f"{HONEST}{i:02d}", random.Random(i))
        await trio.sleep(args.warmup)
        for window in range(args.windows):
            churning = window % 2 == 1
            churn = await start_churn(args, port) if churning else None
            low = lines.read()  # the games stored before the window are not counted in it
            began, cycles, cpu = trio.current_time(), counts.churn_cycles, cpu_seconds(server)
            if churn is not None:
                found = json.loads(await churn_counts(churn))
                counts.churn_cycles += found["cycles"]
                counts.churn_ends.update(found["ends"])
            else:
                await trio.sleep(args.window_seconds)
            seconds, cpu = trio.current_time() - began, cpu_seconds(server) - cpu
            spans.append(Span(churning, seconds, low, lines.read(),
                              counts.churn_cycles - cycles, cpu))
            print(f"window {window + 1}: {'churn' if churning else 'quiet'} "
                  f"({spans[-1].seconds:.1f} s)", flush=True)
        counts.stopping = True
        nursery.cancel_scope.cancel()
    return spans, counts


def windows_of(spans: list[Span], lines: GameLines) -> list[Window]:
    """Each window's games: the tables numbered after the highest one stored when it began, up
    to the highest stored when it ended; whether each was stored is known once the server
    has stopped (a game still running at a window's end is stored later)."""
    result = []
    for span in spans:
        numbers = range(span.low + 1, span.high + 1)
        stored = [lines.games[n] for n in numbers if n in lines.games]
        result.append(Window(span.churning, span.seconds, honest=stored.count(True),
                             junk=stored.count(False), unstarted=len(numbers) - len(stored),
                             churn_cycles=span.churn_cycles,
                             server_cpu=round(span.server_cpu, 2)))
    return result


def paired_ratios(windows: list[Window]) -> list[float]:
    """Each churn window's honest games a second over the mean of the quiet windows beside
    it."""
    rate = [w.honest / w.seconds for w in windows]
    ratios = []
    for i, window in enumerate(windows):
        if not window.churning:
            continue
        beside = [rate[j] for j in (i - 1, i + 1)
                  if 0 <= j < len(windows) and not windows[j].churning]
        if beside and statistics.mean(beside) > 0:
            ratios.append(rate[i] / statistics.mean(beside))
    return ratios


def spread(values: Sequence[float], form: str = "{:.1f}") -> str:
    if not values:
        return "-"
    return (f"{form.format(statistics.median(values))} "
            f"({form.format(min(values))} to {form.format(max(values))})")


def report(args: argparse.Namespace, code: str, windows: list[Window],
           counts: Counts) -> None:
    """One run: each window, then per condition the median (min to max) over its windows."""
    print(f"\nserver code: {code}; {args.honest} honest bots; {args.windows} windows of "
          f"{args.window_seconds:g} s; churn from {args.churn_addresses} addresses x "
          f"{args.churn_loops} loops, lingering {args.churn_linger} s, {args.churn_priority}")
    for i, w in enumerate(windows, start=1):
        print(f"window {i}: {'churn' if w.churning else 'quiet'}  honest games {w.honest:4d} "
              f"({w.honest / w.seconds:5.1f}/s), junk games {w.junk:4d}, tables never started "
              f"{w.unstarted:4d}, server CPU {w.server_cpu:.2f} s"
              + (f", churners' connections {w.churn_cycles}" if w.churning else ""))
    table([(code, [(windows, counts)])])
    print(f"honest bots: aborted games {counts.aborted}, errors "
          + (", ".join(f"{k} x{v}" for k, v in counts.honest_errors.most_common()) or "none"))


def table(runs: list[tuple[str, list[tuple[list[Window], Counts]]]]) -> None:
    """Per server code (a column each, side by side), over all its runs' windows: the median
    (min to max) of each figure, and the paired ratios of honest games."""
    print(f"{'per window, median (min to max)':<42}"
          + "".join(f"{code[-26:]:<28}" for code, _ in runs))

    def row(label: str, cell: Callable[[list[tuple[list[Window], Counts]]], str]) -> None:
        print(f"{label:<42}" + "".join(f"{cell(found):<28}" for _, found in runs))

    def figure(field: str, churning: bool) -> Callable[[list[tuple[list[Window], Counts]]],
                                                         str]:
        return lambda found: spread([getattr(w, field) for windows, _ in found
                                     for w in windows if w.churning == churning], "{:g}")

    for churning in (False, True):
        for label, field in (("honest games stored", "honest"), ("junk games", "junk"),
                             ("tables never started", "unstarted"),
                             ("server CPU seconds", "server_cpu")):
            row(f"{label}, {'with' if churning else 'without'} churn", figure(field, churning))
    row("honest games with / without (paired)", lambda found: spread(
        [r for windows, _ in found for r in paired_ratios(windows)], "{:.2f}"))
    row("  each run's median", lambda found: ", ".join(
        f"{statistics.median(paired_ratios(windows)):.2f}" for windows, _ in found))
    row("churners' connections a second", lambda found: spread(
        [w.churn_cycles / w.seconds for windows, _ in found for w in windows if w.churning],
        "{:.0f}"))


def measure(args: argparse.Namespace, code: str | None) -> tuple[list[Window], Counts]:
    """One run against a server of ``code`` (an arena checkout; None: this tree)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-churn-"))
    process, port = start_server(argparse.Namespace(**{**vars(args), "arena_path": code}),
                                 folder)
    lines = GameLines(folder / "server.out")
    try:
        spans, counts = trio.run(drive, args, port, process.pid, lines)
    finally:
        process.send_signal(signal.SIGINT)  # the games still running are stored as aborted
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        lines.read()
        shutil.rmtree(folder, ignore_errors=True)
    return windows_of(spans, lines), counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=12)
    parser.add_argument("--windows", type=int, default=6)
    parser.add_argument("--window-seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--churn-addresses", type=int, default=8)
    parser.add_argument("--churn-loops", type=int, default=8, help="loops per address")
    parser.add_argument("--churn-linger", default="0.05:0.15", metavar="S[:S]",
                        help="a churner's wait between its hello and its close, in seconds "
                             "(LOW:HIGH: uniform between the two)")
    parser.add_argument("--churn-priority", choices=["idle", "niced"], default="niced",
                        help="idle: the churners take only time no other session wants; "
                             "niced: nice 10 in the honest bots' session")
    parser.add_argument("--arena-path", metavar="DIR")
    parser.add_argument("--before", metavar="DIR",
                        help="also measure this checkout, alternately, side by side")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each server code")
    parser.add_argument("--server-arg", action="append", default=None, metavar="ARG")
    parser.add_argument("--churn-for", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.churn_for is not None:
        return churn_process(args)
    if args.server_arg is None:
        args.server_arg = ["--hands", "1"]
    if args.windows < 2 or args.windows * args.window_seconds > 300:
        parser.error("need 2 or more windows, 300 s at most in all")
    churn_addresses(args.churn_addresses)
    parse_linger(args.churn_linger)
    codes = [args.arena_path] + ([args.before] if args.before else [])
    runs: dict[str | None, list[tuple[list[Window], Counts]]] = {code: [] for code in codes}
    for _ in range(args.repeats):
        for code in codes:  # alternately, so both codes share the machine's moods
            windows, counts = measure(args, code)
            runs[code].append((windows, counts))
            report(args, code or "this tree", windows, counts)
    print(f"\nall runs ({args.repeats} of each, alternately):")
    table([(code or "this tree", found) for code, found in runs.items()])
    print("SUMMARY " + json.dumps([
        {"arena_path": code, "ratios": [paired_ratios(windows) for windows, _ in found],
         "windows": [[attrs.asdict(w) for w in windows] for windows, _ in found],
         "churn_cycles": [counts.churn_cycles for _, counts in found]}
        for code, found in runs.items()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
