"""Which bots can be compared: the connected groups of an event.  Two bots are in one group when
they met at a table, directly or through others (a met b, b met c).  Ratings of bots in
different groups have no common scale (each group's average is its own 1500), so the leaderboard
fits and ranks every group on its own.  Pure: tables in, groups out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def connected_groups(entrants: int, tables: Iterable[Sequence[int]]) -> list[list[int]]:
    """The groups of entrants 0 .. entrants-1 given the entrants at each table: each group
    sorted, the groups largest first (then by their first entrant).  An entrant that sat at no
    table is a group of its own."""
    parent = list(range(entrants))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for table in tables:
        for other in table[1:]:
            a, b = root(table[0]), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    members: dict[int, list[int]] = {}
    for i in range(entrants):
        members.setdefault(root(i), []).append(i)
    return sorted(members.values(), key=lambda group: (-len(group), group[0]))


def group_heading(number: int, count: int, size: int, played: bool) -> str:
    """The line above a group's table when an event has more than one group."""
    if not played:
        what = "this bot has not played yet" if size == 1 else "these bots have not played yet"
    elif size == 1:
        what = "this bot never met the others; its rating is not comparable"
    else:
        what = "these bots never met the others; their ratings are not comparable"
    return f"group {number} of {count}: {what}"
