"""What the games' training-environment encodings share (``arena.envs``; each game's own is
``arena.games.<game>.encoding``, named by its spec's ``encoding``): seats counted from the
observer, one-hot rows, the seat slots.

An encoding module has ``ACTIONS`` (every token the game can ever list, in a fixed order, or
None when the action index is the legal list's position, at most
:data:`~arena.games.base.MAX_LEGAL_ACTIONS`) and ``encode(observation)``: the seat's protocol
observation (a dict, as a bot receives it) as a float32 vector of a fixed length, seats counted
from the observing seat (0 = itself), so a policy learnt in one seat plays in any.  Only the
observation is read: what the seat may know.  numpy is imported only with an encoding.
"""

from __future__ import annotations

from collections.abc import Sequence

SEATS = 6  # seat slots in every encoding (the most players any game seats)


def relative(seat: int | None, me: int, players: int) -> int:
    """A seat counted from the observer: 0 itself, 1 the next, ...; SEATS for none."""
    return SEATS if seat is None else (seat - me) % players


def one_hot(size: int, *indices: int | None) -> list[float]:
    row = [0.0] * size
    for index in indices:
        if index is not None and 0 <= index < size:
            row[index] = 1.0
    return row


def seat_values(values: Sequence[int | None], me: int) -> list[float]:
    n = len(values)
    out = [0.0] * SEATS
    for seat, value in enumerate(values):
        out[relative(seat, me, n)] = float(value or 0)
    return out
