"""Load benchmark of ``arena serve``: many light bots in one trio process against a server process.

    python benchmarks/load_bots.py [--bots 1000] [--seconds 60] [--rate 1000] [--game chochlik]
                                   [--players 3] [--port P]

The server runs as a subprocess (``arena serve --log-dir <tempdir>``, with connection limits
raised above ``--bots``, since every bot comes from 127.0.0.1, and an idle timeout of an hour,
since a bot left over at seating may wait a whole slow game for a seat).  The bots connect
(``--connect-concurrency`` at a time), say hello with unique names and play games
continuously, answering each request with a uniformly random legal action after a think delay
(jittered, 0.5 to 1.5 times the current delay, counted from the request's arrival).  The
delay is set every quarter second by Little's law so that the population offers about
``--rate`` decisions a second; when the server cannot keep up it reaches 0 and the bots answer
at once (closed loop: "decisions/s achieved" is then the server's ceiling on this machine).
``--think S`` fixes the delay instead.

The bots are plain non-blocking sockets woken by trio (no stream layers, events are not
parsed, delayed actions go through one timer task) so that one client process stays far
cheaper than the server; the table shows the client's CPU and event-loop lag to prove it.

Figures, for the measured window (``--seconds``, after ``--warmup`` seconds of play once every
bot is in):

- latency: for every request a bot receives, its arrival time minus the send time of the last
  action sent by any bot at that table (the first request of each game is left out).  Where
  seats decide at once (chochlik's passing) "the last action" may be another seat's, so the
  figure is a lower bound there;
- pauses: stretches of more than 20 ms in which no bot received anything while some table was
  waiting for the server (a game running and no request open at it), with how many the
  client's own loop lag explains (and, with ``--server-gc``, the server's garbage collector);
- every table progressed: each game's table got a decision at least every 10 s, from its
  ``game_start`` to its ``game_end`` (or the stop); the others are listed as stalled;
- server RSS (peak VmHWM; its growth over the idle server, per bot) and CPU time per
  decision, from ``/proc/<pid>``; the client's CPU and the CPU other processes took meanwhile
  (from ``/proc/stat``: a shared machine shows here).

At the end the server gets SIGINT and is waited for.  Exit status 1 when a table stalled, the
server died (or did not exit 0 on SIGINT), it closed connections during the run, or not every
bot got in.  Linux only (``/proc``).  Diagnostics: ``--server-gc``, ``--server-steps``
(benchmarks/loop_steps.py), ``--profile-server FILE``,
``--server-arg=--hands=1`` (short games: game ends, logs and re-seating under load), ``--keep``.

``--hostile-spectators N`` adds N spectators (from ``--spectator-address``, another loopback
address, as one attacker would be) that ask for the table list (``{"type":"watch"}``) at
``--spectator-rate`` lines a second each, read whatever comes and connect again whenever the
server closes them; the report says how many lists and bytes they got and why they were closed.
Compare the pauses and the p99 with and without them.  ``--spread-addresses``: each bot
connects from a loopback address of its own (127.1.x.y), as bots of many machines would, so a
server's per-address limits treat them as strangers.  ``--arena-path DIR`` runs the server from
another checkout (``PYTHONPATH``), e.g. the code before a change.

``--scaling 30,1000`` runs the benchmark at each number of bots in turn (``--repeat`` rounds)
and prints the server's CPU per decision side by side, with the ratio (issue 20: at most 1.3 x
at 1,000 connections its cost at 30), the p99 and the longest pause (``load_scaling.py``).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import errno
import gc
import heapq
import itertools
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio

#: A table is stalled when it went this long without a decision.
STALL_SECONDS = 10.0
#: A silence longer than this while the server owes a message is a pause.
PAUSE_SECONDS = 0.020
#: How often the think delay is steered towards the offered rate.
STEER_SECONDS = 0.25
#: Server lines that are not worth parsing (the bots ignore events).
EVENT_PREFIX = b'{"type":"event"'
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: ``--server-gc``: the server runs as ``python -c GC_BOOTSTRAP LOG serve ...``, which is
#: ``arena serve`` with a callback writing each garbage collection of 2 ms or more to LOG
#: (start on the monotonic clock, seconds, generation, CPU seconds).
GC_BOOTSTRAP = """
import gc, sys, time
log = open(sys.argv.pop(1), "w", buffering=1)
began = [0.0, 0.0]
def collected(phase, info):
    if phase == "start":
        began[:] = time.perf_counter(), time.thread_time()
        return
    took = time.perf_counter() - began[0]
    if took >= 0.002:
        cpu = time.thread_time() - began[1]
        log.write(f"{began[0]:.6f} {took:.6f} {info['generation']} {cpu:.6f}\\n")
gc.callbacks.append(collected)
from arena.cli import main
sys.argv[0] = "arena"
main()
"""


class TableState:
    """One game's table as the client sees it (tables are numbered per game by the server)."""

    __slots__ = ("number", "started", "ended", "finished", "last_action", "open",
                 "last_progress", "max_gap", "gap_at", "decisions")

    def __init__(self, number: int, now: float) -> None:
        self.number = number
        self.started = now
        self.ended: float | None = None
        self.finished = False
        self.last_action: float | None = None  # send time of the last action at this table
        self.open = 0  # requests received and not answered yet, over all its seats
        self.last_progress = now  # game start or the last request
        self.max_gap = 0.0
        self.gap_at = now  # where the longest gap began
        self.decisions = 0

    def progress(self, now: float) -> None:
        gap = now - self.last_progress
        if gap > self.max_gap:
            self.max_gap, self.gap_at = gap, self.last_progress
        self.last_progress = now


