"""The vollewolle heuristic's choices, made faster for the boss (the same choices: a test
compares them with :class:`VolleWolleHeuristic` over many seeded positions).

- A bid weighs every bid token, each a turn's expected value per number of opponents ahead;
  :func:`batched_expect` computes :func:`fast_expect` for all the bids at once with numpy (equal
  within 1e-12), and the heuristic's :func:`best_choice` weighs near ties exactly as before.
- In the boss's worlds the same seat meets the same turn again and again (same display, bid,
  wool and holdings): :class:`FastHeuristic` keeps each turn's :class:`RollPlan` (with its
  memo of expectations) and each best haul for the length of a decision (``forget``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from reference_bots.vollewolle_heuristic import (
    HIGH_BID,
    MIN_BID,
    TAKEN_PER_ROLLER,
    RollPlan,
    VolleWolleHeuristic,
)
from reference_bots.vollewolle_rollplan import NEAR_TIE, best_choice


def _grid(*sizes: int) -> tuple[np.ndarray, ...]:
    return tuple(np.meshgrid(*(np.arange(1, n + 1) for n in sizes), indexing="ij"))


@functools.lru_cache(maxsize=16)
def _layout(sides: tuple[int, ...]) -> tuple[Any, ...]:
    pairs = []
    for c in range(3):
        a, b = (d for d in range(3) if d != c)
        f, x, y = _grid(sides[c], sides[a], sides[b])
        pairs.append((a, b, f, x, y))
    return tuple(pairs), _grid(*sides)


def batched_expect(sides: tuple[int, ...], bids: list[int], modifier: int, wools: list[int],
                   hauls: dict[int, float], black: float) -> np.ndarray:
    """``RollPlan(sides, bid, modifier, wool, hauls, black).expect()`` for each (bid, wool) of
    three dice, as an array (the same calculation as :func:`fast_expect`, all bids at once)."""
    return _tables(sides, bids, modifier, wools, hauls, black)[2]


def _tables(sides: tuple[int, ...], bids: list[int], modifier: int, wools: list[int],
            hauls: dict[int, float], black: float) -> tuple[dict, list, np.ndarray]:
    """For each bid: ``e1[d][:, k]``, rolling die d alone with k set aside; ``e2[c][:, f]``,
    rolling the two others with c set aside showing f; and rolling all three."""
    bid = np.asarray(bids, dtype=np.int64)[:, None]
    wool = np.asarray(wools, dtype=np.int64)[:, None]
    malus, bonus = min(modifier, 0), max(modifier, 0)
    h1, h2, h3 = hauls[1], hauls[2], hauls[3]
    top = sum(sides)
    base = np.arange(top + 1)[None, :] + malus
    if black:
        lift = np.maximum(MIN_BID - base - bonus, 0)
        lift = np.where(base + bonus + lift >= bid, MIN_BID - base, lift)
        fail = np.where(base >= MIN_BID, 1.0,
                        np.where((bid > MIN_BID) & (lift <= wool),
                                 1.0 + np.maximum(black, -lift), 1.0 + black))
    else:
        fail = np.ones((len(bids), top + 1))
    t1 = _settle(base, bid, wool, bonus, h1, fail)
    prefix = np.concatenate([np.zeros((len(bids), 1)), np.cumsum(t1, axis=1)], axis=1)
    e1 = {}
    for d, n in enumerate(sides):
        k = np.arange(top + 1 - n)
        e1[d] = (prefix[:, k + n + 1] - prefix[:, k + 1]) / n
    pairs, (x3, y3, z3) = _layout(tuple(sides))
    e2 = []
    for a, b, f, x, y in pairs:
        value = np.maximum(e1[a][:, f + y], e1[b][:, f + x])
        pair_base = (f + x + y + malus)[None]
        found = _settle(pair_base, bid[:, :, None, None], wool[:, :, None, None], bonus, h2,
                        value)
        e2.append(np.concatenate([np.zeros((len(bids), 1)), found.mean(axis=(2, 3))], axis=1))
    value = np.maximum(np.maximum(e2[0][:, x3], e2[1][:, y3]), e2[2][:, z3])
    found = _settle((x3 + y3 + z3 + malus)[None], bid[:, :, None, None], wool[:, :, None, None],
                    bonus, h3, value)
    return e1, e2, found.reshape(len(bids), -1).mean(axis=1)


def _settle(base: np.ndarray, bid: np.ndarray, wool: np.ndarray, bonus: int, win: float,
            miss: np.ndarray) -> np.ndarray:
    """A roll's value: ``win`` when the dice reach the bid, else the better of ``miss`` and
    reaching with the bonus and wool (``win`` less the chips), where the wool suffices."""
    short = np.maximum(bid - base - bonus, 0)
    reach = np.where(short <= wool, np.maximum(miss, win - short), miss)
    return np.where(base >= bid, win, reach)


class ArrayPlan(RollPlan):
    """A :class:`RollPlan` of three dice whose values after a miss come from :func:`_tables`
    (within 1e-12 of the exact ones; :meth:`exact` is the plain plan, for near ties)."""

    def __init__(self, sides: tuple[int, ...], bid: int, modifier: int, wool: int,
                 hauls: dict[int, float], black: float) -> None:
        super().__init__(sides, bid, modifier, wool, hauls, black)
        e1, e2, _ = _tables(sides, [bid], modifier, [wool], hauls, black)
        self.e1 = {d: row[0].tolist() for d, row in e1.items()}
        self.e2 = [row[0].tolist() for row in e2]
        self.exact = RollPlan(sides, bid, modifier, wool, hauls, black)

    def keep_value(self, free: tuple[int, ...], kept_sum: int, i: int, face: int) -> float:
        if len(free) == 3:
            return self.e2[free[i]][face]
        return self.e1[free[1 - i]][kept_sum + face]


class FastHeuristic(VolleWolleHeuristic):
    """:class:`VolleWolleHeuristic` with batched bids and, between calls of :meth:`forget`,
    each turn's plan and best haul kept by everything they depend on."""

    def __init__(self, random_rate: float = 0.0, seed: int | str | None = None) -> None:
        super().__init__(random_rate, seed)
        self.plans: dict[tuple, RollPlan] = {}
        self.hauls: dict[tuple, tuple[float, tuple]] = {}

    def forget(self) -> None:
        self.plans.clear()
        self.hauls.clear()

    @staticmethod
    def holdings(obs: dict[str, Any]) -> tuple:
        """Everything :meth:`score` reads of an observation besides the cards."""
        me = obs["seat"]
        return (me, tuple(obs["flocks"][me]), tuple(obs["dogs"]), obs["bone_holder"],
                obs["deck_left"])

    def plan(self, obs: dict[str, Any], display: list[str], bid: int,
             wool: int | None = None) -> RollPlan:
        wool = obs["wool"][obs["seat"]] if wool is None else wool
        key = (self.holdings(obs), tuple(display), bid, wool)
        found = self.plans.get(key)
        if found is None:
            if len(self.sides) != 3:
                found = super().plan(obs, display, bid, wool)
            else:
                hauls, black, modifier = self.plan_parts(obs, display)
                found = ArrayPlan(self.sides, bid, modifier, wool, hauls, black)
            self.plans[key] = found
        return found

    def keep(self, obs: dict[str, Any], legal: list[str]) -> str:
        plan, free, kept_sum, roll = self.turn(obs)
        if not isinstance(plan, ArrayPlan):
            return super().keep(obs, legal)

        def worth(token: str, on: RollPlan) -> float:
            i = free.index(self.dice.index(token.split()[1]))
            return on.keep_value(free, kept_sum, i, roll[i])

        return best_choice(legal, lambda t: worth(t, plan), lambda t: worth(t, plan.exact))

    def reach(self, obs: dict[str, Any]) -> str:
        plan, free, kept_sum, roll = self.turn(obs)
        if obs["reach_for"] == "black_sheep" or not isinstance(plan, ArrayPlan):
            return super().reach(obs)
        gain = plan.hauls[len(free)] - obs["wool_needed"]
        miss = plan.miss_value(free, kept_sum, roll)
        if abs(gain - miss) <= NEAR_TIE:
            miss = plan.exact.miss_value(free, kept_sum, roll)
        return "reach" if gain > miss else "decline"

    def best_haul(self, obs: dict[str, Any], cards: list[str], n: int) -> tuple[float, tuple]:
        key = (self.holdings(obs), tuple(cards), n)
        found = self.hauls.get(key)
        if found is None:
            found = self.hauls[key] = super().best_haul(obs, cards, n)
        return found

    def bid(self, obs: dict[str, Any], legal: list[str]) -> str:
        """The heuristic's bid (its ``worth`` of each token), the turn values of all the bids
        for each number of opponents ahead computed at once."""
        me, players = obs["seat"], len(obs["wool"])
        singles = {c: self.haul_value(obs, [c]) for c in obs["display"]}
        by_value = sorted(obs["display"], key=lambda c: -singles[c])
        total = sum(self.bid_counts)
        parts: dict[tuple[str, ...], Any] = {}
        bids = [HIGH_BID if t.endswith("+") else int(t.split()[1]) for t in legal]
        wools = [obs["wool"][me] - (bid == HIGH_BID) for bid in bids]
        batch: dict[tuple[str, ...], np.ndarray] = {}

        def ahead_of(bid: int) -> list[float]:
            ahead = [1.0]  # ahead[k]: chance that k opponents roll before us
            for seat in range(players):
                if seat == me:
                    continue
                higher = sum(self.bid_counts[b - MIN_BID] for b in range(bid + 1, HIGH_BID + 1))
                if obs["sheep_numbers"][seat] < obs["sheep_numbers"][me]:
                    higher += self.bid_counts[bid - MIN_BID]
                p = higher / total
                ahead = [a * (1 - p) + b * p for a, b in zip(ahead + [0.0], [0.0] + ahead)]
            return ahead

        def rolling(rest: list[str], i: int, fast: bool) -> float:
            if not fast or len(self.sides) != 3:
                return self.rolling_value(obs, rest, bids[i], wools[i], parts=parts)
            key = tuple(rest)
            if key not in batch:
                if key not in parts:
                    parts[key] = self.plan_parts(obs, rest)
                hauls, black, modifier = parts[key]
                batch[key] = batched_expect(self.sides, bids, modifier, wools, hauls, black)
            return float(batch[key][i])

        def worth(i: int, fast: bool) -> float:
            bid = bids[i]
            value = -float(bid == HIGH_BID)
            for k, chance in enumerate(ahead_of(bid)):
                rest = by_value[round(TAKEN_PER_ROLLER * k):]
                if not rest:
                    continue
                if k == players - 1 and players > 2:
                    value += chance * self.haul_value(obs, rest)
                    continue
                turn = rolling(rest, i, fast)
                if k == players - 1:  # two players: the last may take all instead
                    turn = max(turn, self.haul_value(obs, rest))
                value += chance * turn
            return value

        index = {token: i for i, token in enumerate(legal)}
        return best_choice(legal, lambda t: worth(index[t], True),
                           lambda t: worth(index[t], False))
