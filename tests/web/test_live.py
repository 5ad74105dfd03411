"""The live pages see a running table as a spectator does: its public events, never a private
one, for every game; tables of a duplicate set and servers closed to spectators show none."""

from __future__ import annotations

import json
import random

import attrs
import pytest
import trio

from arena.edge.server import ArenaServer, ServerConfig
from arena.edge.spectators import SpectatorRules
from arena.games import GAMES as REGISTRY
from arena.games import get_game
from arena.seating.policies import ArrivalSeating
from arena.web.frames import PUBLIC, frames
from tests.helpers import connect_in_memory, log_files, read_records
from tests.web.events import fed_live, unlined

#: Every registered game, short, at a table of 3 (or the nearest size it seats).
GAMES = [(name, {**spec.short_game, "players": min(max(3, spec.min_players), spec.max_players)})
         for name, spec in sorted(REGISTRY.items())]


def server_for(tmp_path, game, options, seed, **config) -> ArenaServer:
    spec = get_game(game)
    return ArenaServer(ServerConfig(spec=spec, options=spec.parse_options(options), port=0,
                                    move_timeout=5.0, reaction_timeout=1.0,
                                    log_dir=tmp_path / "logs", seed=seed, **config))


def private_only(records) -> list[str]:
    """The data of each private event that no public event has, as JSON text."""
    public = {json.dumps(r["data"], sort_keys=True) for r in records
              if r["type"] == "event" and r["to"] is None}
    return [text for r in records if r["type"] == "event" and r["to"] is not None
            if (text := json.dumps(r["data"], sort_keys=True)) not in public]


@pytest.mark.parametrize("game,options", GAMES)
@pytest.mark.parametrize("seed", ["s1"])
async def test_the_live_page_holds_only_public_events(nursery, tmp_path, autojump_clock,
                                                      game, options, seed):
    server = server_for(tmp_path, game, options, seed)
    await nursery.start(server.serve, False)
    live, feed = fed_live(nursery, server)
    players = [await connect_in_memory(nursery, server) for _ in range(options["players"])]
    for i, client in enumerate(players):
        await client.hello(f"bot{i}")
    rng = random.Random(seed)
    join_after = rng.randrange(1, 10)
    snapshots = []
    async with trio.open_nursery() as table:
        for i, client in enumerate(players):
            table.start_soon(client.play_randomly, random.Random(f"{seed}{i}"))
        while not server.tables:
            await server.wait_for_change()
        for _ in range(join_after):  # watch from the start or join late
            await trio.sleep(0.01)
        [listed] = await live.listing()
        watcher = await live.watcher(listed["table"])
        assert watcher is not None and await live.watcher(listed["table"]) is watcher
        seen = 0
        while not watcher.over:  # what the page would show at each step
            snapshots.append(json.dumps(watcher.messages[seen:], sort_keys=True))
            seen = len(watcher.messages)
            await watcher.changed()
    assert feed.statistics().tables_fed == 1  # one feed per table
    [path] = log_files(tmp_path / "logs", f"*{listed['game_id']}")
    records = read_records(path)
    start, *events, end = watcher.messages
    assert start["type"] == "game_start" and start.get("seat") is None
    assert end["type"] == "game_end" and "reveal" not in end
    assert [unlined(e) for e in events] == [
        {"type": "event", "kind": r["kind"], "data": r["data"]}
        for r in records if r["type"] == "event" and r["to"] is None]
    # each event's sentence and board: the replay's public view's (tests/web/test_boards.py
    # checks those hold only cards the public was sent)
    replayed = [s for s in frames(records, PUBLIC)["steps"] if s["type"] == "event"]
    assert [(e["text"], e["board"]) for e in events] == [(s["text"], s["board"])
                                                         for s in replayed]
    hidden = private_only(records)
    # a game's secrets may be only in its seats' requests and answers (vollewolle's bids before
    # they are revealed), never in an event: the page holds only public events (the equality
    # above); where there are private events, some of what they hold is secret
    assert hidden or not [r for r in records if r["type"] == "event" and r["to"] is not None]
    streamed = "".join(watcher.events)  # what /live/N/stream sends
    assert [json.loads(e.removeprefix("data: ")) for e in watcher.events] == watcher.messages
    for text in snapshots + [json.dumps(watcher.messages, sort_keys=True), streamed]:
        assert not any(secret in text for secret in hidden)