class Run:
    """Everything the bots share: the tables, the counters, the think delay."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.tables: dict[int, TableState] = {}
        # figures of the measured window
        self.measuring = False
        self.window: tuple[float, float] | None = None
        self.latencies: list[float] = []
        self.latency_times: list[float] = []  # when each of ``latencies`` was measured
        self.decision_times: list[float] = []
        #: every second: (time, server CPU s, client CPU s, machine CPU s)
        self.cpu_samples: list[tuple[float, float, float, float]] = []
        self.decisions = 0
        self.pauses: list[tuple[float, float]] = []  # (start, length)
        self.games_started = 0
        self.games_finished = 0
        # over the whole run
        self.all_decisions = 0
        self.all_games_finished = 0
        self.games_aborted = 0
        self.cancels: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        self.refused: collections.Counter[str] = collections.Counter()
        self.connect_failures: collections.Counter[str] = collections.Counter()
        self.connected = 0
        self.admitted = 0
        self.seated_once = 0  # bots that had a first game_start
        self.all_seated = trio.Event()  # set when every bot but a table's worth had a seat
        self.token: Callable[[int], str] | None = None  # --ladder: bot i's token
        self.lost_early = 0  # connections the server ended before the stop
        self.live = 0  # connections open now
        self.all_closed: trio.Event | None = None  # set when ``live`` falls to 0 after the stop
        self.max_seat_wait = 0.0  # from a game_end to the next game_start
        self.max_first_wait = 0.0  # from hello to the first game_start
        self.stopping = False
        self.phase = trio.CancelScope()  # connecting, warm-up, the window: ended if the server dies
        self.stop_at: float | None = None
        # the server owes a message to this many running tables (no request open at them)
        self.owed = 0
        self.owed_since = 0.0
        self.last_receive = 0.0
        # think delay, steered towards the offered rate
        players = args.players
        self.delay = max(0.0, (args.bots // players) / args.rate) if args.think is None \
            else args.think
        self.delay_history: list[float] = []
        self.open_requests = 0  # requests open at the bots now, over all tables
        self.recent: collections.deque[float] = collections.deque(maxlen=1000)  # latencies
        # client event-loop lag
        self.lags: list[float] = []
        self.lagged: list[tuple[float, float]] = []  # (from, to): the client's loop was late
        self.collections: list[float] = []  # the client's own collections of 1 ms or more
        self._collecting = 0.0
        # hostile spectators (``--hostile-spectators``)
        self.spectator_connects = 0
        self.spectator_lists = 0
        self.spectator_bytes = 0
        self.spectator_closed: collections.Counter[str] = collections.Counter()

    def collected(self, phase: str, info: dict[str, int]) -> None:
        """``gc.callbacks``: the client's own garbage collections in the window."""
        if phase == "start":
            self._collecting = time.perf_counter()
        elif self.measuring and time.perf_counter() - self._collecting >= 0.001:
            self.collections.append(time.perf_counter() - self._collecting)

    # -- what the bots report --

    def received(self, now: float) -> None:
        if self.owed > 0 and self.measuring:
            start = max(self.last_receive, self.owed_since)
            if now - start > PAUSE_SECONDS:
                self.pauses.append((start, now - start))
        self.last_receive = now

    def _owe(self, now: float) -> None:
        if self.owed == 0:
            self.owed_since = now
        self.owed += 1

    def game_start(self, number: int, now: float) -> TableState:
        table = self.tables.get(number)
        if table is None:
            table = self.tables[number] = TableState(number, now)
            self._owe(now)  # the first request is the server's to send
            if self.measuring:
                self.games_started += 1
        return table

    def game_end(self, table: TableState, aborted: bool, now: float) -> None:
        if table.ended is not None:
            return
        table.ended = now
        table.progress(now)
        if table.open == 0:
            self.owed -= 1
        if aborted:
            self.games_aborted += 1
        else:
            table.finished = True
            self.all_games_finished += 1
            if self.measuring:
                self.games_finished += 1

    def request(self, table: TableState, now: float) -> None:
        if table.ended is not None:
            return
        if table.last_action is not None:
            self.recent.append(now - table.last_action)
            if self.measuring:
                self.latencies.append(now - table.last_action)
                self.latency_times.append(now)
        table.progress(now)
        table.decisions += 1
        table.open += 1
        self.open_requests += 1
        if table.open == 1:
            self.owed -= 1

    def answered(self, table: TableState, now: float, acted: bool) -> None:
        """A request at ``table`` is closed: the bot acted (at ``now``) or it was cancelled."""
        if acted:
            table.last_action = now
            self.all_decisions += 1
            if self.measuring:
                self.decisions += 1
                self.decision_times.append(now)
        else:
            table.last_action = None  # the server played for the seat: nothing to time from
        if table.open == 0:
            return
        table.open -= 1
        self.open_requests -= 1
        if table.open == 0 and table.ended is None:
            self._owe(now)


