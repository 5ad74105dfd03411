"""Ladder seating (``arena serve --db``, or ``--seating ladder``): bots that wait are seated by
their ratings, so that every game tells something about every bot.  Pure: time is an input.

The rule, table by table (``players`` to a table):

- The **anchor** of each table is the bot that has waited longest: nobody is passed over for
  ever, whatever its rating.
- A table forms when at least ``pool`` bots wait (default four tables' worth: a choice of
  opponents), or when the anchor has waited ``patience`` seconds and at least ``players`` wait,
  or at once when the bots at running tables could not make up the pool when they come back
  (a small ladder never waits for a pool it cannot have).
- In such a **small ladder** (or when the pool is not there yet) the anchor **mixes**: it meets
  bots it has not met through anybody (another group of the who-met-whom graph) when any
  wait, else bots that were not at its last table; and it waits up to ``patience`` for a bot
  it has not met through anybody when none waits but one is playing.  Without it, the two
  bots of a duel finish together, are ready together and meet again at once, for ever: the
  ladder can fall apart into groups that never meet.
- A bot that has waited ``max_wait`` seconds is seated at once with the bots that have waited
  longest after it, whatever their ratings (the bound: while ``players`` bots wait, nobody
  waits longer than ``max_wait``).
- Otherwise the anchor meets the bots **closest** to it in rating, except every
  ``distant_every``-th table, where it meets **distant** ones: bots it has not met through
  anybody (another group of the who-met-whom graph) when any wait, else bots drawn from the
  farther half of the waiting list by rating.  So close games (the informative ones once
  ratings are known) dominate, and the graph of who met whom stays connected.
- A **provisional** anchor (a newcomer: its uncertainty still at least ``provisional`` Elo
  points, by default :data:`PROVISIONAL_SHARE` of a bot's with no games; the ladder's
  openskill rating gets below that after 5 duels, 4 games at tables of three, 3 at tables of
  four, in a simulated population) meets **varied** opponents: spread evenly over the waiting
  list by rating.
- **Duplicate sets** (``duplicate``): when at least twice ``players`` bots wait as a table is
  made, that table starts a set: its bots play one deal (one seed) in every seating (every
  order for 2 or 3 players, the cyclic rotations for more), as a tournament's sets do; they
  are seated together again as soon as all of them are ready.  A set whose bot leaves, or
  that waits ``max_wait`` for one, ends there and its bots join the queue.  When a set is
  over (played in full, or ended and none of its tables running) the seating says so
  (``set_over``, with the set's number): until then its deal is still being played, and its
  games must not be shown (the ladder's book stores them when they may be).

Ratings come from a :class:`~arena.seating.ratingview.RatingView` given at construction (the
server feeds it results); the who-met-whom graph is the seating's own (the tables it seated).
Admission is arrival seating's (:class:`~arena.seating.arrival.ArrivalSeating`).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import attrs

from arena.gameplay.records import PlannedTable
from arena.games.chance import secret_seed
from arena.seating.arrival import NEWCOMER_SETTLE, ArrivalSeating
from arena.seating.interface import Admission, SeatedTable, SeatingStatistics
from arena.seating.ratingview import RatingView

#: Defaults (seconds, tables); see the module's doc.
PATIENCE = 2.0
MAX_WAIT = 30.0
DISTANT_EVERY = 5
#: A bot is provisional while its uncertainty is at least this share of a newcomer's.
PROVISIONAL_SHARE = 0.8


def set_seatings(group: Sequence[Hashable]) -> list[tuple[Hashable, ...]]:
    """The seatings of a duplicate set (as ``arena.events.schedule.seatings``): every order for
    up to 3 players, else the cyclic rotations."""
    if len(group) <= 3:
        return list(itertools.permutations(group))
    return [tuple(group[(seat + shift) % len(group)] for seat in range(len(group)))
            for shift in range(len(group))]


@attrs.define
class _Set:
    number: int
    seed: str
    seatings: list[tuple[Hashable, ...]]
    played: int = 1
    ready: dict[Hashable, float] = attrs.field(factory=dict)  # since when
    due: float | None = None  # when it stops waiting for its bots


class Groups:
    """Who met whom, through anybody: a union-find over names (compared without case)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.count = 0  # groups

    def find(self, name: str) -> str:
        key = name.casefold()
        if key not in self.parent:
            self.parent[key] = key
            self.count += 1
        root = self.parent[key]
        while root != self.parent[root]:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def met(self, names: Sequence[str]) -> None:
        for name in names[1:]:
            first, root = self.find(names[0]), self.find(name)
            if root != first:
                self.parent[root] = first
                self.count -= 1


