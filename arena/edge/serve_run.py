"""``arena serve`` from start to stop: serve, report to the operator, stop at Ctrl-C (a second
one hurries the stop) or after ``--games N`` (:class:`GameLimit`), then print the summary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence

import attrs
import trio

from arena.edge.house import GameHouse
from arena.edge.serve_report import Notes, Tally, TallyClock, report_loop
from arena.edge.server import ArenaServer
from arena.seating.policies import Admission, SeatedTable, Seating, SeatingStatistics
from protocol.errors import ErrorCode


class GameLimit:
    """A seating policy that starts no more tables once ``games`` have started (its own
    ``ready`` is held back from then on) and is done when those have ended.  A table that
    does not start (a seat's connection was gone before its game began) does not count; a
    ``ready`` that starts several tables at once may go past ``games`` (arrival seating starts
    one at a time, as its names are unique)."""

    def __init__(self, inner: Seating, games: int) -> None:
        self.inner = inner
        self.games = games
        self.started = 0
        self.running = 0

    def _count(self, tables: list[SeatedTable]) -> list[SeatedTable]:
        self.started += len(tables)
        self.running += len(tables)
        return tables

    def start(self, now: float) -> list[SeatedTable]:
        return self._count(self.inner.start(now))

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        return self.inner.admit(session, name, token)

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        if self.started >= self.games:
            return []
        return self._count(self.inner.ready(session, now))

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        return self._count(self.inner.gone(session, now))

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        self.running -= 1
        return self._count(self.inner.game_over(table, now))

    def unstarted(self, table: SeatedTable, survivors: Sequence[Hashable],
                  now: float) -> list[SeatedTable]:
        self.started -= 1  # it never began: the survivors may make it up
        self.running -= 1
        if self.started >= self.games:
            return []
        return self._count(self.inner.unstarted(table, survivors, now))

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        return self._count(self.inner.withdraw(token, now))

    def expire(self, now: float) -> list[SeatedTable]:
        return self._count(self.inner.expire(now))

    def next_deadline(self) -> float | None:
        return self.inner.next_deadline()

    def statistics(self) -> SeatingStatistics:
        return attrs.evolve(self.inner.statistics(),
                            done=self.started >= self.games and self.running == 0)


def _labelled(label: str | None, out: Callable[[str], None]) -> Callable[[str], None]:
    """A server of several games says which game each status and tally line is about."""
    if label is None:
        return out
    return lambda line: out(line.replace("arena: ", f"arena: {label}: ", 1))


async def run_serve(server: ArenaServer | GameHouse, *, games: int | None,
                    tally: Tally | Sequence[Tally],
                    tally_every: tuple[float, int] | None, banner: Callable[[int], str],
                    out: Callable[[str], None], err: Callable[[str], None],
                    signals: trio.abc.ReceiveChannel[int], restarts: bool = False,
                    alongside: Callable[[], Awaitable[None]] | None = None) -> None:
    """Serve until a signal comes in ``signals`` (Ctrl-C or SIGTERM: see
    :class:`arena.edge.signals.StopSignals`, open since before the server started), or until
    ``games`` games are over (the server's seating is then a :class:`GameLimit`); then stop
    cleanly (running games logged as aborted, ``bye`` to every bot) and print the tally.  Any
    further signal while stopping hurries the stop; a signal that came before the banner stops
    right after it.  ``tally_every``: (seconds, games) between running tallies (None: none);
    ``banner(port)``: the first line; ``restarts``: a signal tells the bots the server will be
    back (``bye`` ``server_restart``: a ladder's); after ``games`` it is ``server_shutdown``.
    ``alongside``: a task run while the server serves (from its banner until it has
    stopped: the ladder's hosted bots), cancelled then."""
    stop_reason = ErrorCode.SERVER_RESTART if restarts else ErrorCode.SERVER_SHUTDOWN
    rooms = server.servers if isinstance(server, GameHouse) else (server,)
    tallies = [tally] if isinstance(tally, Tally) else list(tally)
    labels = [room.spec.name if len(rooms) > 1 else None for room in rooms]
    for room in rooms:
        room.notes = Notes()
    async with trio.open_nursery() as nursery:
        bound = await nursery.start(server.serve)
        out(banner(bound))
        reporting = [trio.CancelScope() for _ in rooms]

        async def report(scope: trio.CancelScope, room: ArenaServer, tally: Tally,
                         label: str | None) -> None:
            clock = None if tally_every is None else TallyClock(*tally_every,
                                                                trio.current_time())
            said = _labelled(label, out)
            with scope:
                assert room.notes is not None
                await report_loop(room, room.notes, room.players, _labelled(label, err), tally,
                                  clock, lambda lines: said("\n".join(lines)))

        for scope, room, room_tally, label in zip(reporting, rooms, tallies, labels):
            nursery.start_soon(report, scope, room, room_tally, label)
        if alongside is not None:
            beside = trio.CancelScope()
            reporting.append(beside)

            async def run_beside() -> None:
                with beside:
                    await alongside()

            nursery.start_soon(run_beside)
        reason = ErrorCode.SERVER_SHUTDOWN
        async with trio.open_nursery() as waiting:
            async def on_signal() -> None:
                nonlocal reason
                await signals.receive()
                out("arena: stopping (running games are logged as aborted)"
                    + ("; the bots are told to come back"
                       if stop_reason is ErrorCode.SERVER_RESTART else ""))
                reason = stop_reason
                waiting.cancel_scope.cancel()

            async def on_games_done() -> None:
                await server.all_games_done.wait()
                each = " of each game" if len(rooms) > 1 else ""
                out(f"arena: {games} games{each} played: stopping")
                waiting.cancel_scope.cancel()

            waiting.start_soon(on_signal)
            if games is not None:
                waiting.start_soon(on_games_done)
        # a second signal hurries the stop (no grace periods) but still logs every running
        # game and tells every bot bye; signals after the stop are dropped
        async with trio.open_nursery() as stopping:
            async def stop() -> None:
                await server.shutdown(reason)
                stopping.cancel_scope.cancel()

            stopping.start_soon(stop)
            async for _ in signals:
                out("arena: stopping now")
                server.hurry()
        for scope in reporting:
            scope.cancel()
    for room_tally, label in zip(tallies, labels):
        _labelled(label, out)("\n".join(room_tally.lines()))
