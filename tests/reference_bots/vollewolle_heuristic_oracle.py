# The vollewolle heuristic bot as it was before its bids were made fast (issue 18 item 4),
# unchanged: the oracle of test_vollewolle_heuristic_speed.py and of the speed benchmark.
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

``--random-rate R`` plays a uniformly random legal action with probability R instead, so bots
of graded strength exist for testing ratings.

``python -m reference_bots.vollewolle_heuristic --host H --port P [--random-rate R]``
"""

from __future__ import annotations

import itertools
import random
import sys
from collections import Counter
from typing import Any

from reference_bots.client import argument_parser, play

MIN_BID, HIGH_BID = 14, 26  # 26 is the "26+" bid, which costs a wool chip
TRIO_370 = (0, 3, 14)  # points for 0, 1, 2 cards of 3-7-0 beyond complete trios
PART_007 = (0, 2, 7)  # 0-0-7s short of a trio score nothing, but may complete one later
MODIFIER_WEIGHT = 1.0  # points per step of the top card's modifier, while rounds remain
TAKEN_PER_ROLLER = 1.5  # cards an opponent who rolls before us takes, on average
NOT_FLOCK = ("dog", "bone")


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
            rolling = self.plan(obs, obs["display"], obs["bids"][obs["seat"]]).expect()
            return "roll" if rolling > self.haul_value(obs, obs["display"]) else "take all"
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
        hauls = {n: self.best_haul(obs, display, n)[0] for n in (1, 2, 3)}
        blacks = [c for c in display if self.cards[c]["kind"] == "black"]
        black = self.haul_value(obs, blacks) if blacks else 0.0
        me = obs["seat"]
        modifier = self.cards[obs["flocks"][me][0]]["modifier"] if obs["flocks"][me] else 0
        wool = obs["wool"][me] if wool is None else wool
        return RollPlan(self.sides, bid, modifier, wool, hauls, black)

    # -- decisions --

    def bid(self, obs: dict[str, Any], legal: list[str]) -> str:
        me, players = obs["seat"], len(obs["wool"])
        singles = {c: self.haul_value(obs, [c]) for c in obs["display"]}
        by_value = sorted(obs["display"], key=lambda c: -singles[c])
        total = sum(self.bid_counts)

        def worth(token: str) -> float:
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
                rolling = self.plan(obs, rest, bid, wool).expect()
                if k == players - 1:  # two players: the last may take all instead
                    rolling = max(rolling, self.haul_value(obs, rest))
                value += chance * rolling
            return value

        return max(legal, key=worth)

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
