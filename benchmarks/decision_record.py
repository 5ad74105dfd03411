"""Record what a real ``arena serve`` sends to one table, step by step (``decision_script.py``).

Three bots (one table) connect, play one game answering at once, then record the next games
one answer at a time.  Which lines an answer caused cannot be told from arrival order (the
server writes to three sockets; a bot may read one before the others), so every step is closed
with a **probe**: an action for request 1, which is answered, closed and long gone after the
first game, so the server replies ``stale_request`` and changes nothing (a stale answer costs
no try).  The server handles lines in order, and a table handles one input at a time, sending
everything that input causes before it reads the next; so on each connection the probe's reply
comes after every line of the step it closes:

1. start of a game: once a request of the new game has arrived (the game's start has been
   sent), probe every seat; each seat's lines up to its probe reply are the start step;
2. then, in the order the requests arrived, answer one (with its first legal action, as the
   benchmark's bots do) and probe the same connection in the same write: when that reply
   arrives the answer has been played; then probe the other seats; each seat's lines up to its
   reply are this answer's step.  When the answer ended the game (``game_end`` came before the
   reply), each seat's step ends at its ``game_end`` instead, and the other seats are not
   probed (the next game's lines may come before a late reply: they stay for the next start).

A recording fails (``RecordingError``) on any other error, cancel or bye, on a closed
connection, when a request is left unanswered at the end of a game, or after ``timeout``
seconds without progress.
"""

from __future__ import annotations

import selectors
import socket
import time
from collections import deque
from collections.abc import Callable

from decision_client import REQUEST_PREFIX, action_for, read_welcome
from decision_script import Script, Step

#: A line that closes a step: request 1 is closed after the first game (answered or not).
PROBE = b'{"type":"action","id":1,"action":"probe"}\n'
PROBE_REPLY = b'"code":"stale_request"'
GAME_START_PREFIX = b'{"type":"game_start"'
GAME_END_PREFIX = b'{"type":"game_end"'
TROUBLE_PREFIXES = (b'{"type":"error"', b'{"type":"cancel"', b'{"type":"bye"')


class RecordingError(Exception):
    pass


class SeatStream:
    """What one recording bot received: its lines (probe replies left out) and where the
    probe replies came."""

    def __init__(self, seat: int, sock: socket.socket, rest: bytes) -> None:
        self.seat = seat
        self.sock = sock
        self.buffer = rest
        self.lines: list[bytes] = []
        self.replies: list[int] = []  # len(lines) when each probe reply came
        self.probes = 0  # probes sent
        self.game_ends: list[int] = []  # len(lines) after each game_end
        self.cursor = 0  # the first line not yet in a step

    def take(self, data: bytes) -> None:
        lines = (self.buffer + data).split(b"\n")
        self.buffer = lines.pop()
        for line in lines:
            if line.startswith(TROUBLE_PREFIXES):
                if PROBE_REPLY in line:
                    self.replies.append(len(self.lines))
                    continue
                raise RecordingError(f"seat {self.seat} got {line[:300]!r}")
            self.lines.append(line + b"\n")
            if line.startswith(GAME_END_PREFIX):
                self.game_ends.append(len(self.lines))
            elif not self.game_ends and line.startswith(REQUEST_PREFIX):
                self.sock.sendall(action_for(line))  # the first game: answered at once

    def probe(self, answer: bytes = b"") -> None:
        """Send ``answer`` (if any) and a probe, in one write."""
        self.sock.sendall(answer + PROBE)
        self.probes += 1

    def replied(self) -> bool:
        return len(self.replies) == self.probes

    def cut(self, end: int) -> bytes:
        """The lines from the cursor to ``end``, as one step's part; the cursor moves on."""
        part = b"".join(self.lines[self.cursor:end])
        self.cursor = end
        return part

    def pending(self) -> list[bytes]:
        return self.lines[self.cursor:]


