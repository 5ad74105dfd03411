"""``arena serve`` as the operator runs it: a subprocess whose output lines are read as they
come, waited for with a bounded deadline (never a sleep); and raw protocol clients."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

#: Seconds any one expected line may take to appear (a loaded machine is slow, never stuck).
DEADLINE = 30.0


class Lines:
    """The lines of one output stream, read by a thread as they come."""

    def __init__(self, stream: IO[str]) -> None:
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.ended = False
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.queue.put(line.rstrip("\n"))
        self.queue.put(None)

    def expect(self, pattern: str, deadline: float = DEADLINE) -> re.Match[str]:
        """The first line from now on that matches ``pattern`` (a regular expression)."""
        end = time.monotonic() + deadline
        while True:
            left = end - time.monotonic()
            try:
                line = None if self.ended else self.queue.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r} within {deadline:g} s; "
                                     f"seen: {self.seen[-20:]}") from None
            if line is None:
                self.ended = True
                raise AssertionError(f"the stream ended without {pattern!r}; seen: {self.seen}")
            self.seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match

    def rest(self, deadline: float = DEADLINE) -> list[str]:
        """Every line up to the end of the stream (the process has ended or is ending)."""
        end = time.monotonic() + deadline
        lines = []
        while not self.ended:
            line = self.queue.get(timeout=max(end - time.monotonic(), 0.0))
            if line is None:
                self.ended = True
            else:
                self.seen.append(line)
                lines.append(line)
        return lines


class Served:
    """``python -m arena serve --port 0 ARGS`` in a subprocess; killed on exit if still up."""

    def __init__(self, tmp_path: Path, *args: str, verbose: bool = False) -> None:
        command = [sys.executable, "-m", "arena", *(["-v"] if verbose else []), "serve",
                   "--port", "0", "--log-dir", str(tmp_path / "logs"), *args]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
        self.out = Lines(self.process.stdout)  # type: ignore[arg-type]
        self.err = Lines(self.process.stderr)  # type: ignore[arg-type]
        self.port = int(self.out.expect(r"on 127\.0\.0\.1:(\d+);").group(1))
        self.bots: list[subprocess.Popen[bytes]] = []
        self.clients: list[Client] = []

    def bot(self, *args: str) -> subprocess.Popen[bytes]:
        """A reference random bot connected to this server."""
        bot = subprocess.Popen([sys.executable, "-m", "reference_bots.random", "--port",
                                str(self.port), *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        self.bots.append(bot)
        return bot

    def client(self, name: str, **hello: Any) -> Client:
        """A raw connection that has said hello."""
        client = Client(self.port)
        client.expect("welcome")
        client.send({"type": "hello", "name": name, **hello})
        self.clients.append(client)
        return client

    def interrupt(self) -> int:
        """Ctrl-C; the exit status."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=DEADLINE)

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self.clients:
            client.close()
        processes: list[subprocess.Popen[Any]] = [self.process, *self.bots]
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=DEADLINE)


class Client:
    """A raw line client over a blocking socket with a deadline on every read."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        self.file = self.sock.makefile("rb")

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def read(self) -> dict[str, Any] | None:
        line = self.file.readline()
        return json.loads(line) if line else None

    def expect(self, kind: str) -> dict[str, Any]:
        """The next message of type ``kind``; an AssertionError if the connection ends first."""
        while True:
            message = self.read()
            assert message is not None, f"the connection ended before {kind!r}"
            if message["type"] == kind:
                return message

    def close(self) -> None:
        self.file.close()
        self.sock.close()
