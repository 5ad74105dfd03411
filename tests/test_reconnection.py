"""A bot whose connection is lost comes back with its token within the grace period, gets the
game again (its observation, its open request, its clock) and plays on; past the grace the
default policy plays its seat.  Under trio's MockClock: no real sleeps."""

from __future__ import annotations

import json
import random
from pathlib import Path

import trio

from arena.seating import RosterEntry
from tests.helpers import LineClient, connect_in_memory, make_server

TOKENS = ["token-zero-000000", "token-one-1111111", "token-two-2222222"]
ROSTER = tuple(RosterEntry(f"bot{i}", token) for i, token in enumerate(TOKENS))


def log_records(tmp_path: Path) -> list[dict]:
    [path] = (tmp_path / "logs").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


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
