"""A wypas bot that plays by a few rules of thumb, and clearly beats random.

- **Rows.** A card is worth much to it when it extends one of its pens (the next value of a
  colour row, a new colour of a value row), or pairs with another card in its hand to start a
  row; little otherwise.  Special cards are worth a little (a thief most).
- **Auctions.** It names and hides the card it wants most.  It bids only with cards worth
  little to it (highest values first, so that few cards are spent), and only while what it
  spends is worth less than the card on offer.
- **Redyk.** It places every sheep that extends a row; it starts a row in an empty pen with a
  card that has a follow-up in its hand.  A joker takes the value that keeps the row growing.
- **Shearing.** It shears a pen that cannot grow from its hand any more and holds 3 cards or
  more, any pen of 5 or more, a pen with a wolf above it, and everything worth a fleece once the
  game is ending (a 5th fleece, the turn cap near).  Under strict bleating it always bleats.
- **Special cards.** A wolf goes above the biggest opponent pen; a black sheep takes the best
  sheep of an opponent's pen; the thief robs the biggest hand; a dog chases a wolf from its own
  pen, and cancels a special card aimed at it.  It never bluffs and never checks.

``--random-rate R`` plays a uniformly random legal action with probability R instead.

``python -m reference_bots.wypas_heuristic --host H --port P [--random-rate R]``
"""

from __future__ import annotations

import random
import sys
from typing import Any

from reference_bots.client import argument_parser, play

SPECIAL_WORTH = {"thief": 3.0, "wolf": 2.0, "dog": 2.0, "black_sheep": 2.0}
CARD_COST = 1.0  # what spending any card costs, beyond its use to us
ENDGAME_TURNS = 2  # turns before the cap at which it shears everything worth a fleece


def fits(pen: list[list[Any]], colour: str, value: int) -> bool:
    """The engine's row rule (SPEC.md "Redyk"; a black sheep has no colour and no value)."""
    if not 1 <= value <= 6:
        return False
    sheep = [(c, v) for _, c, v in pen if c is not None]
    if not sheep:
        return True
    first_colour, first_value = sheep[0]
    if len(sheep) == 1:
        return ((colour == first_colour and value == first_value + 1)
                or (value == first_value and colour != first_colour))
    if all(c == first_colour for c, _ in sheep):
        return colour == first_colour and value == max(v for _, v in sheep) + 1
    return value == first_value and all(c != colour for c, _ in sheep)


