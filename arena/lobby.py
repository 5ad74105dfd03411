"""Who sits at which table: pure seating policies, no I/O.

- :class:`ArrivalLobby` (``arena serve``): connections wait in arrival order; whenever enough
  are waiting, the first ones make a table.  After a game a bot waits again at the back.
- :class:`RosterLobby` (``arena match``): a fixed list of bots, known by their tokens, plays a
  fixed number of games one after another; seats rotate each game (in game g, bot i sits at
  seat (i + g) mod n) so every bot deals first in turn.  A bot that is not there when a game
  starts (never connected, crashed) is absent from that game; the default policy plays its
  seat.

Sessions are opaque values here; the server passes its own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Any

import attrs

from protocol.errors import ErrorCode


class ArrivalLobby:
    def __init__(self, players: int) -> None:
        self.players = players
        self.waiting: deque[Any] = deque()

    def join(self, session: Any) -> list[list[Any]]:
        """The session waits for a table; returns the tables that can start now."""
        self.waiting.append(session)
        tables = []
        while len(self.waiting) >= self.players:
            tables.append([self.waiting.popleft() for _ in range(self.players)])
        return tables

    def leave(self, session: Any) -> None:
        try:
            self.waiting.remove(session)
        except ValueError:
            pass


@attrs.frozen
class RosterEntry:
    name: str
    token: str


@attrs.frozen
class PlannedGame:
    """Game ``number`` (0-based): ``bots[seat]`` is the roster index sitting there."""

    number: int
    bots: tuple[int, ...]


class RosterLobby:
    def __init__(self, roster: list[RosterEntry], games: int) -> None:
        if not roster:
            raise ValueError("a roster needs at least one bot")
        self.roster = roster
        self.games = games
        self.present: dict[int, Any] = {}  # roster index -> its connected, idle session
        self.gave_up: set[int] = set()  # bots no longer waited for (crashed, never came)
        self.games_started = 0
        self.playing = False
        self._index = {entry.token: i for i, entry in enumerate(roster)}
        self._live: dict[int, Hashable] = {}  # roster index -> session, connected (any state)
        self.ever_connected: set[int] = set()
        self.left_early: set[int] = set()  # connected, then left before the last game ended

    def admit(self, token: str | None, session: Hashable) -> tuple[int | None, ErrorCode | None]:
        """Which roster bot a new connection is, or why it is refused."""
        index = self._index.get(token) if token is not None else None
        if index is None:
            return None, ErrorCode.UNKNOWN_TOKEN
        if index in self._live:
            return None, ErrorCode.TOKEN_IN_USE
        self._live[index] = session
        self.ever_connected.add(index)
        self.gave_up.discard(index)
        return index, None

    def join(self, index: int, session: Any) -> PlannedGame | None:
        """The bot is connected and idle; returns the next game if it can start now."""
        self.present[index] = session
        return self._next()

    def gone(self, index: int) -> PlannedGame | None:
        """The bot's connection ended (or its process, before connecting): stop waiting for it."""
        self.present.pop(index, None)
        if self._live.pop(index, None) is not None and not self.done:
            self.left_early.add(index)
        self.gave_up.add(index)
        return self._next()

    def give_up_waiting(self) -> PlannedGame | None:
        """Stop waiting for bots that have not come (the connect timeout passed)."""
        self.gave_up.update(i for i in range(len(self.roster)) if i not in self._live)
        return self._next()

    def game_over(self) -> PlannedGame | None:
        self.playing = False
        return self._next()

    @property
    def done(self) -> bool:
        return self.games_started >= self.games and not self.playing

    def _next(self) -> PlannedGame | None:
        if self.playing or self.games_started >= self.games:
            return None
        everyone = range(len(self.roster))
        if any(i not in self.present and i not in self.gave_up for i in everyone):
            return None  # still waiting for someone
        n = len(self.roster)
        number = self.games_started
        bots = tuple((seat - number) % n for seat in range(n))  # bot i sits at (i + number) % n
        self.games_started += 1
        self.playing = True
        return PlannedGame(number, bots)

    def session_of(self, index: int) -> Any:
        """The bot's idle session, or None when it is absent."""
        return self.present.get(index)
