"""Spectators watch a table live with the public view only, and get the full view (every
private event) once the game is over; they never take a seat."""

from __future__ import annotations

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
        await watcher.send({"type": "watch", "table": 1})
        await watcher.until("event")
        await watcher.stream.aclose()
    assert len(ends) == 3 and not ends[0].get("aborted")
    assert not any(t.watchers for t in server.tables)


async def test_a_table_of_a_duplicate_set_cannot_be_watched(nursery, tmp_path, autojump_clock):
    """Its deal is played at other tables too: even its public events would tell their
    players what they cannot know, and its full view their hands."""
    import attrs

    from arena.seating import ArrivalSeating

    class DuplicateSeating(ArrivalSeating):
        def ready(self, session, now):
            return [attrs.evolve(t, seed="shared-seed") for t in super().ready(session, now)]

    base = make_server(tmp_path)
    server = type(base)(base.config, seating=DuplicateSeating(3))
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
