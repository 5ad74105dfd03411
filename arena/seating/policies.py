"""Who sits where, and when a table starts: seating policies, pure (no I/O, time as an input).

The server tells a policy what happens to sessions (a connection said hello, is idle and ready
for a seat, has gone, a table's game is over, time has passed) and the policy answers with the
tables that start now: :class:`SeatedTable`, each naming which session holds each seat, the
names shown, the entrant per seat (for results), and the game's seed and options when the
policy chooses them.  The server never branches on which policy it runs:

- :class:`ArrivalSeating` (``arena serve``): sessions wait in arrival order; whenever enough
  are waiting, the first ones make a table.  After a game a bot waits again at the back.  A
  newcomer waits :data:`NEWCOMER_SETTLE` seconds before it may be seated, so a client that
  says hello and closes at once is dropped before it costs anyone a table.
- :class:`RosterSeating` (``arena match``): a fixed list of bots, known by their tokens, plays a
  series of games one after another; seats rotate each game (in game g, bot i sits at seat
  (i + g) mod n) so every bot deals first in turn.  A bot that is not there when a game starts
  (never connected by the deadline, crashed) is absent from it: the default policy plays its
  seat.
- :class:`ScheduledSeating` (``arena tournament``): a schedule's tables, each with its seats,
  seed and duplicate set, run K at a time by instances of each entrant.

Sessions are opaque hashable values here; the server passes its own.  A seat is first-class:
reconnection and spectators will be a rebinding of a seat, not a branch in the server.
"""

from __future__ import annotations

import hmac
from collections import Counter, deque
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol

import attrs

from arena.gameplay.records import PlannedTable
from arena.seating.names import NameBook
from protocol.errors import ErrorCode


@attrs.frozen
class SeatedTable:
    """A table to start now.  ``sessions[seat]`` holds the seat (``None``: absent, played by
    the default policy); ``entrants[seat]`` is who that is in the policy's own list (``None``
    without one); ``seed`` and ``options`` are ``None`` where the server's own apply."""

    number: int
    sessions: tuple[Any, ...]
    names: tuple[str, ...]
    entrants: tuple[int | None, ...]
    seed: str | None = None
    options: Any = None
    tag: PlannedTable | None = None  # the schedule's planned table (ScheduledSeating)
    #: Play only if every session is still connected when the table starts; otherwise the
    #: table does not start (no game, no log) and the others are ready again.  Arrival seating
    #: wants this (a bot that closed at once must not cost others a game); seating by token
    #: does not (an absent bot's seat is played by the default policy).
    needs_everyone: bool = False


@attrs.frozen
class Admission:
    """A session's hello, answered: the name to show for it, or why it is refused."""

    name: str | None = None
    refusal: ErrorCode | None = None
    #: The token was checked (a roster, a registry): it may bring the bot back after a lost
    #: connection.  An open server takes any token unchecked, so it brings no one back.
    token_checked: bool = True


@attrs.frozen
class SeatingStatistics:
    """A snapshot for the runners: which tokens ever connected, which left before the end, how
    many tables started and are running, and whether the policy will start no more."""

    ever_connected: frozenset[str] = frozenset()
    left_early: frozenset[str] = frozenset()
    #: Tokens given up on: left, their process ended, or not connected by the deadline.
    given_up: frozenset[str] = frozenset()
    tables_started: int = 0
    tables_running: int = 0
    done: bool = False
    #: Admitted sessions waiting for a seat (arrival seating).
    waiting: int = 0


