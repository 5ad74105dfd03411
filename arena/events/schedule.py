"""Tournament schedules: a pure iterator of planned tables, each with its seats and its seed.

- **Groups** (who meets whom): round robin plays whole cycles of every combination of entrants
  for the table size while they fit in the event's sets; the rest (or all, when there are more
  combinations than sets) is a balanced list: greedily (each new group made of the entrants
  that have played least and, among those, have met the group's members least), then evened
  out by swaps between groups.  A gauntlet puts entrant 0 at every table, against a field of
  the others; a duel puts entrants 0 and 1 at every table and fills the other seats with
  entrant 2 (for SPRT).
- **Duplicate sets** (on by default): one seed, played once per seating of the group (every
  order for 2 or 3 players, the cyclic rotations for 4 to 6), so every entrant holds every
  seat with the same cards and dice.  The group's base order is shuffled per set, so relative
  positions (who sits after whom) vary across sets.  Without duplicates every table is its own
  set, with its own seed, seated in whichever of those seatings evens out most how often each
  entrant held each seat and sat right after each other entrant.
- **Seeds** are derived from the event's seed and the set number, so an event is reproducible.
"""

from __future__ import annotations

import enum
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence

from arena.gameplay.records import PlannedTable
from arena.games.chance import derive_seed, secret_seed

#: More combinations than this are never listed (round robin then builds a balanced list).
MAX_COMBINATIONS = 100_000


class Format(enum.Enum):
    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    DUEL = "duel"  # entrants 0 and 1 at every table, entrant 2 (the field) in the other seats


def seatings(group: Sequence[int], duplicate: bool) -> list[tuple[int, ...]]:
    """The seatings a duplicate set plays: every order for up to 3 players, else the cyclic
    rotations (each entrant holds each seat once); without duplicates, the group as given."""
    if not duplicate:
        return [tuple(group)]
    if len(group) <= 3:
        return list(itertools.permutations(group))
    return [tuple(group[(seat + shift) % len(group)] for seat in range(len(group)))
            for shift in range(len(group))]


def groups(entrants: int, size: int, count: int, fmt: Format,
           rng: random.Random) -> list[tuple[int, ...]]:
    """``count`` groups of ``size`` entrants (0 .. entrants-1), cycling through the round robin
    (or the gauntlet's field) when it is small enough, else balanced greedily."""
    if entrants < 2:
        raise ValueError("a tournament needs at least two entrants")
    if fmt is Format.DUEL:
        if entrants != 3 and not (entrants == 2 and size == 2):
            raise ValueError("a duel has two entrants and a field (one more entrant)")
        return [(0, 1, *(2,) * (size - 2)) for _ in range(count)]
    if fmt is Format.GAUNTLET:
        field_size = size - 1
        if entrants - 1 < field_size:
            raise ValueError(f"a gauntlet at tables of {size} needs at least {size} entrants")
        fields = _all_or_balanced(list(range(1, entrants)), field_size, count, rng)
        return [(0, *field) for field in fields]
    if entrants < size:  # fewer bots than seats: some sit twice at a table
        pool = [e % entrants for e in range(size)]
        return [tuple(pool) for _ in range(count)]
    return _all_or_balanced(list(range(entrants)), size, count, rng)


def _all_or_balanced(pool: list[int], size: int, count: int,
                     rng: random.Random) -> list[tuple[int, ...]]:
    """Whole cycles of every combination while they fit, then (or instead, when there are
    more combinations than ``count``) a balanced list for the rest."""
    total = math.comb(len(pool), size)
    cycles = count // total if total <= MAX_COMBINATIONS else 0
    chosen = [list(group) for _ in range(cycles) for group in itertools.combinations(pool, size)]
    played: Counter[int] = Counter(e for group in chosen for e in group)
    met: Counter[tuple[int, int]] = Counter(
        pair for group in chosen for pair in itertools.combinations(group, 2))
    rest: list[list[int]] = []
    for _ in range(count - len(chosen)):
        group: list[int] = []
        while len(group) < size:
            candidates = [e for e in pool if e not in group]
            rng.shuffle(candidates)  # ties broken at random, reproducibly
            best = min(candidates, key=lambda e: (
                played[e], sum(met[min(e, g), max(e, g)] for g in group)))
            group.append(best)
        for a, b in itertools.combinations(sorted(group), 2):
            met[a, b] += 1
        played.update(group)
        rest.append(group)
    _even_out_meetings(rest, met, rng)
    return [tuple(sorted(group)) for group in chosen + rest]


#: Swaps tried per group to even out how often pairs meet.
SWAPS_PER_GROUP = 200


def _even_out_meetings(chosen: list[list[int]], met: Counter[tuple[int, int]],
                       rng: random.Random) -> None:
    """Hill-climb: swap two entrants between two groups (games per entrant stay the same)
    whenever that lowers the sum of squared meeting counts."""
    def pairs(group: list[int]) -> list[tuple[int, int]]:
        return [(min(a, b), max(a, b)) for a, b in itertools.combinations(group, 2)]

    for _ in range(SWAPS_PER_GROUP * len(chosen)):
        g, h = rng.randrange(len(chosen)), rng.randrange(len(chosen))
        first, second = chosen[g], chosen[h]
        i, j = rng.randrange(len(first)), rng.randrange(len(second))
        x, y = first[i], second[j]
        if g == h or x == y or y in first or x in second:
            continue
        old = pairs(first) + pairs(second)
        new_first, new_second = first[:i] + [y] + first[i + 1:], second[:j] + [x] + second[j + 1:]
        new = pairs(new_first) + pairs(new_second)
        change = Counter(new)
        change.subtract(old)
        if sum((met[p] + d) ** 2 - met[p] ** 2 for p, d in change.items() if d) < 0:
            chosen[g], chosen[h] = new_first, new_second
            met.subtract(old)
            met.update(new)


def set_size(size: int, duplicate: bool) -> int:
    return len(seatings(list(range(size)), duplicate))


def plan(entrants: int, size: int, *, sets: int, duplicate: bool = True,
         fmt: Format = Format.ROUND_ROBIN, seed: object = "event") -> Iterator[PlannedTable]:
    """The whole schedule: ``sets`` duplicate sets (tables, without duplicates)."""
    rng = random.Random(derive_seed(seed, "groups"))
    balance = SeatBalance()
    index = 0
    for set_index, group in enumerate(groups(entrants, size, sets, fmt, rng)):
        order = list(group)
        random.Random(derive_seed(seed, "order", set_index)).shuffle(order)
        game_seed = secret_seed(seed, "set", set_index)
        chosen = seatings(order, True)
        if not duplicate:  # one seating: the one that evens out seats and neighbours most
            chosen = [min(chosen, key=balance.cost)]
        for rotation, seating in enumerate(chosen):
            balance.add(seating)
            yield PlannedTable(index, set_index, rotation, seating, game_seed)
            index += 1


class SeatBalance:
    """How often each entrant held each seat, and sat right after each other entrant."""

    def __init__(self) -> None:
        self.seats: Counter[tuple[int, int]] = Counter()
        self.after: Counter[tuple[int, int]] = Counter()

    def cost(self, seating: Sequence[int]) -> tuple[int, int]:
        n = len(seating)
        return (sum(self.seats[e, seat] for seat, e in enumerate(seating)),
                sum(self.after[seating[s], seating[(s + 1) % n]] for s in range(n)))

    def add(self, seating: Sequence[int]) -> None:
        n = len(seating)
        self.seats.update((e, seat) for seat, e in enumerate(seating))
        self.after.update((seating[s], seating[(s + 1) % n]) for s in range(n))