class ActionClock:
    """One task sends every delayed action when it is due (cheaper than a task per decision)."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Bot, TableState, int, str]] = []
        self.count = itertools.count()
        self.wake = trio.Event()

    def at(self, due: float, bot: Bot, table: TableState, request_id: int, action: str) -> None:
        if not self.heap or due < self.heap[0][0]:
            self.wake.set()
        heapq.heappush(self.heap, (due, next(self.count), bot, table, request_id, action))

    async def run(self) -> None:
        heap = self.heap
        while True:
            now = trio.current_time()
            while heap and heap[0][0] <= now:
                _, _, bot, table, request_id, action = heapq.heappop(heap)
                bot.act(table, request_id, action)
            with trio.move_on_at(heap[0][0] if heap else math.inf):
                await self.wake.wait()
            self.wake = trio.Event()


class Bot:
    """One bot on a plain non-blocking socket, woken by trio (no stream layers: the client
    must stay far cheaper than the server)."""

    __slots__ = ("run", "clock", "index", "name", "sock", "table", "open_id", "waiting_since",
                 "played", "out", "nursery")
    nursery: trio.Nursery

    def __init__(self, run: Run, clock: ActionClock, index: int) -> None:
        self.run = run
        self.clock = clock
        self.index = index
        self.name = f"load{index:05d}"
        self.sock: socket.socket | None = None
        self.table: TableState | None = None
        self.open_id: int | None = None
        self.waiting_since: float | None = None
        self.out = b""  # what the socket did not take at once
        self.played = False  # a game of ours has ended (seat waits after games are reported)

    async def play(self, host: str, port: int, gate: trio.Semaphore,
                   admitted: trio.Event) -> None:
        run = self.run
        async with gate:  # a bounded number of connections are being opened at once
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if run.args.spread_addresses:
                sock.bind((f"127.1.{self.index // 250}.{self.index % 250 + 1}", 0))
            error = sock.connect_ex((host, port))
            if error == errno.EINPROGRESS:
                await trio.lowlevel.wait_writable(sock)
                error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error:
                run.connect_failures[errno.errorcode.get(error, str(error))] += 1
                sock.close()
                self._admitted(admitted)
                return
            self.sock = sock
            run.connected += 1
            run.live += 1
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                rest: bytes | None = b""
                with trio.move_on_after(run.args.connect_timeout) as hello_scope:
                    while rest is not None and b"\n" not in rest:
                        data = await self._receive(sock)
                        rest = rest + data if data else None
                if hello_scope.cancelled_caught:
                    run.refused["no welcome in time"] += 1
                if rest is None or hello_scope.cancelled_caught:
                    if rest is None:
                        run.refused["closed before welcome"] += 1
                    self._admitted(admitted)
                    return
                line, _, rest = rest.partition(b"\n")
                message = json.loads(line)
                if message.get("type") != "welcome":
                    run.refused[str(message.get("code", message.get("type")))] += 1
                    self._admitted(admitted)
                    return
                hello = {"type": "hello", "name": self.name, "protocol": 1,
                         "game": run.args.game}
                if run.token is not None:  # --ladder: registered (ladder_load.token)
                    hello["token"] = run.token(self.index)
                self.send(json.dumps(hello).encode() + b"\n")
                self.waiting_since = trio.current_time()
                run.admitted += 1
                self._admitted(admitted)
                rest = self._lines(rest, trio.current_time())
                while rest is not None:
                    data = await self._receive(sock)
                    now = trio.current_time()
                    if not data:
                        if not run.stopping:
                            run.lost_early += 1
                        break
                    run.received(now)
                    rest = self._lines(rest + data, now)
                nursery.cancel_scope.cancel()
        finally:
            run.live -= 1
            if run.live == 0 and run.all_closed is not None:
                run.all_closed.set()
            self.sock = None
            trio.lowlevel.notify_closing(sock)
            sock.close()

    def _admitted(self, admitted: trio.Event) -> None:
        run = self.run
        if run.admitted + sum(run.refused.values()) + sum(run.connect_failures.values()) \
                >= run.args.bots:
            admitted.set()

    @staticmethod
    async def _receive(sock: socket.socket) -> bytes:
        """What the socket has (b"": the connection ended)."""
        while True:
            await trio.lowlevel.wait_readable(sock)
            try:
                return sock.recv(262144)
            except BlockingIOError:
                continue
            except OSError:
                return b""

    def send(self, data: bytes) -> None:
        if self.sock is None:
            return
        if self.out:
            self.out += data
            return
        try:
            sent = self.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            return
        if sent < len(data):
            self.out = data[sent:]
            self.nursery.start_soon(self._flush)

    async def _flush(self) -> None:
        while self.out and self.sock is not None:
            await trio.lowlevel.wait_writable(self.sock)
            try:
                sent = self.sock.send(self.out)
            except BlockingIOError:
                continue
            except OSError:
                return
            self.out = self.out[sent:]

    def _lines(self, buffer: bytes, now: float) -> bytes | None:
        """Handle the complete lines in ``buffer``; the rest, or None when the session ended."""
        *lines, rest = buffer.split(b"\n")
        for line in lines:
            if not line or line.startswith(EVENT_PREFIX):
                continue
            if not self._message(json.loads(line), now):
                return None
        return rest

    def _message(self, message: dict[str, Any], now: float) -> bool:
        run = self.run
        kind = message["type"]
        if kind == "request":
            table = self.table
            if table is None:  # cannot happen: requests come after game_start
                run.errors["request outside a game"] += 1
                return True
            run.request(table, now)
            self.open_id = request_id = message["id"]
            action = random.choice(message["legal"])
            delay = run.delay * random.uniform(0.5, 1.5)
            if delay <= 0:
                self.act(table, request_id, action)
            else:
                self.clock.at(now + delay, self, table, request_id, action)
        elif kind == "game_start":
            self.table = run.game_start(message["table"], now)
            if self.waiting_since is not None:
                wait = now - self.waiting_since
                if self.played:
                    run.max_seat_wait = max(run.max_seat_wait, wait)
                else:
                    run.max_first_wait = max(run.max_first_wait, wait)
                    run.seated_once += 1
                    if run.seated_once >= run.args.bots - run.args.players + 1:
                        run.all_seated.set()
            self.waiting_since = None
        elif kind == "cancel":
            run.cancels[message.get("reason", "?") + (" (stop)" if run.stopping else "")] += 1
            if message["id"] == self.open_id and self.table is not None:
                self.open_id = None
                run.answered(self.table, now, acted=False)
        elif kind == "game_end":
            table = self.table
            if table is not None:
                if self.open_id is not None:
                    self.open_id = None
                    run.answered(table, now, acted=False)
                run.game_end(table, "aborted" in message, now)
            self.table = None
            self.waiting_since = now
            self.played = True
        elif kind == "error":
            run.errors[message.get("code", "?") + (" (stop)" if run.stopping else "")] += 1
            if message.get("fatal"):
                return False
        elif kind == "bye":
            return False
        return True

    def act(self, table: TableState, request_id: int, action: str) -> None:
        if self.open_id != request_id or self.sock is None:
            return  # cancelled meanwhile (timeout, game over)
        self.open_id = None
        self.run.answered(table, trio.current_time(), acted=True)
        self.send(b'{"type":"action","id":%d,"action":%s}\n'
                  % (request_id, json.dumps(action).encode()))


WATCH_LINE = b'{"type":"watch"}\n'
TABLES_PREFIX = b'{"type":"tables"'


async def hostile_spectator(run: Run, host: str, port: int, index: int) -> None:
    """A spectator that asks for the table list at ``--spectator-rate`` lines a second, reads
    everything (so it is never a slow reader) and comes back whenever it is closed."""
    args = run.args
    hello = json.dumps({"type": "hello", "name": f"tv{index}", "role": "spectator",
                        "protocol": 1, "game": args.game}).encode() + b"\n"
    per_tick = max(1, round(args.spectator_rate * 0.05))
    while not run.stopping:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((args.spectator_address, 0))
            error = sock.connect_ex((host, port))
            if error == errno.EINPROGRESS:
                await trio.lowlevel.wait_writable(sock)
                error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error:
                run.spectator_closed["connect: " + errno.errorcode.get(error, str(error))] += 1
                await trio.sleep(0.05)
                continue
            run.spectator_connects += 1
            pending = hello
            rest = b""
            next_send = trio.current_time()
            reason = "closed"
            while not run.stopping:
                now = trio.current_time()
                if now >= next_send:
                    if not pending:  # what the socket did not take goes first, nothing more
                        pending = WATCH_LINE * per_tick
                    next_send = now + 0.05
                    try:
                        sent = sock.send(pending)
                        pending = pending[sent:]
                    except BlockingIOError:
                        pass
                    except OSError:
                        break
                with trio.move_on_at(next_send):
                    await trio.lowlevel.wait_readable(sock)
                    try:
                        data = sock.recv(262144)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        break
                    run.spectator_bytes += len(data)
                    *lines, rest = (rest + data).split(b"\n")
                    for line in lines:
                        if line.startswith(TABLES_PREFIX):
                            run.spectator_lists += 1
                        elif line.startswith(b'{"type":"error"'):
                            message = json.loads(line)
                            if message.get("fatal"):
                                reason = message.get("code", "?")
            run.spectator_closed[reason] += 1
        finally:
            trio.lowlevel.notify_closing(sock)
            sock.close()


# -- the server process --


class Server:
    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args = args
        self.folder = folder
        self.out_path = folder / "server.out"
        self.err_path = folder / "server.err"
        # the ``arena`` script of this interpreter's environment, else the one on PATH
        beside = Path(sys.executable).with_name("arena")
        script = str(beside) if beside.exists() else shutil.which("arena")
        self.env = dict(os.environ, PYTHONUNBUFFERED="1")
        if args.arena_path:  # another checkout's code first (its ``arena`` package)
            self.env["PYTHONPATH"] = os.pathsep.join(
                [str(Path(args.arena_path).resolve())]
                + ([self.env["PYTHONPATH"]] if self.env.get("PYTHONPATH") else []))
            script = None
        program = [script] if script is not None else [sys.executable, "-m", "arena"]
        self.gc_log: Path | None = None
        self.steps_log: Path | None = None
        if args.profile_server:
            program = [sys.executable, "-m", "cProfile", "-o",
                       str(Path(args.profile_server).resolve()),
                       *([script] if script is not None else ["-m", "arena"])]
        elif args.server_gc:
            self.gc_log = folder / "server-gc.log"
            program = [sys.executable, "-c", GC_BOOTSTRAP, str(self.gc_log)]
        elif args.server_steps:  # its loop's long steps (benchmarks/loop_steps.py)
            from loop_steps import BOOTSTRAP

            self.steps_log = folder / "server-steps.log"
            program = [sys.executable, "-c", BOOTSTRAP, str(self.steps_log)]
        self.command = program + [
            "serve", "--game", args.game, "--players", str(args.players),
            "--port", str(args.port), "--log-dir", str(folder / "logs"),
            # every bot comes from 127.0.0.1; the bot left over when --bots is not a multiple
            # of --players may wait a whole (slow) game for a seat
            "--max-connections-per-address", str(args.bots + 64),
            "--max-connections", str(args.bots + 64),
            # ... and they all say hello within seconds: the pacing of hellos per address
            # (20 a second by default) would refuse most of them
            "--max-hellos-per-second", str(10 * args.bots + 100),
            "--idle-timeout", "3600", *args.server_arg]
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.samples: list[tuple[float, int, int, float]] = []  # (time, rss, hwm, cpu s)
        self.died: int | None = None  # exit status when it ended before the stop

    def start(self) -> None:
        (self.folder / "logs").mkdir()
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.process = subprocess.Popen(
                self.command, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                env=self.env, start_new_session=True,
                # python -m puts the working folder first on sys.path: run it in the other
                # checkout, or this tree's arena would shadow it
                cwd=self.args.arena_path or None)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = re.search(r"hosting .* on \S+:(\d+);", self.out_path.read_text())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit(f"the server did not start: {' '.join(self.command)}\n"
                         + self.err_path.read_text()[-3000:])

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def sample(self) -> tuple[int, int, float] | None:
        """RSS and peak RSS (bytes) and CPU seconds so far, or None when it is gone."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
            stat = Path(f"/proc/{self.pid}/stat").read_text()
        except OSError:
            return None
        fields = {line.split(":")[0]: line.split()[1:] for line in status.splitlines()
                  if line.startswith(("VmRSS", "VmHWM"))}
        if "VmRSS" not in fields:  # a zombie
            return None
        after = stat.rsplit(")", 1)[1].split()  # fields from the 3rd (state) on
        cpu = (int(after[11]) + int(after[12])) / CLOCK_TICKS  # utime, stime
        return int(fields["VmRSS"][0]) * 1024, int(fields["VmHWM"][0]) * 1024, cpu

    def stop(self, timeout: float = 60.0) -> tuple[int | None, float]:
        """SIGINT, then wait: the exit status (None: had to be killed) and seconds it took."""
        assert self.process is not None
        started = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            status: int | None = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            status = None
        return status, time.monotonic() - started


