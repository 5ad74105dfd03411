"""The bots of ``decision_path.py``: many cheap closed-loop bots in one process, one group per
server.

A bot is a plain non-blocking socket.  It answers every request at once with its first legal
action, found by string search (``action_for``: no JSON parsing; events are only counted).
The bots of one server form a :class:`Group` with its own epoll, so that while one group is
driven the sockets of the others are not even looked at: their servers' tables wait for
answers that do not come, and only what was already in flight finishes there.
"""

from __future__ import annotations

import select
import socket
import time
from dataclasses import dataclass, field

REQUEST_PREFIX = b'{"type":"request"'
GAME_END_PREFIX = b'{"type":"game_end"'
#: Lines a healthy run never gets: a wrong answer, a cancelled request, a server that leaves.
TROUBLE_PREFIXES = (b'{"type":"error"', b'{"type":"cancel"', b'{"type":"bye"')
#: Bytes asked of a socket per read.
READ_SIZE = 262144
#: Seconds a bot waits for the server's welcome.
WELCOME_SECONDS = 30.0


def action_for(request: bytes) -> bytes:
    """The answer to a request line: its first legal action, with its id.

    By string search, as the request's fields come in arena's order (``"id"`` before
    ``"legal"``); the action token is copied as it stands (arena's tokens need no escaping)."""
    start = request.index(b'"id":') + 5
    end = start
    while request[end] in b"-0123456789":
        end += 1
    legal = request.index(b'"legal":["') + 10
    return b'{"type":"action","id":%b,"action":"%b"}\n' % (
        request[start:end], request[legal:request.index(b'"', legal)])


def read_welcome(sock: socket.socket) -> tuple[bytes, bytes]:
    """Block until the server's first line has come: that line (with its newline) and what
    came after it (nothing, normally)."""
    sock.settimeout(WELCOME_SECONDS)
    data = b""
    while b"\n" not in data:
        chunk = sock.recv(READ_SIZE)
        if not chunk:
            raise ConnectionError("the server closed the connection before its welcome")
        data += chunk
    welcome, rest = data.split(b"\n", 1)
    return welcome + b"\n", rest


@dataclass
class Tally:
    """What a group did in one window."""

    decisions: int = 0  # actions sent
    lines_in: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    games: int = 0  # game_end lines received
    closed: int = 0  # connections the server ended
    trouble: list[bytes] = field(default_factory=list)  # unexpected lines (their first bytes)


class Bot:
    __slots__ = ("sock", "buffer", "unsent")

    def __init__(self, sock: socket.socket, buffer: bytes) -> None:
        self.sock = sock
        self.buffer = buffer  # the start of a line not yet complete
        self.unsent = b""  # what the socket did not take at once


class Group:
    """The bots of one server, named ``<prefix><number>`` (all names of one length)."""

    def __init__(self, label: str, port: int, count: int, prefix: str) -> None:
        self.label = label
        self.port = port
        self.count = count
        self.prefix = prefix
        self.epoll = select.epoll()
        self.bots: dict[int, Bot] = {}  # by file descriptor

    def connect(self) -> None:
        for number in range(self.count):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=WELCOME_SECONDS)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            _, rest = read_welcome(sock)
            sock.sendall(b'{"type":"hello","name":"%s%04d"}\n' % (self.prefix.encode(), number))
            sock.setblocking(False)
            self.bots[sock.fileno()] = Bot(sock, rest)
            self.epoll.register(sock.fileno(), select.EPOLLIN)

    def close(self) -> None:
        for bot in self.bots.values():
            bot.sock.close()
        self.bots.clear()
        self.epoll.close()

    def drive(self, seconds: float) -> Tally:
        """Answer every request of this group's bots for ``seconds``."""
        tally = Tally()
        deadline = time.monotonic() + seconds
        poll, bots = self.epoll.poll, self.bots
        while (timeout := deadline - time.monotonic()) > 0:
            for fd, mask in poll(timeout):
                bot = bots.get(fd)
                if bot is None:
                    continue
                if mask & select.EPOLLOUT:
                    self._flush(fd, bot)
                if mask & (select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR):
                    self._receive(fd, bot, tally)
        return tally

    def _receive(self, fd: int, bot: Bot, tally: Tally) -> None:
        try:
            data = bot.sock.recv(READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            tally.closed += 1
            self.epoll.unregister(fd)
            del self.bots[fd]
            bot.sock.close()
            return
        tally.bytes_in += len(data)
        lines = (bot.buffer + data).split(b"\n")
        bot.buffer = lines.pop()
        tally.lines_in += len(lines)
        answers = []
        for line in lines:
            if line.startswith(REQUEST_PREFIX):
                answers.append(action_for(line))
            elif line.startswith(GAME_END_PREFIX):
                tally.games += 1
            elif line.startswith(TROUBLE_PREFIXES):
                tally.trouble.append(line[:200])
        if answers:
            tally.decisions += len(answers)
            self._send(fd, bot, b"".join(answers), tally)

    def _send(self, fd: int, bot: Bot, data: bytes, tally: Tally) -> None:
        tally.bytes_out += len(data)
        if bot.unsent:
            bot.unsent += data
            return
        try:
            sent = bot.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            return  # the read side sees the end
        if sent < len(data):
            bot.unsent = data[sent:]
            self.epoll.modify(fd, select.EPOLLIN | select.EPOLLOUT)

    def _flush(self, fd: int, bot: Bot) -> None:
        try:
            sent = bot.sock.send(bot.unsent)
        except BlockingIOError:
            return
        except OSError:
            bot.unsent = b""
            return
        bot.unsent = bot.unsent[sent:]
        if not bot.unsent:
            self.epoll.modify(fd, select.EPOLLIN)
