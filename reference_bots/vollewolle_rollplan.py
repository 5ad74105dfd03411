"""The vollewolle heuristic bot's turn calculation: the expected value of (the rest of) a turn
of rolling, exactly (:class:`RollPlan`, used for the dice decisions) and fast
(:func:`fast_expect`, used to weigh bids), and :func:`best_choice`, which makes choices on fast
values exactly as the exact values would.  Pure functions of their arguments; no I/O."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

MIN_BID = 14  # also the total under which a failed roller takes the black sheep shown

#: Choices whose fast values are this close are weighed again exactly (the fast values are
#: within 1e-9 of the exact ones, so the exact best is always among them).
NEAR_TIE = 1e-6


class RollPlan:
    """The expected value of (the rest of) a turn of rolling, each keep and reach played best.

    ``hauls[c]`` is the value of taking c cards (1..3) on success, ``black`` that of taking the
    black sheep shown.  A state is the dice still to roll and the sum of those set aside."""

    def __init__(self, sides: tuple[int, ...], bid: int, modifier: int, wool: int,
                 hauls: dict[int, float], black: float) -> None:
        self.sides, self.bid, self.wool = sides, bid, wool
        self.malus, self.bonus = min(modifier, 0), max(modifier, 0)
        self.hauls, self.black = hauls, black
        self.memo: dict[tuple[tuple[int, ...], int], float] = {}

    def expect(self, free: tuple[int, ...] = (0, 1, 2), kept_sum: int = 0) -> float:
        """The mean value of rolling the dice ``free`` with ``kept_sum`` set aside."""
        key = (free, kept_sum)
        if key in self.memo:
            return self.memo[key]
        # keeps[i][face]: what setting free[i] aside is worth after a miss with that face
        keeps = [[0.0] + [self.keep_value(free, kept_sum, i, face)
                          for face in range(1, self.sides[die] + 1)]
                 for i, die in enumerate(free)] if len(free) > 1 else []
        win = self.hauls[len(free)]  # 3 dice rolled: 3 cards, and so on
        rolls = list(itertools.product(*(range(1, self.sides[d] + 1) for d in free)))
        total = 0.0
        for roll in rolls:
            base = kept_sum + sum(roll) + self.malus
            if base >= self.bid:  # forced success
                total += win
                continue
            if keeps:
                value = max([keep[face] for keep, face in zip(keeps, roll)])
            else:
                value = self.failure(base)
            short = max(self.bid - base - self.bonus, 0)  # wool to spend (the bonus is free)
            total += max(value, win - short) if short <= self.wool else value
        self.memo[key] = total / len(rolls)
        return self.memo[key]

    def keep_value(self, free: tuple[int, ...], kept_sum: int, i: int, face: int) -> float:
        """Setting die ``free[i]`` aside, showing ``face``, after a miss."""
        return self.expect(free[:i] + free[i + 1:], kept_sum + face)

    def miss_value(self, free: tuple[int, ...], kept_sum: int, roll: tuple[int, ...]) -> float:
        """What missing with this roll is worth: the best die to keep, or the failure."""
        if len(free) == 1:
            return self.failure(kept_sum + roll[0] + self.malus)
        return max(self.keep_value(free, kept_sum, i, face) for i, face in enumerate(roll))

    def failure(self, base: int) -> float:
        """Three misses: a wool chip, and the black sheep below 14 unless lifting is cheaper.
        The lift adds the whole bonus, unless that would make the bid: then chips alone."""
        if base >= MIN_BID or not self.black:
            return 1.0
        lift = max(MIN_BID - base - self.bonus, 0)
        if base + self.bonus + lift >= self.bid:
            lift = MIN_BID - base
        if self.bid > MIN_BID and lift <= self.wool:
            return 1.0 + max(self.black, -lift)
        return 1.0 + self.black


@functools.lru_cache(maxsize=1024)
def _pair_layout(sa: int, sb: int, sc: int, low: int, high: int,
                 short: int) -> tuple[list, list, list]:
    """Two dice (``sa``, ``sb`` sides) rolled with a third (``sc`` sides) set aside showing f,
    for every f: the rolls ``(u, w) = (f + x, f + y)`` whose total f + x + y is below ``low``
    (no reach), then those from ``low`` to below ``high`` as ``(u, w, short - total)`` (the
    chips short, if positive), and for each f, ``(start, end)`` of its rolls in each list and
    how many rolls reach ``high`` (forced successes)."""
    rolls = list(itertools.product(range(1, sa + 1), range(1, sb + 1)))
    plain: list[tuple[int, int]] = []
    band: list[tuple[int, int, int]] = []
    bounds = []
    for f in range(1, sc + 1):
        p0, b0 = len(plain), len(band)
        for x, y in rolls:
            total = f + x + y
            if total < low:
                plain.append((f + x, f + y))
            elif total < high:
                band.append((f + x, f + y, short - total))
        forced = len(rolls) - (len(plain) - p0) - (len(band) - b0)
        bounds.append((p0, len(plain), b0, len(band), forced))
    return plain, band, bounds


@functools.lru_cache(maxsize=256)
def _triple_layout(sa: int, sb: int, sc: int, low: int, high: int,
                   short: int) -> tuple[list, list, int]:
    """Three dice rolled: the rolls ``(i, z)`` (i = (x - 1) * sb + y - 1 indexes the first two)
    whose total is below ``low``, then those from ``low`` to below ``high`` as
    ``(i, z, short - total)``, and how many reach ``high``."""
    plain, band, forced = [], [], 0
    for x, y, z in itertools.product(range(1, sa + 1), range(1, sb + 1), range(1, sc + 1)):
        total, i = x + y + z, (x - 1) * sb + y - 1
        if total < low:
            plain.append((i, z))
        elif total < high:
            band.append((i, z, short - total))
        else:
            forced += 1
    return plain, band, forced


def fast_expect(sides: tuple[int, ...], bid: int, modifier: int, wool: int,
                hauls: dict[int, float], black: float) -> float:
    """``RollPlan(...).expect()`` for three dice, computed in bulk: with one die left the value
    of each total is computed once (and means of a die's faces taken from running sums); with
    two or three dice, the rolls are split once per bid, modifier and wool into those that
    cannot reach the bid, may reach it with bonus and wool, and must succeed (counted, not
    added one by one), and the two dice are done for every face of the third at once.  Equal
    to the exact value up to rounding (sums in another order)."""
    plan = RollPlan(sides, bid, modifier, wool, hauls, black)
    malus, bonus = plan.malus, plan.bonus
    top = sum(sides)
    # one die left: t1[s] is the value of a final total s (dice only)
    h1, h2, h3 = hauls[1], hauls[2], hauls[3]
    t1 = [0.0] * (top + 1)
    for total in range(len(sides), top + 1):
        base = total + malus
        if base >= bid:
            t1[total] = h1
            continue
        value = plan.failure(base)
        short = max(bid - base - bonus, 0)
        t1[total] = max(value, h1 - short) if short <= wool else value
    prefix = list(itertools.accumulate(t1, initial=0.0))
    # e1[d][k]: rolling die d alone with k set aside
    e1 = [[(prefix[k + n + 1] - prefix[k + 1]) / n for k in range(top + 1 - n)]
          for n in sides]
    reach_from = bid - bonus - wool  # a base from here up may reach the bid
    count = len(sides)

    def level(keeps: list[list[float]], win: float) -> float:
        """The mean value of rolling all three dice, when keeping the i-th showing f after a
        miss is worth ``keeps[i][f]``."""
        a, b, c = keeps
        plain, band, forced = _triple_layout(*sides, reach_from - malus, bid - malus,
                                             bid - malus - bonus)
        ab = [y if y > x else x for x in a[1:] for y in b[1:]]
        total = sum([c[z] if c[z] > ab[xy] else ab[xy] for xy, z in plain])
        total += sum([r if r > v else v for xy, z, g in band
                      for v in [c[z] if c[z] > ab[xy] else ab[xy]]
                      for r in [win - g if g > 0 else win]])
        return (total + forced * win) / (len(a) - 1) / (len(b) - 1) / (len(c) - 1)

    # e2[c][f]: rolling the two dice other than c, with c set aside showing f; for all f at
    # once: keeping a showing x is worth e1[b][f + x], keeping b showing y e1[a][f + y]
    e2 = []
    for c in range(count):
        a, b = (d for d in range(count) if d != c)
        ea, eb = e1[a], e1[b]
        plain, band, bounds = _pair_layout(sides[a], sides[b], sides[c], reach_from - malus,
                                           bid - malus, bid - malus - bonus)
        plains = [ea[w] if ea[w] > eb[u] else eb[u] for u, w in plain]
        bands = [r if r > v else v for u, w, g in band
                 for v in [ea[w] if ea[w] > eb[u] else eb[u]]
                 for r in [h2 - g if g > 0 else h2]]
        rolls = sides[a] * sides[b]
        e2.append([0.0] + [(sum(plains[p0:p1]) + sum(bands[b0:b1]) + forced * h2) / rolls
                           for p0, p1, b0, b1, forced in bounds])
    return level(e2, h3)


def best_choice(choices: list[str], fast: Callable[[str], float],
                exact: Callable[[str], float]) -> str:
    """``max(choices, key=exact)`` (the first of equals), weighing with ``exact`` only the
    choices whose ``fast`` value is within :data:`NEAR_TIE` of the best: ``fast`` is within
    1e-9 of ``exact``, so the others cannot be the best."""
    values = [fast(choice) for choice in choices]
    best = max(values)
    close = [c for c, value in zip(choices, values) if value >= best - NEAR_TIE]
    return close[0] if len(close) == 1 else max(close, key=exact)