# -- the run --


def machine_cpu() -> float:
    """CPU seconds all processes of the machine used so far (every core's non-idle time)."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle, iowait
    return (sum(fields[:8]) - idle) / CLOCK_TICKS  # guest time is already in user


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def monitor(run: Run, server: Server) -> None:
    """Every second: the server's memory and CPU; the run ends if the server dies."""
    while not run.stopping:
        sample = server.sample()
        assert server.process is not None
        if run.stopping:
            return
        if sample is None or server.process.poll() is not None:
            server.died = server.process.wait()
            run.phase.cancel()
            return
        server.samples.append((trio.current_time(), *sample))
        run.cpu_samples.append((trio.current_time(), sample[2], client_cpu(), machine_cpu()))
        await trio.sleep(1.0)


async def loop_lag(run: Run) -> None:
    """The client's own event-loop lag: how late a 5 ms sleep wakes up."""
    while True:
        before = trio.current_time()
        await trio.sleep(0.005)
        if run.measuring:
            now = trio.current_time()
            lag = now - before - 0.005
            run.lags.append(lag)
            if lag > 0.002:
                run.lagged.append((before + 0.005, now))


async def steer(run: Run) -> None:
    """Set the think delay so the bots offer about ``--rate`` decisions a second.

    Little's law: K decisions are in progress at any time (requests open at the bots plus
    tables waiting for the server), and each takes the think delay plus the latency, so the
    rate is K / (delay + latency): the delay is K / rate - latency (0: the server is the limit).
    """
    while True:
        await trio.sleep(STEER_SECONDS)
        if run.args.think is not None:
            return
        in_progress = run.open_requests + run.owed
        recent = sorted(run.recent)
        latency = recent[len(recent) // 2] if recent else 0.0
        wanted = max(0.0, in_progress / run.args.rate - latency)
        run.delay = 0.7 * run.delay + 0.3 * wanted
        if run.measuring:
            run.delay_history.append(run.delay)


async def drive(run: Run, server: Server) -> dict[str, Any]:
    args = run.args
    marks: dict[str, Any] = {}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(monitor, run, server)
        nursery.start_soon(loop_lag, run)
        gate = trio.Semaphore(args.connect_concurrency)
        admitted = trio.Event()
        started = trio.current_time()
        clock = ActionClock()
        nursery.start_soon(clock.run)
        bots = [Bot(run, clock, i) for i in range(args.bots)]
        async with trio.open_nursery() as players:
            for bot in bots:
                players.start_soon(bot.play, "127.0.0.1", server.port, gate, admitted)
            for index in range(args.hostile_spectators):
                players.start_soon(hostile_spectator, run, "127.0.0.1", server.port, index)
            begin: float | None = None
            with run.phase:  # cancelled by the monitor if the server dies
                await admitted.wait()
                marks["connect_seconds"] = trio.current_time() - started
                if args.ladder:  # every bot's first seat (a ladder seats by rating): not measured
                    with trio.move_on_after(args.connect_timeout):
                        await run.all_seated.wait()
                    marks["seated_seconds"] = trio.current_time() - started
                # the bots' tasks live to the end: the client's collector can skip them
                gc.collect()
                gc.freeze()
                nursery.start_soon(steer, run)
                await trio.sleep(args.warmup)
                run.measuring, run.last_receive = True, trio.current_time()
                begin = trio.current_time()
                marks["clock_offset"] = trio.current_time() - time.perf_counter()
                cpu_before, client_before = server.sample(), client_cpu()
                machine_before = machine_cpu()
                await trio.sleep(args.seconds)
            end = trio.current_time()
            run.measuring = False
            if begin is not None:
                start = max(run.last_receive, run.owed_since)
                if run.owed > 0 and end - start > PAUSE_SECONDS:
                    run.pauses.append((start, end - start))
                cpu_after, client_after = server.sample(), client_cpu()
                marks["machine_cpu"] = machine_cpu() - machine_before
                run.window = (begin, end)
                marks["client_cpu"] = client_after - client_before
                if cpu_before is not None and cpu_after is not None:
                    marks["server_cpu"] = cpu_after[2] - cpu_before[2]
            run.stopping, run.stop_at = True, end
            # the stop: SIGINT in a thread, while the bots read their bye and close
            status, seconds = await trio.to_thread.run_sync(server.stop)
            marks["stop_status"], marks["stop_seconds"] = status, seconds
            run.all_closed = trio.Event()
            if run.live == 0:
                run.all_closed.set()
            with trio.move_on_after(10):
                await run.all_closed.wait()
            players.cancel_scope.cancel()
        nursery.cancel_scope.cancel()
    return marks


#: Seconds of the measured window each spread sample of the summary covers.
SUMMARY_WINDOW = 10.0


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, max(0, round(fraction * len(values) + 0.5) - 1))]


