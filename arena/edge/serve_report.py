"""What ``arena serve`` tells its operator: who connected, left and was seated for the first
time, and how many seats the next table still waits for (a status line on stderr, at most one
a second, only when something changed); a running tally of the games (on stdout, at a calm
rate); a summary at the end.

The pure parts (:class:`Notes`, :func:`status_line`, :class:`Tally`, :class:`TallyClock`)
take plain values and time as an input.  The server tells :class:`Notes`
of each connection, departure and table (a few list appends; nothing per decision), and
:func:`report_loop`, a timer task, turns them into lines.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import attrs
import trio

from arena.gameplay.records import GameRecord

#: Seconds between looks at the server (status lines come at most this often).
STATUS_SECONDS = 1.0
#: Names listed in one status line before "and N more" (connected, left).
NAMES_LISTED = 6
#: Tables listed in one status line before "and N more".
TABLES_LISTED = 3
#: Names in a tally, the most winning first, before "and N more".
TALLY_NAMES = 12
#: Results of the latest games shown in a tally.
LAST_RESULTS = 3


class Notes:
    """What happened since the last status line, as the server tells it (per connection, per
    departure, per table started): the players that connected or left, and the tables at which
    a player sat for the first time (a table of players seated before is no news: the game
    lines and the tally show games).  Names are kept up to :data:`NAMES_LISTED` (tables up to
    :data:`TABLES_LISTED`), beyond that only counted."""

    def __init__(self) -> None:
        self.seated_once: set[Hashable] = set()  # connected players that have had a seat
        self._clear()

    def _clear(self) -> None:
        self.came: list[str] = []
        self.came_count = 0
        self.went: list[str] = []
        self.went_count = 0
        self.tables: list[str] = []
        self.tables_count = 0

    def connected(self, key: Hashable, name: str) -> None:
        self.came_count += 1
        if len(self.came) < NAMES_LISTED:
            self.came.append(name)

    def left(self, key: Hashable, name: str) -> None:
        self.seated_once.discard(key)
        self.went_count += 1
        if len(self.went) < NAMES_LISTED:
            self.went.append(name)

    def seated(self, number: int, keys: Iterable[Hashable], names: Iterable[str]) -> None:
        new = [key for key in keys if key is not None and key not in self.seated_once]
        if not new:
            return
        self.seated_once.update(new)
        self.tables_count += 1
        if len(self.tables) < TABLES_LISTED:
            self.tables.append(f"table {number} ({', '.join(names)})")

    def take(self) -> list[str]:
        """The news since the last call, as parts of a status line (and forget them)."""
        parts = []
        for label, listed, count in (("connected", self.came, self.came_count),
                                     ("left", self.went, self.went_count),
                                     ("seated", self.tables, self.tables_count)):
            if count:
                more = f" and {count - len(listed)} more" if count > len(listed) else ""
                parts.append(f"{label}: {', '.join(listed)}{more}")
        self._clear()
        return parts


def waiting_text(waiting: int, seats: int) -> str:
    """``3 of 4 seated, waiting for 1``: how far the next table is from starting."""
    if waiting == 0:
        return "nobody waiting for a seat"
    if waiting < seats:
        return f"{waiting} of {seats} seated, waiting for {seats - waiting}"
    return f"{waiting} waiting for a seat"


def status_line(news: list[str], waiting_before: int, waiting: int, seats: int,
                connections: int, tables: int) -> str | None:
    """One line saying what changed (``news`` from :meth:`Notes.take`, and the players
    waiting for a seat before and now); None if nothing did."""
    parts = list(news)
    if waiting != waiting_before:
        parts.append(waiting_text(waiting, seats))
    if not parts:
        return None
    return f"arena: {'; '.join(parts)} [{connections} connections, {tables} tables running]"


@attrs.define
class NameTally:
    games: int = 0
    wins: int = 0
    score: int = 0


class Tally:
    """The games finished so far: how many, how many aborted, per name the games played
    (finished ones), the wins (a shared first place counts for each) and the mean score, and
    the latest results."""

    def __init__(self) -> None:
        self.games = 0
        self.aborted = 0
        self.by_name: dict[str, NameTally] = {}
        self.last: deque[str] = deque(maxlen=LAST_RESULTS)

    def add(self, record: GameRecord) -> None:
        self.games += 1
        if record.aborted:
            self.aborted += 1
            self.last.append(f"{record.game_id}: aborted ({record.aborted})")
            return
        for seat, (name, score) in enumerate(zip(record.names, record.scores)):
            entry = self.by_name.setdefault(name, NameTally())
            entry.games += 1
            entry.score += score
            entry.wins += seat in record.winners
        self.last.append(f"{record.game_id}: " + " ".join(
            f"{name}={score}" for name, score in zip(record.names, record.scores)))

    def lines(self, *, last: bool = True) -> list[str]:
        """The tally as lines for people (``last``: with the latest results)."""
        aborted = f", {self.aborted} aborted" if self.aborted else ""
        lines = [f"arena: {self.games} games played{aborted}"]
        ranked = sorted(self.by_name.items(), key=lambda item: (-item[1].wins, item[0]))
        width = max((len(name) for name, _ in ranked[:TALLY_NAMES]), default=4)
        if ranked:
            lines.append(f"  {'name':<{width}}  games   wins  mean score")
        for name, entry in ranked[:TALLY_NAMES]:
            lines.append(f"  {name:<{width}}  {entry.games:5}  {entry.wins:5}  "
                         f"{entry.score / entry.games:10.1f}")
        if len(ranked) > TALLY_NAMES:
            lines.append(f"  and {len(ranked) - TALLY_NAMES} more names")
        if last:
            lines.extend(f"  last: {result}" for result in self.last)
        return lines


class TallyClock:
    """When the running tally is due: at least ``seconds`` and at least ``games`` new games
    since the last one (whichever comes later)."""

    def __init__(self, seconds: float, games: int, now: float) -> None:
        self.seconds = seconds
        self.games = games
        self.since = now
        self.games_then = 0

    def due(self, now: float, games: int) -> bool:
        if now - self.since < self.seconds or games - self.games_then < max(self.games, 1):
            return False
        self.since, self.games_then = now, games
        return True


async def report_loop(server: Any, notes: Notes, seats: int,
                      status: Callable[[str], None], tally: Tally, clock: TallyClock | None,
                      print_tally: Callable[[Iterable[str]], None]) -> None:
    """Every :data:`STATUS_SECONDS`: a status line if anything changed (``notes``: what the
    server told), and the running tally when ``clock`` says it is due (no clock: none)."""
    waiting = 0
    while True:
        await trio.sleep(STATUS_SECONDS)
        statistics = server.statistics()
        line = status_line(notes.take(), waiting, statistics.seating.waiting, seats,
                           statistics.connections, statistics.tables_running)
        waiting = statistics.seating.waiting
        if line is not None:
            status(line)
        if clock is not None and clock.due(trio.current_time(), tally.games):
            print_tally(tally.lines())
