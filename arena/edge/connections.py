"""The edge's guards on connections: how many this process can hold, who a peer is, and how
a connection the server will not serve is refused."""

from __future__ import annotations

import contextlib

import trio

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import Error

#: File descriptors kept free for logs, listeners and the runner's pipes.
FILE_HEADROOM = 128


def connection_limit() -> int:
    """How many connections this process can hold: its open-file limit (raised to the hard
    limit where allowed) less :data:`FILE_HEADROOM`, so logs can always be written."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > soft):
            target = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        if soft == resource.RLIM_INFINITY:
            soft = 65536
    except (ImportError, ValueError, OSError):
        soft = 1024
    return max(16, soft - FILE_HEADROOM)


def peer_address(stream: trio.abc.Stream) -> str:
    """The peer's IP address, or ``local`` for a stream without a socket (tests)."""
    sock = getattr(stream, "socket", None)
    try:
        return str(sock.getpeername()[0]) if sock is not None else "local"
    except (OSError, IndexError, TypeError):
        return "unknown"


#: Seconds a closing connection's unread input is drained, so that closing does not reset it
#: (a TCP reset can destroy replies the peer has not read yet).
LINGER = 1.0


async def close_gently(stream: trio.abc.Stream, linger: float = LINGER) -> None:
    """Close after our last bytes: end our side, read and drop what the peer still sends
    (up to ``linger`` seconds) so the kernel does not reset the connection, then close."""
    with trio.move_on_after(linger):
        try:
            if isinstance(stream, trio.abc.HalfCloseableStream):
                await stream.send_eof()
            while await stream.receive_some(65536):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError,
                OSError):
            pass
    with trio.CancelScope(shield=True), trio.move_on_after(1):
        await stream.aclose()


async def refuse(stream: trio.abc.Stream, code: ErrorCode, message: str) -> None:
    """Tell a connection we will not serve it why, and close it (never waits long)."""
    with trio.move_on_after(1):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await stream.send_all(encode(Error(code=code.value, fatal=True, message=message)))
    await close_gently(stream, linger=0.2)  # a short linger: refusals come in floods


#: Connections beyond the limit that are still told why they are refused (the others are
#: closed at once); the open-file headroom (:data:`FILE_HEADROOM`) covers them.
REFUSAL_ROOM = 32


async def let_in(stream: trio.abc.Stream, *, open_streams: int, limit: int,
                 from_address: int, address_limit: int, closing: bool) -> bool:
    """The door's count: whether a new connection (``open_streams`` counting it,
    ``from_address`` others from its address) may go on.  Past the room kept for polite
    refusals (or while closing) it is closed at once, so that the files kept for logs stay
    free whatever floods in; past a limit it is refused with why."""
    if closing or open_streams > limit + REFUSAL_ROOM:
        with trio.CancelScope(shield=True):
            await stream.aclose()
        return False
    if open_streams > limit or from_address >= address_limit:
        await refuse(stream, ErrorCode.TOO_MANY_CONNECTIONS,
                     f"this server holds {limit} connections at most, "
                     f"{address_limit} from one address")
        return False
    return True
