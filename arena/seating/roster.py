"""Seating by token: :class:`TokenBook` (one live session per token, who is given up on) and
:class:`RosterSeating` (``arena match``: a fixed list of bots plays a series, seats rotating)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import attrs

from arena.seating.interface import (
    Admission,
    SeatedTable,
    SeatingStatistics,
    game_over_then_ready,
)
from protocol.errors import ErrorCode


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
        return game_over_then_ready(self, table, survivors, now)

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
