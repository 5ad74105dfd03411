"""A link writes straight to its socket when it can, through its writer task when it cannot,
and never to a socket that is closed."""

from __future__ import annotations

import trio
import trio.testing

from arena.edge.session import Link, Session
from protocol.connection import ServerConnection
from protocol.messages import Welcome
from tests.helpers import make_server


def a_link_on_a_socket() -> tuple[Link, trio.SocketStream, trio.SocketStream]:
    ours, theirs = trio.socket.socketpair()
    link = Link(ServerConnection(game="chochlik"))
    link.fd = ours.fileno()
    return link, trio.SocketStream(ours), trio.SocketStream(theirs)


async def receive_exactly(stream: trio.SocketStream, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = await stream.receive_some(size - len(data))
        assert chunk
        data += chunk
    return bytes(data)


async def test_lines_pushed_to_an_idle_socket_are_written_at_once_in_one_piece():
    link, ours, theirs = a_link_on_a_socket()
    assert link.queue(b"event\n", "bot") and link.queue(b"request\n", "bot")
    link.push()  # no writer task runs: only a direct write can deliver
    assert link.queued_bytes == 0 and link.take_queued() == []
    assert await receive_exactly(theirs, 14) == b"event\nrequest\n"


async def test_what_the_socket_cannot_take_is_sent_by_the_writer_in_order():
    link, ours, theirs = a_link_on_a_socket()
    lines = [b"%06d" % n + b"x" * 993 + b"\n" for n in range(2000)]  # 2 MB: over the buffers
    for line in lines:
        assert link.send(line, "bot") is None
    assert link.queued_bytes > 0  # the kernel took part of it; the rest waits
    async with trio.open_nursery() as nursery:
        nursery.start_soon(link.write_all, ours, 64 * 1024)
        received = await receive_exactly(theirs, len(lines) * 1000)
        link.finish()
    assert received == b"".join(lines) and link.queued_bytes == 0


async def test_the_writer_task_alone_serves_a_stream_without_a_socket():
    ours, theirs = trio.testing.memory_stream_pair()
    session = Session(1, ServerConnection(game="chochlik"))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.link.write_all, ours, 1024)
        session.send(Welcome(protocol=1, server="arena", game="chochlik", players=3,
                             limits={}))
        assert b'"type":"welcome"' in await theirs.receive_some()
        session.finish()


async def test_a_connection_that_ended_is_never_written_to_again(nursery, tmp_path,
                                                                 autojump_clock):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    ours, theirs = trio.socket.socketpair()
    nursery.start_soon(server.handle_stream, trio.SocketStream(ours))
    peer = trio.SocketStream(theirs)
    assert b"welcome" in await peer.receive_some()
    (session,) = server.sessions
    link = session.link
    assert link.fd == ours.fileno()
    await peer.aclose()
    while server.sessions:
        await server.wait_for_change()
    assert link.fd is None and not link.alive  # its number may name another socket now
    assert not link.queue(b"late\n", "bot")
