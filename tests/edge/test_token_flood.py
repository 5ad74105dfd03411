"""Issue 29 §3: under ``arena serve --db`` every hello of a registered name waited in one queue
for the threads checking tokens with scrypt, so a flood of hellos with wrong tokens for public
names held every bot out (13 ms became 34-77 s).  Now a hello is checked at once on the event
loop (a digest); only a row from before issue 29, still a scrypt hash, is prepared in a worker
thread, and nothing else waits for it."""

from __future__ import annotations

import threading
from pathlib import Path

import attrs
import trio

from arena.edge.reader import MAX_SLOW_HELLOS_WAITING
from arena.edge.server import ArenaServer
from arena.events.registry import Registry, RegistryView
from arena.seating.policies import ArrivalSeating
from tests.events.scrypt_rows import add_scrypt_row
from tests.helpers import connect_in_memory, make_server

WRONG = "a-wrong-token-of-32-characters-x"


class HeldView(RegistryView):
    """A registry view whose scrypt checks (:meth:`prepare`) wait for :attr:`release`."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.release = threading.Event()
        self.entered = trio.Event()
        self.prepared: list[str] = []

    def prepare(self, name: str, token: str | None) -> None:
        self.prepared.append(name)
        trio.from_thread.run_sync(self.entered.set)
        self.release.wait(60)
        super().prepare(name, token)


def held_server(tmp_path: Path) -> tuple[ArenaServer, HeldView, dict[str, str]]:
    """A server of the registry of ann, bob and cid (digest rows) and old1, old2 (scrypt rows,
    registered before issue 29), whose scrypt checks are held (:class:`HeldView`)."""
    db = tmp_path / "bots.db"
    with Registry(db) as registry:
        tokens = {name: registry.add(name) for name in ("ann", "bob", "cid")}
        for name in ("old1", "old2"):
            add_scrypt_row(registry, name, f"{name}-token-from-before-29")
    view = HeldView(db)
    config = attrs.evolve(make_server(tmp_path).config, prepare_hello=view,
                          idle_timeout=1e9)  # the clock jumps while a check is held
    return ArenaServer(config, seating=ArrivalSeating(3, checker=view.check)), view, tokens


async def test_wrong_tokens_for_registered_names_hold_no_other_hello_up(
        nursery, tmp_path, autojump_clock):
    server, view, tokens = held_server(tmp_path)
    await nursery.start(server.serve, False)
    held = [await connect_in_memory(nursery, server) for _ in range(2)]
    for client, name in zip(held, ("old1", "old2")):
        await client.hello(name, token=WRONG)
    await view.entered.wait()  # the scrypt checks are held: a worker thread is busy
    with trio.fail_after(60):
        flood = [await connect_in_memory(nursery, server) for _ in range(40)]
        for i, client in enumerate(flood):
            await client.hello("ann" if i % 2 else f"nobody{i}", token=WRONG)
        for i, client in enumerate(flood):
            error = await client.until("error")
            assert error["code"] == ("bad_token" if i % 2 else "unknown_token")
            assert error["fatal"] is True
        bots = [await connect_in_memory(nursery, server) for _ in tokens]
        for client, (name, token) in zip(bots, tokens.items()):
            await client.hello(name, token=token)
        for client in bots:
            await client.until("game_start")
    assert set(view.prepared) <= {"old1", "old2"}  # a thread for the scrypt rows only
    view.release.set()
    for client in held:  # the hello deadline spared them; then they are answered
        assert (await client.until("error"))["code"] == "bad_token"


async def test_hellos_waiting_for_a_scrypt_check_are_bounded(nursery, tmp_path, autojump_clock):
    """A flood of wrong tokens for a name registered before issue 29 costs a scrypt each, one
    at a time; the connections waiting for theirs stayed open, without bound, until the
    server's connection limit was full.  Beyond MAX_SLOW_HELLOS_WAITING a hello of such a
    name is refused at once (``too_many_hellos``: connect again later)."""
    server, view, tokens = held_server(tmp_path)
    await nursery.start(server.serve, False)
    waiting = [await connect_in_memory(nursery, server)
               for _ in range(MAX_SLOW_HELLOS_WAITING)]
    for client in waiting:
        await client.hello("old1", token=WRONG)
    await view.entered.wait()
    with trio.fail_after(60):
        for _ in range(3):
            late = await connect_in_memory(nursery, server)
            await late.hello("OLD2", token="old2-token-from-before-29")
            error = await late.until("error")
            assert error["code"] == "too_many_hellos" and error["fatal"] is True
            assert await late.receive() is None  # closed
        bots = [await connect_in_memory(nursery, server) for _ in tokens]
        for client, (name, token) in zip(bots, tokens.items()):
            await client.hello(name, token=token)
        for client in bots:
            await client.until("game_start")
    view.release.set()
    for client in waiting:
        assert (await client.until("error"))["code"] == "bad_token"
    again = await connect_in_memory(nursery, server)  # the queue is empty again
    await again.hello("old2", token="old2-token-from-before-29")
    await again.send({"type": "watch"})  # answered once the hello before it was admitted
    assert (await again.until("error"))["code"] == "unexpected_message"
    assert not view.slow("old2", "old2-token-from-before-29")  # its digest kept now


async def test_one_address_has_one_scrypt_check_waiting_at_most(nursery, tmp_path):
    """An attack on the first digest version: wrong tokens for a name still holding a scrypt
    row, from a few addresses, filled the 32 places and refused its real bot every time. One
    address now holds one place at most; its next such hello is refused at once."""
    from tests.helpers import connect_tcp

    server, view, tokens = held_server(tmp_path)
    port = await nursery.start(server.serve)
    first = await connect_tcp(port)
    await first.hello("old1", token=WRONG)
    await view.entered.wait()
    with trio.fail_after(30):
        second = await connect_tcp(port)  # the same address, 127.0.0.1
        await second.hello("old2", token="old2-token-from-before-29")
        error = await second.until("error")
        assert error["code"] == "too_many_hellos" and "your address" in error["message"]
        assert len(view.prepared) == 1
    view.release.set()
    assert (await first.until("error"))["code"] == "bad_token"