class LadderSeating:
    def __init__(self, players: int, rating: RatingView, *, seed: str,
                 registry: Mapping[str, str] | None = None,
                 checker: Callable[[str, str | None], tuple[str | None, bool]] | None = None,
                 pool: int | None = None, patience: float = PATIENCE,
                 max_wait: float = MAX_WAIT, distant_every: int = DISTANT_EVERY,
                 provisional: float | None = None, duplicate: bool = True,
                 settle: float = NEWCOMER_SETTLE,
                 set_over: Callable[[int], None] | None = None) -> None:
        """``seed``: secret, the duplicate sets' seeds are derived from it; ``pool``: bots
        waiting that make a table at once (default: four times ``players``); ``provisional``:
        Elo points of uncertainty (default: :data:`PROVISIONAL_SHARE` of a newcomer's);
        ``set_over``: called with a set's number once no game of it runs or will run."""
        self.players = players
        self.rating = rating
        self.seed = seed
        self.door = ArrivalSeating(players, registry, checker=checker)
        self.pool = pool if pool is not None else 4 * players
        self.patience, self.max_wait = patience, max_wait
        self.distant_every = distant_every
        self.provisional = (provisional if provisional is not None
                            else PROVISIONAL_SHARE * rating.newcomer_uncertainty)
        self.duplicate, self.settle = duplicate, settle
        self.rng = random.Random(seed)
        self.groups = Groups()
        #: Waiting sessions, with the time each began to wait, the longest-waiting first.
        self.waiting: dict[Hashable, float] = {}
        self.newcomers: dict[Hashable, float] = {}
        self.known: set[Hashable] = set()
        self.sets: dict[int, _Set] = {}  # running or waiting for their bots, by number
        #: The sets one of whose tables runs (a set ended by a bot that left is over only
        #: when its running table is).
        self.playing: set[int] = set()
        self.set_over = set_over
        self.set_of: dict[Hashable, int] = {}
        self.formed = 0  # tables made from the queue
        self.started = 0
        self.running = 0
        self.set_numbers = itertools.count()
        #: The kinds of tables made from the queue (close, distant, varied, mixing, starved,
        #: set).
        self.kinds: dict[str, int] = {}
        #: Each bot's last table (the others at it), for a small ladder's mixing.
        self.last_met: dict[Hashable, frozenset[Hashable]] = {}

    # -- the interface --

    def start(self, now: float) -> list[SeatedTable]:
        return []

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        return self.door.admit(session, name, token)

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        number = self.set_of.get(session)
        if number is not None:
            return self._set_ready(number, session, now)
        if session not in self.known:
            self.newcomers.setdefault(session, now + self.settle)
            return self.expire(now)
        self.waiting.setdefault(session, now)
        return self._fill(now)

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        self.door.gone(session, now)
        self.newcomers.pop(session, None)
        self.known.discard(session)
        self.waiting.pop(session, None)
        self.last_met.pop(session, None)
        number = self.set_of.pop(session, None)
        if number is not None:
            self._end_set(number, now)
        return self._fill(now)

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        self.running -= 1
        if table.tag is not None:
            number = table.tag.set_index
            self.playing.discard(number)
            done = self.sets.get(number)
            if done is None:  # ended while this table ran (a bot left)
                self._over(number)
            elif done.played < len(done.seatings) and done.due is None:
                done.due = now + self.max_wait
            else:
                self._end_set(number, now)
        return self._fill(now)  # fewer bots playing: the waiting may not wait for a pool

    def unstarted(self, table: SeatedTable, survivors: Sequence[Hashable],
                  now: float) -> list[SeatedTable]:
        self.running -= 1
        if table.tag is not None:
            self.playing.discard(table.tag.set_index)
            if table.tag.set_index in self.sets:
                self._end_set(table.tag.set_index, now)
            else:
                self._over(table.tag.set_index)
        first = min(self.waiting.values(), default=now)
        front = {s: min(first, now) for s in table.sessions
                 if s in survivors and s not in self.waiting}
        self.waiting = {**front, **self.waiting}  # back at the front of the queue
        return self._fill(now)

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        return []

    def expire(self, now: float) -> list[SeatedTable]:
        for session, due in list(self.newcomers.items()):
            if due <= now:
                del self.newcomers[session]
                self.known.add(session)
                self.waiting.setdefault(session, now)
        for number, held in list(self.sets.items()):
            if held.due is not None and held.due <= now:
                self._end_set(number, now)
        return self._fill(now)

    def next_deadline(self) -> float | None:
        times = list(self.newcomers.values())
        times += [held.due for held in self.sets.values() if held.due is not None]
        if len(self.waiting) >= self.players:
            since = next(iter(self.waiting.values()))
            times.append(min(since + self.patience, since + self.max_wait))
        return min(times, default=None)

    def statistics(self) -> SeatingStatistics:
        return SeatingStatistics(tables_started=self.started, tables_running=self.running,
                                 waiting=len(self.waiting))

    # -- duplicate sets --

    def _set_ready(self, number: int, session: Hashable, now: float) -> list[SeatedTable]:
        held = self.sets[number]
        held.ready.setdefault(session, now)
        if len(held.ready) < self.players:
            return []
        seating = held.seatings[held.played]
        held.played += 1
        held.ready, held.due = {}, None
        self.playing.add(number)
        return [self._table(seating, PlannedTable(-1, number, held.played - 1, (), held.seed),
                            held.seed)]

    def _end_set(self, number: int, now: float) -> None:
        """The set plays no more games; it is over now, or when its running table is."""
        held = self.sets.pop(number, None)
        if held is None:
            return
        if number not in self.playing:
            self._over(number)
        for session in held.seatings[0]:
            if self.set_of.get(session) == number:
                del self.set_of[session]
        for session, since in held.ready.items():  # they have waited since they were ready
            self.waiting.setdefault(session, since)
        self.waiting = dict(sorted(self.waiting.items(), key=lambda item: item[1]))

    def _over(self, number: int) -> None:
        if self.set_over is not None:
            self.set_over(number)

    # -- making tables from the queue --

    def _fill(self, now: float) -> list[SeatedTable]:
        tables: list[SeatedTable] = []
        for leaving in [s for s in self.waiting if getattr(s, "leaving", False)]:
            del self.waiting[leaving]  # closed: never seated (its gone() is on the way)
        mean: dict[Hashable, tuple[float, float]] = {}
        by_rating: list[Hashable] = []
        while len(self.waiting) >= self.players:
            anchor, since = next(iter(self.waiting.items()))
            # the deadlines' own sums (next_deadline), so a deadline met is never missed
            if now >= since + self.max_wait:
                group, kind = list(itertools.islice(self.waiting, self.players)), "starved"
            elif ((small := len(self.waiting) < self.pool)
                  and now < min(since + self.patience, since + self.max_wait)
                  and (self.pool <= len(self.waiting) + self.players * self.running
                       or self._worth_waiting(anchor))):  # (a small ladder: few known)
                break
            else:
                if not mean:  # read once per call, and only when a table forms
                    mean = {s: self.rating.estimate(_name(s)) for s in self.waiting}
                    by_rating = sorted(self.waiting, key=lambda s: mean[s][0])
                group, kind = self._choose(anchor, by_rating, mean, small)
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            make_set = self.duplicate and len(self.waiting) >= 2 * self.players
            for session in group:
                del self.waiting[session]
                if mean:
                    by_rating.remove(session)
            tables.append(self._new_table(group, make_set))
        return tables

    def _mixing(self, anchor: Hashable, others: Sequence[Hashable]) -> list[Hashable]:
        """Of ``others``, those a small ladder's ``anchor`` would rather meet: the bots it has
        not met through anybody, else those that were not at its last table."""
        root = self.groups.find(_name(anchor))
        strangers = [s for s in others if self.groups.find(_name(s)) != root]
        if strangers:
            return strangers
        last = self.last_met.get(anchor, frozenset())
        return [s for s in others if s not in last]

    def _worth_waiting(self, anchor: Hashable) -> bool:
        """Whether the anchor of a small ladder should wait (up to ``patience``) for a bot it
        has not met through anybody: none waits, one is playing (the ladder is small: few
        bots).  (Waiting for a bot that was not at its last table too cost 7 % of the games
        in simulated small ladders.)"""
        root = self.groups.find(_name(anchor))
        if any(self.groups.find(_name(s)) != root for s in self.waiting):
            return False
        return any(self.groups.find(_name(s)) != root for s in self.known
                   if s not in self.waiting)

    def _choose(self, anchor: Hashable, by_rating: list[Hashable],
                mean: Mapping[Hashable, tuple[float, float]], small: bool = False
                ) -> tuple[list[Hashable], str]:
        self.formed += 1
        need = self.players - 1
        others = [s for s in by_rating if s is not anchor]
        if small and 0 < len(mixing := self._mixing(anchor, others)) < len(others):
            # (by_rating is sorted: so are these)
            picked = _closest(anchor, [s for s in by_rating if s is anchor or s in mixing],
                              mean, min(need, len(mixing)))
            picked += _closest(anchor, [s for s in by_rating if s not in picked], mean,
                               need - len(picked))
            return [anchor, *picked], "mixing"
        if mean[anchor][1] >= self.provisional:  # a newcomer: opponents across the range
            step = len(others) / need
            offset = self.rng.random() * step
            return [anchor, *(others[int(offset + i * step)] for i in range(need))], "varied"
        if self.formed % self.distant_every == 0:
            centre = mean[anchor][0]
            picked = []
            if self.groups.count > 1:  # bots it has not met through anybody come first
                root = self.groups.find(_name(anchor))
                strangers = [s for s in others if self.groups.find(_name(s)) != root]
                picked = _far(strangers, centre, mean, need, self.rng)
                others = [s for s in others if s not in picked]
            picked += _far(others, centre, mean, need - len(picked), self.rng)
            return [anchor, *picked], "distant"
        return [anchor, *_closest(anchor, by_rating, mean, need)], "close"

    def _new_table(self, group: list[Hashable], make_set: bool) -> SeatedTable:
        self.groups.met([_name(s) for s in group])
        for session in group:
            self.last_met[session] = frozenset(s for s in group if s is not session)
        if not make_set:
            shift = self.started % self.players  # the anchor does not always deal first
            return self._table(tuple(group[shift:] + group[:shift]), None, None)
        number = next(self.set_numbers)
        held = _Set(number, secret_seed(self.seed, "ladder-set", number), set_seatings(group))
        self.sets[number] = held
        for session in group:
            self.set_of[session] = number
        self.playing.add(number)
        return self._table(held.seatings[0], PlannedTable(-1, number, 0, (), held.seed),
                           held.seed)

    def _table(self, sessions: tuple[Hashable, ...], tag: PlannedTable | None,
               seed: str | None) -> SeatedTable:
        self.started += 1
        self.running += 1
        return SeatedTable(self.started, sessions, tuple(map(_name, sessions)),
                           (None,) * self.players, seed=seed, tag=tag, needs_everyone=True)


