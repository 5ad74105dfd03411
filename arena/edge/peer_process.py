"""Which process is at the other end of a loopback TCP connection (Linux ``/proc``).

``arena match`` and ``arena tournament`` launch the bots themselves, so they know which process
was given which token.  A token read by another process (from a file, a command line, or the
memory of a process of the same user) must not win that bot's seat: :class:`ProcessBinding`
admits a token only from a connection whose socket is held by the process the token was given
to, or by one of its descendants (a ``sh -c`` wrapper, say) or a process in its session.

A process is known by its identity, not its number: its PID *and* its start time (field 22 of
``/proc/PID/stat``), so a process that gets the same PID after the bot ended (PIDs are reused:
another bot can fork until it gets one) is not the bot.  Once the launched process has ended
(a zombie counts as ended) its token is refused, from any process, until the runner is done.

The socket is found by its addresses in ``/proc/net/tcp`` / ``tcp6``, and its holder by the
``socket:[inode]`` links under ``/proc/PID/fd``.  Where ``/proc`` cannot answer (another
system), :attr:`ProcessBinding.available` is false and tokens alone decide.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import attrs
import trio

PROC = Path("/proc")

Address = tuple[str, int]


def _hex_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> str:
    """An address as ``/proc/net/tcp*`` writes it: the IP in host byte order, then the port."""
    packed = ip.packed
    if len(packed) == 4:
        text = packed[::-1].hex()
    else:  # four 32-bit words, each in host (little-endian) order
        text = "".join(packed[i:i + 4][::-1].hex() for i in range(0, 16, 4))
    return f"{text.upper()}:{port:04X}"


def _hex_variants(address: Address) -> set[str]:
    """The ways ``address`` can appear: an IPv4 address both as itself (``tcp``) and as the
    IPv4-mapped IPv6 address a dual-stack socket has (``tcp6``: the JVM's sockets, say), an
    IPv6 address as itself."""
    ip = ipaddress.ip_address(address[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    variants = {_hex_address(ip, address[1])}
    if isinstance(ip, ipaddress.IPv4Address):
        variants.add(_hex_address(ipaddress.IPv6Address(f"::ffff:{ip}"), address[1]))
    return variants


def socket_inode(bot_side: Address, server_side: Address) -> int | None:
    """The inode of the bot's end of the connection ``bot_side`` -> ``server_side``."""
    local, remote = _hex_variants(bot_side), _hex_variants(server_side)
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[1] in local and fields[2] in remote:
                return int(fields[9])
    return None


def _fields(pid: int) -> list[str] | None:
    """``/proc/PID/stat`` from field 3 (the state) on: field n is at index n - 3."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()  # after the command name, which may hold spaces


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, session id) of ``pid``."""
    fields = _fields(pid)
    return None if fields is None else (int(fields[1]), int(fields[3]))


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot: field 22 of ``/proc/PID/stat``), or None
    if no such process is running (an ended process that is not reaped yet, a zombie, is not)."""
    fields = _fields(pid)
    if fields is None or fields[0] in ("Z", "X", "x"):
        return None
    return int(fields[19])


@attrs.frozen
class ProcessIdentity:
    """A process: its PID and when it started (one PID can be several processes in turn)."""

    pid: int
    started: int | None

    def running(self) -> bool:
        return self.started is not None and start_time(self.pid) == self.started


def _pids() -> Iterator[int]:
    for entry in os.scandir(PROC):
        if entry.name.isdigit():
            yield int(entry.name)


def family(root: int) -> set[int]:
    """``root``, its descendants, and every process in its session."""
    parents: dict[int, int] = {}
    members = {root}
    for pid in _pids():
        stat = _stat(pid)
        if stat is None:
            continue
        parents[pid] = stat[0]
        if stat[1] == root:
            members.add(pid)
    for pid in parents:
        chain: list[int] = []
        ancestor = pid
        while ancestor > 1 and ancestor not in members and len(chain) < 64:
            chain.append(ancestor)
            ancestor = parents.get(ancestor, 0)
        if ancestor in members:
            members.update(chain)
    return members


def holds_socket(pid: int, inode: int) -> bool:
    target = f"socket:[{inode}]"
    try:
        entries = os.scandir(PROC / str(pid) / "fd")
    except OSError:
        return False
    with entries:
        for entry in entries:
            try:
                if os.readlink(entry.path) == target:
                    return True
            except OSError:
                continue
    return False


class ProcessBinding:
    """Tokens bound to the processes they were given to."""

    def __init__(self) -> None:
        self.available = (PROC / "net" / "tcp").exists() and (PROC / "self" / "fd").exists()
        self.owners: dict[str, ProcessIdentity] = {}
        self.released: set[str] = set()
        #: Tokens given out (their file written) whose process is not bound yet, each with the
        #: event its binding (or release) sets: a hello with one waits for it (see
        #: :meth:`until_bound`), so a sibling that reads the file before the runner has bound
        #: the new process cannot slip in as "never bound".
        self.expected: dict[str, trio.Event] = {}

    def expect(self, token: str) -> None:
        """``token`` is about to be given to a process (before its file is written)."""
        self.expected.setdefault(token, trio.Event())

    def pending(self, token: str) -> bool:
        """Was ``token`` given out to a process not bound yet?"""
        return token in self.expected

    async def until_bound(self, token: str) -> None:
        """Wait until ``token``'s process is bound or released (the caller bounds the wait)."""
        event = self.expected.get(token)
        if event is not None:
            await event.wait()

    def bind(self, token: str, pid: int, started: int | None = None) -> None:
        """Bind ``token`` to the process ``pid`` that runs now (``started``: its start time,
        read from ``/proc`` when not given)."""
        self.owners[token] = ProcessIdentity(pid, start_time(pid) if started is None
                                             else started)
        self.released.discard(token)
        self._settled(token)

    def release(self, token: str) -> None:
        """The process ``token`` was given to has ended: from now on no process may use it."""
        if token in self.owners or token in self.expected:
            self.owners.pop(token, None)
            self.released.add(token)
        self._settled(token)

    def _settled(self, token: str) -> None:
        event = self.expected.pop(token, None)
        if event is not None:
            event.set()

    def allows(self, token: str, bot_side: Address | None, server_side: Address | None) -> bool:
        """May the connection ``bot_side`` -> ``server_side`` use ``token``?  Tokens never bound
        here, connections without sockets (a runner's pipe) and systems without ``/proc`` are
        let through: the token alone decides there.  A token whose process has ended is not."""
        if not self.available or bot_side is None or server_side is None:
            return True
        if token in self.released or token in self.expected:  # ended, or not bound yet
            return False
        owner = self.owners.get(token)
        if owner is None:
            return True
        if not owner.running():  # ended, or its PID now belongs to another process
            return False
        inode = socket_inode(bot_side, server_side)
        if inode is None:
            return False
        members = family(owner.pid)
        # checked again after the walk: the owner could have ended and its PID been reused
        return owner.running() and any(holds_socket(pid, inode) for pid in members)


def socket_addresses(sock: socket.socket | None) -> tuple[Address, Address] | None:
    """(peer, local) addresses of a connected TCP socket, as (host, port) pairs."""
    if sock is None:
        return None
    try:
        peer, local = sock.getpeername(), sock.getsockname()
    except (OSError, AttributeError):
        return None
    if not isinstance(peer, tuple) or not isinstance(local, tuple):
        return None
    return (str(peer[0]), int(peer[1])), (str(local[0]), int(local[1]))
