"""Bad input never crashes the server or touches another table: every error code, a silent
bot under trio's MockClock, a late answer, a disconnect, a slow reader."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio
import trio.testing

from arena.edge import session as session_module
from arena.gameplay.replay import replay_log
from arena.games import get_game
from arena.seating.policies import RosterEntry
from protocol.limits import MAX_LINE_BYTES
from tests.helpers import (
    LineClient,
    connect_in_memory,
    in_memory_clients,
    log_files,
    make_server,
    read_records,
)

SPEC = get_game("chochlik")


async def table_of_three(nursery, tmp_path, **options):
    server = make_server(tmp_path, **options)
    await nursery.start(server.serve, False)
    return server, await in_memory_clients(nursery, server, 3)


def log_records(tmp_path: Path) -> list[dict]:
    (path,) = log_files(tmp_path / "logs")
    return read_records(path)


async def finish(clients: list[LineClient], skip=()) -> list[dict]:
    ends = {}

    async def play(i, client):
        ends[i] = await client.play_randomly(random.Random(i))

    async with trio.open_nursery() as players:
        for i, client in enumerate(clients):
            if i not in skip:
                players.start_soon(play, i, client)
    return [ends[i] for i in sorted(ends)]


@pytest.mark.parametrize("line,code", [
    ("this is not json", "malformed"),
    ('{"type":"action","id":"1","action":"x"}', "malformed"),
    ('{"type":"dance"}', "unknown_message"),
    ('{"type":"hello","name":"again"}', "unexpected_message"),
    ('{"type":"action","id":424242,"action":"imp 1"}', "wrong_request_id"),
])
async def test_each_bad_line_gets_its_code_and_costs_a_try(nursery, tmp_path, line, code):
    server, clients = await table_of_three(nursery, tmp_path)
    request = await clients[0].until("request")
    await clients[0].send(line)
    error = await clients[0].until("error")
    assert error["code"] == code and error["id"] == request["id"] and error["tries_left"] == 2
    assert error["fatal"] is False and error["message"]
    await clients[0].send({"type": "action", "id": request["id"], "action": request["legal"][0]})
    follow = await clients[0].until("request")
    assert follow["legal"][0].startswith("left ")
    await clients[0].send({"type": "action", "id": follow["id"], "action": follow["legal"][0]})
    await finish(clients)
    assert any(r["type"] == "error" and r["code"] == code for r in log_records(tmp_path))


async def test_an_illegal_action_gets_the_legal_list_again(nursery, tmp_path):
    server, clients = await table_of_three(nursery, tmp_path)
    request = await clients[1].until("request")
    await clients[1].send({"type": "action", "id": request["id"], "action": "play 99"})
    error = await clients[1].until("error")
    assert error["code"] == "illegal_action" and error["legal"] == request["legal"]
    await clients[1].send({"type": "action", "id": request["id"], "action": request["legal"][0]})
    await finish(clients)


async def test_a_too_long_line_is_refused_and_the_connection_goes_on(nursery, tmp_path):
    server, clients = await table_of_three(nursery, tmp_path)
    request = await clients[2].until("request")
    await clients[2].send(b'{"type":"action","action":"' + b"x" * (MAX_LINE_BYTES + 10) + b'"}\n')
    error = await clients[2].until("error")
    assert error["code"] == "line_too_long" and error["tries_left"] == 2
    await clients[2].send({"type": "action", "id": request["id"], "action": request["legal"][0]})
    await finish(clients)


async def test_three_bad_answers_and_the_server_plays_for_the_bot(nursery, tmp_path):
    server, clients = await table_of_three(nursery, tmp_path)
    request = await clients[0].until("request")
    for _ in range(3):
        await clients[0].send({"type": "action", "id": request["id"], "action": "nope"})
    cancel = await clients[0].until("cancel")
    assert cancel == {"type": "cancel", "id": request["id"], "reason": "too_many_tries",
                      "played": cancel["played"]}
    assert cancel["played"] in request["legal"]
    await finish(clients)
    defaults = [r for r in log_records(tmp_path) if r["type"] == "action" and r["by"] == "default"]
    assert defaults[0]["reason"] == "too_many_tries" and defaults[0]["seat"] == 0


async def test_a_silent_bot_times_out_and_a_late_answer_is_ignored(nursery, tmp_path,
                                                                   autojump_clock):
    server, clients = await table_of_three(nursery, tmp_path)
    silent = clients[1]
    async with trio.open_nursery() as others:
        for i in (0, 2):
            others.start_soon(clients[i].play_randomly, random.Random(i))
        request = await silent.until("request")
        started = trio.current_time()
        cancel = await silent.until("cancel")
        assert cancel["reason"] == "timeout" and cancel["id"] == request["id"]
        assert cancel["played"] in request["legal"]
        assert trio.current_time() - started == pytest.approx(5.0, abs=0.01)
        await silent.send({"type": "action", "id": request["id"], "action": request["legal"][0]})
        notice = await silent.until("error")
        assert notice["code"] == "stale_request" and notice["id"] == request["id"]
        await silent.play_randomly(random.Random(1))  # it wakes up and plays on
    records = log_records(tmp_path)
    timeouts = [r for r in records if r["type"] == "action" and r.get("reason") == "timeout"]
    assert timeouts and all(r["seat"] == 1 for r in timeouts)
    assert not any(r["type"] == "action" and r["by"] == "bot" and r["seat"] == 1
                   and r["id"] == request["id"] for r in records)


async def test_a_silent_bot_in_a_reaction_window_times_out_at_the_reaction_limit(
        nursery, tmp_path, monkeypatch, autojump_clock):
    from arena.games.chochlik import ChochlikState

    monkeypatch.setattr(ChochlikState, "is_reaction", lambda self, seat: seat == 1)
    server, clients = await table_of_three(nursery, tmp_path, reaction_timeout=0.25)
    silent = clients[1]
    async with trio.open_nursery() as others:
        for i in (0, 2):
            others.start_soon(clients[i].play_randomly, random.Random(i))
        request = await silent.until("request")
        assert request["time_left_ms"] == 250
        started = trio.current_time()
        cancel = await silent.until("cancel")
        assert cancel["reason"] == "timeout" and cancel["id"] == request["id"]
        assert trio.current_time() - started == pytest.approx(0.25, abs=0.01)
        await silent.play_randomly(random.Random(1))
    ordinary = [m for m in clients[0].seen if m["type"] == "request"]
    assert ordinary and {m["time_left_ms"] for m in ordinary} == {5000}


async def test_a_bot_that_never_answers_still_lets_the_game_finish(nursery, tmp_path,
                                                                   autojump_clock):
    server, clients = await table_of_three(nursery, tmp_path)
    ends = await finish(clients, skip={0})
    assert len(ends) == 2 and not ends[0].get("aborted")
    assert replay_log(log_files(tmp_path / "logs")[0]).startswith("scores")


async def test_a_disconnect_mid_game_leaves_the_seat_to_the_default_policy(nursery, tmp_path,
                                                                           caplog):
    server, clients = await table_of_three(nursery, tmp_path)
    await clients[2].until("request")
    await clients[2].stream.aclose()
    ends = await finish(clients, skip={2})
    assert len(ends) == 2
    records = log_records(tmp_path)
    assert {"type": "note", "seat": 2, "what": "disconnected"} in records
    assert any(r["type"] == "action" and r.get("reason") == "disconnected" for r in records)
    assert records[-1]["type"] == "result"
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # a peer leaving is normal


async def test_a_bad_bot_does_not_touch_another_table(nursery, tmp_path):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    clients = await in_memory_clients(nursery, server, 6)
    vandal = clients[0]  # table 1 is bots 0-2, table 2 bots 3-5

    async def vandalise():
        request = await vandal.until("request")
        for junk in ("{", '{"type":"action","id":1}', b"\xff\xfe\n", "[]" * 10):
            await vandal.send(junk)
        await vandal.send({"type": "action", "id": request["id"], "action": request["legal"][0]})
        await vandal.play_randomly(random.Random(0))

    async def fair(client, seed):
        await client.play_randomly(random.Random(seed))

    async with trio.open_nursery() as players:
        players.start_soon(vandalise)
        for i, client in enumerate(clients[1:], start=1):
            players.start_soon(fair, client, i)
    await trio.sleep(0.05)
    paths = log_files(tmp_path / "logs")
    by_table = {read_records(p)[0]["table"]: p for p in paths}
    quiet = read_records(by_table[2])
    assert not any(r["type"] == "error" for r in quiet)
    assert all(r["by"] == "bot" for r in quiet if r["type"] == "action")
    noisy = read_records(by_table[1])
    assert sum(r["type"] == "error" for r in noisy) >= 4


async def test_a_bot_that_stops_reading_is_dropped_and_its_seat_played_for_it(
        nursery, tmp_path, monkeypatch, autojump_clock):
    monkeypatch.setattr(session_module, "SEND_QUEUE_LIMIT", 8)
    server = make_server(tmp_path, hands=2)
    await nursery.start(server.serve, False)
    clients = []
    for i in range(3):
        if i == 0:  # a stream whose sends block until the bot reads: and it never reads
            client_end, server_end = trio.testing.lockstep_stream_pair()
            nursery.start_soon(server.handle_stream, server_end)
            await client_end.send_all(b'{"type":"hello","name":"sleepy"}\n')
        else:
            client = await connect_in_memory(nursery, server)
            await client.hello(f"bot{i}")
            clients.append(client)
    ends = await finish(clients)
    assert len(ends) == 2 and not ends[0].get("aborted")
    records = log_records(tmp_path)
    assert {"type": "note", "seat": 0, "what": "disconnected"} in records


async def test_fatal_hello_errors_close_the_connection(nursery, tmp_path):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    for hello, code in (({"protocol": 9}, "version_mismatch"), ({"game": "wypas"}, "wrong_game")):
        client = await connect_in_memory(nursery, server)
        await client.hello("x", **hello)
        error = await client.until("error")
        assert error["code"] == code and error["fatal"] is True
        assert await client.receive() is None


async def test_an_answer_between_games_is_refused_politely(nursery, tmp_path):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    client = await connect_in_memory(nursery, server)
    await client.hello("alone")
    await client.send({"type": "action", "id": 5, "action": "play 1"})
    error = await client.until("error")
    assert error["code"] == "wrong_request_id"
    assert "id" not in error  # no request is involved (SPEC: error.id)
    await client.send({"type": "action", "id": -3, "action": "play 1"})
    error = await client.until("error")
    assert error["code"] == "wrong_request_id" and "id" not in error


async def test_a_roster_seats_by_token_not_by_arrival(nursery, tmp_path):
    roster = (RosterEntry("north", "t-n"), RosterEntry("east", "t-e"), RosterEntry("south", "t-s"))
    server = make_server(tmp_path, roster=roster, games=1)
    await nursery.start(server.serve, False)
    stranger = await connect_in_memory(nursery, server)
    await stranger.hello("who", token="t-x")
    assert (await stranger.until("error"))["code"] == "unknown_token"
    clients = {}
    for name, token in (("south", "t-s"), ("north", "t-n"), ("east", "t-e")):
        clients[name] = await connect_in_memory(nursery, server)
        await clients[name].hello("anything", token=token)
    twin = await connect_in_memory(nursery, server)
    await twin.hello("copy", token="t-n")
    assert (await twin.until("error"))["code"] == "token_in_use"
    for seat, name in enumerate(("north", "east", "south")):
        start = await clients[name].until("game_start")
        assert start["seat"] == seat and start["names"] == ["north", "east", "south"]
    await finish(list(clients.values()))
    await server.all_games_done.wait()


async def test_a_bot_that_vanishes_while_being_written_to_is_not_an_error(nursery, tmp_path,
                                                                          caplog):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    clients = await in_memory_clients(nursery, server, 2)
    ghost = await connect_in_memory(nursery, server)
    await ghost.send({"type": "hello", "name": "ghost"})
    await ghost.until("game_start")  # seated, then gone while the table writes to it
    await ghost.stream.aclose()
    ends = await finish(clients)
    assert len(ends) == 2
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_an_answer_that_would_echo_back_too_long_does_not_hurt_the_table(nursery, tmp_path):
    server, clients = await table_of_three(nursery, tmp_path)
    request = await clients[0].until("request")
    huge = "\x7f" * (MAX_LINE_BYTES // 8)  # JSON-escaped it fills most of a line
    await clients[0].send({"type": "action", "id": request["id"], "action": huge})
    error = await clients[0].until("error")
    assert error["code"] == "illegal_action" and len(error["message"]) < 200
    await clients[0].send({"type": "action", "id": request["id"], "action": request["legal"][0]})
    ends = await finish(clients)
    assert not any(end.get("aborted") for end in ends)


async def test_no_one_is_seated_once_the_server_is_stopping(nursery, tmp_path):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    early = await in_memory_clients(nursery, server, 2)
    late = await connect_in_memory(nursery, server)
    await late.until("welcome")
    async with trio.open_nursery() as stopping:
        stopping.start_soon(server.shutdown)
        await trio.lowlevel.checkpoint()
        await late.send({"type": "hello", "name": "late"})
    assert (await late.until("bye"))["reason"] == "server_shutdown"
    assert not any(m["type"] == "game_start" for m in late.seen + early[0].seen)
