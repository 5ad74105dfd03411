"""Spectators watch a table live with the public view only, and get the full view (every
private event) once the game is over; they never take a seat."""

from __future__ import annotations

import json
import random
from pathlib import Path

import trio

from tests.helpers import LineClient, connect_in_memory, log_files, make_server, read_records


def log_records(tmp_path: Path) -> list[dict]:
    [path] = log_files(tmp_path / "logs")
    return read_records(path)


async def spectator(nursery, server) -> LineClient:
    client = await connect_in_memory(nursery, server)
    await client.hello("watcher", role="spectator")
    return client


async def test_a_spectator_sees_the_public_view_live_then_the_full_view(nursery, tmp_path,
                                                                        autojump_clock):
    server = make_server(tmp_path, hands=2)
    await nursery.start(server.serve, False)
    watcher = await spectator(nursery, server)  # first to arrive: still never seated
    players = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(players):
        await client.hello(f"bot{i}")
    ends: list = []
    midgame, watching = trio.Event(), trio.Event()
    async with trio.open_nursery() as table:
        async def play(i: int) -> None:
            if i == 0:  # after a few decisions, hold the game until the spectator watches
                for _ in range(6):
                    request = await players[0].until("request")
                    await players[0].send({"type": "action", "id": request["id"],
                                           "action": request["legal"][0]})
                midgame.set()
                await watching.wait()
            ends.append(await players[i].play_randomly(random.Random(i)))

        for i in range(3):
            table.start_soon(play, i)
        await midgame.wait()
        await watcher.send({"type": "watch"})
        listing = await watcher.until("tables")
        [running] = listing["tables"]
        assert running["names"] == ["bot0", "bot1", "bot2"]
        await watcher.send({"type": "watch", "table": running["table"]})
        start = await watcher.until("game_start")
        assert start.get("seat") is None and start["game_id"] == running["game_id"]
        watching.set()
        during = []
        while (message := await watcher.receive())["type"] != "game_end":
            during.append(message)
        end = message
    assert end["scores"] == ends[0]["scores"]
    after = []
    with trio.move_on_after(1):
        while (message := await watcher.receive()) is not None:
            after.append(message)
    assert all(m["type"] == "event" for m in during)  # never a request, never a private event
    records = [r for r in log_records(tmp_path) if r["type"] == "event"]
    public = [{"kind": r["kind"], "data": r["data"]} for r in records if r["to"] is None]
    private = [{"kind": r["kind"], "data": r["data"], "to": r["to"]} for r in records
               if r["to"] is not None]
    assert [{"kind": m["kind"], "data": m["data"]} for m in during] == public
    assert [{k: m[k] for k in ("kind", "data", "to")} for m in after] == private
    assert private and any(r["kind"] == "dealt" for r in private)


async def test_watch_is_for_spectators_and_names_a_running_table(nursery, tmp_path,
                                                                 autojump_clock):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    player = await connect_in_memory(nursery, server)
    await player.hello("bot0")
    await player.send({"type": "watch", "table": 1})
    refused = await player.until("error")
    assert refused["code"] == "unexpected_message" and not refused.get("fatal")
    watcher = await spectator(nursery, server)
    await watcher.send({"type": "watch", "table": 7})
    unknown = await watcher.until("error")
    assert unknown["code"] == "unknown_table" and not unknown.get("fatal")
    await watcher.send({"type": "watch"})
    assert (await watcher.until("tables"))["tables"] == []
    assert server.seating.statistics().tables_started == 0  # the spectator took no seat


async def test_a_spectator_that_leaves_does_not_disturb_the_table(nursery, tmp_path,
                                                                  autojump_clock):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    players = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(players):
        await client.hello(f"bot{i}")
    watcher = await spectator(nursery, server)
    ends: list = []
    async with trio.open_nursery() as table:
        async def play(i: int) -> None:
            ends.append(await players[i].play_randomly(random.Random(i)))

        for i in range(3):
            table.start_soon(play, i)
        while not server.tables:  # newcomers settle before they are seated (virtual time)
            await server.wait_for_change()
        await watcher.send({"type": "watch", "table": 1})
        await watcher.until("event")
        await watcher.stream.aclose()
    assert len(ends) == 3 and not ends[0].get("aborted")
    assert not any(t.watchers for t in server.tables)


async def test_a_table_of_a_duplicate_set_cannot_be_watched(nursery, tmp_path, autojump_clock):
    """Its deal is played at other tables too: even its public events would tell their
    players what they cannot know, and its full view their hands."""
    import attrs

    from arena.seating.policies import ArrivalSeating

    class DuplicateSeating(ArrivalSeating):
        def ready(self, session, now):
            return [attrs.evolve(t, seed="shared-seed") for t in super().ready(session, now)]

    base = make_server(tmp_path)
    server = type(base)(base.config, seating=DuplicateSeating(3, settle=0))
    await nursery.start(server.serve, False)
    players = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(players):
        await client.hello(f"bot{i}")
    await players[0].until("request")
    watcher = await spectator(nursery, server)
    await watcher.send({"type": "watch"})
    assert (await watcher.until("tables"))["tables"] == []
    await watcher.send({"type": "watch", "table": 1})
    refused = await watcher.until("error")
    assert refused["code"] == "not_watchable"
    assert not any(t.watchers for t in server.tables)


# -- what a spectator may cost (issue 17, item 2) --


def server_with(tmp_path: Path, **config):
    import attrs

    from arena.edge.server import ArenaServer

    base = make_server(tmp_path)
    return ArenaServer(attrs.evolve(base.config, **config))


