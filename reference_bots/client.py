"""A small client for the arena protocol, with blocking sockets and ``json`` only.

It is what a bot author would write in any language: read a line, parse JSON, act on its
``type``, write a line.  A bot supplies a policy with ``choose(request) -> action token`` and,
if it wants, ``on_message(message)`` for everything else (game_start, event, game_end, ...).

``run`` plays any number of games and returns when the server says ``bye`` (exit status 0), or
refuses the bot (exit status 1).  A connection lost without ``bye`` is reopened with the bot's
token within the server's reconnection grace; the server then sends the game again
(``game_start`` with ``resumed``) and the open request.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import sys
import time
from typing import Any, Protocol

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024


class Policy(Protocol):
    def choose(self, request: dict[str, Any]) -> str: ...

    def on_message(self, message: dict[str, Any]) -> None: ...


class Connection:
    """Lines to and from the server: over a TCP socket, or over standard input and output
    (``stdio``, when the arena runner bridges the bot: then nothing else may be printed to
    standard output; use standard error)."""

    def __init__(self, host: str, port: int, timeout: float | None = None, *,
                 stdio: bool = False) -> None:
        self.sock: socket.socket | None = None
        if stdio:
            self.reader: Any = sys.stdin.buffer
            self.writer: Any = sys.stdout.buffer
            return
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(None)
        self.reader = self.sock.makefile("rb")
        self.writer = None

    def read(self) -> dict[str, Any] | None:
        """The next message, or None when the server closed the connection."""
        line = self.reader.readline(MAX_LINE_BYTES + 2)
        if not line:
            return None
        return json.loads(line)

    def write(self, message: dict[str, Any]) -> None:
        line = json.dumps({k: v for k, v in message.items() if v is not None},
                          separators=(",", ":"), ensure_ascii=False)
        data = line.encode("utf-8") + b"\n"
        if self.sock is not None:
            self.sock.sendall(data)
        else:
            self.writer.write(data)
            self.writer.flush()

    def close(self) -> None:
        if self.sock is None:
            return
        try:
            self.reader.close()
            self.sock.close()
        except OSError:
            pass


class Lost(Exception):
    """The connection ended without a ``bye``: the bot may come back with its token."""


def run(policy: Policy, host: str, port: int, name: str, token: str | None = None,
        *, log: Any = None, connect_timeout: float = 10.0, stdio: bool = False) -> int:
    """Connect (or speak over stdin/stdout with ``stdio``), say hello, answer every request
    until the server ends the session.  If the connection is lost and the bot has a token, it
    reconnects within the server's ``reconnect_grace_ms`` and plays on from the resync."""
    grace = 0.0
    back_by = None  # while reconnecting: give up at this time
    while True:
        try:
            conn = Connection(host, port, timeout=connect_timeout, stdio=stdio)
        except OSError as exc:
            if back_by is not None and time.monotonic() < back_by:
                time.sleep(0.2)
                continue
            print(f"{name}: cannot connect to {host}:{port}: {exc}", file=sys.stderr)
            return 1
        try:
            return _session(conn, policy, name, token, log)
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
             log: Any) -> int:
    """One connection, from welcome to bye; raises :class:`Lost` (with the server's grace in
    seconds) when it ends without one."""
    rescue = random.Random()
    grace = 0.0
    try:
        welcome = conn.read()
        if welcome is None or welcome.get("type") != "welcome":
            print(f"{name}: expected a welcome, got {welcome!r}", file=sys.stderr)
            return 1
        grace = (welcome.get("limits", {}).get("reconnect_grace_ms") or 0) / 1000
        policy.on_message(welcome)
        conn.write({"type": "hello", "name": name, "token": token,
                    "protocol": PROTOCOL_VERSION, "game": welcome.get("game")})
        while True:
            message = conn.read()
            if message is None:
                raise Lost(grace)
            kind = message.get("type")
            if kind == "request":
                conn.write({"type": "action", "id": message["id"],
                            "action": policy.choose(message)})
            elif kind == "error":
                if log:
                    print(f"{name}: error {message.get('code')}: {message.get('message')}",
                          file=log)
                if message.get("fatal"):
                    return 1
                if message.get("legal") and message.get("tries_left"):
                    # our choice was refused: fall back to any legal token
                    conn.write({"type": "action", "id": message["id"],
                                "action": rescue.choice(message["legal"])})
            elif kind == "bye":
                return 0
            else:
                policy.on_message(message)
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
               log=sys.stderr if args.verbose else None)
