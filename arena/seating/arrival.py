"""Arrival seating (``arena serve``): sessions wait in arrival order; whenever enough are
waiting, the first ones make a table; and the registered players a server may admit alone."""

from __future__ import annotations

import contextlib
import hmac
from collections import deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from arena.seating.interface import Admission, SeatedTable, SeatingStatistics
from arena.seating.names import NameBook
from protocol.errors import ErrorCode

#: Seconds a newcomer to arrival seating waits before it may be seated.
NEWCOMER_SETTLE = 0.05
#: Seconds after its hello that a session which has not yet finished a game here sits only
#: with other such sessions (then it may sit with anyone): a client that says hello and leaves
#: once seated never costs the bots that play here a table.
NEWCOMER_PROBATION = 1.0


class ArrivalSeating:
    """First come, first seated, ``players`` to a table; tables start as soon as they fill.

    Names are unique among the connected (:class:`~arena.seating.names.NameBook`): on an open server
    same-named bots are told apart (``random``, ``random#2``); with registered players a
    second connection for a connected player is refused (``token_in_use``).  So one player
    never sits twice at a table; the seating keeps that rule for sessions it was not asked to
    admit.  Seats rotate: table k's seat order is its arrival order rotated by k - 1, so the
    first to arrive does not deal first every game.

    Churn (clients that say hello and close at once, or once seated) costs others no game: a
    newcomer waits ``settle`` seconds before it joins the queue (one that is gone by then is
    never seated), a session already leaving (its ``leaving`` is true) is dropped instead of
    seated, and the survivors of a table that did not start go back to the front of the queue.
    A session that has finished a game here is a *regular*; one that has not sits only with
    others that have not (newcomers' tables, formed first) until ``probation`` seconds after
    its hello, then with anyone: regulars never sit with a fresh newcomer, so clients that
    leave tables unstarted, from as many addresses as they like, only cost each other; a
    newcomer with no other newcomer to play with waits at most ``probation`` longer.  A bot
    that comes back with its token is the same session, a regular still if it was one."""

    def __init__(self, players: int, registry: Mapping[str, str] | None = None, *,
                 settle: float = NEWCOMER_SETTLE, probation: float = NEWCOMER_PROBATION,
                 checker: Callable[[str, str | None], tuple[str | None, bool]] | None = None,
                 ) -> None:
        """``registry``: registered names (case-insensitive) and their secret tokens; with one,
        only registered players are admitted, each with its own token, under the name as
        registered.  ``checker`` (instead of a registry, ``arena serve --db``): asked at each
        hello for (the registered name or None, whether the token is its own)."""
        self.players = players
        self.registry = ({name.casefold(): token for name, token in registry.items()}
                         if registry is not None else None)
        self.registered = {name.casefold(): name for name in (registry or ())}
        self.checker = checker
        self.names = NameBook()
        self.settle = settle
        self.waiting: deque[Hashable] = deque()
        #: Newcomers waiting to join the queue, in arrival order, with the time they may.
        self.newcomers: dict[Hashable, float] = {}
        self.known: set[Hashable] = set()  # joined the queue once (until gone)
        self.probation = probation
        #: Sessions that have not finished a game here, until their probation ends (in
        #: order: hello time + ``probation``); they sit only with newcomers.
        self.fresh: dict[Hashable, float] = {}
        #: Sessions that have finished a game here (until gone).
        self.regulars: set[Hashable] = set()
        self.started = 0
        self.running = 0

    def start(self, now: float) -> list[SeatedTable]:
        return []

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        if self.checker is not None:
            registered, matches = self.checker(name, token)
            if registered is None:
                return Admission(refusal=ErrorCode.UNKNOWN_TOKEN)
            if not matches:
                return Admission(refusal=ErrorCode.BAD_TOKEN)
            if not self.names.take(session, registered):
                return Admission(refusal=ErrorCode.TOKEN_IN_USE)
            return Admission(name=self.names.held[session])
        if self.registry is None:
            return Admission(name=self.names.take_numbered(session, name), token_checked=False)
        expected = self.registry.get(name.casefold())
        if expected is None:
            return Admission(refusal=ErrorCode.UNKNOWN_TOKEN)
        if token is None or not hmac.compare_digest(  # any text a hello's JSON may hold
                token.encode("utf-8", "surrogatepass"), expected.encode()):
            return Admission(refusal=ErrorCode.BAD_TOKEN)
        if not self.names.take(session, self.registered[name.casefold()]):
            return Admission(refusal=ErrorCode.TOKEN_IN_USE)  # the first connection keeps it
        return Admission(name=self.names.held[session])

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        if session not in self.known:
            if session not in self.newcomers:
                self.newcomers[session] = now + self.settle
                self.fresh[session] = now + self.probation
            return self.expire(now)
        if session not in self.waiting:  # a bot that came back may be waiting still
            self.waiting.append(session)
        return self._fill()

    def expire(self, now: float) -> list[SeatedTable]:
        """Newcomers whose settling time is over join the queue; those whose probation is
        over may sit with anyone."""
        while self.newcomers:
            session, due = next(iter(self.newcomers.items()))
            if due > now:
                break
            del self.newcomers[session]
            self.known.add(session)
            if session not in self.waiting:
                self.waiting.append(session)
        while self.fresh:
            session, due = next(iter(self.fresh.items()))
            if due > now:
                break
            del self.fresh[session]
        return self._fill()

    def next_deadline(self) -> float | None:
        dues = [next(iter(queue.values())) for queue in (self.newcomers, self.fresh) if queue]
        return min(dues, default=None)

    def unstarted(self, table: SeatedTable, survivors: Sequence[Hashable],
                  now: float) -> list[SeatedTable]:
        self.running -= 1
        shift = (table.number - 1) % self.players
        cut = len(table.sessions) - shift
        arrival = table.sessions[cut:] + table.sessions[:cut]  # the order they came in
        back = [s for s in arrival if s in survivors and s not in self.waiting]
        self.waiting.extendleft(reversed(back))
        return self._fill()

    def _fill(self) -> list[SeatedTable]:
        """Newcomers' tables first (sessions that are not regulars), then tables of regulars
        and newcomers past their probation, each in arrival order."""
        tables: list[SeatedTable] = []
        for leaving in [s for s in self.waiting if getattr(s, "leaving", False)]:
            self.waiting.remove(leaving)  # closed: never seated (its gone() is on the way)
        while True:
            picked = (self._pick(lambda s: s not in self.regulars)
                      or self._pick(lambda s: s not in self.fresh))
            if picked is None:
                return tables
            for chosen in picked:
                self.waiting.remove(chosen)
            self.started += 1
            self.running += 1
            shift = (self.started - 1) % self.players
            sessions = tuple(picked[shift:] + picked[:shift])
            tables.append(SeatedTable(self.started, sessions, tuple(map(_name, sessions)),
                                      (None,) * self.players, needs_everyone=True))

    def _pick(self, may_sit: Callable[[Hashable], bool]) -> list[Hashable] | None:
        """The first ``players`` waiting sessions with different names that ``may_sit`` (None:
        not so many)."""
        picked: list[Hashable] = []
        names: set[str] = set()
        for waiting in self.waiting:
            if not may_sit(waiting):
                continue
            name = _name(waiting).casefold()
            if name not in names:
                picked.append(waiting)
                names.add(name)
                if len(picked) == self.players:
                    return picked
        return None

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        self.names.release(session)
        self.newcomers.pop(session, None)
        self.fresh.pop(session, None)
        self.regulars.discard(session)
        self.known.discard(session)
        with contextlib.suppress(ValueError):  # it was not waiting
            self.waiting.remove(session)
        return []

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        """The sessions still here have finished a game: they are regulars from now on."""
        self.running -= 1
        for session in table.sessions:
            if session in self.known:
                self.regulars.add(session)
                self.fresh.pop(session, None)
        return []

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        return []

    def statistics(self) -> SeatingStatistics:
        return SeatingStatistics(tables_started=self.started, tables_running=self.running,
                                 waiting=len(self.waiting))


def _name(session: Any) -> str:
    return str(getattr(session, "name", session))


def load_registry(text: str) -> dict[str, str]:
    """Registered players from a tokens file: one ``name token`` per line (``#`` comments and
    blank lines skipped).  Raises ValueError naming the line of anything wrong."""
    registry: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"line {number}: expected 'name token'")
        name, token = parts
        if name.casefold() in {known.casefold() for known in registry}:
            raise ValueError(f"line {number}: {name!r} is registered twice")
        if len(token) < 16:
            raise ValueError(f"line {number}: a token needs at least 16 characters")
        registry[name] = token
    return registry
