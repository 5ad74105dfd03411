"""Which hosted versions the ladder runs (``arena serve --hosted N``): pure, time is an input.

Every active hosted version is a *candidate*; at most ``most`` run at once.  :func:`plan` is
asked every few seconds (and whenever a process ends) with what runs, and answers which to
start and which to stop:

- a running version that is no longer active (retired, or its bot's newer version took its
  place) is stopped (between its games: the pool waits for its table to end);
- free places go to the candidates that have waited longest (since their process last ended,
  or since they were first seen), newcomers last, by name at a tie;
- when candidates still wait and no place is free, running versions **yield** theirs (after
  the game they play): a version that has played its share (``share`` games since it
  started) or has waited at no table for ``idle`` seconds, the one that has played most
  (then run longest) first, one for each waiting candidate.  So with more active versions
  than processes every version plays, in turn; with enough processes nobody is stopped for
  another;
- a version left out (``excluded``: its restarts used up, or it could not be started) is not
  started again until its rest is over.

The pool starts the waiters once the yielding processes have ended (never more than ``most``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

#: Games a hosted version plays before it yields its process to one that waits.
SHARE = 6
#: Seconds a hosted version may wait at no table before it yields its process to one that waits.
IDLE = 20.0


@attrs.frozen(order=True)
class VersionKey:
    """One hosted version: its bot's name (as registered) and its number."""

    bot: str
    number: int

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"


@attrs.frozen
class Running:
    """A version's process as the pool sees it."""

    key: VersionKey
    started: float
    #: Games it finished since it started.
    games: int = 0
    #: Since when it waits at no table (None: at a table, or not admitted yet).
    idle_since: float | None = None
    #: The pool is stopping it already.
    stopping: bool = False


@attrs.frozen
class Rotation:
    most: int
    share: int = SHARE
    idle: float = IDLE


@attrs.frozen
class Plan:
    start: tuple[VersionKey, ...] = ()
    stop: tuple[VersionKey, ...] = ()


def plan(active: Sequence[VersionKey], running: Sequence[Running],
         waiting_since: Mapping[VersionKey, float], excluded: Mapping[VersionKey, float],
         rotation: Rotation, now: float) -> Plan:
    """What to start and stop now (see the module's doc).  ``waiting_since``: when each
    candidate began to wait (missing: a newcomer); ``excluded``: the versions left out, each
    until when."""
    wanted = set(active)
    stop = [r.key for r in running if not r.stopping and r.key not in wanted]
    on = {r.key for r in running}
    candidates = sorted((key for key in wanted if key not in on and excluded.get(key, now) <= now),
                        key=lambda key: (key not in waiting_since,
                                         waiting_since.get(key, now), key))
    places = rotation.most - len(running)
    start = candidates[:max(0, places)]
    waiting = len(candidates) - len(start) - sum(1 for r in running if r.stopping) - len(stop)
    if waiting > 0:
        done = [r for r in running if not r.stopping and r.key in wanted
                and (r.games >= rotation.share
                     or (r.idle_since is not None and now - r.idle_since >= rotation.idle))]
        done.sort(key=lambda r: (-r.games, r.started, r.key))
        stop += [r.key for r in done[:waiting]]
    return Plan(tuple(start), tuple(stop))