class Seating(Protocol):
    """Every method is pure bookkeeping; each returns the tables that start now."""

    def start(self, now: float) -> list[SeatedTable]:
        """The server starts serving."""

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        """A session said hello: the name to show, or a refusal (the connection is closed)."""

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        """An admitted session is idle and waiting for a seat."""

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        """The session's connection ended (seated or not)."""

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        """The game at ``table`` ended (finished or aborted); its sessions are not ready until
        :meth:`ready` says so."""

    def unstarted(self, table: SeatedTable, survivors: Sequence[Hashable],
                  now: float) -> list[SeatedTable]:
        """``table`` did not start (a session it needed was gone: ``needs_everyone``); the
        ``survivors`` are ready again, ahead of those that came after them."""

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        """The bot with this token will not come (its process ended): stop waiting for it."""

    def expire(self, now: float) -> list[SeatedTable]:
        """Time passed: act on deadlines up to ``now``."""

    def next_deadline(self) -> float | None:
        """When :meth:`expire` should be called next, if ever."""

    def statistics(self) -> SeatingStatistics: ...


#: Seconds a newcomer to arrival seating waits before it may be seated.
NEWCOMER_SETTLE = 0.05


class ArrivalSeating:
    """First come, first seated, ``players`` to a table; tables start as soon as they fill.

    Names are unique among the connected (:class:`~arena.seating.names.NameBook`): on an open server
    same-named bots are told apart (``random``, ``random#2``); with registered players a
    second connection for a connected player is refused (``token_in_use``).  So one player
    never sits twice at a table; the seating keeps that rule for sessions it was not asked to
    admit.  Seats rotate: table k's seat order is its arrival order rotated by k - 1, so the
    first to arrive does not deal first every game.

    Churn (clients that say hello and close at once) costs others no game: a newcomer waits
    ``settle`` seconds before it joins the queue (one that is gone by then is never seated), a
    session already leaving (its ``leaving`` is true) is dropped instead of seated, and the
    survivors of a table that did not start go back to the front of the queue."""

    def __init__(self, players: int, registry: Mapping[str, str] | None = None, *,
                 settle: float = NEWCOMER_SETTLE) -> None:
        """``registry``: registered names (case-insensitive) and their secret tokens; with one,
        only registered players are admitted, each with its own token, under the name as
        registered."""
        self.players = players
        self.registry = ({name.casefold(): token for name, token in registry.items()}
                         if registry is not None else None)
        self.registered = {name.casefold(): name for name in (registry or ())}
        self.names = NameBook()
        self.settle = settle
        self.waiting: deque[Hashable] = deque()
        #: Newcomers waiting to join the queue, in arrival order, with the time they may.
        self.newcomers: dict[Hashable, float] = {}
        self.known: set[Hashable] = set()  # joined the queue once (until gone)
        self.started = 0
        self.running = 0

    def start(self, now: float) -> list[SeatedTable]:
        return []

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        if self.registry is None:
            return Admission(name=self.names.take_numbered(session, name), token_checked=False)
        expected = self.registry.get(name.casefold())
        if expected is None:
            return Admission(refusal=ErrorCode.UNKNOWN_TOKEN)
        if token is None or not hmac.compare_digest(token.encode(), expected.encode()):
            return Admission(refusal=ErrorCode.BAD_TOKEN)
        if not self.names.take(session, self.registered[name.casefold()]):
            return Admission(refusal=ErrorCode.TOKEN_IN_USE)  # the first connection keeps it
        return Admission(name=self.names.held[session])

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        if session not in self.known:
            self.newcomers.setdefault(session, now + self.settle)
            return self.expire(now)
        if session not in self.waiting:  # a bot that came back may be waiting still
            self.waiting.append(session)
        return self._fill()

    def expire(self, now: float) -> list[SeatedTable]:
        """Newcomers whose settling time is over join the queue."""
        while self.newcomers:
            session, due = next(iter(self.newcomers.items()))
            if due > now:
                break
            del self.newcomers[session]
            self.known.add(session)
            if session not in self.waiting:
                self.waiting.append(session)
        return self._fill()

    def next_deadline(self) -> float | None:
        return next(iter(self.newcomers.values()), None)

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
        tables: list[SeatedTable] = []
        for leaving in [s for s in self.waiting if getattr(s, "leaving", False)]:
            self.waiting.remove(leaving)  # closed: never seated (its gone() is on the way)
        while True:
            picked: list[Hashable] = []
            names: set[str] = set()
            for waiting in self.waiting:
                name = _name(waiting).casefold()
                if name not in names:
                    picked.append(waiting)
                    names.add(name)
                    if len(picked) == self.players:
                        break
            if len(picked) < self.players:
                return tables
            for chosen in picked:
                self.waiting.remove(chosen)
            self.started += 1
            self.running += 1
            shift = (self.started - 1) % self.players
            sessions = tuple(picked[shift:] + picked[:shift])
            tables.append(SeatedTable(self.started, sessions, tuple(map(_name, sessions)),
                                      (None,) * self.players, needs_everyone=True))

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        self.names.release(session)
        self.newcomers.pop(session, None)
        self.known.discard(session)
        try:
            self.waiting.remove(session)
        except ValueError:
            pass
        return []

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        self.running -= 1
        return []

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        return []

    def statistics(self) -> SeatingStatistics:
        return SeatingStatistics(tables_started=self.started, tables_running=self.running,
                                 waiting=len(self.waiting))