def overlap(spans: Sequence[tuple[float, float]], start: float, end: float) -> float:
    """How long the ``spans`` (sorted by start) cover of ``start`` .. ``end``."""
    covered = 0.0
    index = bisect.bisect_left(spans, (start - 60.0, start))
    for begin, finish in spans[index:]:
        if begin >= end:
            break
        covered += max(0.0, min(finish, end) - max(begin, start))
    return covered


def server_collections(
        server: Server, marks: dict[str, Any], window: tuple[float, float] | None,
) -> list[tuple[float, float, int, float]] | None:
    """The server's garbage collections (``--server-gc``) in the window, on the client's
    clock: (start, seconds, generation, CPU seconds), sorted."""
    if server.gc_log is None or window is None or "clock_offset" not in marks:
        return None
    spans = []
    for line in server.gc_log.read_text().splitlines():
        try:
            start, length, generation, cpu = line.split()
        except ValueError:
            continue
        begin = float(start) + marks["clock_offset"]
        if window[0] <= begin <= window[1]:
            spans.append((begin, float(length), int(generation), float(cpu)))
    return sorted(spans)


def mib(value: float) -> str:
    return f"{value / 2**20:,.1f} MiB"


def report(run: Run, server: Server, marks: dict[str, Any],
           baseline: tuple[int, int, float]) -> int:
    args = run.args
    rows: list[tuple[str, str]] = []
    failed: list[str] = []
    seconds = run.window[1] - run.window[0] if run.window else 0.0
    rows.append(("bots connected", f"{run.admitted} / {args.bots} (in "
                 f"{marks.get('connect_seconds', float('nan')):.2f} s)"))
    if run.refused or run.connect_failures:
        rows.append(("bots refused / failed",
                     ", ".join(f"{k} x{v}" for k, v in (run.refused
                                                         + run.connect_failures).items())))
    if run.admitted < args.bots:
        failed.append("not every bot got in")
    rows.append(("measured window", f"{seconds:.1f} s after {args.warmup:g} s of warm-up"))
    rows.append(("games started / finished", f"{run.games_started} / {run.games_finished} in "
                 f"the window ({run.all_games_finished} finished in all)"))
    rate = run.decisions / seconds if seconds else 0.0
    rows.append(("decisions/s achieved", f"{rate:,.0f} (offered {args.rate:g}; "
                 f"{run.decisions:,} decisions)"))
    delays = run.delay_history or [run.delay]
    mean_delay = sum(delays) / len(delays)
    rows.append(("think delay (steered)" if args.think is None else "think delay (fixed)",
                 f"mean {1000 * mean_delay:,.1f} ms, at the end {1000 * delays[-1]:,.1f} ms"
                 + ("  (about 0: the server is the limit)" if delays[-1] < 0.001 else "")))
    lat = sorted(run.latencies)
    rows.append(("latency p50 / p90 / p99", " / ".join(
        f"{1000 * percentile(lat, f):,.2f}" for f in (0.5, 0.9, 0.99)) + " ms"))
    rows.append(("latency max", f"{1000 * (lat[-1] if lat else float('nan')):,.2f} ms "
                 f"({len(lat):,} requests timed)"))
    longest = max((length for _, length in run.pauses), default=0.0)
    rows.append(("pauses > 20 ms", f"{len(run.pauses)} (total "
                 f"{1000 * sum(length for _, length in run.pauses):,.0f} ms, longest "
                 f"{1000 * longest:,.0f} ms)"))
    if run.pauses:
        client_made = sum(1 for start, length in run.pauses
                          if overlap(run.lagged, start, start + length) >= 0.5 * length)
        rows.append(("  of which client lag", f"{client_made} (the client's own loop was late "
                     "for half the pause or more)"))
    gc_spans = server_collections(server, marks, run.window)
    if gc_spans is not None:
        by_generation: dict[int, list[tuple[float, float]]] = collections.defaultdict(list)
        for _, length, generation, cpu in gc_spans:
            by_generation[generation].append((length, cpu))
        rows.append(("  of which server GC", str(sum(
            1 for start, length in run.pauses
            if overlap([(a, a + n) for a, n, _, _ in gc_spans], start, start + length)
            >= 0.5 * length))))
        for generation, spans in sorted(by_generation.items()):
            worst_gc = max(spans)
            wall, cpu = sum(w for w, _ in spans), sum(c for _, c in spans)
            rows.append((f"server GC gen{generation} >= 2 ms",
                         f"{len(spans)}, longest {1000 * worst_gc[0]:.0f} ms (CPU "
                         f"{1000 * worst_gc[1]:.0f} ms), in all {1000 * wall:.0f} ms "
                         f"(CPU {1000 * cpu:.0f} ms)"))
    if run.pauses and run.window:
        worst = sorted(run.pauses, key=lambda p: -p[1])[:5]
        rows.append(("  longest pauses at", ", ".join(
            f"+{start - run.window[0]:.1f} s: {1000 * length:.0f} ms"
            for start, length in worst)))
    stop = run.stop_at if run.stop_at is not None else trio.current_time()
    stalled = []
    for table in run.tables.values():
        end = table.ended if table.ended is not None else stop
        gap, at = table.max_gap, table.gap_at
        if end - table.last_progress > gap:
            gap, at = end - table.last_progress, table.last_progress
        if gap > STALL_SECONDS:
            stalled.append((table, gap, at))
    running = sum(1 for t in run.tables.values()
                  if t.started <= stop and (t.ended is None or t.ended > stop))
    rows.append(("every table progressed", "yes" if not stalled else
                 f"NO: {len(stalled)} of {len(run.tables)} tables stalled"))
    rows.append(("tables (games) seen", f"{len(run.tables)} ({running} running at the stop)"))
    for table, gap, at in sorted(stalled, key=lambda s: -s[1])[:10]:
        rows.append((f"  stalled table {table.number}", f"{gap:.1f} s without a decision from "
                     f"+{at - (run.window[0] if run.window else 0):.1f} s "
                     f"({table.decisions} decisions, open requests {table.open})"))
    if stalled:
        failed.append("a table stalled")
    rows.append(("longest wait for a seat", f"{run.max_seat_wait:.2f} s after a game "
                 f"({run.max_first_wait:.2f} s for the first seat)"))
    if run.cancels:
        rows.append(("cancels", ", ".join(f"{k} x{v}" for k, v in run.cancels.most_common())))
    if args.hostile_spectators:
        rows.append(("hostile spectators", f"{args.hostile_spectators} from "
                     f"{args.spectator_address}, {args.spectator_rate:g} watch lines/s each: "
                     f"{run.spectator_connects} connections, {run.spectator_lists:,} table lists, "
                     f"{mib(run.spectator_bytes)} received"))
        rows.append(("  spectators closed", ", ".join(
            f"{k} x{v}" for k, v in run.spectator_closed.most_common()) or "never"))
    if run.errors:
        rows.append(("errors received", ", ".join(f"{k} x{v}"
                                                  for k, v in run.errors.most_common())))
    if run.lost_early:
        rows.append(("connections lost early", str(run.lost_early)))
        failed.append("the server closed connections during the run")
    peak = max((hwm for _, _, hwm, _ in server.samples), default=0)
    rss_end = max((rss for _, rss, _, _ in server.samples), default=0)
    rows.append(("server RSS idle / peak", f"{mib(baseline[0])} / {mib(peak)} (VmHWM; "
                 f"largest VmRSS sample {mib(rss_end)})"))
    if run.admitted:
        rows.append(("server RSS per bot",
                     f"{(peak - baseline[0]) / run.admitted / 1024:,.1f} KiB "
                     f"((peak - idle) / {run.admitted})"))
    server_cpu = marks.get("server_cpu")
    if server_cpu is not None and seconds:
        per = f"{1e6 * server_cpu / run.decisions:,.0f} us" if run.decisions else "n/a"
        rows.append(("server CPU per decision", f"{per} ({server_cpu:.1f} s CPU = "
                     f"{100 * server_cpu / seconds:.0f} % of a core)"))
    client = marks.get("client_cpu", 0.0)
    lags = sorted(run.lags)
    rows.append(("client CPU", f"{100 * client / seconds if seconds else 0:.0f} % of a core "
                 f"({client:.1f} s; {os.cpu_count()} cores in all)"))
    worst_lag = max(run.lagged, key=lambda span: span[1] - span[0], default=None)
    rows.append(("client loop lag p50 / p99 / max", " / ".join(
        f"{1000 * percentile(lags, f):,.1f}" for f in (0.5, 0.99, 1.0)) + " ms" + (
            f" (the longest at +{worst_lag[0] - run.window[0]:.1f} s)"
            if worst_lag is not None and run.window else "")))
    rows.append(("client GC >= 1 ms", f"{len(run.collections)}, longest "
                 f"{1000 * max(run.collections, default=0.0):.0f} ms"))
    machine = marks.get("machine_cpu")
    if machine is not None and server_cpu is not None and seconds:
        others = max(0.0, machine - server_cpu - client)
        rows.append(("other processes' CPU", f"{100 * others / seconds:.0f} % of a core "
                     "(the machine's busy time less the server's and the client's)"))
    if server.died is not None:
        rows.append(("server", f"DIED (exit status {server.died})"))
        failed.append("the server died")
    else:
        status, took = marks.get("stop_status"), marks.get("stop_seconds", 0.0)
        rows.append(("server stop (SIGINT)", f"exit status {status} after {took:.2f} s"))
        if status != 0:
            failed.append("the server did not stop cleanly")
    extra: dict[str, Any] = {}
    if marks.get("ladder") is not None:
        extra = ladder_rows(run, server, marks, rows, failed)
    server_err = server.err_path.read_text(errors="replace")
    problems = server_err.count("Traceback")
    rows.append(("server tracebacks (stderr)", str(problems)))
    width = max(len(name) for name, _ in rows)
    print(f"\nload: {args.game}, {args.players} players, {args.bots} bots, offered "
          f"{args.rate:g} decisions/s, {args.seconds:g} s measured; server code "
          f"{marks.get('version', 'unknown')}")
    print(f"{'figure':<{width}}  value")
    print(f"{'-' * width}  {'-' * 40}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    if args.timeline and run.window:
        timeline(run)
    if problems or server.died is not None:
        print(f"\nserver stderr (last lines, {server.err_path}):")
        print("\n".join(server_err.splitlines()[-40:]))
    if run.window:
        print_summary(run, rate, peak - baseline[0], len(stalled),
                      (server_cpu / run.decisions) if server_cpu and run.decisions else None,
                      extra)
    if failed:
        print(f"\nFAILED: {'; '.join(failed)}")
        return 1
    return 0


def spread(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"min": None, "median": None, "max": None}
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def ladder_rows(run: Run, server: Server, marks: dict[str, Any], rows: list[tuple[str, str]],
                failed: list[str]) -> dict[str, Any]:
    """``--ladder``: the first seats, and the games stored against the games played (after
    the server stopped); the figures for the summary."""
    import ladder_load

    args = run.args
    rows.append(("bots seated once", f"{run.seated_once} / {args.bots} ("
                 f"{marks.get('seated_seconds', float('nan')):.1f} s after the first connect: "
                 "not measured)"))
    if run.seated_once < args.bots - args.players + 1:
        failed.append("not every bot was seated (see errors received: hello_timeout?)")
    stored, aborted = ladder_load.stored_games(marks["ladder"][0])
    played = ladder_load.server_games(server.out_path.read_text(errors="replace"))
    rows.append(("games stored in the ladder", f"{stored:,} ({aborted} aborted); the server "
                 "played " + ("?" if played is None else f"{played[0]:,} ({played[1]} aborted)")))
    if played is None or played[0] != stored:
        failed.append("the ladder did not store every game the server played")
    return {"games_stored": stored, "games_played": None if played is None else played[0]}


def print_summary(run: Run, rate: float, grown_bytes: float, stalled: int,
                  cpu_per_decision: float | None, extra: dict[str, Any] | None = None) -> None:
    """The goal's figures as one ``SUMMARY`` line (for ``benchmarks/run_all.py``), each with
    its spread over windows of about :data:`SUMMARY_WINDOW` seconds of the measured window."""
    assert run.window is not None
    start, end = run.window
    count = max(1, round((end - start) / SUMMARY_WINDOW))
    edges = [start + (end - start) * i / count for i in range(count + 1)]
    rates, p99s, pauses = [], [], []
    for low, high in zip(edges, edges[1:]):
        decided = bisect.bisect_left(run.decision_times, high) - bisect.bisect_left(
            run.decision_times, low)
        rates.append(decided / (high - low))
        timed = sorted(lat for lat, at in zip(run.latencies, run.latency_times)
                       if low <= at < high)
        if timed:
            p99s.append(1000 * percentile(timed, 0.99))
        pauses.append(1000 * max((length for at, length in run.pauses if low <= at < high),
                                 default=0.0))
    cpu_us = None if cpu_per_decision is None else 1e6 * cpu_per_decision
    bots, offered = run.args.bots, run.args.rate
    lat = sorted(run.latencies)
    rows = [
        {"goal": "P2", "name": f"{bots} bots, offered {offered:g}/s: decisions/s (95 % of it)",
         "value": rate, **spread(rates), "target": 0.95 * offered, "unit": "decisions/s",
         "better": "higher", "cpu_us_per_decision": cpu_us, **(extra or {})},
        {"goal": "P2", "name": f"{bots} bots: p99 server-added latency",
         "value": 1000 * percentile(lat, 0.99) if lat else None, **spread(p99s), "target": 50,
         "unit": "ms", "better": "lower"},
        {"goal": "P2", "name": f"{bots} bots: longest pause",
         "value": max(pauses, default=0.0), **spread(pauses), "target": 20, "unit": "ms",
         "better": "lower"},
        {"goal": "P2", "name": f"{bots} bots: server memory per connection (peak)",
         "value": grown_bytes / max(1, run.admitted) / 1024, "min": None, "median": None,
         "max": None, "target": 64, "unit": "KiB", "better": "lower"},
        {"goal": "P2", "name": f"{bots} bots: tables that stalled", "value": stalled,
         "min": None, "median": None, "max": None, "target": 0, "unit": "tables",
         "better": "lower"},
    ]
    print("SUMMARY " + json.dumps(rows))


def code_version() -> str:
    """The commit the server code comes from, and whether arena/ or protocol/ differ from it."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        changed = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                  "arena", "protocol"],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not commit:
        return "unknown"
    return commit + (" with uncommitted changes in arena/ or protocol/" if changed else "")


def timeline(run: Run) -> None:
    """One line a second: decisions, latency, pauses, and who used the CPU."""
    assert run.window is not None
    begin, end = run.window
    print(f"\n{'second':>6} {'decisions':>9} {'lat p50':>8} {'p99':>8} {'max':>8} "
          f"{'pauses':>7} {'server':>7} {'client':>7} {'others':>7}   (ms; CPU % of a core)")
    latencies = sorted(zip(run.latency_times, run.latencies))
    cpu = run.cpu_samples
    for second in range(max(1, round(end - begin))):
        low, high = begin + second, min(end, begin + second + 1)
        decided = bisect.bisect_left(run.decision_times, high) - bisect.bisect_left(
            run.decision_times, low)
        lat = sorted(value for _, value in latencies[
            bisect.bisect_left(latencies, (low,)):bisect.bisect_left(latencies, (high,))])
        paused = overlap(sorted((start, start + length) for start, length in run.pauses),
                         low, high)
        # the CPU samples (one a second) nearest around this second
        before = [sample for sample in cpu if sample[0] <= low + 0.5]
        after = [sample for sample in cpu if sample[0] >= high - 0.5]
        usage = ""
        if before and after and after[0][0] - before[-1][0] > 0.5:
            (t0, s0, c0, m0), (t1, s1, c1, m1) = before[-1], after[0]
            span = t1 - t0
            usage = (f"{100 * (s1 - s0) / span:>6.0f}% {100 * (c1 - c0) / span:>6.0f}% "
                     f"{100 * max(0.0, (m1 - m0) - (s1 - s0) - (c1 - c0)) / span:>6.0f}%")
        print(f"{second:>6} {decided:>9} {1000 * percentile(lat, 0.5):>8.1f} "
              f"{1000 * percentile(lat, 0.99):>8.1f} {1000 * percentile(lat, 1.0):>8.1f} "
              f"{1000 * paused:>7.0f} {usage}")


def raise_file_limit() -> tuple[int, int]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds")
    parser.add_argument("--rate", type=float, default=1000.0,
                        help="decisions a second the bots offer in all")
    parser.add_argument("--game", default="chochlik")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--port", type=int, default=0, help="the server's port (0: any free)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of play after every bot is in, before measuring")
    parser.add_argument("--think", type=float, default=None,
                        help="a fixed think delay in seconds (default: steered to --rate)")
    parser.add_argument("--connect-concurrency", type=int, default=100,
                        help="connections being opened at once")
    parser.add_argument("--connect-timeout", type=float, default=60.0,
                        help="seconds a bot waits for the server's welcome")
    parser.add_argument("--profile-server", metavar="FILE",
                        help="run the server under cProfile, its statistics written to FILE")
    parser.add_argument("--server-gc", action="store_true",
                        help="log the server's garbage collections (a gc callback) and say "
                             "which pauses they explain")
    parser.add_argument("--server-steps", action="store_true",
                        help="log the server loop's steps over 10 ms with a sampled stack, "
                             "and its scheduler passes over 20 ms (benchmarks/loop_steps.py)")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for arena serve, repeatable "
                             "(--server-arg=--hands=1)")
    parser.add_argument("--timeline", action="store_true",
                        help="also print the window second by second")
    parser.add_argument("--hostile-spectators", type=int, default=0, metavar="N",
                        help="spectators asking for the table list at --spectator-rate")
    parser.add_argument("--spectator-rate", type=float, default=190.0,
                        help="watch lines a second each hostile spectator sends")
    parser.add_argument("--spectator-address", default="127.0.0.2",
                        help="the loopback address the hostile spectators connect from")
    parser.add_argument("--spread-addresses", action="store_true",
                        help="each bot connects from a loopback address of its own (127.1.x.y)")
    parser.add_argument("--arena-path", metavar="DIR",
                        help="run the server from this checkout (first on PYTHONPATH)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary folder (server output, game logs)")
    parser.add_argument("--scaling", metavar="N,M",
                        help="the server's CPU per decision at these numbers of bots, side by "
                             "side (one run each, taking turns; benchmarks/load_scaling.py)")
    parser.add_argument("--ladder", action="store_true",
                        help="serve a ladder (arena serve --db, ladder seating): the bots are "
                             "registered in a fresh database and say their tokens "
                             "(ladder_load.py)")
    parser.add_argument("--ladder-registry", metavar="FILE",
                        help="with --ladder: copy the registry of the --bots bots from FILE "
                             "(registered there first when it is missing)")
    parser.add_argument("--repeat", type=int, default=2,
                        help="with --scaling: rounds of runs (default 2)")
    args = parser.parse_args(argv)
    if args.scaling:
        from load_scaling import scaling  # benchmarks/load_scaling.py

        counts = [int(count) for count in args.scaling.split(",")]
        if len(counts) < 2 or min(counts) < args.players or args.repeat < 1:
            parser.error("--scaling needs two counts or more, each at least --players, and "
                         "--repeat >= 1")
        return scaling(sys.argv[1:] if argv is None else argv, counts, args.repeat)
    if sum(map(bool, (args.profile_server, args.server_gc, args.server_steps))) > 1:
        parser.error("--profile-server, --server-gc and --server-steps: one at a time")
    if args.bots < args.players or args.rate <= 0 or args.seconds <= 0:
        parser.error("need --bots >= --players, --rate > 0, --seconds > 0")
    soft, _ = raise_file_limit()
    if soft != resource.RLIM_INFINITY and soft < args.bots + 256:
        parser.error(f"the open-file limit is {soft}: too low for {args.bots} bots")
    folder = Path(tempfile.mkdtemp(prefix="arena-load-"))
    ladder: tuple[Path, str] | None = None
    if args.ladder:
        import ladder_load  # benchmarks/ladder_load.py

        ladder = ladder_load.prepare(folder, args.bots, args.ladder_registry,
                                     arena_path=args.arena_path)
        print(ladder[1], flush=True)
        args.server_arg = [*args.server_arg, "--db", str(ladder[0])]
    server = Server(args, folder)
    run = Run(args)
    if args.ladder:
        run.token = ladder_load.token
    version = code_version() if not args.arena_path else f"from {args.arena_path}"
    try:
        server.start()
        time.sleep(0.5)
        baseline = server.sample() or (0, 0, 0.0)
        shown = " ".join("<gc bootstrap>" if part == GC_BOOTSTRAP else part
                         for part in server.command)
        print(f"server pid {server.pid} on port {server.port} ({shown}); "
              f"open-file limit {soft}; {args.bots} bots connecting", flush=True)
        gc.callbacks.append(run.collected)
        marks = trio.run(drive, run, server)
        marks["version"] = version
        marks["ladder"] = ladder
        status = report(run, server, marks, baseline)
        if server.steps_log is not None:
            from loop_steps import summary

            offset = marks.get("clock_offset", 0.0)
            window = None if run.window is None else (run.window[0] - offset,
                                                      run.window[1] - offset)
            print("\n".join(["the server's loop in the window (--server-steps):",
                             *summary(server.steps_log, window)]))
        return status
    finally:
        if server.process is not None and server.process.poll() is None:
            server.stop()
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
