"""Test clients that speak the protocol by hand, so tests read like transcripts."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import trio
import trio.testing

from arena.edge.server import ArenaServer, ServerConfig
from arena.gameplay.gamelog import log_lines
from arena.games import get_game
from arena.seating.policies import RosterSeating
from protocol.linebuffer import LineBuffer


class LineClient:
    """A bot's end of a connection: send JSON (or raw bytes), receive parsed messages."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.lines = LineBuffer(max_line=1 << 20)
        self.seen: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        if isinstance(message, dict):
            message = json.dumps(message)
        if isinstance(message, str):
            message = message.encode() + b"\n"
        await self.stream.send_all(message)

    async def receive(self) -> dict[str, Any] | None:
        """The next message, or None at the end of the stream."""
        while True:
            line = self.lines.next_line()
            if line is not None:
                message = json.loads(line)
                self.seen.append(message)
                return message
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.lines.feed(data)

    async def until(self, kind: str, **match: Any) -> dict[str, Any]:
        """Skip messages up to the first of type ``kind`` (with the given field values)."""
        while True:
            message = await self.receive()
            if message is None:
                raise AssertionError(f"connection ended while waiting for {kind!r}")
            if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
                return message

    async def hello(self, name: str, **extra: Any) -> dict[str, Any]:
        welcome = await self.until("welcome")
        await self.send({"type": "hello", "name": name, **extra})
        return welcome

    async def play_randomly(self, rng: Any, until_type: str = "game_end") -> dict[str, Any]:
        """Answer every request with a random legal token until ``until_type`` arrives."""
        while True:
            message = await self.receive()
            if message is None:
                raise AssertionError("connection ended")
            if message["type"] == "request":
                await self.send({"type": "action", "id": message["id"],
                                 "action": rng.choice(message["legal"])})
            elif message["type"] == until_type:
                return message


async def connect_in_memory(nursery: trio.Nursery, server: ArenaServer) -> LineClient:
    """A connection to ``server`` over an in-memory stream (works under a MockClock)."""
    client_end, server_end = trio.testing.memory_stream_pair()
    nursery.start_soon(server.handle_stream, server_end)
    return LineClient(client_end)


async def connect_tcp(port: int) -> LineClient:
    return LineClient(await trio.open_tcp_stream("127.0.0.1", port))


def make_server(tmp_path: Path, *, roster: Any = None, games: int = 1, seed: str = "test",
                reaction_timeout: float = 1.0, **options: Any) -> ArenaServer:
    """A chochlik server logging under ``tmp_path``; one hand per game unless told."""
    spec = get_game("chochlik")
    options.setdefault("hands", 1)
    config = ServerConfig(spec=spec, options=spec.parse_options(options), port=0,
                          move_timeout=5.0, reaction_timeout=reaction_timeout,
                          log_dir=tmp_path / "logs", seed=seed)
    seating = RosterSeating(roster, games) if roster is not None else None
    return ArenaServer(config, seating=seating)


async def in_memory_clients(nursery: trio.Nursery, server: ArenaServer,
                            count: int) -> list[LineClient]:
    """``count`` connections that have said hello (as bot0, bot1, ...), in that order."""
    clients = [await connect_in_memory(nursery, server) for _ in range(count)]
    for i, client in enumerate(clients):
        await client.hello(f"bot{i}")
    return clients


def log_files(folder: Path, pattern: str = "*") -> list[Path]:
    """The finished game logs in ``folder``, compressed (``.jsonl.gz``) or plain (``.jsonl``)."""
    return sorted([*folder.glob(f"{pattern}.jsonl"), *folder.glob(f"{pattern}.jsonl.gz")])


def read_records(path: Path) -> list[dict[str, Any]]:
    """A log's records, compressed or plain."""
    return [json.loads(line) for line in log_lines(path)]


def half_writes(monkeypatch: Any) -> None:
    """From now on (until ``monkeypatch`` is undone) every write of a log's batch to its
    ``.part`` file (``os.pwrite``) takes a few bytes, then says the disk is full (a full disk in
    the middle of a batch)."""
    real_pwrite = os.pwrite

    def pwrite(fd: int, data: Any, offset: int) -> int:
        real_pwrite(fd, bytes(data[:10]), offset)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", pwrite)


def stand_in_tournament(monkeypatch: Any, stand_in: Any) -> None:
    """``arena.launch.tournament.Tournament`` replaced by ``stand_in`` for one test (only
    ``arena sprt`` and ``tournament`` look it up when they run).  The modules that import it
    by name take the real class first: one first imported under the patch would keep the
    stand-in for every later test of the process."""
    import arena.launch.event_run  # noqa: F401
    import arena.launch.tournament
    import arena.launch.worker  # noqa: F401
    import arena.launch.workers  # noqa: F401

    monkeypatch.setattr(arena.launch.tournament, "Tournament", stand_in)