def _name(session: Any) -> str:
    return str(getattr(session, "name", session))


def _game_over_then_ready(policy: Seating, table: SeatedTable, survivors: Sequence[Hashable],
                          now: float) -> list[SeatedTable]:
    """A table that did not start, for a policy without a queue to put anyone in front of."""
    tables = policy.game_over(table, now)
    for session in survivors:
        tables += policy.ready(session, now)
    return tables


@attrs.frozen
class RosterEntry:
    name: str
    token: str


class TokenBook:
    """The token side of seating by token: one live session per token (a token not in the book
    is refused), who ever connected, who left before the end, which tokens are given up on
    (left, their process ended, or not connected by the connect deadline)."""

    def __init__(self, tokens: Sequence[str], connect_timeout: float | None = None) -> None:
        self.index = {token: i for i, token in enumerate(tokens)}
        self.tokens = list(tokens)
        self.connect_timeout = connect_timeout
        self.live: dict[int, Hashable] = {}  # token index -> its live session
        self.of_session: dict[Hashable, int] = {}
        self.ever_connected: set[int] = set()
        self.left_early: set[int] = set()
        self.given_up: set[int] = set()
        self.deadline: float | None = None

    def start(self, now: float) -> None:
        if self.connect_timeout is not None:
            self.deadline = now + self.connect_timeout

    def admit(self, session: Hashable, token: str | None) -> tuple[int | None, ErrorCode | None]:
        index = self.index.get(token) if token is not None else None
        if index is None:
            return None, ErrorCode.UNKNOWN_TOKEN
        if index in self.live:
            return None, ErrorCode.TOKEN_IN_USE
        self.live[index] = session
        self.of_session[session] = index
        self.ever_connected.add(index)
        self.given_up.discard(index)
        return index, None

    def leave(self, session: Hashable, *, early: bool) -> int | None:
        """The session is gone: its token is given up on.  The token's index, if any."""
        index = self.of_session.pop(session, None)
        if index is not None:
            self.live.pop(index, None)
            self.given_up.add(index)
            if early:
                self.left_early.add(index)
        return index

    def withdraw(self, token: str) -> bool:
        """Give up on a token that is not connected (its process ended)."""
        index = self.index.get(token)
        if index is None or index in self.live:
            return False
        self.given_up.add(index)
        return True

    def expire(self, now: float) -> bool:
        """At the connect deadline, give up on every token not connected."""
        if self.deadline is None or now < self.deadline:
            return False
        self.deadline = None
        self.given_up.update(i for i in range(len(self.tokens)) if i not in self.live)
        return True

    def statistics(self, started: int, running: int, done: bool) -> SeatingStatistics:
        return SeatingStatistics(
            ever_connected=frozenset(self.tokens[i] for i in self.ever_connected),
            left_early=frozenset(self.tokens[i] for i in self.left_early),
            given_up=frozenset(self.tokens[i] for i in self.given_up),
            tables_started=started, tables_running=running, done=done)


