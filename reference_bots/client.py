"""A small client for the arena protocol, with blocking sockets and ``json`` only.

It is what a bot author would write in any language: read lines, parse JSON, act on its
``type``, write a line.  A bot supplies a policy with ``choose(request) -> action token`` and,
if it wants, ``on_message(message)`` for everything else (game_start, event, game_end, ...).

Cheap by design, because a tournament runs many bots on the cores its server needs: the client
reads whatever has arrived in one system call (up to :data:`READ_CHUNK_BYTES`) and splits it into
lines, and it parses only the lines its bot needs.  Events are most of the traffic (every seat
sees every public event, a request comes to one seat), so a policy says which it wants with a
``wanted_events`` attribute: a collection of event kinds (empty: none); a policy without it
gets every event, as before.  An unwanted event is recognised by its first bytes (the server
writes ``{"type":"event","kind":"...`` first) and never parsed; any other line is parsed and
handled by its ``type``.

The client asks the server for its events with its requests (hello ``events:
with_requests``), so a bot wakes once per decision; a policy that thinks while others play
sets ``live_events = True``.

``run`` plays any number of games and returns when the server says ``bye`` (exit status 0), or
refuses the bot (exit status 1).  A connection lost without ``bye`` is reopened with the bot's
token within the server's reconnection grace; the server then sends the game again
(``game_start`` with ``resumed``) and the open request.  A ``bye`` with the reason
``server_restart`` (a ladder restarting) is not the end: the bot connects again after the
bye's ``retry_ms``, then after pauses growing to :data:`MAX_RETRY_PAUSE` seconds, for as long
as it takes, and plays on with its token.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import socket
import sys
import time
from collections.abc import Collection, Iterator
from typing import Any, Protocol

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024
#: Bytes asked for in one read: every line that has arrived, in one system call.
READ_CHUNK_BYTES = 64 * 1024
#: How the server begins an event line; the event's kind follows, up to the next quote.
EVENT_PREFIX = b'{"type":"event","kind":"'
#: The longest pause, in seconds, between two tries to reach a restarting server (each pause
#: is half as long again as the one before, with a random tenth either way: a thousand bots
#: do not all knock at the same moment).
MAX_RETRY_PAUSE = 5.0

_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class Policy(Protocol):
    """What a bot supplies.  It may also have ``wanted_events``: the event kinds passed to
    ``on_message`` (a policy without it is passed every event)."""

    def choose(self, request: dict[str, Any]) -> str: ...

    def on_message(self, message: dict[str, Any]) -> None: ...


class LineTooLong(ValueError):
    """The peer sent a line longer than the protocol allows."""


class LineSplitter:
    """Bytes in, whole lines out (without their newline).  An unfinished line longer than
    :data:`MAX_LINE_BYTES` raises :class:`LineTooLong`, so no more than one chunk and one
    line's worth is ever held."""

    def __init__(self) -> None:
        self.partial = b""

    def feed(self, data: bytes) -> list[bytes]:
        lines = (self.partial + data).split(b"\n") if self.partial else data.split(b"\n")
        self.partial = lines.pop()
        if len(self.partial) > MAX_LINE_BYTES:
            raise LineTooLong(f"a line longer than {MAX_LINE_BYTES} bytes")
        return lines


class Connection:
    """Lines to and from the server: over a TCP socket, or over standard input and output
    (``stdio``, when the arena runner bridges the bot: then nothing else may be printed to
    standard output; use standard error)."""

    def __init__(self, host: str, port: int, timeout: float | None = None, *,
                 stdio: bool = False) -> None:
        self.sock: socket.socket | None = None
        self.splitter = LineSplitter()
        self.pending: Iterator[bytes] = iter(())
        self.buffer = bytearray(READ_CHUNK_BYTES)  # reused: no large allocation per read
        self.view = memoryview(self.buffer)
        if stdio:
            self.input_fd = sys.stdin.fileno()
            self.writer: Any = sys.stdout.buffer
            return
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(None)
        # an action is one small write: never hold it back for the server's acknowledgement
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.writer = None

    def _receive(self) -> bytes:
        """What has arrived (at least a byte; blocks until then), or b"" at the end."""
        if self.sock is not None:
            size = self.sock.recv_into(self.buffer)
        else:
            size = os.readv(self.input_fd, [self.buffer])
        return self.view[:size].tobytes()

    def lines(self) -> Iterator[bytes]:
        """Every line, as it arrives, until the server closes the connection (an unfinished
        last line is dropped)."""
        while True:
            yield from self.pending
            data = self._receive()
            if not data:
                return
            self.pending = iter(self.splitter.feed(data))

    def read(self) -> dict[str, Any] | None:
        """The next message (parsed, whatever it is), or None when the server closed the
        connection; lines read with it and not returned yet stay for :meth:`lines`."""
        line = next(self.lines(), None)
        return None if line is None else json.loads(line)

    def write(self, message: dict[str, Any]) -> None:
        line = _encode({k: v for k, v in message.items() if v is not None})
        self.send(line.encode("utf-8") + b"\n")

    def send_action(self, request_id: int, action: str) -> None:
        self.send(b'{"type":"action","id":%d,"action":%s}\n'
                  % (request_id, _encode(action).encode("utf-8")))

    def send(self, data: bytes) -> None:
        if self.sock is not None:
            self.sock.sendall(data)
        else:
            self.writer.write(data)
            self.writer.flush()

    def close(self) -> None:
        if self.sock is None:
            return
        with contextlib.suppress(OSError):
            self.sock.close()


