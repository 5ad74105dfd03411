"""A flood of wrong tokens against ``arena serve --db`` (issue 29 §3): an honest bot's admission
time with and without it, and the reply time of a wrong token against an unknown name's.

    python benchmarks/token_flood.py [--compare REV_OR_DIR] [--rounds 2] [--window-seconds 10]
                                     [--addresses 8] [--probe-every 0.1] [--eager]
                                     [--old-victim]

Each run starts a real server (``python -m arena serve --db FILE``, chochlik, 3 players, in a
session of its own) on a fresh SQLite file where that same code registered two bots with
``arena bots add``: ``victim`` (its name is public, as on a leaderboard) and ``honest``.  Then:

- a quiet window of ``--window-seconds``: the honest bot connects again and again from
  127.0.0.1 (every ``--probe-every`` s) and measures its admission: from sending ``hello`` to
  the server's answer to a ``watch`` sent right behind it (a player's ``watch`` is answered
  ``unexpected_message``, and only once the hello before it was admitted: the reader takes a
  connection's lines in order); then it says ``bye`` and waits for the close;
- the oracle: 20 hellos with a wrong token for ``victim`` and 20 with an unregistered name,
  one at a time, each timed to its refusal (``bad_token``, ``unknown_token``);
- a flood window of the same length: ``--addresses`` loopback addresses (127.0.0.2 ...) loop
  ``connect, hello victim WRONG-TOKEN, close`` as fast as they can (a process of their own,
  in a session of its own), while the honest bot measures as before.  Each sends its hello
  once ``welcome`` came, as the protocol has it (each hello is checked); ``--eager`` sends it
  at once and closes without reading: thousands of connections a second, most of them never
  welcomed (the per-address pace at the door), which measures connection churn more than
  tokens.  ``--old-victim`` registers ``victim`` as a bot registered before issue 29 whose
  token was never accepted since (a scrypt hash, written straight into the file): each wrong
  token for it still costs the server a scrypt.

An admission still unanswered when its window ends counts with the time it had waited then
(a lower bound, in the connect-to-admitted rows; such are counted, with their longest wait: a
probe under way when a window ends is one, after a few milliseconds).  With ``--compare
REV_OR_DIR`` every round runs this tree and the other code alternately (a folder, or a git
revision extracted with ``git archive`` into a temporary folder), so both meet the same moods
of the machine.  Prints p50, p99 and max per code and condition, then one ``SUMMARY <json>``
line.  Only loopback addresses are used; a run takes about ``rounds x codes x (2 windows +
5 s)``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
WRONG = "a-wrong-token-of-32-characters-x"
#: Hellos timed one at a time for the oracle, of each kind.
ORACLE_HELLOS = 20
#: Seconds a server may take to start listening.
START_SECONDS = 30


# -- the clients --

async def connect(port: int, address: str = "127.0.0.1") -> trio.SocketStream:
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    try:
        await sock.bind((address, 0))
        await sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return trio.SocketStream(sock)


class Lines:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream, self.buffer = stream, b""

    async def next(self) -> dict | None:
        while b"\n" not in self.buffer:
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    async def until(self, kind: str) -> dict | None:
        while (message := await self.next()) is not None:
            if message["type"] == kind:
                return message
        return None


async def hello_reply(port: int, name: str, token: str,
                      then: bytes = b"") -> tuple[float, float, str]:
    """(seconds from connecting to ``welcome``, seconds from ``hello`` (and ``then`` right
    behind it) to the first ``error`` after it, its code: "closed" when none came)."""
    began = time.perf_counter()
    stream = await connect(port)
    async with stream:
        lines = Lines(stream)
        if await lines.until("welcome") is None:
            return time.perf_counter() - began, 0.0, "closed"
        door = time.perf_counter() - began
        hello = json.dumps({"type": "hello", "name": name, "token": token}).encode()
        said = time.perf_counter()
        await stream.send_all(hello + b"\n" + then)
        error = await lines.until("error")
        check = time.perf_counter() - said
        if error is not None and error["code"] == "unexpected_message":
            await stream.send_all(b'{"type":"bye"}\n')
            while await lines.next() is not None:  # the server closes: the name is free again
                pass
        return door, check, "closed" if error is None else error["code"]


async def probe(port: int, token: str, seconds: float, every: float,
                found: dict[str, list], condition: str) -> None:
    """The honest bot's admissions for ``seconds``, into ``found[condition]`` (hello to
    admitted) and ``found[condition + " total"]`` (connect to admitted); one still waiting at
    the end counts with the time it had waited (a lower bound), also in
    ``found["unanswered"]``."""
    checks, totals, problems = found[condition], found[condition + " total"], found["problems"]
    with trio.move_on_after(seconds):
        while True:
            began = time.perf_counter()
            try:
                door, check, code = await hello_reply(port, "honest", token,
                                                      b'{"type":"watch"}\n')
            except trio.Cancelled:
                totals.append(time.perf_counter() - began)
                found["unanswered"].append(totals[-1])
                raise
            except OSError as exc:
                problems.append(f"connect: {exc.strerror}")
                await trio.sleep(every)
                continue
            if code == "unexpected_message":
                checks.append(check)
                totals.append(door + check)
            else:
                problems.append(code)
            await trio.sleep(every)


async def flood_from(port: int, address: str, counts: dict[str, int], eager: bool) -> None:
    """connect, hello victim WRONG, close, again and again: the hello after ``welcome``, as
    the protocol has it, or (``eager``) at once, closing without reading (the server reads
    it when the address's turn at the door comes, if ever)."""
    while True:
        try:
            stream = await connect(port, address)
        except OSError:
            counts["connect failed"] = counts.get("connect failed", 0) + 1
            await trio.sleep(0.01)
            continue
        try:
            async with stream:
                if eager:
                    await stream.send_all(json.dumps({"type": "hello", "name": "victim",
                                                      "token": WRONG}).encode() + b"\n")
                    counts["hellos"] = counts.get("hellos", 0) + 1
                    continue
                first = await Lines(stream).next()
                if first is None or first["type"] != "welcome":
                    kind = "closed" if first is None else first.get("code", first["type"])
                    counts[kind] = counts.get(kind, 0) + 1
                    continue
                await stream.send_all(json.dumps({"type": "hello", "name": "victim",
                                                  "token": WRONG}).encode() + b"\n")
                counts["hellos"] = counts.get("hellos", 0) + 1
        except (trio.BrokenResourceError, OSError):
            counts["reset"] = counts.get("reset", 0) + 1


async def flood(port: int, addresses: int, seconds: float, eager: bool) -> None:
    counts: dict[str, int] = {}
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as nursery:
            for i in range(addresses):
                nursery.start_soon(flood_from, port, f"127.0.0.{2 + i}", counts, eager)
    print(json.dumps(counts))


# -- the server --

def add_scrypt_row(db: Path, name: str) -> str:
    """Registers ``name`` in ``db`` as the registry did before issue 29; its token."""
    token = secrets.token_urlsafe(24)
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(token.encode(), salt=salt, n=2**14, r=8, p=1,
                            maxmem=64 * 1024 * 1024, dklen=32)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO bots (name, folded, salt, hash) VALUES (?, ?, ?, ?)",
                     (name, name.casefold(), salt, digest))
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute(f"PRAGMA user_version = {version + 1}")
    conn.close()
    return token


