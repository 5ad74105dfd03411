"""The server's limits (SPEC.md "Limits"): connections in total and per address, the time to
say hello, and the bytes queued for a bot that does not read."""

from __future__ import annotations

import random

import attrs
import trio
import trio.testing

from arena.edge.connections import connection_limit
from arena.edge.server import ArenaServer
from arena.edge.session import Session
from protocol.connection import ServerConnection
from protocol.messages import Error, Welcome
from tests.helpers import connect_in_memory, connect_tcp, in_memory_clients, log_files, make_server


def with_config(tmp_path, **limits) -> ArenaServer:
    server = make_server(tmp_path)
    return ArenaServer(attrs.evolve(server.config, **limits), seating=server.seating)


async def test_connections_over_the_limit_are_refused_with_a_reason(nursery, tmp_path):
    server = with_config(tmp_path, max_connections=2)
    await nursery.start(server.serve, False)
    first, second = [await connect_in_memory(nursery, server) for _ in range(2)]
    await first.until("welcome")
    await second.until("welcome")
    third = await connect_in_memory(nursery, server)
    error = await third.receive()
    assert error["type"] == "error" and error["code"] == "too_many_connections"
    assert error["fatal"] is True
    assert await third.receive() is None  # and closed
    # a place frees up when a connection ends
    await first.stream.aclose()
    while server.open_streams > 1:  # its socket is closed, not only its session
        await server.wait_for_change()
    fourth = await connect_in_memory(nursery, server)
    assert (await fourth.receive())["type"] == "welcome"


async def test_one_address_may_hold_only_so_many_connections(nursery, tmp_path):
    server = with_config(tmp_path, max_connections_per_address=2)
    port = await nursery.start(server.serve)
    clients = [await connect_tcp(port) for _ in range(2)]
    for client in clients:
        assert (await client.receive())["type"] == "welcome"
    refused = await connect_tcp(port)
    error = await refused.receive()
    assert error["code"] == "too_many_connections" and await refused.receive() is None
    assert server.per_address == {"127.0.0.1": 2}


async def test_a_connection_that_never_says_hello_is_closed(nursery, tmp_path, autojump_clock):
    server = with_config(tmp_path, hello_timeout=10.0)
    await nursery.start(server.serve, False)
    silent = await connect_in_memory(nursery, server)
    welcome = await silent.until("welcome")
    assert welcome["limits"]["hello_timeout_ms"] == 10000
    started = trio.current_time()
    error = await silent.until("error")
    assert error["code"] == "hello_timeout" and error["fatal"] is True
    assert trio.current_time() - started >= 10.0
    assert await silent.receive() is None
    assert not server.sessions
    # a bot that says hello in time is not affected
    polite = await connect_in_memory(nursery, server)
    await polite.hello("polite")
    await trio.sleep(30)
    assert len(server.sessions) == 1


def test_a_bot_that_does_not_read_is_dropped_by_bytes_queued():
    async def main():
        session = Session(1, ServerConnection(game="chochlik"), max_queued_bytes=10_000)
        session.send(Welcome(protocol=1, server="arena", game="chochlik", players=3, limits={}))
        big = Error(code="malformed", message="y" * 3000)
        for _ in range(3):
            session.send(big)
        assert session.alive and session.queued_bytes > 9000
        session.send(big)  # the fourth would pass 10,000 bytes
        assert not session.alive
    trio.run(main)


def test_the_default_connection_limit_leaves_room_for_logs():
    import resource

    limit = connection_limit()
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert 16 <= limit <= soft - 128 or soft == resource.RLIM_INFINITY


async def test_a_connection_that_floods_lines_is_told_too_fast_and_closed(nursery, tmp_path,
                                                                          autojump_clock):
    server = with_config(tmp_path, max_messages_per_second=10.0)
    await nursery.start(server.serve, False)
    flood = await connect_in_memory(nursery, server)
    welcome = await flood.hello("flood")
    assert welcome["limits"]["max_messages_per_second"] == 10.0
    await flood.send(b'{"type":"action","id":1,"action":"x"}\n' * 50)  # over the burst of 20
    error = await flood.until("error", code="too_fast")
    assert error["fatal"] is True
    while await flood.receive() is not None:
        pass  # closed
    # one that keeps to the rate is never refused
    steady = await connect_in_memory(nursery, server)
    await steady.hello("steady")
    for _ in range(60):
        await steady.send({"type": "action", "id": 1, "action": "x"})
        await trio.sleep(0.2)
        assert (await steady.receive())["code"] == "wrong_request_id"


async def test_a_bot_that_answers_as_fast_as_it_is_asked_is_never_too_fast(nursery, tmp_path,
                                                                         autojump_clock):
    server = with_config(tmp_path, max_messages_per_second=1.0)  # a burst of 2 lines
    await nursery.start(server.serve, False)
    clients = [await connect_in_memory(nursery, server) for _ in range(3)]
    for number, client in enumerate(clients):
        await client.hello(f"quick{number}")
    rng = random.Random(3)
    async with trio.open_nursery() as players:  # every answer at once: no time passes
        for client in clients:
            players.start_soon(client.play_randomly, rng)
    for client in clients:
        answers = sum(1 for m in client.seen if m["type"] == "request")
        assert answers > 10  # far over the burst, all in the same instant
        assert not [m for m in client.seen if m["type"] == "error"]
    (record,) = server.records
    assert record.errors == (0, 0, 0)


