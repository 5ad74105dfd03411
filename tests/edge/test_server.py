"""The trio server end to end: real TCP on port 0, and in-memory streams under a MockClock
for everything that involves time."""

from __future__ import annotations

import json
import random
from pathlib import Path

import trio
import trio.testing

from arena.gameplay.replay import replay_log
from arena.games import get_game
from protocol.limits import MAX_LINE_BYTES
from tests.helpers import connect_tcp, in_memory_clients, log_files, log_lines, make_server

SPEC = get_game("chochlik")


def logs(tmp_path: Path) -> list[Path]:
    return log_files(tmp_path / "logs")


async def test_three_bots_over_tcp_finish_a_game_and_it_is_logged(tmp_path, nursery):
    server = make_server(tmp_path, hands=2)
    assert not server.serving.is_set()
    port = await nursery.start(server.serve)
    assert port > 0 and server.serving.is_set()
    clients = [await connect_tcp(port) for _ in range(3)]
    welcome = await clients[0].hello("a")
    assert welcome["protocol"] == 1 and welcome["game"] == "chochlik"
    assert welcome["limits"]["max_line_bytes"] == MAX_LINE_BYTES
    for client, name in zip(clients[1:], "bc"):
        await client.hello(name)
    ends = []

    async def play(client, seed):
        ends.append(await client.play_randomly(random.Random(seed)))

    async with trio.open_nursery() as players:
        for i, client in enumerate(clients):
            players.start_soon(play, client, i)
    assert len(ends) == 3 and ends[0]["scores"] == ends[1]["scores"] and not ends[0].get("aborted")
    starts = [m for m in clients[2].seen if m["type"] == "game_start"]
    assert starts[0]["seat"] == 2 and starts[0]["names"] == ["a", "b", "c"]
    await trio.sleep(0.05)
    (log,) = logs(tmp_path)
    assert replay_log(log).startswith("scores")
    # the bots stay seated: a second game starts on its own, with the seats rotated
    second = await clients[0].until("game_start")
    assert sorted(second["names"]) == ["a", "b", "c"] and second["names"] != ["a", "b", "c"]
    await server.shutdown()


async def test_many_tables_at_once_and_bots_reseated_after_each_game(tmp_path, nursery):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)  # in memory
    clients = await in_memory_clients(nursery, server, 6)
    tables = []

    async def play(client, seed):
        start = await client.until("game_start")
        tables.append(start["table"])
        await client.play_randomly(random.Random(seed))
        await client.play_randomly(random.Random(seed))  # seated again for a second game

    async with trio.open_nursery() as players:
        for i, client in enumerate(clients):
            players.start_soon(play, client, i)
    assert len(set(tables)) == 2
    await trio.sleep(0.1)
    assert len(logs(tmp_path)) >= 4
    await server.shutdown()


async def test_each_table_has_its_own_seed_and_the_master_seed_is_never_written(tmp_path,
                                                                               nursery):
    server = make_server(tmp_path, seed="master-secret")
    await nursery.start(server.serve, False)
    clients = await in_memory_clients(nursery, server, 6)
    async with trio.open_nursery() as players:
        for i, client in enumerate(clients):
            players.start_soon(client.play_randomly, random.Random(i))
    await server.shutdown()
    texts = ["\n".join(log_lines(path)) for path in logs(tmp_path)]
    seeds = {json.loads(text.splitlines()[0])["seed"] for text in texts}
    assert len(seeds) == len(texts) >= 2
    assert not any("master-secret" in text for text in texts)


async def test_ctrl_c_style_shutdown_logs_running_games_as_aborted(tmp_path, nursery):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    clients = await in_memory_clients(nursery, server, 3)
    await clients[0].until("request")
    await server.shutdown()
    end = await clients[0].until("game_end")
    assert end["aborted"] == "server_shutdown"
    bye = await clients[0].until("bye")
    assert bye["reason"] == "server_shutdown"
    assert await clients[0].receive() is None
    (log,) = logs(tmp_path)
    last = json.loads(log_lines(log)[-1])
    assert last == {"type": "aborted", "reason": "server_shutdown"}
    assert "aborted" in replay_log(log)


async def test_welcome_states_both_time_limits_and_tables_use_the_reaction_timeout(tmp_path,
                                                                                  nursery):
    assert make_server(tmp_path).config.reaction_timeout == 1.0  # the default
    server = make_server(tmp_path, reaction_timeout=0.25)
    await nursery.start(server.serve, False)
    clients = await in_memory_clients(nursery, server, 3)
    welcome = next(m for m in clients[0].seen if m["type"] == "welcome")
    assert welcome["limits"]["move_timeout_ms"] == 5000
    assert welcome["limits"]["reaction_timeout_ms"] == 250
    await clients[0].until("request")
    (table,) = server.tables
    assert table.driver.reaction_timeout == 0.25 and table.driver.move_timeout == 5.0
    await server.shutdown()
    await clients[0].until("game_end")
    (log,) = logs(tmp_path)
    header = json.loads(log_lines(log)[0])
    assert header["move_timeout_ms"] == 5000 and header["reaction_timeout_ms"] == 250