class Server:
    """``arena serve --db`` of the code at ``root`` on a fresh registry of two bots."""

    def __init__(self, root: Path, folder: Path, old_victim: bool) -> None:
        """``old_victim``: ``victim`` is registered as before issue 29 (a scrypt hash)."""
        self.root, self.folder = root, folder
        self.env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(root))
        db = folder / "bots.db"
        self.tokens = {"honest": self._add("honest", db)}
        self.tokens["victim"] = add_scrypt_row(db, "victim") if old_victim else self._add(
            "victim", db)
        out = folder / "server.out"
        command = [sys.executable, "-m", "arena", "serve", "--game", "chochlik", "--players",
                   "3", "--port", "0", "--db", str(db), "--log-dir", str(folder / "logs"),
                   "--quiet"]
        with open(out, "wb") as sink, open(folder / "server.err", "wb") as err:
            # python -m puts the working folder first on sys.path: run in that checkout
            self.process = subprocess.Popen(command, stdout=sink, stderr=err, env=self.env,
                                            stdin=subprocess.DEVNULL, cwd=root,
                                            start_new_session=True)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            found = re.search(r"on \S+:(\d+);", out.read_text() + self._err())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise SystemExit(f"the server of {root} did not start:\n{self._err()[-2000:]}")

    def _err(self) -> str:
        return (self.folder / "server.err").read_text(errors="replace")

    def _add(self, name: str, db: Path) -> str:
        done = subprocess.run([sys.executable, "-m", "arena", "bots", "add", name, "--db",
                               str(db)], capture_output=True, text=True, env=self.env,
                              cwd=self.root, check=True, timeout=60)
        said, token = done.stdout.split()
        assert said == name, done.stdout
        return token

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


async def measure(args: argparse.Namespace, server: Server) -> dict[str, list]:
    found: dict[str, list] = {"quiet": [], "quiet total": [], "flood": [], "flood total": [],
                              "problems": [], "unanswered": [], "bad_token": [],
                              "unknown_token": [], "flood_counts": []}
    token = server.tokens["honest"]
    await probe(server.port, token, args.window_seconds, args.probe_every, found, "quiet")
    for i in range(2 * ORACLE_HELLOS):
        name = "victim" if i % 2 else f"stranger{i}"
        with trio.move_on_after(args.window_seconds):
            _, took, code = await hello_reply(server.port, name, WRONG)
            if code in found:
                found[code].append(took)
    async with trio.open_nursery() as nursery:
        async def flooding() -> None:
            done = await trio.run_process(
                [sys.executable, __file__, "--flood-for", str(server.port), "--addresses",
                 str(args.addresses), "--window-seconds", str(args.window_seconds),
                 *(["--eager"] if args.eager else [])],
                capture_stdout=True, start_new_session=True)
            found["flood_counts"].append(json.loads(done.stdout))

        nursery.start_soon(flooding)
        await trio.sleep(0.5)  # the flood is under way
        await probe(server.port, token, args.window_seconds - 0.5, args.probe_every, found,
                    "flood")
    return found


