"""A bot whose connection is lost comes back with its token within the grace period, gets the
game again (its observation, its open request, its clock) and plays on; past the grace the
default policy plays its seat.  Under trio's MockClock: no real sleeps."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import trio

from arena.seating.policies import RosterEntry
from tests.helpers import LineClient, connect_in_memory, log_files, make_server, read_records

TOKENS = ["token-zero-000000", "token-one-1111111", "token-two-2222222"]
ROSTER = tuple(RosterEntry(f"bot{i}", token) for i, token in enumerate(TOKENS))


def log_records(tmp_path: Path) -> list[dict]:
    [path] = log_files(tmp_path / "logs")
    return read_records(path)


async def seated_table(nursery, server) -> list[LineClient]:
    await nursery.start(server.serve, False)
    clients = [await connect_in_memory(nursery, server) for _ in TOKENS]
    for i, client in enumerate(clients):
        await client.hello(f"bot{i}", token=TOKENS[i])
    return clients


async def play_others(nursery, clients, ends: list) -> None:
    async def play(i: int) -> None:
        ends.append(await clients[i].play_randomly(random.Random(i)))

    for i in (0, 2):
        nursery.start_soon(play, i)


async def test_a_bot_that_comes_back_gets_its_seat_observation_and_open_request(
        nursery, tmp_path, autojump_clock):
    server = make_server(tmp_path, roster=ROSTER)
    clients = await seated_table(nursery, server)
    ends: list = []
    async with trio.open_nursery() as others:
        await play_others(others, clients, ends)
        start = await clients[1].until("game_start")
        request = await clients[1].until("request")
        lost_at = trio.current_time()
        await clients[1].stream.aclose()  # the connection drops: no bye
        await trio.sleep(2.0)
        back = await connect_in_memory(nursery, server)
        welcome = await back.hello("bot1", token=TOKENS[1])
        assert welcome["limits"]["reconnect_grace_ms"] == 30000
        resumed = await back.until("game_start")
        assert resumed["resumed"] is True and resumed["seat"] == start["seat"]
        assert resumed["observation"] == request["observation"]
        again = await back.until("request")
        assert again["id"] == request["id"] and again["legal"] == request["legal"]
        assert again["time_left_ms"] == 5000 - round((trio.current_time() - lost_at) * 1000)
        await back.send({"type": "action", "id": again["id"], "action": again["legal"][0]})
        end = await back.play_randomly(random.Random(5))
    assert not end.get("aborted") and ends[0]["scores"] == end["scores"]
    records = log_records(tmp_path)
    seat = start["seat"]
    assert [r["what"] for r in records if r["type"] == "note" and r["seat"] == seat] == [
        "connection lost", "reconnected"]
    assert not any(r["type"] == "action" and r["seat"] == seat and r["by"] == "default"
                   for r in records)  # it answered everything itself
    assert server.away == {}


async def test_past_the_grace_the_default_policy_plays_the_seat(nursery, tmp_path,
                                                                autojump_clock):
    server = make_server(tmp_path, roster=ROSTER)
    clients = await seated_table(nursery, server)
    ends: list = []
    async with trio.open_nursery() as others:
        await play_others(others, clients, ends)
        start = await clients[1].until("game_start")
        await clients[1].until("request")
        await clients[1].stream.aclose()
    assert len(ends) == 2 and not ends[0].get("aborted")
    records = log_records(tmp_path)
    seat = start["seat"]
    mine = [r for r in records if r["type"] == "action" and r["seat"] == seat]
    assert mine and all(r["by"] == "default" for r in mine)
    reasons = {r["reason"] for r in mine}
    assert reasons == {"timeout", "disconnected"}  # the clock ran, then the grace ended
    notes = [r["what"] for r in records if r["type"] == "note" and r["seat"] == seat]
    assert notes == ["connection lost", "disconnected"]


async def test_a_bot_that_says_bye_does_not_hold_its_seat(nursery, tmp_path, autojump_clock):
    server = make_server(tmp_path, roster=ROSTER)
    clients = await seated_table(nursery, server)
    ends: list = []
    async with trio.open_nursery() as others:
        await play_others(others, clients, ends)
        await clients[1].until("request")
        await clients[1].send({"type": "bye"})
        await clients[1].stream.aclose()
    assert server.away == {}
    records = log_records(tmp_path)
    assert not any(r["type"] == "action" and r.get("reason") == "timeout" for r in records)


async def test_another_token_does_not_take_an_away_seat(nursery, tmp_path, autojump_clock):
    server = make_server(tmp_path, roster=ROSTER)
    clients = await seated_table(nursery, server)
    async with trio.open_nursery() as others:
        await play_others(others, clients, [])
        await clients[1].until("request")
        await clients[1].stream.aclose()
        await trio.sleep(1.0)
        stranger = await connect_in_memory(nursery, server)
        await stranger.hello("bot1", token="a-guess-at-the-token")
        refusal = await stranger.until("error")
        assert refusal["code"] == "unknown_token" and refusal["fatal"]
        assert set(server.away) == {TOKENS[1]}


async def test_without_a_token_there_is_no_coming_back(nursery, tmp_path, autojump_clock):
    server = make_server(tmp_path)  # arrival seating, open: no tokens
    await nursery.start(server.serve, False)
    clients = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(clients):
        await client.hello(f"bot{i}")
    async with trio.open_nursery() as others:
        await play_others(others, clients, [])
        await clients[1].until("request")
        started = trio.current_time()
        await clients[1].stream.aclose()
    assert server.away == {}
    assert trio.current_time() - started < 1.0  # its seat was played at once, no timeouts


async def cutting_proxy(nursery, upstream_port: int, cut_after_requests: int) -> int:
    """A TCP proxy to the server that cuts its first connection (both ways, no bye) once it
    has passed ``cut_after_requests`` requests to the bot; later connections pass untouched.
    Returns its port."""
    connections = 0

    async def handle(bot_side):
        nonlocal connections
        connections += 1
        cut = connections == 1
        server_side = await trio.open_tcp_stream("127.0.0.1", upstream_port)
        seen = 0
        async with trio.open_nursery() as pumps:
            async def to_server():
                async for data in bot_side:
                    await server_side.send_all(data)

            async def to_bot():
                nonlocal seen
                async for data in server_side:
                    await bot_side.send_all(data)
                    seen += data.count(b'"type":"request"')
                    if cut and seen >= cut_after_requests:
                        pumps.cancel_scope.cancel()
                        return

            pumps.start_soon(to_server)
            pumps.start_soon(to_bot)
        await server_side.aclose()
        await bot_side.aclose()

    listeners = await nursery.start(trio.serve_tcp, handle, 0)
    return listeners[0].socket.getsockname()[1]


async def test_the_reference_client_comes_back_over_tcp_and_plays_on(nursery, tmp_path):
    import sys

    server = make_server(tmp_path, roster=ROSTER)
    port = await nursery.start(server.serve)
    proxy = await cutting_proxy(nursery, port, cut_after_requests=3)
    token_file = tmp_path / "token"
    token_file.write_text(TOKENS[1])
    bot = await trio.lowlevel.open_process(
        [sys.executable, "-m", "reference_bots.random", "--port", str(proxy), "--name", "bot1",
         "--token-file", str(token_file)], stderr=subprocess.PIPE)
    others = [await connect_in_memory(nursery, server) for _ in range(2)]
    for client, i in zip(others, (0, 2)):
        await client.hello(f"bot{i}", token=TOKENS[i])
    ends = []
    with trio.fail_after(60):
        async with trio.open_nursery() as table:
            for i, client in enumerate(others):
                async def play(client=client, i=i):
                    ends.append(await client.play_randomly(random.Random(i)))
                table.start_soon(play)
        await server.shutdown()
        await bot.wait()
    assert len(ends) == 2 and not ends[0].get("aborted")
    records = log_records(tmp_path)
    seat = records[0]["names"].index("bot1")
    assert [r["what"] for r in records if r["type"] == "note" and r["seat"] == seat] == [
        "connection lost", "reconnected"]
    mine = [r for r in records if r["type"] == "action" and r["seat"] == seat]
    assert mine and all(r["by"] == "bot" for r in mine)  # it answered everything itself
    assert b"coming back" in await bot.stderr.receive_some(65536)


async def test_a_bot_that_comes_back_while_waiting_is_queued_once(nursery, tmp_path,
                                                                   autojump_clock):
    from arena.seating.policies import ArrivalSeating

    registry = {f"p{i}": f"registered-token-{i:06d}" for i in range(6)}
    base = make_server(tmp_path)
    server = type(base)(base.config, seating=ArrivalSeating(3, registry))
    await nursery.start(server.serve, False)
    first = await connect_in_memory(nursery, server)
    await first.hello("p0", token=registry["p0"])
    await trio.sleep(1)
    await first.stream.aclose()  # lost while waiting for a seat
    await trio.sleep(1)
    assert set(server.away) == {registry["p0"]}
    back = await connect_in_memory(nursery, server)
    await back.hello("p0", token=registry["p0"])
    await trio.sleep(1)
    assert len(server.seating.waiting) == 1 and server.away == {}
    others = [await connect_in_memory(nursery, server) for _ in range(5)]
    for i, client in enumerate(others, start=1):
        await client.hello(f"p{i}", token=registry[f"p{i}"])
    starts = 0
    with trio.move_on_after(3):
        while (message := await back.receive()) is not None:
            starts += message["type"] == "game_start"
    assert starts == 1  # one seat at one table, never two


async def test_an_unchecked_token_brings_no_one_back(nursery, tmp_path, autojump_clock):
    """An open server takes any token without checking it: a bot that says hello with one and
    vanishes is gone at once, not held for the grace (a ghost seat)."""
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    ghost = await connect_in_memory(nursery, server)
    await ghost.hello("ghost", token="made-up-token-123")
    await trio.sleep(1)
    await ghost.stream.aclose()
    await trio.sleep(1)
    assert server.away == {} and len(server.seating.waiting) == 0


async def test_a_bot_removed_from_the_registry_while_away_does_not_come_back(
        nursery, tmp_path, autojump_clock):
    """A review's finding: under ``arena serve --db`` a bot removed while its connection was
    lost came back with its token within the grace (and, dropping again, could stay on)."""
    import attrs

    from arena.edge.server import ArenaServer
    from arena.edge.spectators import SpectatorRules
    from arena.events.registry import Registry, RegistryView
    from arena.seating.policies import ArrivalSeating

    db = tmp_path / "bots.db"
    with Registry(db) as registry:
        tokens = {name: registry.add(name) for name in ("ann", "bob", "cid")}
    view = RegistryView(db)
    config = attrs.evolve(make_server(tmp_path).config,
                          spectators=SpectatorRules(checker=view.check))
    server = ArenaServer(config, seating=ArrivalSeating(3, checker=view.check, settle=0))
    await nursery.start(server.serve, False)
    clients = [await connect_in_memory(nursery, server) for _ in tokens]
    for client, (name, token) in zip(clients, tokens.items()):
        await client.hello(name, token=token)
    for client in clients:
        await client.until("game_start")
    await clients[0].stream.aclose()  # ann's connection drops: no bye
    await trio.sleep(1.0)
    with Registry(db) as registry:
        registry.remove("ann")
    back = await connect_in_memory(nursery, server)
    await back.hello("ann", token=tokens["ann"])
    with trio.fail_after(60):  # before the fix it was back at its seat: no error came
        error = await back.until("error")
    assert error["code"] == "unknown_token" and error["fatal"] is True
    assert server.away == {}