def unwanted_event(line: bytes, wanted: Collection[str] | None) -> bool:
    """Whether ``line`` is an event the policy did not ask for (``wanted``: its
    ``wanted_events``, None for every event), known from its first bytes without parsing it.
    A line written otherwise (another key order, spaces) is not known here: it is parsed."""
    if wanted is None or not line.startswith(EVENT_PREFIX):
        return False
    end = line.find(b'"', len(EVENT_PREFIX))
    kind = line[len(EVENT_PREFIX):end]
    if end < 0 or b"\\" in kind:
        return False  # not a plain kind: parse the line and look
    return kind.decode("utf-8", "replace") not in wanted


class Lost(Exception):
    """The connection ended without a ``bye``: the bot may come back with its token."""


class Restarting(Exception):
    """The server said ``bye`` with ``server_restart``: come back after ``args[0]`` seconds."""


def run(policy: Policy, host: str, port: int, name: str, token: str | None = None,
        *, log: Any = None, connect_timeout: float = 10.0, stdio: bool = False,
        game: str | None = None) -> int:
    """Connect (or speak over stdin/stdout with ``stdio``), say hello, answer every request
    until the server ends the session.  If the connection is lost and the bot has a token, it
    reconnects within the server's ``reconnect_grace_ms`` and plays on from the resync.
    ``game``: the game named in hello (a server of several games needs it; by default the
    welcome's game is named)."""
    grace = 0.0
    back_by = None  # while reconnecting: give up at this time
    pause = None  # while the server restarts: the next pause before a try (no limit of tries)
    jitter = random.Random()
    while True:
        try:
            conn = Connection(host, port, timeout=connect_timeout, stdio=stdio)
        except OSError as exc:
            if pause is not None:
                time.sleep(pause * jitter.uniform(0.9, 1.1))
                pause = min(pause * 1.5, MAX_RETRY_PAUSE)
                continue
            if back_by is not None and time.monotonic() < back_by:
                time.sleep(0.2)
                continue
            print(f"{name}: cannot connect to {host}:{port}: {exc}", file=sys.stderr)
            return 1
        pause = None
        try:
            return _session(conn, policy, name, token, log, game)
        except Restarting as restart:
            if stdio:
                return 0
            print(f"{name}: the server is restarting; coming back", file=sys.stderr)
            time.sleep(restart.args[0] * jitter.uniform(0.9, 1.1))
            pause = min(max(restart.args[0], 0.1) * 1.5, MAX_RETRY_PAUSE)
        except Lost as lost:
            grace = lost.args[0] if lost.args else grace
            if stdio or token is None or grace <= 0:
                print(f"{name}: connection lost", file=sys.stderr)
                return 0
            print(f"{name}: connection lost; coming back with the token", file=sys.stderr)
            back_by = time.monotonic() + grace
        finally:
            conn.close()


