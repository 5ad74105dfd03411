"""The head-to-head table: for every two bots that met, their pairwise results at the tables they
shared (the comparisons the ratings are fitted on: the better rank wins, equal ranks tie).
Pure: games in, counts out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from arena.events.leaderboard import Row
from arena.events.ratings import TableResult, comparisons
from arena.gameplay.records import GameRecord


@attrs.frozen
class HeadToHead:
    """``bot`` against ``opponent`` (``bot`` is the one named first): ``games`` finished tables
    at which both sat, and the pairwise results there from ``bot``'s side (a bot seated twice at
    a table compares each seat)."""

    bot: str
    opponent: str
    wins: int
    ties: int
    losses: int
    games: int
    #: The two bots' entrant numbers (bot's first).
    entrants: tuple[int, int] = (0, 1)


def head_to_head(names: Sequence[str], games: Sequence[GameRecord]) -> list[HeadToHead]:
    """One entry per pair of bots that met, in the order of ``names``."""
    return tables_head_to_head(names, (TableResult(game.table.entrants, game.ranks)
                                       for game in games if game.aborted is None))


def tables_head_to_head(names: Sequence[str], tables: Iterable[TableResult]) -> list[HeadToHead]:
    """:func:`head_to_head` of the finished tables."""
    n = len(names)
    counts = [[[0, 0, 0, 0] for _ in range(n)] for _ in range(n)]  # wins, ties, losses, games
    for table in tables:
        for i, j, score in comparisons(table):
            a, b, score = (i, j, score) if i < j else (j, i, 1.0 - score)
            counts[a][b][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
        present = sorted(set(table.entrants))
        for k, a in enumerate(present):
            for b in present[k + 1:]:
                counts[a][b][3] += 1
    return [HeadToHead(names[a], names[b], wins=counts[a][b][0], ties=counts[a][b][1],
                       losses=counts[a][b][2], games=counts[a][b][3], entrants=(a, b))
            for a in range(n) for b in range(a + 1, n) if counts[a][b][3]]


def format_head_to_head(entries: Sequence[HeadToHead]) -> str:
    width = max([len("bot"), len("opponent")] + [len(e.bot) for e in entries]
                + [len(e.opponent) for e in entries])
    lines = ["head to head (pairwise results at the tables both played)",
             f"{'bot':<{width}}  {'opponent':<{width}}  {'wins':>5}  {'ties':>5}  "
             f"{'losses':>6}  {'games':>5}"]
    lines += [f"{e.bot:<{width}}  {e.opponent:<{width}}  {e.wins:>5}  {e.ties:>5}  "
              f"{e.losses:>6}  {e.games:>5}" for e in entries]
    return "\n".join(lines)


def as_json_rows(rows: Sequence[Row], entries: Sequence[HeadToHead]) -> list[dict[str, Any]]:
    """The leaderboard's rows as dicts, each with its bot's head-to-head entries (from its side,
    one per opponent it met, in the rows' order)."""
    sides: dict[int, dict[int, dict[str, Any]]] = {}
    for e in entries:
        a, b = e.entrants
        sides.setdefault(a, {})[b] = {"wins": e.wins, "ties": e.ties, "losses": e.losses,
                                      "games": e.games}
        sides.setdefault(b, {})[a] = {"wins": e.losses, "ties": e.ties, "losses": e.wins,
                                      "games": e.games}
    return [{**attrs.asdict(row),
             "head_to_head": [{"opponent": other.name, "opponent_entrant": other.entrant,
                               **sides[row.entrant][other.entrant]}
                              for other in rows if other.entrant in sides.get(row.entrant, {})]}
            for row in rows]
