"""What the passes a seat received say about the other hands, if the others pass as the
reference heuristic does (three players).

The heuristic puts its lowest card under the Imp, passes the next one left and the third one
right.  Seen from ``me`` at a table of three, with ``L`` its left neighbour and ``R`` its right:
the card ``r`` received from the left is L's third lowest, the card ``l`` received from the
right is R's second lowest.  So L's original hand was ``i1 < a < r`` and nine cards above ``r``
(``i1`` under the Imp, ``a`` passed to R), and R's was ``i2 < l < b`` and nine cards above ``b``
(``i2`` under the Imp, ``b`` passed to L).  After the passes L holds its nine, ``b`` and ``me``'s
left pass; R its nine, ``a`` and ``me``'s right pass.

:class:`PassModel` lists every ``(a, b, i1, i2)`` that fits the observation (the cards each
seat has played this hand must be in its hand after the passes; the colours it showed it lacks
in none of the cards it still holds), each weighted by the number of ways the remaining cards
can be split into the two nines, so that sampling a tuple by weight and then a split uniformly
draws original deals uniformly among those the model allows.  When no tuple fits (the others do
not pass so), the boss falls back on the plain sampler."""

from __future__ import annotations

import random
from bisect import bisect_right
from itertools import accumulate
from math import comb

from arena.games.chochlik import COLOUR


class PassModel:
    """The worlds the heuristic's passing allows, for one decision of ``me`` (3 players)."""

    def __init__(self, pool: list[int], unplayed: set[int], by_seat: dict[int, set[int]],
                 voids: dict[int, set[int]], left: int, right: int, received_left: int,
                 received_right: int) -> None:
        """``pool``: the cards neither in ``me``'s original hand nor received by it (22);
        ``unplayed``: those not played yet; ``by_seat[s]``: the pool cards seat s played this
        hand; ``voids[s]``: the colours s showed it lacks."""
        self.left, self.right = left, right
        self.pool = sorted(pool)
        self.unplayed = unplayed
        self.played_left, self.played_right = by_seat[left], by_seat[right]
        self.void_left, self.void_right = voids[left], voids[right]
        self.r, self.l = received_left, received_right
        self.tuples: list[tuple[int, int, int, int]] = []
        weights: list[int] = []
        for a in self.pool:
            if a >= self.r or a in self.played_left:
                continue
            if a not in self.played_right and COLOUR[a] in self.void_right:
                continue
            for b in self.pool:
                if b <= self.l or b == a or b in self.played_right:
                    continue
                if b not in self.played_left and COLOUR[b] in self.void_left:
                    continue
                self._add(a, b, weights)
        self.cumulative = list(accumulate(weights))

    def _classify(self, a: int, b: int) -> tuple[list[int], list[int], list[int], list[int]]:
        """The pool cards but ``a``, ``b`` that can go only to L's nine, only to R's, to
        either, or to neither (then they must be the Imp's)."""
        only_l: list[int] = []
        only_r: list[int] = []
        either: list[int] = []
        neither: list[int] = []
        for card in self.pool:
            if card in (a, b):
                continue
            to_l = card > self.r and card not in self.played_right and (
                card in self.played_left or COLOUR[card] not in self.void_left)
            to_r = card > b and card not in self.played_left and (
                card in self.played_right or COLOUR[card] not in self.void_right)
            if to_l and to_r:
                either.append(card)
            elif to_l:
                only_l.append(card)
            elif to_r:
                only_r.append(card)
            else:
                neither.append(card)
        return only_l, only_r, either, neither

    def _add(self, a: int, b: int, weights: list[int]) -> None:
        only_l, only_r, either, neither = self._classify(a, b)
        if len(neither) > 2:
            return
        low_l = set(only_l)
        low_free = set(either)
        imps_1 = [c for c in self.pool if c < a and c != b and c in self.unplayed]
        imps_2 = [c for c in self.pool if c < self.l and c not in (a, b) and c in self.unplayed]
        for i1 in imps_1:
            for i2 in imps_2:
                if i1 == i2 or any(c not in (i1, i2) for c in neither):
                    continue
                need_l = 9 - len(only_l) + (i1 in low_l) + (i2 in low_l)
                free = len(either) - (i1 in low_free) - (i2 in low_free)
                if 0 <= need_l <= free:
                    self.tuples.append((a, b, i1, i2))
                    weights.append(comb(free, need_l))

    def fits(self) -> bool:
        return bool(self.tuples)

    def sample(self, rng: random.Random) -> tuple[list[int], list[int], tuple[int, int, int, int]]:
        """L's and R's hands after the passes (played cards included) and ``(a, b, i1, i2)``."""
        pick = bisect_right(self.cumulative, rng.random() * self.cumulative[-1])
        a, b, i1, i2 = self.tuples[min(pick, len(self.tuples) - 1)]
        only_l, only_r, either, _ = self._classify(a, b)
        nine_l = [c for c in only_l if c not in (i1, i2)]
        free = [c for c in either if c not in (i1, i2)]
        rng.shuffle(free)
        need = 9 - len(nine_l)
        nine_l += free[:need]
        nine_r = [c for c in only_r if c not in (i1, i2)] + free[need:]
        return nine_l + [b], nine_r + [a], (a, b, i1, i2)
