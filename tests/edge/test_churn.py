"""Churn (issue 17, item 4; issue 29, item 4): clients looping ``connect, hello, close`` cost
honest bots no games.  A newcomer settles before it is seated, survivors of a table that did
not start keep their place, an address that says hello too often is refused
(``too_many_hellos``), and newcomers on probation never sit with the bots that play here,
whatever addresses they come from."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable

import attrs
import pytest
import trio

from arena.edge.server import ArenaServer
from arena.seating.arrival import NEWCOMER_PROBATION
from tests.helpers import LineClient, connect_in_memory, connect_tcp, make_server


async def churn_once(port: int) -> None:
    """Connect, say hello, close at once (the hello and the end of the stream go together)."""
    ghost = await connect_tcp(port)
    await ghost.until("welcome")
    await ghost.stream.send_all(b'{"type":"hello","name":"ghost"}\n')
    await ghost.stream.send_eof()
    await ghost.stream.aclose()


async def play_all(clients: list[LineClient]) -> list[dict]:
    ends: list[dict] = []
    async with trio.open_nursery() as table:
        async def play(client: LineClient, i: int) -> None:
            ends.append(await client.play_randomly(random.Random(i)))

        for i, client in enumerate(clients):
            table.start_soon(play, client, i)
    return ends


async def test_a_client_that_says_hello_and_closes_is_never_seated(nursery, tmp_path):
    server = make_server(tmp_path)
    port = await nursery.start(server.serve)
    honest = [await connect_tcp(port) for _ in range(2)]
    for i, client in enumerate(honest):
        await client.hello(f"honest{i}")
    for _ in range(5):  # without settling, each would fill a table with the two honest bots
        await churn_once(port)
    late = await connect_tcp(port)
    await late.hello("honest2")
    ends = await play_all([*honest, late])
    assert len(ends) == 3 and not ends[0].get("aborted")
    starts = [m for m in honest[0].seen if m["type"] == "game_start"]
    assert starts[0]["table"] == 1  # no table was ever made with a ghost
    assert sorted(starts[0]["names"]) == ["honest0", "honest1", "honest2"]
    await server.shutdown()


async def test_survivors_of_a_table_that_did_not_start_are_seated_before_later_bots(
        nursery, tmp_path, autojump_clock):
    """A seated bot that leaves while its table settles: the two others go back to the front
    of the queue, ahead of a bot that came after them."""
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    first = [await connect_in_memory(nursery, server) for _ in range(2)]
    for i, client in enumerate(first):
        await client.hello(f"first{i}")
    leaver = await connect_in_memory(nursery, server)
    await leaver.hello("leaver")
    while not server.tables:  # seated after settling (virtual time)
        await server.wait_for_change()
    await trio.sleep(0.001)  # virtual time (MockClock): the table's task is settling now
    await leaver.stream.aclose()  # gone before the table's game starts
    later = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(later):
        await client.hello(f"later{i}")
    starts = [await client.until("game_start") for client in first]
    assert starts[0]["table"] == 2  # table 1 never started
    assert sorted(starts[0]["names"]) == ["first0", "first1", "later0"]
    other = await later[1].until("game_start")
    assert other["table"] != 2
    await server.shutdown()


async def test_an_address_that_says_hello_too_often_waits_its_turn_then_is_refused(
        nursery, tmp_path, autojump_clock):
    """4 hellos a second from one address on average, twice as many at once: later
    connections are welcomed when their turn comes (a quarter second apart), and one whose
    turn is more than 2 s off is refused with ``too_many_hellos``.  In-memory connections all
    come from one address, ``local``; the clock is virtual."""
    base = make_server(tmp_path)
    server = ArenaServer(attrs.evolve(base.config, max_hellos_per_second=4.0))
    await nursery.start(server.serve, False)
    began = trio.current_time()
    clients = [await connect_in_memory(nursery, server) for _ in range(17)]  # all at once
    firsts: list[tuple[float, dict]] = []  # each one's first message, and when it came

    async def first(client: LineClient) -> None:
        message = await client.receive()
        firsts.append((trio.current_time() - began, message))
        if message["type"] == "error":
            assert await client.receive() is None  # closed
        else:
            await client.send({"type": "hello", "name": "tv", "role": "spectator"})

    async with trio.open_nursery() as waiting:
        for client in clients:
            waiting.start_soon(first, client)
    [error] = [m for _, m in firsts if m["type"] == "error"]  # no welcome: refused at the door
    assert error["code"] == "too_many_hellos" and error["fatal"]
    assert "hellos a second" in error["message"]
    welcomed = sorted(at for at, m in firsts if m["type"] == "welcome")
    assert welcomed[:8] == [0.0] * 8  # the burst
    assert welcomed[8:] == pytest.approx([0.25 * k for k in range(1, 9)])  # then 4 a second
    assert server.refusals["too_many_hellos"] == 1
    last = max(firsts, key=lambda f: f[0])[1]
    [latest] = [c for c in clients if c.seen and c.seen[0] is last]
    await latest.send({"type": "watch"})  # the last one in is served as any other
    assert (await latest.until("tables"))["tables"] == []
    await server.shutdown()


async def connect_tcp_from(port: int, address: str) -> LineClient:
    """A connection to the server on 127.0.0.1 from ``address`` (another loopback address:
    another host as the server sees it)."""
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    await sock.bind((address, 0))
    await sock.connect(("127.0.0.1", port))
    return LineClient(trio.SocketStream(sock))


async def test_ghosts_from_several_addresses_never_sit_with_the_bots_that_play_here(
        nursery, tmp_path):
    """Issue 29 §4: four honest bots play game after game (one always waits for the next
    table); then six clients from six addresses say hello and close as soon as they are
    seated.  No table (started or not) mixes them: the ghosts sit with each other, the honest
    bots keep playing together.  Before the newcomers' probation, the ghosts joined the honest
    bot waiting at the front of the queue."""
    server = make_server(tmp_path)
    port = await nursery.start(server.serve)
    seated: list[tuple[str, ...]] = []
    seat = server.hall.seat

    def spy(tables: list) -> None:  # every table the seating policy makes, started or not
        seated.extend(table.names for table in tables)
        seat(tables)

    server.hall.seat = spy  # type: ignore[method-assign]
    games = [0] * 4
    changed = trio.Event()

    async def honest(i: int) -> None:
        client = await connect_tcp(port)
        await client.hello(f"honest{i}")
        rng = random.Random(i)
        while True:
            await client.play_randomly(rng)
            games[i] += 1
            changed.set()

    welcomed = 0
    all_welcomed = trio.Event()

    async def ghost(address: str, started: list[dict]) -> None:
        nonlocal welcomed
        client = await connect_tcp_from(port, address)
        await client.until("welcome")
        welcomed += 1
        if welcomed == 6:
            all_welcomed.set()
        await all_welcomed.wait()  # their hellos come together (their probation ends together)
        await client.send({"type": "hello", "name": "ghost"})
        started.append(await client.until("game_start"))
        await client.stream.aclose()  # seated: gone (the game goes on without it)

    async def until(condition: Callable[[], bool]) -> None:
        nonlocal changed
        while not condition():
            await changed.wait()
            changed = trio.Event()

    with trio.fail_after(60):  # a loaded machine is slow, never stuck
        async with trio.open_nursery() as bots:
            for i in range(4):
                bots.start_soon(honest, i)
            await until(lambda: min(games) >= 1)  # every honest bot has played here
            before = list(games)
            ghost_starts: list[dict] = []
            async with trio.open_nursery() as ghosts:
                for k in range(6):
                    ghosts.start_soon(ghost, f"127.0.0.{2 + k}", ghost_starts)
            await until(lambda: min(g - b for g, b in zip(games, before)) >= 3)
            bots.cancel_scope.cancel()
    mixed = [names for names in seated
             if any(n.startswith("ghost") for n in names)
             and any(n.startswith("honest") for n in names)]
    assert mixed == []
    assert len(ghost_starts) == 6
    assert all(n.startswith("ghost") for start in ghost_starts for n in start["names"])
    assert server.refusals == {}
    await server.shutdown()


async def test_a_regular_that_comes_back_with_its_token_is_not_on_probation(
        nursery, tmp_path, autojump_clock):
    """Four registered bots play game after game (one waits for each table).  The one waiting
    loses its connection and comes back with its token: it is still a regular, seated at the
    next table with the others, well within a newcomer's probation, while a newcomer that
    arrived with it waits.  The clock is virtual."""
    from arena.seating.policies import ArrivalSeating

    registry = {f"p{i}": f"registered-token-{i:06d}" for i in range(5)}
    base = make_server(tmp_path)
    server = ArenaServer(base.config, seating=ArrivalSeating(3, registry))
    await nursery.start(server.serve, False)
    games = [0] * 4
    clients: list[LineClient] = []

    async def play(i: int, client: LineClient) -> None:
        rng = random.Random(i)
        with contextlib.suppress(AssertionError, trio.BrokenResourceError,
                                 trio.ClosedResourceError):  # its connection is cut
            while True:
                await client.play_randomly(rng)
                games[i] += 1

    async with trio.open_nursery() as bots:
        for i in range(4):
            client = await connect_in_memory(nursery, server)
            await client.hello(f"p{i}", token=registry[f"p{i}"])
            clients.append(client)
            bots.start_soon(play, i, client)
        while min(games) < 2 or len(server.seating.waiting) != 1:
            await server.wait_for_change()  # tables keep starting and ending
        [waiting] = server.seating.waiting
        i = int(waiting.name[1:])
        await clients[i].stream.aclose()  # lost while waiting for a seat
        while registry[f"p{i}"] not in server.away:
            await server.wait_for_change()
        back = await connect_in_memory(nursery, server)
        await back.hello(f"p{i}", token=registry[f"p{i}"])
        newcomer = await connect_in_memory(nursery, server)
        await newcomer.hello("p4", token=registry["p4"])
        came_back = trio.current_time()
        start = await back.until("game_start")
        assert trio.current_time() - came_back < NEWCOMER_PROBATION / 2
        assert "p4" not in start["names"]
        assert server.seating.regulars >= {s for s in server.sessions if s.name == f"p{i}"}
        bots.cancel_scope.cancel()
    await server.shutdown()