def _far(candidates: list[Hashable], centre: float,
         mean: Mapping[Hashable, tuple[float, float]], need: int,
         rng: random.Random) -> list[Hashable]:
    """Up to ``need`` candidates (sorted by rating) drawn from the farther half from
    ``centre``: the nearer half is a window around it, found by walking out both ways."""
    n = len(candidates)
    near = n - max(need, (n + 1) // 2)  # the nearest, left out
    low = high = bisect.bisect_left(candidates, centre, key=lambda s: mean[s][0])
    while high - low < near:
        below = centre - mean[candidates[low - 1]][0] if low > 0 else None
        above = mean[candidates[high]][0] - centre if high < n else None
        if above is None or (below is not None and below <= above):
            low -= 1
        else:
            high += 1
    outside = n - max(near, 0)
    picks = rng.sample(range(outside), min(need, outside))
    return [candidates[j if j < low else j + max(near, 0)] for j in picks]


def _closest(anchor: Hashable, by_rating: list[Hashable],
             mean: Mapping[Hashable, tuple[float, float]], need: int) -> list[Hashable]:
    """The ``need`` bots nearest the anchor by rating (walking out both ways)."""
    at = by_rating.index(anchor)
    low, high = at - 1, at + 1
    picked: list[Hashable] = []
    centre = mean[anchor][0]
    while len(picked) < need:
        below = centre - mean[by_rating[low]][0] if low >= 0 else None
        above = mean[by_rating[high]][0] - centre if high < len(by_rating) else None
        if above is None or (below is not None and below <= above):
            picked.append(by_rating[low])
            low -= 1
        else:
            picked.append(by_rating[high])
            high += 1
    return picked


def _name(session: Any) -> str:
    return str(getattr(session, "name", session))
