"""Two small trio servers that send what arena sends, with none of its work: yardsticks for
``decision_path.py``.

    python benchmarks/echo_servers.py fanout SCRIPT [--port 0]
    python benchmarks/echo_servers.py plain SCRIPT [--port 0]

Written as anyone would write a small trio server, with no arena code: ``serve_tcp``, one
task per connection reading with ``receive_some`` into a buffer split at newlines, replies
written with ``SocketStream.send_all`` (a connection that another task is writing to already
gets its bytes appended to that task's next ``send_all``: trio refuses two at once).  Both greet
a connection with the recorded ``welcome`` line and take its first line as its hello.

- ``fanout``: seats connections in arrival order, ``players`` to a table, and replays the script
  (``decision_script.py``: what arena really sent to one table, step by step) at each table,
  one game after another (table ``t`` starts with game ``t`` modulo the games recorded).  The
  game's first step goes out when the table is full; after that every line a seat sends plays
  the next step that seat's answers triggered in the recording, sending every seat exactly the
  bytes it got then, one ``send_all`` per seat and step.  A game ends when its last step is
  sent, and the next one starts at once.  Simultaneous decisions (chochlik's passing, where
  every seat has a request open) need no ordering: each seat's answers play that seat's own
  steps, so all three are served as they come, in any order.
- ``plain``: answers every line with one line to its sender: the script's request lines in turn
  (each connection starts at its own place), so the bot answers it as it answers arena.

The port is printed as ``... listening on 127.0.0.1:PORT;``.  SIGINT stops the server.
"""

from __future__ import annotations

import argparse
import itertools
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio
from decision_script import Script, Step  # benchmarks/decision_script.py

#: Bytes asked of the socket per read.
READ_SIZE = 65536


class Connection:
    """One client's stream, with one writer at a time."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.pending: list[bytes] = []  # queued while another task is in send_all
        self.sending = False
        self.broken = False
        self.table: FanoutTable | None = None
        self.seat = 0

    async def send(self, data: bytes) -> None:
        if self.broken:
            return
        if self.sending:
            self.pending.append(data)  # the task in send_all sends it next
            return
        self.sending = True
        try:
            await self.stream.send_all(data)
            while self.pending:
                data = b"".join(self.pending)
                self.pending.clear()
                await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.broken = True
        finally:
            self.sending = False


async def read_lines(stream: trio.SocketStream) -> AsyncIterator[bytes]:
    """Yield every complete line the peer sends, until it closes (or the stream breaks)."""
    buffer = b""
    while True:
        try:
            data = await stream.receive_some(READ_SIZE)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return
        if not data:
            return
        *lines, buffer = (buffer + data).split(b"\n")
        for line in lines:
            yield line


@dataclass(frozen=True)
class Game:
    """One recorded game, with the steps each seat's answers trigger, in order."""

    steps: tuple[Step, ...]
    by_seat: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, steps: tuple[Step, ...], players: int) -> Game:
        return cls(steps, tuple(tuple(index for index, step in enumerate(steps)
                                      if step.seat == seat) for seat in range(players)))


class FanoutTable:
    """One table of the fan-out echo: which game and step it replays."""

    def __init__(self, seats: list[Connection], games: list[Game], first_game: int) -> None:
        self.seats = seats
        self.games = games
        self.game_number = first_game - 1
        for seat, connection in enumerate(seats):
            connection.table, connection.seat = self, seat
        self.game = games[0]
        self.answers = [0] * len(seats)  # per seat: answers it gave in this game
        self.sent = 0  # steps of this game sent

    def start_game(self) -> list[tuple[Connection, bytes]]:
        self.game_number = (self.game_number + 1) % len(self.games)
        self.game = self.games[self.game_number]
        self.answers = [0] * len(self.seats)
        self.sent = 0
        return self._play(0)

    def answer(self, seat: int) -> list[tuple[Connection, bytes]]:
        mine = self.game.by_seat[seat]
        if self.answers[seat] >= len(mine):
            return []  # a line the recording had no answer for: nothing to send
        index = mine[self.answers[seat]]
        self.answers[seat] += 1
        return self._play(index)

    def _play(self, index: int) -> list[tuple[Connection, bytes]]:
        out = [(self.seats[seat], data) for seat, data in enumerate(self.game.steps[index].out)
               if data]
        self.sent += 1
        if self.sent == len(self.game.steps):
            out += self.start_game()
        return out


class FanoutServer:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.games = [Game.of(steps, script.players) for steps in script.games]
        self.waiting: list[Connection] = []
        self.tables = 0

    async def handle(self, stream: trio.SocketStream) -> None:
        me = Connection(stream)
        await me.send(self.script.welcome)
        async for _ in read_lines(stream):  # what a line says does not matter, only whose
            if me.table is None:  # the hello: sit down; the last to come starts the table
                self.waiting.append(me)
                if len(self.waiting) < self.script.players:
                    continue
                seats, self.waiting = self.waiting, []
                out = FanoutTable(seats, self.games, self.tables).start_game()
                self.tables += 1
            else:
                out = me.table.answer(me.seat)
            for connection, data in out:
                await connection.send(data)
        if me in self.waiting:
            self.waiting.remove(me)


class PlainServer:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests = script.requests()
        self.connections = 0

    async def handle(self, stream: trio.SocketStream) -> None:
        me = Connection(stream)
        start = 7 * self.connections % len(self.requests)  # each starts elsewhere in the list
        self.connections += 1
        replies = itertools.islice(itertools.cycle(self.requests), start, None)
        await me.send(self.script.welcome)
        async for _ in read_lines(stream):
            await me.send(next(replies))


async def serve(kind: str, script: Script, port: int) -> None:
    """Serve until SIGINT or SIGTERM."""
    server = FanoutServer(script) if kind == "fanout" else PlainServer(script)
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(
                partial(trio.serve_tcp, server.handle, port, host="127.0.0.1"))
            bound = listeners[0].socket.getsockname()[1]
            print(f"echo_servers: {kind} listening on 127.0.0.1:{bound};", flush=True)
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["fanout", "plain"])
    parser.add_argument("script", type=Path)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    trio.run(serve, args.kind, Script.load(args.script), args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