# -- the report --

def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def row(values: Sequence[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"{percentile(ms, 0.5):9.1f} {percentile(ms, 0.99):9.1f} {max(ms, default=0):9.1f}"
            f" {len(ms):6d}")


def checkout(spec: str, temp: Path) -> Path:
    """The folder of ``spec``: a folder, or a git revision of this repository extracted."""
    if Path(spec).is_dir():
        return Path(spec).resolve()
    folder = temp / "compare"
    archive = temp / "compare.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive),
                    spec], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", metavar="REV_OR_DIR")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--window-seconds", type=float, default=10.0)
    parser.add_argument("--addresses", type=int, default=8)
    parser.add_argument("--probe-every", type=float, default=0.1)
    parser.add_argument("--eager", action="store_true",
                        help="The flood sends its hello at once and closes without reading "
                             "(connection churn more than wrong tokens).")
    parser.add_argument("--old-victim", action="store_true",
                        help="The flooded name is registered as before issue 29 (a scrypt "
                             "hash, until its token is accepted once; it never is here).")
    parser.add_argument("--flood-for", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.addresses <= 200:
        parser.error("--addresses: 1 to 200 (127.0.0.2 ...)")
    if args.flood_for is not None:
        trio.run(flood, args.flood_for, args.addresses, args.window_seconds, args.eager)
        return 0
    if not 2 <= args.window_seconds <= 60 or not 1 <= args.rounds <= 10:
        parser.error("--window-seconds 2 to 60, --rounds 1 to 10")
    with tempfile.TemporaryDirectory(prefix="arena-token-flood-") as temp:
        codes = {"this tree": ROOT}
        if args.compare:
            codes[args.compare] = checkout(args.compare, Path(temp))
        results: dict[str, dict[str, list]] = {code: {} for code in codes}
        loads = [os.getloadavg()[0]]
        for round_ in range(args.rounds):
            for code, root in codes.items():
                folder = Path(tempfile.mkdtemp(dir=temp))
                server = Server(root, folder, args.old_victim)
                try:
                    found = trio.run(measure, args, server)
                finally:
                    server.stop()
                    shutil.rmtree(folder, ignore_errors=True)
                for key, values in found.items():
                    results[code].setdefault(key, []).extend(values)
                loads.append(os.getloadavg()[0])
                print(f"round {round_ + 1}, {code}: honest hello to admitted p99 quiet "
                      f"{percentile(found['quiet'], 0.99) * 1000:.1f} ms, flood "
                      f"{percentile(found['flood'], 0.99) * 1000:.1f} ms "
                      f"({len(found['unanswered'])} unanswered)", flush=True)
    print(f"\n{args.rounds} round(s) alternating; windows of {args.window_seconds:g} s; "
          f"{'eager ' if args.eager else ''}flood from {args.addresses} addresses"
          f"{' for a name registered before issue 29' if args.old_victim else ''}; "
          f"{os.cpu_count()} cores, load average "
          f"{min(loads):.1f} to {max(loads):.1f} (1 min)")
    print(f"{'ms':40} {'p50':>9} {'p99':>9} {'max':>9} {'count':>6}")
    summary: dict[str, dict[str, object]] = {}
    for code, found in results.items():
        for key, label in (("quiet", "hello to admitted, quiet"),
                           ("flood", "hello to admitted, flood"),
                           ("quiet total", "connect to admitted, quiet"),
                           ("flood total", "connect to admitted, flood"),
                           ("bad_token", "wrong token refused"),
                           ("unknown_token", "unknown name refused")):
            print(f"{code[:12]:12} {label:27} {row(found[key])}")
        waits = found["unanswered"]
        others = sorted(set(found["problems"]))
        floods = found["flood_counts"]
        print(f"{'':12} admissions unanswered at a window's end: {len(waits)}"
              + (f" (having waited up to {max(waits) * 1000:.0f} ms)" if waits else "")
              + (f"; other problems: {', '.join(others)}" if others else "")
              + f"; flood: {sum(c.get('hellos', 0) for c in floods)} hellos")
        summary[code] = {key: {"p50": percentile(found[key], 0.5),
                               "p99": percentile(found[key], 0.99),
                               "max": max(found[key], default=None), "count": len(found[key])}
                         for key in ("quiet", "flood", "quiet total", "flood total",
                                     "bad_token", "unknown_token")}
        summary[code]["unanswered"] = waits
    print("SUMMARY " + json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