def _session(conn: Connection, policy: Policy, name: str, token: str | None,
             log: Any, game: str | None = None) -> int:
    """One connection, from welcome to bye; raises :class:`Lost` (with the server's grace in
    seconds) when it ends without one."""
    rescue = random.Random()
    grace = 0.0
    wanted: Collection[str] | None = getattr(policy, "wanted_events", None)
    try:
        lines = conn.lines()
        first = next(lines, None)
        welcome = None if first is None else json.loads(first)
        if welcome is None or welcome.get("type") != "welcome":
            print(f"{name}: expected a welcome, got {welcome!r}", file=sys.stderr)
            return 1
        grace = (welcome.get("limits", {}).get("reconnect_grace_ms") or 0) / 1000
        policy.on_message(welcome)
        # its events come with its next request: one wake-up per decision (a policy that
        # thinks while others play says ``live_events = True``)
        events = "live" if getattr(policy, "live_events", False) else "with_requests"
        conn.write({"type": "hello", "name": name, "token": token,
                    "protocol": PROTOCOL_VERSION, "game": game or welcome.get("game"),
                    "events": events})
        for line in lines:
            if unwanted_event(line, wanted):
                continue
            message = json.loads(line)
            kind = message.get("type")
            if kind == "request":
                conn.send_action(message["id"], policy.choose(message))
            elif kind == "error":
                if message.get("fatal"):  # refused: always said, whatever --verbose
                    print(f"{name}: refused by the server: {message.get('code')}: "
                          f"{message.get('message')}", file=sys.stderr)
                    return 1
                if log:
                    print(f"{name}: error {message.get('code')}: {message.get('message')}",
                          file=log)
                if message.get("legal") and message.get("tries_left"):
                    # our choice was refused: fall back to any legal token
                    conn.send_action(message["id"], rescue.choice(message["legal"]))
            elif kind == "bye":
                if message.get("reason") == "server_restart":
                    raise Restarting((message.get("retry_ms") or 1000) / 1000)
                return 0
            elif kind != "event" or wanted is None or message.get("kind") in wanted:
                policy.on_message(message)
        raise Lost(grace)
    except (ConnectionError, OSError) as exc:
        raise Lost(grace) from exc


def argument_parser(description: str, default_name: str) -> argparse.ArgumentParser:
    """The options every reference bot takes; each falls back to its ARENA_* variable."""
    env = os.environ
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default=env.get("ARENA_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(env.get("ARENA_PORT", "7777")))
    parser.add_argument("--name", default=env.get("ARENA_NAME", default_name))
    parser.add_argument("--token", default=env.get("ARENA_TOKEN") or None,
                        help="the token to send in hello (prefer --token-file: a command line "
                             "can be read by other users' processes)")
    parser.add_argument("--token-file", default=env.get("ARENA_TOKEN_FILE") or None,
                        help="a file holding the token (how `arena match` hands it over)")
    parser.add_argument("--stdio", action="store_true",
                        default=env.get("ARENA_TRANSPORT") == "stdio",
                        help="speak the protocol on stdin/stdout instead of a socket")
    parser.add_argument("--game", default=env.get("ARENA_GAME") or None,
                        help="the game to play, named in hello: needed at a server that hosts "
                             "several (its welcome lists them in games); by default the "
                             "welcome's game")
    parser.add_argument("--seed", default=None, help="seed for the bot's own choices")
    parser.add_argument("--verbose", action="store_true", help="print errors to stderr")
    return parser


def token_from(args: argparse.Namespace) -> str | None:
    """The token given by ``--token``, or read from ``--token-file``."""
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as file:
            return file.read().strip() or None
    return args.token


def play(policy: Policy, args: argparse.Namespace) -> int:
    """Run ``policy`` with the options of :func:`argument_parser`; the bot's exit status."""
    return run(policy, args.host, args.port, args.name, token_from(args), stdio=args.stdio,
               log=sys.stderr if args.verbose else None, game=args.game)


class FunctionPolicy:
    """A policy made of one function ``choose(observation, legal) -> action``."""

    wanted_events: frozenset[str] = frozenset()  # the request carries all it needs

    def __init__(self, choose: Any) -> None:
        self._choose = choose

    def choose(self, request: dict[str, Any]) -> str:
        return self._choose(request["observation"], request["legal"])

    def on_message(self, message: dict[str, Any]) -> None:
        pass


def play_function(choose: Any, name: str = "my-bot", argv: list[str] | None = None) -> int:
    """A whole bot from one function: ``choose(observation, legal)`` returns one of ``legal``.
    Connects (or speaks over stdin/stdout) as the command line and ``ARENA_*`` variables say,
    plays any number of games, comes back after a lost connection; returns the exit status::

        import sys
        from reference_bots.client import play_function

        def choose(observation, legal):
            return legal[0]  # your strategy here

        sys.exit(play_function(choose, "first-legal"))
    """
    args = argument_parser(f"arena bot {name}", name).parse_args(argv)
    return play(FunctionPolicy(choose), args)
