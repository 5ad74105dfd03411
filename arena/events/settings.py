"""What defines an event and the arithmetic on it, with no server and no bots: the settings
stored with the event (the schedule is rebuilt from them exactly), the schedule's fingerprint,
how many sets an event plays and how many bot instances it needs.
``arena.launch.tournament`` plays what these describe."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import attrs

from arena.events.schedule import Format, PlannedTable, plan, set_size
from arena.games import GAMES
from protocol.errors import ErrorCode

#: Games aborted for these reasons are played again on resume (the others are stored): the
#: server stopped, or no bot was left at the table (every one crashed, or the event was stopped
#: at once and its bots went: the seating may still start a table then, with nobody to play).
REPLAYED_ABORTS = frozenset({ErrorCode.SERVER_SHUTDOWN.value, ErrorCode.ALL_SEATS_GONE.value})
#: Sets a round robin plays by default: every combination once, but no more than this.
DEFAULT_MAX_SETS = 100
def default_duplicate(game: str) -> bool:
    """Whether a tournament of ``game`` plays duplicate sets when not told (``--duplicate`` or
    ``--no-duplicate``): as its spec says (``GameSpec.duplicate_default``, set where a duplicate
    set measured A against B with clearly less variance per game than independent seating,
    ``benchmarks/studies/duplicate_variance.py``); independent for a game this arena does not
    know."""
    spec = GAMES.get(game)
    return spec is not None and spec.duplicate_default


@attrs.frozen
class EventSettings:
    """What defines an event, stored in its database so that ``--resume`` needs nothing else:
    the schedule is rebuilt from these exactly.  Fields added later have defaults, so an
    event stored before them still resumes (``reaction_timeout``: the server's default)."""

    game: str
    options: dict[str, Any]
    format: str
    duplicate: bool
    sets: int
    seed: str
    move_timeout: float
    reaction_timeout: float = 1.0
    time_bank: float = 0.0

    def to_meta(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> EventSettings:
        return cls(**{field.name: meta[field.name] for field in attrs.fields(cls)
                      if field.name in meta or field.default is attrs.NOTHING})

    def planned(self, entrants: int) -> list[PlannedTable]:
        return list(plan(entrants, self.options["players"], sets=self.sets,
                         duplicate=self.duplicate, fmt=Format(self.format), seed=self.seed))


def plan_digest(planned: Sequence[PlannedTable]) -> str:
    """A fingerprint of a schedule: a resumed event checks that it rebuilds the same one."""
    text = "\n".join(f"{t.index} {t.set_index} {t.rotation} {t.entrants} {t.seed}"
                     for t in planned)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sets_for(entrants: int, players: int, fmt: Format, duplicate: bool, *,
             games: int | None = None, sets: int | None = None) -> int:
    """How many sets an event plays: as asked (``games`` rounds up to whole sets), else one
    round robin (every combination once; the gauntlet: every field once), at most
    :data:`DEFAULT_MAX_SETS`."""
    if sets is not None:
        return sets
    if games is not None:
        return max(1, math.ceil(games / set_size(players, duplicate)))
    pool = entrants - 1 if fmt is Format.GAUNTLET else entrants
    seats = players - 1 if fmt is Format.GAUNTLET else players
    return max(1, min(DEFAULT_MAX_SETS, math.comb(pool, seats) if pool >= seats else 1))


def instances_needed(planned: Sequence[PlannedTable], entrants: int,
                     concurrency: int) -> list[int]:
    """Bot processes per entrant: enough for ``concurrency`` tables at once."""
    most = [0] * entrants
    for table in planned:
        for entrant, count in Counter(table.entrants).items():
            most[entrant] = max(most[entrant], count)
    tables_with = Counter(e for table in planned for e in set(table.entrants))
    return [min(concurrency, tables_with[e]) * most[e] for e in range(entrants)]

