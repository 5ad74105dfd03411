"""A bot whose process ends while an event runs (``arena tournament``): started again, at most
:attr:`Restarts.most` times per bot, after a back-off that doubles each time.

When a launched bot that had connected ends before the event does, the runner (1) tells the
server (:meth:`Recovering.died`), which notes the games that bot was playing (forfeited, or
replayed with ``replay``) and keeps its later tables waiting for it; (2) waits until the
server has seen its connection end, then withdraws it, so that the default policy plays its
seat in the running games at once; (3) waits the back-off and starts the same command again,
with the same token (its output appended to the same file).  A restarted bot that does not
connect within the connect timeout is stopped, which counts as one more death.  Past its
restarts the bot is out (:meth:`Recovering.out`): the event stops as drained (the running
games finish and are stored) and says so.  A bot that never connected is not restarted: the
event stops at once, as before (its command is wrong, not unlucky).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

import attrs
import trio

from arena.launch.bots import BotRun

#: Restarts a bot gets over one run of an event, by default (each of its instances counts).
DEFAULT_RESTARTS = 3
#: Seconds before the first restart; each next one waits twice as long.
DEFAULT_BACKOFF = 0.5
#: Seconds to wait for the server to see a dead bot's connection end (at once, normally).
GONE_WAIT = 5.0


@attrs.frozen
class Restarts:
    """How the runner restarts bots that die mid-event.  ``replay``: the games a bot was
    playing when it died are played again (not stored); otherwise they are forfeited: stored
    with that bot ranked last at its table."""

    most: int = DEFAULT_RESTARTS
    backoff: float = DEFAULT_BACKOFF
    replay: bool = False
    connect_timeout: float = 10.0

    @property
    def policy(self) -> str:
        return "replayed" if self.replay else "forfeited"

    def delay(self, done: int) -> float:
        """Seconds before restart number ``done + 1``."""
        return self.backoff * 2 ** done


class Recovering(Protocol):
    """What a server whose bots are restarted offers the runner (the tournament's server)."""

    sessions: set

    def died(self, token: str) -> None:
        """The bot's process ended mid-event: note the games it was playing; its later
        tables wait for it."""

    def arrival(self, token: str) -> trio.Event:
        """An event set when a bot with ``token`` is admitted next."""

    def out(self, token: str, run: BotRun) -> None:
        """The bot will not be started again: stop waiting for it (the event stops)."""

    def withdraw(self, token: str) -> None: ...

    async def wait_for_change(self) -> None: ...


@attrs.define
class RestartBook:
    """Restarts used so far, by bot name (shared by a bot's instances)."""

    restarts: Restarts
    used: dict[str, int] = attrs.Factory(dict)

    def take(self, name: str) -> float | None:
        """The back-off before this bot's next restart, or None when it has none left."""
        done = self.used.get(name, 0)
        if done >= self.restarts.most:
            return None
        self.used[name] = done + 1
        return self.restarts.delay(done)


def connected(server: Recovering, token: str) -> bool:
    return any(session.token == token for session in server.sessions)


async def until_gone(server: Recovering, token: str) -> None:
    """Wait (at most :data:`GONE_WAIT` seconds) until no connection of the server speaks for
    ``token`` (a dead process's connection ends at once; the server may read it later)."""
    with trio.move_on_after(GONE_WAIT):
        while connected(server, token):
            await server.wait_for_change()


async def keep_running(server: Recovering, run: BotRun, process: trio.Process,
                       start: Callable[[BotRun], Awaitable[trio.Process]], book: RestartBook,
                       done: trio.Event, released: Callable[[str], None]) -> None:
    """Restart ``run``'s bot each time its process ends before ``done`` (see the module's
    doc); ``start`` launches it again and returns its process; ``released`` is told its token
    once its process has ended."""
    while True:
        code = await process.wait()
        released(run.token)
        if done.is_set():
            return
        run.exit_code = code
        run.deaths += 1
        server.died(run.token)
        await until_gone(server, run.token)
        server.withdraw(run.token)  # its seats in the running games: the default policy's
        delay = book.take(run.spec.name)
        if delay is not None:
            await trio.sleep(delay)
        if delay is None or done.is_set():
            if not done.is_set():
                run.excluded = True
            server.out(run.token, run)
            return
        arrived = server.arrival(run.token)
        run.restarts += 1
        process = await start(run)
        await _until_connected(arrived, process, book.restarts.connect_timeout)


async def _until_connected(arrived: trio.Event, process: trio.Process, within: float) -> None:
    """Wait until the restarted bot connects; stop it if it has not within ``within``
    seconds (or it ended first: either counts as a death)."""
    async with trio.open_nursery() as nursery:
        async def ended() -> None:
            await process.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(ended)
        with trio.move_on_after(within):
            await arrived.wait()
            nursery.cancel_scope.cancel()
            return
        process.kill()
        nursery.cancel_scope.cancel()


def forfeited(ranks: tuple[int, ...], seats: set[int]) -> tuple[int, ...]:
    """The ranks of a game whose ``seats`` forfeited it: each ranked last (tied with the other
    forfeits), below every other seat, which keep their order (competition ranks: 1 = best,
    ties share)."""
    kept = [rank for seat, rank in enumerate(ranks) if seat not in seats]
    last = 1 + len(kept)
    return tuple(last if seat in seats else 1 + sum(1 for other in kept if other < rank)
                 for seat, rank in enumerate(ranks))