async def test_a_bot_that_waits_too_long_without_a_seat_is_disconnected(nursery, tmp_path,
                                                                        autojump_clock):
    server = with_config(tmp_path, idle_timeout=30.0)
    await nursery.start(server.serve, False)
    lonely = await connect_in_memory(nursery, server)
    welcome = await lonely.hello("lonely")
    assert welcome["limits"]["idle_timeout_ms"] == 30000
    started = trio.current_time()
    error = await lonely.until("error")
    assert error["code"] == "idle_timeout" and error["fatal"] is True
    assert 30.0 < trio.current_time() - started <= 40.0
    assert await lonely.receive() is None
    assert server.seating.statistics().tables_started == 0
    # bots seated at a table are not idle, however long their game lasts
    clients = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(clients):
        await client.hello(f"b{i}")
    await clients[0].until("game_start")
    await trio.sleep(100)
    assert len(server.sessions) == 3


async def test_a_registered_name_cannot_be_used_without_its_token(nursery, tmp_path):
    from arena.seating.policies import ArrivalSeating

    server = make_server(tmp_path)
    server = ArenaServer(server.config, seating=ArrivalSeating(3, {"alice": "a" * 16}))
    await nursery.start(server.serve, False)
    thief = await connect_in_memory(nursery, server)
    await thief.hello("alice", token="b" * 16)
    error = await thief.until("error")
    assert error["code"] == "bad_token" and error["fatal"] is True
    assert await thief.receive() is None
    stranger = await connect_in_memory(nursery, server)
    await stranger.hello("mallory")
    assert (await stranger.until("error"))["code"] == "unknown_token"
    alice = await connect_in_memory(nursery, server)
    await alice.hello("alice", token="a" * 16)
    await trio.sleep(1)
    assert [s.name for s in server.sessions if s.admitted] == ["alice"]


async def test_a_table_never_starts_with_a_bot_already_gone(nursery, tmp_path):
    """Defect 4 (churn): a client that says hello and closes at once must not cost two honest
    bots a game against the default policy, nor leave a log."""
    import random

    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    honest = [await connect_in_memory(nursery, server) for _ in range(2)]
    for i, client in enumerate(honest):
        await client.hello(f"honest{i}")
    for _ in range(5):  # churn: connect, hello, close, as fast as it can
        ghost = await connect_in_memory(nursery, server)
        await ghost.until("welcome")
        await ghost.stream.send_all(b'{"type":"hello","name":"ghost"}\n')
        await ghost.stream.aclose()
    with trio.fail_after(5):  # a game started with a ghost would take minutes of timeouts
        while server.tables:
            await server.wait_for_change()
    assert server.records == [] and not log_files(tmp_path / "logs")
    late = await connect_in_memory(nursery, server)
    await late.hello("honest2")
    ends = []
    async with trio.open_nursery() as table:
        async def play(client, i):
            ends.append(await client.play_randomly(random.Random(i)))

        for i, client in enumerate([*honest, late]):
            table.start_soon(play, client, i)
    assert len(ends) == 3 and not ends[0].get("aborted")
    [record] = server.records
    assert sorted(record.names) == ["honest0", "honest1", "honest2"]


async def test_a_flood_past_the_refusal_room_is_closed_at_once(nursery, tmp_path, monkeypatch):
    """Refusals linger a moment (so the reason arrives); past a small room they are closed at
    once, so that a flood can never take the files kept for logs."""
    import arena.edge.connections

    monkeypatch.setattr(arena.edge.connections, "REFUSAL_ROOM", 2)
    server = with_config(tmp_path, max_connections=1)
    await nursery.start(server.serve, False)
    held = await connect_in_memory(nursery, server)
    await held.until("welcome")
    flood = [await connect_in_memory(nursery, server) for _ in range(6)]
    replies = [await client.receive() for client in flood]
    told = [r for r in replies if r is not None]
    assert told and all(r["code"] == "too_many_connections" for r in told)
    assert len(told) < len(flood)  # the rest were closed without a word


async def test_a_hello_whose_token_is_still_being_checked_is_not_timed_out(
        nursery, tmp_path, autojump_clock):
    # arena serve --db checks the token of a bot registered before issue 29 (a scrypt hash)
    # in a worker thread, one at a time: 1,000 such bots connecting at once wait minutes for
    # theirs.  A hello said in time is not refused for the server's own slowness.
    import threading

    release = threading.Event()

    class Held:
        def slow(self, name: str, token: str | None) -> bool:
            return True

        def prepare(self, name: str, token: str | None) -> None:
            release.wait(30)

    server = attrs.evolve(with_config(
        # the clock may jump while the last check runs in its thread: no idle timeout then
        tmp_path, hello_timeout=10.0, idle_timeout=1e9).config, prepare_hello=Held())
    server = ArenaServer(server)
    await nursery.start(server.serve, False)
    bots = await in_memory_clients(nursery, server, 3)
    await trio.sleep(20)  # the check outlasts the hello timeout
    release.set()
    for bot in bots:
        await bot.until("game_start")
    assert not any(message["type"] == "error" for bot in bots for message in bot.seen)