class RosterSeating:
    """A series of ``games`` games between the roster's bots, one game at a time, seats
    rotating every game.  A game starts once every bot is connected and idle, or has been given
    up on: it left, its process ended (:meth:`withdraw`), or it had not connected
    ``connect_timeout`` seconds after :meth:`start`."""

    def __init__(self, roster: Sequence[RosterEntry], games: int,
                 connect_timeout: float | None = None) -> None:
        if not roster:
            raise ValueError("a roster needs at least one bot")
        self.roster = list(roster)
        self.games = games
        self.book = TokenBook([entry.token for entry in roster], connect_timeout)
        self.present: dict[int, Hashable] = {}  # roster index -> its idle session
        self.games_started = 0
        self.playing = False

    def start(self, now: float) -> list[SeatedTable]:
        self.book.start(now)
        return []

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        index, refusal = self.book.admit(session, token)
        if refusal is not None or index is None:
            return Admission(refusal=refusal)
        return Admission(name=self.roster[index].name)

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        index = self.book.of_session.get(session)
        if index is not None:
            self.present[index] = session
        return self._next()

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        index = self.book.leave(session, early=not self.done)
        if index is None:
            return []
        self.present.pop(index, None)
        return self._next()

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        return self._next() if self.book.withdraw(token) else []

    def expire(self, now: float) -> list[SeatedTable]:
        return self._next() if self.book.expire(now) else []

    def next_deadline(self) -> float | None:
        return self.book.deadline

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        self.playing = False
        return self._next()

    def unstarted(self, table: SeatedTable, survivors: Sequence[Hashable],
                  now: float) -> list[SeatedTable]:
        return _game_over_then_ready(self, table, survivors, now)

    @property
    def done(self) -> bool:
        return self.games_started >= self.games and not self.playing

    def statistics(self) -> SeatingStatistics:
        return self.book.statistics(self.games_started, int(self.playing), self.done)

    def _next(self) -> list[SeatedTable]:
        if self.playing or self.games_started >= self.games:
            return []
        everyone = range(len(self.roster))
        if any(i not in self.present and i not in self.book.given_up for i in everyone):
            return []  # still waiting for someone
        n = len(self.roster)
        number = self.games_started
        bots = tuple((seat - number) % n for seat in range(n))  # bot i sits at (i + number) % n
        self.games_started += 1
        self.playing = True
        sessions = tuple(self.present.pop(i, None) for i in bots)
        return [SeatedTable(number, sessions, tuple(self.roster[i].name for i in bots), bots)]


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
    ``connect_timeout`` seconds after :meth:`start`) leave their seats to the default policy."""

    def __init__(self, planned: Sequence[PlannedTable], names: Sequence[str],
                 instances: Sequence[Instance], concurrency: int,
                 connect_timeout: float | None = None) -> None:
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

    def start(self, now: float) -> list[SeatedTable]:
        self.book.start(now)
        return self._next()

    def drain(self) -> None:
        """Start no more tables; the running ones finish."""
        self.draining = True

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        index, refusal = self.book.admit(session, token)
        if refusal is not None or index is None:
            return Admission(refusal=refusal)
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
        return _game_over_then_ready(self, table, survivors, now)

    @property
    def done(self) -> bool:
        return self.running == 0 and (not self.pending or self.draining)

    def statistics(self) -> SeatingStatistics:
        return self.book.statistics(self.started, self.running, self.done)

    def _expected(self, entrant: int) -> int:
        """The entrant's instances alive or still expected (not given up on)."""
        return sum(1 for i, instance in enumerate(self.instances)
                   if instance.entrant == entrant and i not in self.book.given_up)

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
