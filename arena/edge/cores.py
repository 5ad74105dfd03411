"""Fair time for hosted bots (``arena serve --hosted``): never more of them thinking than the
cores they share, so that no hosted bot's clock is eaten by another's work.

A hosted bot *thinks* from the moment a request is sent to it until that request is closed
(answered, played by default, or its game over).  :class:`Cores` lets at most ``count`` hosted
bots think at once.  A request for a hosted bot when every core is taken is **held back**: its
line (and whatever follows it for that bot) waits here, in the order the requests came, and
its clock stands still (:meth:`~arena.gameplay.decisions.SeatDecisions.hold`, no deadline); it
is sent when a core is free, and its clock starts then
(:meth:`~arena.gameplay.decisions.SeatDecisions.sent`): its bot gets its whole time per move.
A held request whose game ends meanwhile (aborted, or a seat gone) is dropped, and the other
lines held with it are sent at once.  Bots that connect themselves are never held: their
machines are their own.  What is counted is requests, not CPU: a bot that keeps computing
after its answer (pondering) takes a core nobody accounts for, and its own next moves may then
be slower; the organiser's docs say so.
"""

from __future__ import annotations

import collections
from typing import Any, Protocol

import attrs
import trio

from arena.edge.session import Session


class Table(Protocol):
    """What the gate needs of a table (:class:`arena.edge.table.Table`)."""

    driver: Any  # its MatchDriver: hold, sent, is_open

    def sent_held(self, seat: int, request_id: int, now: float) -> None: ...


@attrs.define
class Held:
    """A hosted bot's request waiting for a core, with the lines queued after it."""

    table: Table
    session: Session
    seat: int
    request_id: int
    messages: list[Any]
    lines: list[bytes]
    since: float


@attrs.frozen
class CoresStatistics:
    """What the gate did so far: the most hosted bots thinking at once, the requests held back
    and for how long in all (seconds)."""

    cores: int
    thinking: int
    most_thinking: int
    held: int
    waiting: int
    held_seconds: float


class Cores:
    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError("cores: at least 1")
        self.count = count
        #: The tokens of the hosted bots' connections (the pool's ``bound_token``s).
        self.tokens: set[str] = set()
        #: Hosted bots thinking now: (table, seat, request id) of the request each was sent.
        self.thinking: dict[Session, tuple[Table, int, int]] = {}
        self.queue: collections.deque[Held] = collections.deque()
        self.held_of: dict[Session, Held] = {}
        self.most_thinking = 0
        self.held = 0
        self.held_seconds = 0.0

    def hosts(self, session: Session) -> bool:
        return session.bound_token is not None and session.bound_token in self.tokens

    def statistics(self) -> CoresStatistics:
        return CoresStatistics(self.count, len(self.thinking), self.most_thinking, self.held,
                               len(self.queue), self.held_seconds)

    def send(self, table: Table, session: Session, seat: int, messages: list[Any],
             lines: list[bytes]) -> bool:
        """Queue a hosted bot's lines of one step, holding back a request when no core is
        free; whether anything was queued to its connection (to push)."""
        waiting = self.held_of.get(session)
        if waiting is not None:  # behind its held request
            waiting.messages += messages
            waiting.lines += lines
            return False
        first = next((i for i, m in enumerate(messages) if m.TYPE == "request"), None)
        if first is None or len(self.thinking) < self.count:
            if first is not None:
                self._thinks(table, session, seat, messages[first].id)
            return session.queue_all(messages, lines)
        before = session.queue_all(messages[:first], lines[:first]) if first else False
        request_id = messages[first].id
        table.driver.hold(seat, request_id)
        held = Held(table, session, seat, request_id, messages[first:], lines[first:],
                    trio.current_time())
        self.queue.append(held)
        self.held_of[session] = held
        self.held += 1
        return before

    def settle(self, table: Table) -> None:
        """``table``'s driver moved: free the cores of its requests now closed, drop its held
        requests now closed (sending what was held behind them), then give the free cores to
        the requests held longest."""
        driver = table.driver
        for session, (owner, seat, request_id) in list(self.thinking.items()):
            if owner is table and not driver.is_open(seat, request_id):
                del self.thinking[session]
        for held in [h for h in self.queue if h.table is table]:
            if not driver.is_open(held.seat, held.request_id):
                self.queue.remove(held)
                del self.held_of[held.session]
                kept = [(m, line) for m, line in zip(held.messages, held.lines)
                        if getattr(m, "id", None) != held.request_id]
                if kept and held.session.queue_all([m for m, _ in kept], [x for _, x in kept]):
                    held.session.link.push()
        self._grant()

    def forget(self, table: Table) -> None:
        """``table`` is over: nothing of it thinks or waits any more."""
        for session, (owner, _, _) in list(self.thinking.items()):
            if owner is table:
                del self.thinking[session]
        for held in [h for h in self.queue if h.table is table]:
            self.queue.remove(held)
            del self.held_of[held.session]
        self._grant()

    def _thinks(self, table: Table, session: Session, seat: int, request_id: int) -> None:
        self.thinking[session] = (table, seat, request_id)
        self.most_thinking = max(self.most_thinking, len(self.thinking))

    def _grant(self) -> None:
        while self.queue and len(self.thinking) < self.count:
            held = self.queue.popleft()
            del self.held_of[held.session]
            now = trio.current_time()
            self.held_seconds += now - held.since
            self._thinks(held.table, held.session, held.seat, held.request_id)
            held.table.sent_held(held.seat, held.request_id, now)
            if held.session.queue_all(held.messages, held.lines):
                held.session.link.push()
