"""The game server's feed to the pages' process (``arena serve --web``): each table once however
often it is asked for, exactly the lines a spectator is sent while the game runs (never the full
view after it), nothing of a duplicate set or of a server closed to spectators, and an end to a
feed that misbehaves or falls behind."""

from __future__ import annotations

import json
import random

import attrs
import trio
import trio.testing

from arena.edge import page_feed
from arena.edge.page_feed import PageFeed, TableFeed
from arena.edge.server import ArenaServer
from arena.edge.spectators import SpectatorRules
from arena.seating.policies import ArrivalSeating
from tests.helpers import connect_in_memory, in_memory_clients, make_server


class Pages:
    """The pages' end of a feed: requests out, lines in."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.buffer = b""

    async def ask(self, line: bytes) -> None:
        await self.stream.send_all(line + b"\n")

    async def line(self) -> bytes:
        while b"\n" not in self.buffer:
            data = await self.stream.receive_some(65536)
            assert data, "the feed ended"
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    async def until(self, prefix: bytes) -> list[bytes]:
        """The lines up to the first that starts with ``prefix`` (included)."""
        lines = [await self.line()]
        while not lines[-1].startswith(prefix):
            lines.append(await self.line())
        return lines


def fed(nursery: trio.Nursery, server: ArenaServer) -> tuple[PageFeed, Pages]:
    ours, theirs = trio.testing.memory_stream_pair()
    feed = PageFeed(lambda: server.tables, server.spectators)
    nursery.start_soon(feed.serve, ours)
    return feed, Pages(theirs)


async def running_table(server: ArenaServer) -> int:
    while not server.tables:
        await server.wait_for_change()
    [table] = server.tables
    return table.number


async def test_a_table_is_fed_once_with_the_lines_a_spectator_gets_while_it_runs(
        nursery, tmp_path, autojump_clock):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    players = await in_memory_clients(nursery, server, 3)
    number = await running_table(server)
    spectator = await connect_in_memory(nursery, server)
    await spectator.hello("watcher", role="spectator")
    await spectator.send({"type": "watch", "table": number})
    seen = [await spectator.until("game_start")]
    feed, pages = fed(nursery, server)
    for _ in range(5):  # as five browsers would ask for it (the pages ask once)
        await pages.ask(b"watch %d" % number)
    await pages.ask(b"list")
    first = await pages.until(b"tables ")  # the requests are answered in order
    [table] = server.tables
    assert sum(isinstance(w, TableFeed) for w in table.watchers) == 1
    listed = json.loads(first.pop().removeprefix(b"tables "))["tables"]
    assert [entry["table"] for entry in listed] == [number]
    async with trio.open_nursery() as game:
        for i, player in enumerate(players):
            game.start_soon(player.play_randomly, random.Random(i))
    lines = first + await pages.until(b"end ")
    assert lines.pop() == b"end %d" % number
    assert all(line.startswith(b"%d " % number) for line in lines)
    sent = [json.loads(line.partition(b" ")[2]) for line in lines]
    while seen[-1]["type"] != "game_end":
        seen.append(await spectator.receive())
    assert sent == seen  # then the spectator gets the full view, the feed nothing more:
    await pages.ask(b"list")
    assert (await pages.line()).startswith(b"tables ")
    assert feed.statistics().tables_fed == 1 and feed.statistics().feeding == 0


async def test_no_table_of_a_duplicate_set_or_of_a_server_closed_to_spectators(
        nursery, tmp_path, autojump_clock):
    class DuplicateSeating(ArrivalSeating):
        def ready(self, session, now):
            return [attrs.evolve(t, seed="shared-seed") for t in super().ready(session, now)]

    for name, rules, seating in (
            ("duplicate", SpectatorRules(), DuplicateSeating(3, settle=0)),
            ("none", SpectatorRules("none"), None),
            ("registered", SpectatorRules("registered", registry={"fan": "t0ken"}), None)):
        base = make_server(tmp_path / name)
        server = ArenaServer(attrs.evolve(base.config, spectators=rules), seating=seating)
        await nursery.start(server.serve, False)
        await in_memory_clients(nursery, server, 3)
        number = await running_table(server)
        feed, pages = fed(nursery, server)
        await pages.ask(b"watch %d" % number)
        assert await pages.line() == b"end %d" % number
        await pages.ask(b"list")
        assert json.loads((await pages.line()).removeprefix(b"tables "))["tables"] == []
        [table] = server.tables
        assert table.watchers == [] and feed.statistics().tables_fed == 0


async def test_a_request_the_feed_does_not_know_ends_it(nursery, tmp_path, autojump_clock):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    for request in (b"hello\n", b"watch -1\n", b"watch " + b"1" * 100):
        ours, theirs = trio.testing.memory_stream_pair()
        feed = PageFeed(lambda: server.tables, server.spectators)
        await theirs.send_all(request)
        why = await feed.serve(ours)
        assert why is not None and "the pages sent" in why


async def test_a_feed_whose_pages_do_not_read_ends_instead_of_growing(
        nursery, tmp_path, autojump_clock, monkeypatch):
    monkeypatch.setattr(page_feed, "MAX_BACKLOG", 2000)
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    players = await in_memory_clients(nursery, server, 3)
    number = await running_table(server)
    ours, theirs = trio.testing.lockstep_stream_pair()  # a write waits for the reader
    feed = PageFeed(lambda: server.tables, server.spectators)
    ended: list[str | None] = []
    done = trio.Event()

    async def serve() -> None:
        ended.append(await feed.serve(ours))
        done.set()

    nursery.start_soon(serve)
    await theirs.send_all(b"watch %d\n" % number)  # and never read
    async with trio.open_nursery() as game:
        for i, player in enumerate(players):
            game.start_soon(player.play_randomly, random.Random(i))
    await done.wait()
    assert ended == ["the pages fell more than 2,000 bytes behind"]
    [log] = server.records
    assert not log.aborted  # the game went on
