"""A vollewolle (Volle Wolle) bot that plays by a few rules of thumb, and clearly beats random.

Cards: a set of cards is worth what it adds to this player's final score (white and black
points, the 3-7-0 and 0-0-7 sets it completes or spoils, a first dog worth 9, more dogs worth
nothing unless it holds the bone, the most-dogs penalty), plus a point per step of the dice
modifier that the top of its flock will give its next rolls.

Rolling: an exact calculation over the faces of the dice gives the expected value of the rest of
a turn (3, 2 or 1 cards on success; a wool chip, and the black sheep below 14, on failure).  The
die kept and ``reach``/``decline`` are the choices that maximise it, which also means missing on
purpose when the cards on offer are bad, and spending wool only when the cards are worth it.

Bidding: each bid is worth that turn's expected value, given how many opponents are likely to
bid higher (learned from their revealed bids) and take the best cards first; the last player
takes the leftovers.

Taking: the best set of cards, the sheep with the best modifier last, so that it lies on top.

Speed: a bid weighs every bid against every number of opponents ahead, each a whole turn's
calculation (``reference_bots/vollewolle_rollplan.py``).  ``fast_expect`` does it in bulk,
over ten times faster than the exact ``RollPlan`` and equal to it within 1e-9; where two
choices come within ``NEAR_TIE`` of each other ``RollPlan`` decides, so the choices are
exactly those of ``RollPlan`` alone (a test compares them with the bot as it was).

``--random-rate R`` plays a uniformly random legal action with probability R instead, so bots
of graded strength exist for testing ratings.

``python -m reference_bots.vollewolle_heuristic --host H --port P [--random-rate R]``
"""

from __future__ import annotations

import functools
import itertools
import random
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from reference_bots.client import argument_parser, play
from reference_bots.vollewolle_rollplan import NEAR_TIE, RollPlan, best_choice, fast_expect

__all__ = ["NEAR_TIE", "RollPlan", "VolleWolleHeuristic", "best_choice", "fast_expect", "main"]

MIN_BID, HIGH_BID = 14, 26  # 26 is the "26+" bid, which costs a wool chip
TRIO_370 = (0, 3, 14)  # points for 0, 1, 2 cards of 3-7-0 beyond complete trios
PART_007 = (0, 2, 7)  # 0-0-7s short of a trio score nothing, but may complete one later
MODIFIER_WEIGHT = 1.0  # points per step of the top card's modifier, while rounds remain
TAKEN_PER_ROLLER = 1.5  # cards an opponent who rolls before us takes, on average
NOT_FLOCK = ("dog", "bone")


