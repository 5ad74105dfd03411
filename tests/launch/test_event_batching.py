"""hello ``events: with_requests``: a seat's events wait for its next request (or any other
message), so the bot wakes once per decision; it sees exactly what a live bot sees."""

from __future__ import annotations

import random
from typing import Any

import trio

from tests.helpers import LineClient, connect_in_memory, connect_tcp, make_server


async def play(tmp_path, name: str, events: str | None, tcp: bool = False) -> list[Any]:
    """One game with the same seed and the same choices; bot0's received messages (and, over
    TCP, the chunks its socket delivered)."""
    server = make_server(tmp_path / name, seed="batching")
    chunks: list[bytes] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve, tcp)
        clients: list[LineClient] = []
        for number in range(3):
            client = (await connect_tcp(server.port) if tcp
                      else await connect_in_memory(nursery, server))
            extra = {"events": events} if number == 0 and events else {}
            await client.hello(f"bot{number}", **extra)
            clients.append(client)
        if tcp:  # record bot0's reads
            receive = clients[0].stream.receive_some

            async def recording(max_bytes=None):
                data = await receive(max_bytes)
                chunks.append(bytes(data))
                return data
            clients[0].stream.receive_some = recording  # type: ignore[method-assign]
        async with trio.open_nursery() as players:
            for number, client in enumerate(clients):
                players.start_soon(client.play_randomly, random.Random(number))
        await server.shutdown()
    seen = [m for m in clients[0].seen if m["type"] not in ("welcome",)]
    for message in seen:
        message.pop("game_id", None)
        message.pop("time_left_ms", None)
    return [seen, chunks]


async def test_a_bot_that_takes_its_events_with_its_requests_sees_the_same_game(tmp_path):
    live, _ = await play(tmp_path, "live", None)
    batched, _ = await play(tmp_path, "batched", "with_requests")
    assert any(m["type"] == "event" for m in batched)
    assert batched == live


async def test_its_events_arrive_in_the_same_write_as_its_next_message(tmp_path):
    seen, chunks = await play(tmp_path, "tcp", "with_requests", tcp=True)
    assert sum(1 for m in seen if m["type"] == "request") > 5
    for chunk in chunks:  # never a read that ends with an event: it came with something else
        last = chunk.rstrip(b"\n").rsplit(b"\n", 1)[-1]
        assert not last.startswith(b'{"type":"event"'), chunk[-200:]
    _, live_chunks = await play(tmp_path, "tcp-live", None, tcp=True)
    assert any(c.rstrip(b"\n").rsplit(b"\n", 1)[-1].startswith(b'{"type":"event"')
               for c in live_chunks)  # a live bot does get reads of events alone


async def test_anything_else_in_events_is_a_bad_hello(tmp_path, nursery):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    client = await connect_in_memory(nursery, server)
    await client.hello("x", events="sometimes")
    error = await client.until("error")
    assert error["code"] == "bad_hello"