class WypasHeuristic:
    wanted_events: frozenset[str] = frozenset()  # game_start and each request say enough

    def __init__(self, random_rate: float = 0.0, seed: int | str | None = None) -> None:
        if not 0.0 <= random_rate <= 1.0:
            raise ValueError("random rate must be between 0 and 1")
        self.random_rate = random_rate
        self.rng = random.Random(seed)
        self.cards: dict[str, dict[str, Any]] = {}
        self.seat = 0

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "game_start":
            self.cards = {card["id"]: card for card in message["info"]["cards"]}
            self.seat = message["seat"]

    def choose(self, request: dict[str, Any]) -> str:
        legal: list[str] = request["legal"]
        if self.rng.random() < self.random_rate or not self.cards:
            return self.rng.choice(legal)
        obs = request["observation"]
        handler = getattr(self, f"on_{obs['decision']}", None)
        choice = handler(obs, legal) if handler else None
        return choice if choice in legal else self.rng.choice(legal)

    # -- what a card is worth to us --

    def kind(self, card: str) -> str:
        return self.cards[card]["kind"] if card in self.cards else "unknown"

    def pens(self, obs: dict[str, Any]) -> list[list[list[Any]]]:
        return obs["pens"][self.seat]

    def extends(self, obs: dict[str, Any], card: str) -> bool:
        info = self.cards.get(card)
        if info is None or info["kind"] not in ("sheep", "dolly", "super_dolly"):
            return False
        for pen in self.pens(obs):
            if not pen:
                continue
            if info["kind"] == "sheep" and fits(pen, info["colour"], info["value"]):
                return True
            if info["kind"] != "sheep":
                colours = [info["colour"]] if info["colour"] else ["yellow", "red", "green",
                                                                   "violet"]
                if any(fits(pen, c, v) for c in colours for v in range(1, 7)):
                    return True
        return False

    def pairs(self, card: str, hand: list[str]) -> bool:
        """Does the card start a row with another sheep in the hand?"""
        info = self.cards.get(card)
        if info is None or info["kind"] != "sheep":
            return False
        for other in hand:
            o = self.cards.get(other)
            if other == card or o is None or o["kind"] != "sheep":
                continue
            if (o["colour"] == info["colour"] and abs(o["value"] - info["value"]) == 1) or (
                    o["value"] == info["value"] and o["colour"] != info["colour"]):
                return True
        return False

    def worth(self, obs: dict[str, Any], card: str) -> float:
        kind = self.kind(card)
        if kind in SPECIAL_WORTH:
            return SPECIAL_WORTH[kind]
        if kind in ("dolly", "super_dolly"):
            return 6.0
        if kind != "sheep":
            return 1.0
        value = self.cards[card]["value"]
        if self.extends(obs, card):
            return 5.0 + value
        if self.pairs(card, obs["hand"]):
            return 2.5 + value / 2
        return 0.5 + value / 4

    # -- the auction --

    def on_hide(self, obs: dict[str, Any], legal: list[str]) -> str:
        return max(legal, key=lambda token: self.worth(obs, token.split()[1]))

    def on_name(self, obs: dict[str, Any], legal: list[str]) -> str:
        def want(token: str) -> float:
            card = token.split()[1]
            return 3.0 if card == "hidden" else self.worth(obs, card)
        return max(legal, key=want)

    def on_bid(self, obs: dict[str, Any], legal: list[str]) -> str:
        if "commit" in legal:
            return "commit"
        card = obs["auction_card"]
        prize = 3.0 if card == "hidden" else self.worth(obs, card)
        if card == obs.get("hidden_card"):
            prize = self.worth(obs, card)
        high = obs["stakes"][obs["high_bidder"]] if obs["high_bidder"] is not None else 0
        need = high + 1 - obs["stakes"][self.seat]
        spares = sorted((token.split()[1] for token in legal if token.startswith("add ")),
                        key=lambda c: (self.worth(obs, c), -self.bid_value(c)))
        spent, cost = 0, 0.0
        plan = []
        for spare in spares:
            if spent >= need:
                break
            plan.append(spare)
            spent += self.bid_value(spare)
            cost += CARD_COST + self.worth(obs, spare)
        if spent >= need and cost < prize:
            best = max(plan, key=self.bid_value)
            return f"add {best}"
        return "pass"

    def on_joker_value(self, obs: dict[str, Any], legal: list[str]) -> str:
        return legal[-1]  # the most it may count

    def bid_value(self, card: str) -> int:
        info = self.cards[card]
        return 6 if info["kind"] in ("dolly", "super_dolly") else info["value"] or 0

    # -- redyk --

    def on_place(self, obs: dict[str, Any], legal: list[str]) -> str:
        hand = obs["hand"]
        best, best_score = "done", 0.0
        for token in legal:
            if token == "done":
                continue
            _, card, pen = token.split()
            target = self.pens(obs)[int(pen)]
            kind = self.kind(card)
            if target:
                score = 10.0 + (self.cards[card]["value"] or 0 if kind == "sheep" else 3)
            elif kind == "sheep" and self.pairs(card, hand):
                score = 5.0 + self.cards[card]["value"]
            else:
                continue
            if score > best_score:
                best, best_score = token, score
        return best

    def on_declare(self, obs: dict[str, Any], legal: list[str]) -> str:
        def value(token: str) -> int:
            return int(token.rsplit("-", 1)[1])
        pen = self.pens(obs)[obs["placing_pen"]]
        if not [c for c in pen if c[1] is not None]:  # an empty pen: a colour row upwards
            return min(legal, key=lambda t: abs(value(t) - 3))
        return max(legal, key=value)

    # -- shearing --

    def on_shear(self, obs: dict[str, Any], legal: list[str]) -> str:
        ending = (obs["end_triggered_by"] is not None
                  or obs["turn"] >= obs["turn_cap"] - ENDGAME_TURNS)
        hand = obs["hand"]
        for token in legal:
            parts = token.split()
            if parts[0] != "shear" or (len(parts) == 2 and any(
                    t.startswith(token + " ") for t in legal)):
                continue  # under strict bleating, always the bleating token
            pen_index = int(parts[1])
            pen = self.pens(obs)[pen_index]
            size = len(pen)
            wolf = obs["wolves"][self.seat][pen_index] is not None
            can_grow = any(self.cards.get(c, {}).get("kind") == "sheep"
                           and fits(pen, self.cards[c]["colour"], self.cards[c]["value"])
                           for c in hand)
            if (size >= 5 or (size >= 3 and (not can_grow or wolf))
                    or (ending and size >= 2) or (wolf and size >= 2 and size < 3)):
                return token
        return "done"

    # -- special cards --

    def opponents(self, obs: dict[str, Any]) -> list[int]:
        return [s for s in range(len(obs["hand_sizes"])) if s != self.seat]

    def on_window(self, obs: dict[str, Any], legal: list[str]) -> str:
        for token in legal:
            if token == "pass":
                continue
            card = token.split()[1]
            if self.target_for(obs, card) is not None:
                return token
        return "pass"

    def target_for(self, obs: dict[str, Any], card: str) -> str | None:
        kind = self.kind(card)
        pens = obs["pens"]
        if kind == "thief":
            others = [s for s in self.opponents(obs) if obs["hand_sizes"][s] >= 3]
            if others:
                return f"target {max(others, key=lambda s: obs['hand_sizes'][s])}"
        elif kind == "wolf":
            spots = [(len(pens[s][p]), s, p) for s in self.opponents(obs) for p in (0, 1)
                     if obs["wolves"][s][p] is None
                     and sum(1 for c in pens[s][p] if c[1] is not None) >= 3]
            if spots:
                _, s, p = max(spots)
                return f"target {s} {p}"
        elif kind == "black_sheep":
            spots = [(sum(c[2] for c in pens[s][p]), s, p) for s in self.opponents(obs)
                     for p in (0, 1) if sum(1 for c in pens[s][p] if c[1] is not None) >= 3]
            if spots:
                _, s, p = max(spots)
                return f"target {s} {p}"
        elif kind == "dog":
            mine = [p for p in (0, 1) if obs["wolves"][self.seat][p] is not None
                    and len(pens[self.seat][p]) >= 2]
            if mine:
                return f"target {self.seat} {mine[0]}"
        return None

    def on_target(self, obs: dict[str, Any], legal: list[str]) -> str:
        card = obs["window"]["choosing"]
        return self.target_for(obs, card) or "pass"

    def on_response(self, obs: dict[str, Any], legal: list[str]) -> str:
        chain = obs["window"]["chain"]
        if len(chain) != 1:
            return "pass"  # never a dog on a dog
        top = chain[0]
        target = top["target"]
        if target and target[0] == self.seat and top["seat"] != self.seat:
            dogs = [token for token in legal if token != "pass"]
            if dogs:
                return dogs[0]
        return "pass"

    def on_steal(self, obs: dict[str, Any], legal: list[str]) -> str:
        return max(legal, key=lambda token: self.worth(obs, token.split()[1]))

    def on_swap(self, obs: dict[str, Any], legal: list[str]) -> str:
        return max(legal, key=lambda token: self.worth(obs, token.split()[1]))

    def on_award(self, obs: dict[str, Any], legal: list[str]) -> str:
        mine = f"award {self.seat}"
        return mine if mine in legal else legal[0]


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser("arena wypas heuristic bot", "wypas-heuristic")
    parser.add_argument("--random-rate", type=float, default=0.0,
                        help="probability of playing a uniformly random legal action instead")
    args = parser.parse_args(argv)
    policy = WypasHeuristic(args.random_rate, args.seed)
    return play(policy, args)


if __name__ == "__main__":
    sys.exit(main())
