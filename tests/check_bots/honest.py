"""An honest bot in the standard library only, for the checker's tests: it answers every
request with a random legal token, retries after an error, plays any number of games, comes
back with its token when its connection is lost, and leaves at ``bye``.  Each broken bot in
this folder subclasses it and breaks exactly one thing."""

from __future__ import annotations

import json
import os
import random
import socket
import sys
import time
from pathlib import Path
from typing import Any

BYE = "bye"
LOST = "lost"


class HonestBot:
    def __init__(self) -> None:
        self.rng = random.Random(7)
        self.stdio = os.environ.get("ARENA_TRANSPORT") == "stdio"
        token_file = os.environ.get("ARENA_TOKEN_FILE")
        self.token = Path(token_file).read_text().strip() if token_file else None
        self.limits: dict[str, Any] = {}
        self.requests_seen = 0
        self.writer: Any = None

    # -- what a subclass may break --

    def on_welcome(self, message: dict[str, Any]) -> None:
        self.limits = message["limits"]
        self.send({"type": "hello", "name": "honest", "token": self.token})

    def on_request(self, message: dict[str, Any]) -> None:
        self.send_action(message["id"], self.choose(message))

    def choose(self, request: dict[str, Any]) -> str:
        return self.rng.choice(request["legal"])

    def on_error(self, message: dict[str, Any]) -> None:
        if message.get("fatal"):
            raise SystemExit(1)
        if message.get("tries_left") and message.get("id") is not None:
            legal = message.get("legal") or self.last_legal
            self.send_action(message["id"], self.rng.choice(legal))

    def on_game_start(self, message: dict[str, Any]) -> None:
        pass

    def on_game_end(self, message: dict[str, Any]) -> None:
        pass

    def on_event(self, message: dict[str, Any]) -> None:
        pass

    def on_lost(self) -> bool:
        """The connection ended without bye: come back (True) or stop."""
        return self.token is not None and not self.stdio

    # -- the plumbing --

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write((json.dumps(message) + "\n").encode())
        self.writer.flush()

    def send_action(self, request_id: int, action: str) -> None:
        self.send({"type": "action", "id": request_id, "action": action})

    def handle(self, message: dict[str, Any]) -> str | None:
        kind = message["type"]
        if kind == "request":
            self.requests_seen += 1
            self.last_legal = message["legal"]
            self.on_request(message)
        elif kind == "bye":
            return BYE
        elif kind in ("welcome", "error", "game_start", "game_end", "event"):
            getattr(self, f"on_{kind}")(message)
        return None

    def session(self) -> str:
        if self.stdio:
            reader, self.writer = sys.stdin.buffer, sys.stdout.buffer
        else:
            address = (os.environ["ARENA_HOST"], int(os.environ["ARENA_PORT"]))
            sock = socket.create_connection(address)
            reader, self.writer = sock.makefile("rb"), sock.makefile("wb")
        try:
            for line in reader:
                if self.handle(json.loads(line)) == BYE:
                    return BYE
        except OSError:
            pass
        return LOST

    def run(self) -> None:
        while self.session() == LOST and self.on_lost():
            time.sleep(0.05)


if __name__ == "__main__":
    HonestBot().run()
