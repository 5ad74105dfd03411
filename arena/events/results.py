"""An event's finished games as columns: what the leaderboard reads, without a record per game.

Per game its duplicate set and its number of seats; per seat, game after game and seat after
seat, the entrant, its rank, its score and its defaults.  Built from game records
(:meth:`Results.of_games`) or straight from the stored rows' text (:meth:`Results.parse`: the
storage hands over each column of every finished game as one comma-separated text, which
numpy reads in one call, instead of a JSON decode and a record per game).  Pure: no I/O.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator

import attrs
import numpy as np

from arena.events.ratings import TableResult, distinct
from arena.gameplay.records import GameRecord


@attrs.frozen(eq=False)
class Results:
    """Finished games only (an aborted game is not a result).  ``set_index`` and ``sizes`` have
    one value per game; ``entrants``, ``ranks``, ``scores`` and ``defaults`` one per seat
    (``sizes.sum()`` of them), integers but the scores (floats, exact for whole numbers)."""

    set_index: np.ndarray
    sizes: np.ndarray
    entrants: np.ndarray
    ranks: np.ndarray
    scores: np.ndarray
    defaults: np.ndarray

    @classmethod
    def of_games(cls, games: Iterable[GameRecord]) -> Results:
        """The finished games among ``games`` (each planned by a schedule: a ValueError
        otherwise, as :attr:`GameRecord.table` says)."""
        finished = [game for game in games if game.aborted is None]
        seats = [(entrant, rank, score, default) for game in finished
                 for entrant, rank, score, default in zip(game.table.entrants, game.ranks,
                                                          game.scores, game.defaults)]
        entrants, ranks, scores, defaults = zip(*seats) if seats else ((), (), (), ())
        return cls(_ints([game.set_index for game in finished]),
                   _ints([len(game.table.entrants) for game in finished]), _ints(entrants),
                   _ints(ranks), np.array(scores, dtype=float), _ints(defaults))

    @classmethod
    def parse(cls, games: int, set_index: str, entrants: str, ranks: str, scores: str,
              defaults: str) -> Results | None:
        """``games`` finished games from their columns, each the values of every game in
        turn, comma-separated: the set indices, then the per-seat JSON lists (``[3, 1,
        2],[0, 4, 1]``); None when a text does not hold as many whole numbers as it should
        (a row written otherwise: the caller reads the records)."""
        sets, sizes = _numbers(set_index, games, np.int64), _list_sizes(entrants, games)
        if sets is None or sizes is None:
            return None
        seats = int(sizes.sum())
        seated, ranked, defaulted = (_numbers(_unbracketed(text), seats, np.int64)
                                     for text in (entrants, ranks, defaults))
        points = _unbracketed(scores)  # whole numbers, read as such (5 times faster)
        whole = _numbers(points, seats, np.int64)
        scored = (whole.astype(np.float64) if whole is not None
                  else _numbers(points, seats, np.float64))
        if seated is None or ranked is None or defaulted is None or scored is None:
            return None
        return cls(sets, sizes, seated, ranked, scored, defaulted)

    @property
    def starts(self) -> np.ndarray:
        """Each game's first seat in the per-seat columns."""
        return np.cumsum(self.sizes) - self.sizes

    def game_of_seat(self) -> np.ndarray:
        """Each seat's game (its index among these games)."""
        return np.repeat(np.arange(len(self.sizes)), self.sizes)

    def only(self, games: np.ndarray) -> Results:
        """The games where the mask ``games`` (one bool per game) is true."""
        seats = np.repeat(games, self.sizes)
        return Results(self.set_index[games], self.sizes[games], self.entrants[seats],
                       self.ranks[seats], self.scores[seats], self.defaults[seats])

    def meetings(self) -> list[tuple[int, int]]:
        """Each distinct pair (lower, higher) of a game's first entrant and another entrant of
        it: enough to tell who is connected to whom (``arena.events.groups``)."""
        first = np.repeat(self.entrants[self.starts], self.sizes)
        low, high = np.minimum(first, self.entrants), np.maximum(first, self.entrants)
        width = int(self.entrants.max(initial=0)) + 1
        pairs = distinct((low * width + high)[low != high])
        return list(zip(*(part.tolist() for part in np.divmod(pairs, width))))

    def tables(self) -> Iterator[TableResult]:
        """Each game as the table result the pairwise counts read."""
        entrants, ranks = self.entrants.tolist(), self.ranks.tolist()
        for start, size in zip(self.starts.tolist(), self.sizes.tolist()):
            yield TableResult(tuple(entrants[start:start + size]),
                              tuple(ranks[start:start + size]))


def _ints(values: Iterable[int]) -> np.ndarray:
    return np.array(list(values), dtype=np.int64)


def _unbracketed(lists: str) -> str:
    return lists.replace("[", "").replace("]", "")


def _list_sizes(lists: str, count: int) -> np.ndarray | None:
    """The lengths of the ``count`` JSON lists of numbers in ``lists`` (one more than the
    commas between each ``[`` and its ``]``), or None if there are not that many or one is
    empty."""
    text = np.frombuffer(lists.encode(), dtype=np.uint8)
    opens, closes = np.flatnonzero(text == ord("[")), np.flatnonzero(text == ord("]"))
    if opens.size != count or closes.size != count or (closes <= opens + 1).any():
        return None
    commas = np.flatnonzero(text == ord(","))
    return np.searchsorted(commas, closes) - np.searchsorted(commas, opens) + 1


def _numbers(text: str, count: int, dtype: type[np.generic]) -> np.ndarray | None:
    """The ``count`` numbers of the comma-separated ``text``, or None if it holds anything
    else (numpy stops at the first thing that is not a number of ``dtype`` and warns)."""
    if not count:
        return np.zeros(0, dtype=dtype) if not text.strip() else None
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            values = np.fromstring(text, dtype=dtype, sep=",")
        except (ValueError, DeprecationWarning):
            return None
    return values if values.size == count else None