async def test_a_duplicate_set_table_and_a_closed_server_show_no_table(nursery, tmp_path,
                                                                      autojump_clock):
    class DuplicateSeating(ArrivalSeating):
        def ready(self, session, now):
            return [attrs.evolve(t, seed="shared-seed") for t in super().ready(session, now)]

    for rules, seating in ((SpectatorRules(), DuplicateSeating(3, settle=0)),
                           (SpectatorRules("none"), None)):
        folder = tmp_path / rules.mode
        base = server_for(folder, "chochlik", {"hands": 1, "players": 3}, "d")
        server = ArenaServer(attrs.evolve(base.config, spectators=rules), seating=seating)
        await nursery.start(server.serve, False)
        players = [await connect_in_memory(nursery, server) for _ in range(3)]
        for i, client in enumerate(players):
            await client.hello(f"bot{i}")
        await players[0].until("request")
        live, _ = fed_live(nursery, server)
        assert [t.number for t in server.tables] == [1]
        assert await live.listing() == [] and await live.watcher(1) is None
        assert not any(t.watchers for t in server.tables)
        assert (live.refused is None) == (rules.mode == "open")


async def test_pages_following_live_tables_are_capped(nursery, tmp_path):
    """Each following page holds a connection open: past the cap one is told to try later
    (503), and the count drops when a stream ends."""
    import functools
    import urllib.error
    import urllib.request

    from hypercorn.trio import serve

    from arena.web.app import make_app
    from arena.web.data import EventData
    from arena.web.serve import config_for

    server = server_for(tmp_path, "chochlik", {"hands": 1, "players": 3}, "cap")
    await nursery.start(server.serve, False)
    live, _ = fed_live(nursery, server, run=False, max_followers=1)  # the app runs it
    [base] = await nursery.start(functools.partial(  # hypercorn gives its addresses
        serve, make_app(EventData(None), live), config_for("127.0.0.1", 0)))
    players = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(players):
        await client.hello(f"bot{i}")
    await players[0].until("request")  # the game waits: nobody answers yet
    [table] = await live.listing()
    url = f"{base}/live/{table['table']}/stream"

    def first_chunk():
        response = urllib.request.urlopen(url, timeout=30)
        return response, response.readline()

    def status_of_another():
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code

    response, line = await trio.to_thread.run_sync(first_chunk)
    assert line.startswith(b"data: ") and live.followers == 1
    assert await trio.to_thread.run_sync(status_of_another) == 503
    async with trio.open_nursery() as table_nursery:
        for i, client in enumerate(players):
            table_nursery.start_soon(client.play_randomly, random.Random(i))
    rest = await trio.to_thread.run_sync(response.read)
    response.close()
    assert rest.rstrip().endswith(b"event: end\ndata: {}")
    assert live.followers == 0


async def test_browsers_following_one_table_cost_the_game_server_one_feed(nursery, tmp_path):
    """Five pages follow a table over HTTP: each gets every public message, and the game
    server sent each once (its feed's lines: each message, the end, the lists asked for)."""
    import functools
    import http.client

    from hypercorn.trio import serve

    from arena.web.app import make_app
    from arena.web.data import EventData
    from arena.web.serve import config_for

    server = server_for(tmp_path, "chochlik", {"hands": 1, "players": 3}, "five")
    await nursery.start(server.serve, False)
    live, feed = fed_live(nursery, server, run=False)  # the app runs it
    [base] = await nursery.start(functools.partial(
        serve, make_app(EventData(None), live), config_for("127.0.0.1", 0)))
    players = [await connect_in_memory(nursery, server) for _ in range(3)]
    for i, client in enumerate(players):
        await client.hello(f"bot{i}")
    await players[0].until("request")  # the game waits: nobody answers yet
    [table] = await live.listing()
    port = int(base.rsplit(":", 1)[1])

    following = trio.Event()
    arrived = 0

    def one_more() -> None:
        nonlocal arrived
        arrived += 1
        if arrived == 5:
            following.set()

    def follow() -> list[bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", f"/live/{table['table']}/stream")
        response = connection.getresponse()
        lines = [response.fp.readline()]  # the game so far
        trio.from_thread.run_sync(one_more)
        while not (line := response.fp.readline()).startswith(b"event: end"):
            lines.append(line)
        connection.close()
        return [line for line in lines if line.startswith(b"data: ")]

    streams: list[list[bytes]] = []

    async def browser() -> None:
        streams.append(await trio.to_thread.run_sync(follow))

    async with trio.open_nursery() as browsers:
        for _ in range(5):
            browsers.start_soon(browser)
        await following.wait()
        for i, client in enumerate(players):
            browsers.start_soon(client.play_randomly, random.Random(i))
    assert len(streams) == 5 and all(stream == streams[0] for stream in streams)
    stats = feed.statistics()
    assert stats.tables_fed == 1 and len(streams[0]) > 10
    assert stats.lines == len(streams[0]) + 1 + stats.lists
