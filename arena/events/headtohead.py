"""The head-to-head table: for every two bots that met, their pairwise results at the tables they
shared (the comparisons the ratings are fitted on: the better rank wins, equal ranks tie).
Pure: games in, counts out."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from arena.events.ratings import TableResult, comparisons
from arena.events.storage import StoredGame


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


def head_to_head(names: Sequence[str], games: Sequence[StoredGame]) -> list[HeadToHead]:
    """One entry per pair of bots that met, in the order of ``names``."""
    n = len(names)
    counts = [[[0, 0, 0, 0] for _ in range(n)] for _ in range(n)]  # wins, ties, losses, games
    for game in games:
        if game.aborted is not None:
            continue
        for i, j, score in comparisons(TableResult(game.entrants, game.ranks)):
            a, b, score = (i, j, score) if i < j else (j, i, 1.0 - score)
            counts[a][b][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
        present = sorted(set(game.entrants))
        for k, a in enumerate(present):
            for b in present[k + 1:]:
                counts[a][b][3] += 1
    return [HeadToHead(names[a], names[b], *counts[a][b])
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