class Recorder:
    def __init__(self, port: int, players: int, timeout: float = 20.0) -> None:
        self.players = players
        self.timeout = timeout
        self.selector = selectors.DefaultSelector()
        self.seats: list[SeatStream] = []
        self.welcome = b""
        for seat in range(players):
            sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.welcome, rest = read_welcome(sock)
            sock.sendall(b'{"type":"hello","name":"dpR%04d"}\n' % seat)
            sock.setblocking(True)
            self.seats.append(SeatStream(seat, sock, rest))
            self.selector.register(sock, selectors.EVENT_READ, self.seats[-1])

    def close(self) -> None:
        for seat in self.seats:
            seat.sock.close()
        self.selector.close()

    def pump(self, until: Callable[[], bool], what: str) -> None:
        """Read what the server sends until ``until()`` holds."""
        deadline = time.monotonic() + self.timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                raise RecordingError(f"no progress in {self.timeout:g} s waiting for {what}")
            for key, _ in self.selector.select(left):
                seat: SeatStream = key.data
                data = seat.sock.recv(262144)
                if not data:
                    raise RecordingError(f"the server closed seat {seat.seat}'s connection")
                seat.take(data)

    def record(self, games: int) -> Script:
        seats = self.seats
        self.pump(lambda: all(seat.game_ends for seat in seats), "the end of the first game")
        for seat in seats:
            seat.cursor = seat.game_ends[0]
        recorded = tuple(self._game(number) for number in range(1, games + 1))
        return Script(welcome=self.welcome, players=self.players, games=recorded)

    def _game(self, number: int) -> tuple[Step, ...]:
        seats = self.seats

        def started() -> bool:
            return (all(any(line.startswith(GAME_START_PREFIX) for line in seat.pending())
                        for seat in seats)
                    and any(line.startswith(REQUEST_PREFIX)
                            for seat in seats for line in seat.pending()))

        self.pump(started, f"the start of game {number}")
        steps = [self._probed_step(None, seats)]
        requests = deque(self._requests(steps[0]))
        while requests:
            seat, request = requests.popleft()
            acting = seats[seat]
            acting.probe(action_for(request))
            self.pump(acting.replied, f"the reply to seat {seat}'s answer")
            if any(line.startswith(GAME_END_PREFIX) for line in
                   acting.lines[acting.cursor:acting.replies[-1]]):
                self.pump(lambda: all(len(s.game_ends) > number for s in seats),
                          f"the end of game {number}")
                steps.append(Step(seat, tuple(s.cut(s.game_ends[number]) for s in seats)))
                if requests:
                    raise RecordingError(f"game {number} ended with requests open")
                return tuple(steps)
            others = [s for s in seats if s is not acting]
            steps.append(self._probed_step(seat, others, acting.cut(acting.replies[-1])))
            requests.extend(self._requests(steps[-1]))
        raise RecordingError(f"game {number} stopped without a game_end")

    def _probed_step(self, trigger: int | None, probed: list[SeatStream],
                     acting_part: bytes = b"") -> Step:
        for seat in probed:
            seat.probe()
        self.pump(lambda: all(seat.replied() for seat in probed), "the probes' replies")
        parts = {seat.seat: seat.cut(seat.replies[-1]) for seat in probed}
        return Step(trigger, tuple(parts.get(seat, acting_part) for seat in range(self.players)))

    @staticmethod
    def _requests(step: Step) -> list[tuple[int, bytes]]:
        return [(seat, line) for seat, part in enumerate(step.out)
                for line in part.split(b"\n") if line.startswith(REQUEST_PREFIX)]


def record_script(port: int, players: int, games: int, timeout: float = 20.0) -> Script:
    """Record ``games`` games (after one unrecorded game) at one table of the server on
    ``port``; the three connections are closed afterwards."""
    recorder = Recorder(port, players, timeout)
    try:
        return recorder.record(games)
    finally:
        recorder.close()