class VolleWolleHeuristic:
    wanted_events = frozenset({"bids_revealed"})  # the opponents' bids, for their habits

    def __init__(self, random_rate: float = 0.0, seed: int | str | None = None) -> None:
        if not 0.0 <= random_rate <= 1.0:
            raise ValueError("random rate must be between 0 and 1")
        self.random_rate = random_rate
        self.rng = random.Random(seed)
        self.cards: dict[str, dict[str, Any]] = {}
        self.dice: tuple[str, ...] = ("d12", "d10", "d8")
        self.sides: tuple[int, ...] = (12, 10, 8)
        self.seat: int | None = None
        self.bid_counts = [1] * (HIGH_BID - MIN_BID + 1)  # opponents' bids, uniform prior

    # -- protocol hooks --

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "game_start":
            self.learn_cards(message["info"])
            self.seat = message.get("seat")
            self.bid_counts = [1] * (HIGH_BID - MIN_BID + 1)
        elif message.get("type") == "event" and message.get("kind") == "bids_revealed":
            for seat, bid in enumerate(message["data"]["bids"]):
                if seat != self.seat:
                    self.bid_counts[bid - MIN_BID] += 1

    def learn_cards(self, info: dict[str, Any]) -> None:
        self.cards = {card["id"]: card for card in info["cards"]}
        self.dice, self.sides = tuple(info["dice"]), tuple(info["dice"].values())

    def choose(self, request: dict[str, Any]) -> str:
        legal = request["legal"]
        if self.rng.random() < self.random_rate or not self.cards:
            return self.rng.choice(legal)
        obs = request["observation"]
        decision = obs["decision"]
        if decision == "bid":
            return self.bid(obs, legal)
        if decision == "keep":
            return self.keep(obs, legal)
        if decision == "reach":
            return self.reach(obs)
        if decision == "roll_or_take":
            display, bid = obs["display"], obs["bids"][obs["seat"]]
            values: dict[str, Callable[..., float]] = {
                "roll": functools.partial(self.rolling_value, obs, display, bid),
                "take all": lambda fast=False: self.haul_value(obs, display)}
            return best_choice(["take all", "roll"], lambda t: values[t](fast=True),
                               lambda t: values[t](fast=False))
        return self.take(obs, [token.split()[1] for token in legal])

    # -- what cards are worth --

    def score(self, obs: dict[str, Any], flock: list[str], dogs: int, bone: bool) -> float:
        """This player's final score from these holdings (top of the flock first)."""
        cards = [self.cards[c] for c in flock]
        whites = sorted(card["points"] for card in cards if card["kind"] == "white")
        kinds = Counter(card["kind"] for card in cards)
        total = sum(whites) + sum(card["points"] for card in cards if card["kind"] == "black")
        total += TRIO_370[kinds["3-7-0"] % 3] + 21 * (kinds["0-0-7"] // 3)
        total += PART_007[kinds["0-0-7"] % 3]
        others = max((d for s, d in enumerate(obs["dogs"]) if s != obs["seat"]), default=0)
        if dogs == 0:  # two sheep go back to the box, unless a dog comes later
            total -= sum(whites[:2]) * (1 - obs["deck_left"] / len(self.cards))
        total += 9 if dogs == 1 else 0
        total += 4 * dogs if bone else 0
        total -= 5 if dogs >= 2 and dogs >= others else 0
        if cards and obs["deck_left"]:
            total += MODIFIER_WEIGHT * cards[0]["modifier"]
        return total

    def top_card(self, sheep: list[str]) -> str:
        """Which of these sheep to put on top: the best modifier, then the lowest sheep number
        (it goes first on tied bids)."""
        return max(sheep, key=lambda c: (self.cards[c]["modifier"], -self.cards[c]["sheep_number"]))

    def haul_value(self, obs: dict[str, Any], taken: list[str] | tuple[str, ...]) -> float:
        """What taking these cards adds to this player's score (the best modifier on top)."""
        me = obs["seat"]
        flock, dogs, bone = list(obs["flocks"][me]), obs["dogs"][me], obs["bone_holder"] == me
        before = self.score(obs, flock, dogs, bone)
        sheep = [c for c in taken if self.cards[c]["kind"] not in NOT_FLOCK]
        dogs += sum(self.cards[c]["kind"] == "dog" for c in taken)
        bone = bone or any(self.cards[c]["kind"] == "bone" for c in taken) or (
            obs["bone_holder"] is not None and any(self.cards[c]["bone_symbol"] for c in sheep))
        if sheep:
            top = self.top_card(sheep)
            flock = [top] + [c for c in sheep if c != top] + flock
        return self.score(obs, flock, dogs, bone) - before

    def best_haul(self, obs: dict[str, Any], cards: list[str], n: int) -> tuple[float, tuple]:
        """The best ``n`` of ``cards`` (all of them if fewer), and what they are worth."""
        n = min(n, len(cards))
        return max(((self.haul_value(obs, combo), combo)
                    for combo in itertools.combinations(cards, n)), key=lambda vc: vc[0])

    def plan(self, obs: dict[str, Any], display: list[str], bid: int,
             wool: int | None = None) -> RollPlan:
        hauls, black, modifier = self.plan_parts(obs, display)
        wool = obs["wool"][obs["seat"]] if wool is None else wool
        return RollPlan(self.sides, bid, modifier, wool, hauls, black)

    def plan_parts(self, obs: dict[str, Any],
                   display: list[str]) -> tuple[dict[int, float], float, int]:
        """What a turn's plan needs besides the bid and the wool: the hauls, the black sheep's
        value, and the modifier on top of this player's flock."""
        hauls = {n: self.best_haul(obs, display, n)[0] for n in (1, 2, 3)}
        blacks = [c for c in display if self.cards[c]["kind"] == "black"]
        black = self.haul_value(obs, blacks) if blacks else 0.0
        me = obs["seat"]
        modifier = self.cards[obs["flocks"][me][0]]["modifier"] if obs["flocks"][me] else 0
        return hauls, black, modifier

    def rolling_value(self, obs: dict[str, Any], display: list[str], bid: int,
                      wool: int | None = None, *, fast: bool = False,
                      parts: dict[tuple[str, ...], Any] | None = None) -> float:
        """``plan(...).expect()``; with ``fast``, :func:`fast_expect` (equal within 1e-9).
        ``parts`` keeps :meth:`plan_parts` by display for the length of one decision."""
        key = tuple(display)
        if parts is None or key not in parts:
            found = self.plan_parts(obs, display)
            if parts is not None:
                parts[key] = found
        hauls, black, modifier = parts[key] if parts is not None else found
        wool = obs["wool"][obs["seat"]] if wool is None else wool
        if fast and len(self.sides) == 3:
            return fast_expect(self.sides, bid, modifier, wool, hauls, black)
        return RollPlan(self.sides, bid, modifier, wool, hauls, black).expect()

    # -- decisions --

    def bid(self, obs: dict[str, Any], legal: list[str]) -> str:
        me, players = obs["seat"], len(obs["wool"])
        singles = {c: self.haul_value(obs, [c]) for c in obs["display"]}
        by_value = sorted(obs["display"], key=lambda c: -singles[c])
        total = sum(self.bid_counts)
        parts: dict[tuple[str, ...], Any] = {}

        def worth(token: str, fast: bool) -> float:
            bid = HIGH_BID if token.endswith("+") else int(token.split()[1])
            ahead = [1.0]  # ahead[k]: chance that k opponents roll before us
            for seat in range(players):
                if seat == me:
                    continue
                higher = sum(self.bid_counts[b - MIN_BID] for b in range(bid + 1, HIGH_BID + 1))
                if obs["sheep_numbers"][seat] < obs["sheep_numbers"][me]:
                    higher += self.bid_counts[bid - MIN_BID]
                p = higher / total
                ahead = [a * (1 - p) + b * p for a, b in zip(ahead + [0.0], [0.0] + ahead)]
            wool = obs["wool"][me] - (bid == HIGH_BID)
            value = -float(bid == HIGH_BID)
            for k, chance in enumerate(ahead):
                rest = by_value[round(TAKEN_PER_ROLLER * k):]
                if not rest:
                    continue
                if k == players - 1 and players > 2:
                    value += chance * self.haul_value(obs, rest)
                    continue
                rolling = self.rolling_value(obs, rest, bid, wool, fast=fast, parts=parts)
                if k == players - 1:  # two players: the last may take all instead
                    rolling = max(rolling, self.haul_value(obs, rest))
                value += chance * rolling
            return value

        return best_choice(legal, functools.partial(worth, fast=True),
                           functools.partial(worth, fast=False))

    def turn(self, obs: dict[str, Any]) -> tuple[RollPlan, tuple[int, ...], int, tuple[int, ...]]:
        """The plan for this turn, the dice not set aside, the sum of those set aside, and the
        faces of those not set aside."""
        plan = self.plan(obs, obs["display"], obs["bids"][obs["seat"]])
        kept = [self.dice.index(name) for name in obs["kept"]]
        free = tuple(d for d in range(len(self.dice)) if d not in kept)
        roll = tuple(obs["dice"][d] for d in free)
        return plan, free, sum(obs["dice"][d] for d in kept), roll

    def keep(self, obs: dict[str, Any], legal: list[str]) -> str:
        plan, free, kept_sum, roll = self.turn(obs)

        def worth(token: str) -> float:
            i = free.index(self.dice.index(token.split()[1]))
            return plan.keep_value(free, kept_sum, i, roll[i])

        return max(legal, key=worth)

    def reach(self, obs: dict[str, Any]) -> str:
        plan, free, kept_sum, roll = self.turn(obs)
        short = obs["wool_needed"]
        if obs["reach_for"] == "black_sheep":  # lifting a failed roll to 14
            return "reach" if -short > plan.black else "decline"
        cards = plan.hauls[len(free)]
        return "reach" if cards - short > plan.miss_value(free, kept_sum, roll) else "decline"

    def take(self, obs: dict[str, Any], cards: list[str]) -> str:
        _, chosen = self.best_haul(obs, cards, obs["to_take"])
        sheep = [c for c in chosen if self.cards[c]["kind"] not in NOT_FLOCK]
        top = self.top_card(sheep) if sheep else None
        first = [c for c in chosen if c != top] or [top]
        return f"take {first[0]}"


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser("arena vollewolle heuristic bot", "vollewolle-heuristic")
    parser.add_argument("--random-rate", type=float, default=0.0,
                        help="probability of playing a uniformly random legal action instead")
    args = parser.parse_args(argv)
    policy = VolleWolleHeuristic(args.random_rate, args.seed)
    return play(policy, args)


if __name__ == "__main__":
    sys.exit(main())
