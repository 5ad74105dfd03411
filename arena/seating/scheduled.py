"""Scheduled seating (``arena tournament``): a schedule's planned tables, K at a time, each
seat held by an idle instance of its entrant."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence

import attrs

from arena.gameplay.records import PlannedTable
from arena.seating.interface import (
    Admission,
    SeatedTable,
    SeatingStatistics,
    game_over_then_ready,
)
from arena.seating.roster import TokenBook


@attrs.frozen
class Instance:
    """One running copy of an entrant's bot, known by its token."""

    entrant: int
    token: str


class ScheduledSeating:
    """A tournament's planned tables (``arena.events.schedule``), at most ``concurrency`` at once,
    each
    seat held by an idle instance of its entrant.  Tables start in schedule order where they can;
    a table waits for idle instances of its entrants, but only for as many as are alive or still
    expected: instances given up on (they left, their processes ended, or they had not connected
    ``connect_timeout`` seconds after :meth:`start`) leave their seats to the default policy.
    ``open_ended``: more tables may come (:meth:`add`, ``arena worker`` claiming batch after
    batch with the same bots); it is not done while they may, until :meth:`close`."""

    def __init__(self, planned: Sequence[PlannedTable], names: Sequence[str],
                 instances: Sequence[Instance], concurrency: int,
                 connect_timeout: float | None = None, open_ended: bool = False) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.pending: list[PlannedTable] = list(planned)
        self.names = list(names)
        self.instances = list(instances)
        self.concurrency = concurrency
        self.book = TokenBook([instance.token for instance in instances], connect_timeout)
        self.idle: dict[int, list[Hashable]] = {e: [] for e in range(len(names))}
        self.running = 0
        self.started = 0
        self.draining = False
        #: Instances being started again (their process ended): tables wait for them, as for
        #: the connected, until they are back or :meth:`release` gives up on them.
        self.held: set[int] = set()
        self.open_ended = open_ended

    def add(self, planned: Sequence[PlannedTable]) -> list[SeatedTable]:
        """More tables to play, after those given; the ones that can start now."""
        self.pending.extend(planned)
        return self._next()

    def close(self) -> None:
        """No more tables will come: done once the ones given are played."""
        self.open_ended = False

    def start(self, now: float) -> list[SeatedTable]:
        self.book.start(now)
        return self._next()

    def drain(self) -> None:
        """Start no more tables; the running ones finish."""
        self.draining = True

    def hold(self, token: str) -> None:
        """The instance with this token is being started again: its tables wait for it."""
        index = self.book.index.get(token)
        if index is not None:
            self.held.add(index)

    def release(self, token: str, now: float) -> list[SeatedTable]:
        """It will not come back: its seats go to the default policy, as for the gone."""
        self.held.discard(self.book.index.get(token, -1))
        return self._next()

    def replay(self, planned: PlannedTable) -> None:
        """Play this table again (a game that will not be stored), before the others."""
        self.pending.insert(0, planned)

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        index, refusal = self.book.admit(session, token)
        if refusal is not None or index is None:
            return Admission(refusal=refusal)
        self.held.discard(index)
        return Admission(name=self.names[self.instances[index].entrant])

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        index = self.book.of_session.get(session)
        if index is not None:
            idle = self.idle[self.instances[index].entrant]
            if session not in idle:  # a bot that came back may be waiting still
                idle.append(session)
        return self._next()

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        index = self.book.leave(session, early=not self.done)
        if index is None:
            return []
        idle = self.idle[self.instances[index].entrant]
        if session in idle:
            idle.remove(session)
        return self._next()

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        return self._next() if self.book.withdraw(token) else []

    def expire(self, now: float) -> list[SeatedTable]:
        return self._next() if self.book.expire(now) else []

    def next_deadline(self) -> float | None:
        return self.book.deadline

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        self.running -= 1
        return self._next()

    def unstarted(self, table: SeatedTable, survivors: Sequence[Hashable],
                  now: float) -> list[SeatedTable]:
        return game_over_then_ready(self, table, survivors, now)

    @property
    def done(self) -> bool:
        return self.running == 0 and (self.draining or not (self.pending or self.open_ended))

    def statistics(self) -> SeatingStatistics:
        return self.book.statistics(self.started, self.running, self.done)

    def _expected(self, entrant: int) -> int:
        """The entrant's instances alive or still expected (not given up on, or held)."""
        return sum(1 for i, instance in enumerate(self.instances)
                   if instance.entrant == entrant
                   and (i not in self.book.given_up or i in self.held))

    def _next(self) -> list[SeatedTable]:
        tables: list[SeatedTable] = []
        position = 0
        while (not self.draining and self.running < self.concurrency
               and position < len(self.pending)):
            planned = self.pending[position]
            need = Counter(planned.entrants)
            if any(len(self.idle[e]) < min(k, self._expected(e)) for e, k in need.items()):
                position += 1  # waiting for an instance; a later table may start meanwhile
                continue
            self.pending.pop(position)
            sessions = tuple(self.idle[e].pop(0) if self.idle[e] else None
                             for e in planned.entrants)
            self.running += 1
            self.started += 1
            tables.append(SeatedTable(
                planned.index, sessions, tuple(self.names[e] for e in planned.entrants),
                tuple(planned.entrants), seed=planned.seed, tag=planned))
        return tables