async def test_table_lists_past_one_a_second_close_the_spectator(nursery, tmp_path,
                                                                  autojump_clock):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    watcher = await spectator(nursery, server)
    await watcher.send(b'{"type":"watch"}\n' * 4)  # one write: no time passes meanwhile
    answers = [await watcher.receive() for _ in range(4)]
    assert [m["type"] for m in answers] == ["tables", "tables", "tables", "error"]
    assert answers[3]["code"] == "too_fast" and answers[3]["fatal"]
    assert "table list a second" in answers[3]["message"]
    assert await watcher.receive() is None
    # a spectator that keeps to about one a second is never refused
    calm = await spectator(nursery, server)
    for _ in range(10):
        await calm.send({"type": "watch"})
        assert (await calm.until("tables"))["tables"] == []
        await trio.sleep(1.0)


async def test_the_table_list_is_built_once_per_tick_and_shared(nursery, tmp_path,
                                                                autojump_clock):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    players = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(players):
        await client.hello(f"bot{i}")
    await players[0].until("game_start")
    watchers = [await spectator(nursery, server) for _ in range(5)]
    for watcher in watchers:
        await watcher.send({"type": "watch"})
    lists = [await watcher.until("tables") for watcher in watchers]
    assert all(listing == lists[0] for listing in lists)
    assert [t["names"] for t in lists[0]["tables"]] == [["bot0", "bot1", "bot2"]]
    assert server.spectators.listing.builds == 1  # five answers, one list built


async def test_who_may_watch_and_how_many(nursery, tmp_path, autojump_clock):
    from arena.edge.spectators import SpectatorRules

    registered = server_with(tmp_path, spectators=SpectatorRules(
        "registered", max_spectators=1, registry={"Alice": "a" * 16}))
    await nursery.start(registered.serve, False)

    async def hello(server, **fields):
        client = await connect_in_memory(nursery, server)
        await client.hello(fields.pop("name", "tv"), role="spectator", **fields)
        return client

    for fields, code in (({}, "unknown_token"), ({"name": "alice"}, "bad_token"),
                         ({"name": "alice", "token": "b" * 16}, "bad_token")):
        refused = await hello(registered, **fields)
        error = await refused.until("error")
        assert error["code"] == code and error["fatal"], fields
        assert await refused.receive() is None
    alice = await hello(registered, name="alice", token="a" * 16)
    await alice.send({"type": "watch"})
    assert (await alice.until("tables"))["tables"] == []
    second = await hello(registered, name="ALICE", token="a" * 16)
    full = await second.until("error")
    assert full["code"] == "too_many_connections" and "1 spectators at most" in full["message"]
    await alice.stream.aclose()  # its place is free again
    while registered.spectators.count:
        await registered.wait_for_change()
    third = await hello(registered, name="alice", token="a" * 16)
    await third.send({"type": "watch"})
    assert (await third.until("tables"))["type"] == "tables"

    closed = server_with(tmp_path, spectators=SpectatorRules("none"))
    await nursery.start(closed.serve, False)
    refused = await hello(closed)
    error = await refused.until("error")
    assert error["code"] == "no_spectators" and error["fatal"]


def test_reply_bytes_count_against_the_message_budget():
    """A list of many tables costs its bytes in lines: 1,024 bytes are one line."""
    from types import SimpleNamespace

    from arena.edge.spectators import SpectatorDesk, SpectatorRules
    from protocol.messages import Watch
    from protocol.ratelimit import TokenBucket

    sent: list[bytes] = []

    class Session:  # hashable, as the server's sessions are
        link = SimpleNamespace(push=lambda: None)

        def queue(self, message, line):
            sent.append(line)
            return True

    session = Session()
    tables = [SimpleNamespace(number=n, seated=SimpleNamespace(seed=None), driver=SimpleNamespace(
        game_id=f"run-t{n}", players=["alice", "bob", "carol"])) for n in range(1, 151)]
    desk = SpectatorDesk(SpectatorRules())
    assert desk.admit(session, "tv", None) is None
    budget = TokenBucket(rate=2, burst=5)
    assert desk.watch(session, Watch(), tables, budget, 0.0)
    [line] = sent
    assert 9.5 * 1024 < len(line) < 10 * 1024  # 150 tables: 9.6 lines' worth
    assert not budget.allow(0.0)  # the reply spent the whole burst (5) and more
    assert not budget.allow(2.0) and budget.allow(3.0)  # the debt is paid back at 2 a second


def test_serve_with_tokens_admits_only_registered_spectators(tmp_path: Path):
    """``arena serve --tokens`` (a real process): a spectator needs a registered name and its
    token, as a player does; ``--spectators registered`` without ``--tokens`` is a usage
    error."""
    import os
    import socket
    import subprocess
    import sys
    import time

    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["serve", "--game", "chochlik", "--spectators",
                                       "registered"])
    assert result.exit_code == 2 and "--spectators registered needs --tokens" in result.output
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("alice " + "a" * 16 + "\n")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--game", "chochlik", "--port", str(port),
         "--tokens", str(tokens), "--log-dir", str(tmp_path / "logs")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        def converse(hello: dict) -> list[dict]:
            deadline = time.monotonic() + 20
            while True:
                try:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                    break
                except OSError:
                    assert time.monotonic() < deadline, "the server did not start"
                    time.sleep(0.1)
            with sock, sock.makefile("rwb") as stream:
                assert json.loads(stream.readline())["type"] == "welcome"
                stream.write(json.dumps(hello).encode() + b"\n" + b'{"type":"watch"}\n')
                stream.flush()
                return [json.loads(stream.readline())]

        [refused] = converse({"type": "hello", "name": "tv", "role": "spectator"})
        assert refused["code"] == "unknown_token" and refused["fatal"]
        [listing] = converse({"type": "hello", "name": "alice", "token": "a" * 16,
                              "role": "spectator"})
        assert listing == {"type": "tables", "tables": [], "more": False}
    finally:
        server.kill()
        server.wait()
