"""A chochlik (Bottle Imp) bot that plays by a few rules of thumb, and clearly beats random.

Passing: the three lowest cards go away (the lowest under the Imp, the next two to the
neighbours): low cards are what leave a player holding the bottle at the end.

Tricks: first, the card that leaves the fewest of our cards below the price this trick sets
(the card itself if it takes the bottle, else the highest card under the price already in the
trick, which takes it, else the price).  A player left with only cards under the price at the
end of a hand is forced to buy the bottle, so low cards go while someone else's card takes it,
or while a card that others can still undercut does.  Before this rule the bot won tricks with
its high cards and kept its low ones: it ended about half its hands holding the bottle, mostly
bought in the last tricks with nothing else to play, and lost to a bot that always plays its
lowest legal card (``legal[0]``).  Among the cards that leave equally few, every card gets a
value and the best one is played:
- A card below the price that would win the bottle is worth the trick's coins if the bottle is
  likely to be bought back from us (many unseen cards below it, few of our own), and costs the
  Imp's pile plus everything we won if it is likely to stick.
- A card below the price that does not win dumps a dangerous low card on someone else.
- A card above the price wins the trick's coins when it is the highest and nobody can undercut
  it, and otherwise hands its own coins to the trick's winner.

``--random-rate R`` plays a uniformly random legal card with probability R instead, so bots of
graded strength exist for testing ratings.

``python -m reference_bots.chochlik_heuristic --host H --port P [--random-rate R]``
"""

from __future__ import annotations

import random
import sys
from typing import Any

from reference_bots.client import argument_parser, play

START_PRICE = 19


class ChochlikHeuristic:
    wanted_events: frozenset[str] = frozenset()  # game_start and each request say enough

    def __init__(self, random_rate: float = 0.0, seed: int | str | None = None) -> None:
        if not 0.0 <= random_rate <= 1.0:
            raise ValueError("random rate must be between 0 and 1")
        self.random_rate = random_rate
        self.rng = random.Random(seed)
        self.colour: dict[int, str] = {}
        self.coins: dict[int, int] = {}

    # -- protocol hooks --

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "game_start":
            self.learn_cards(message["info"])

    def learn_cards(self, info: dict[str, Any]) -> None:
        for card in info["cards"]:
            self.colour[card["card"]] = card["colour"]
            self.coins[card["card"]] = card["coins"]

    def choose(self, request: dict[str, Any]) -> str:
        legal = request["legal"]
        if self.rng.random() < self.random_rate or not self.coins:
            return self.rng.choice(legal)
        observation = request["observation"]
        verb = legal[0].split()[0]
        cards = [int(token.split()[1]) for token in legal]
        if verb == "play":
            card = self.play(observation, cards)
        else:
            card = self.pass_card(observation, cards)
        return f"{verb} {card}"

    # -- passing --

    def pass_card(self, observation: dict[str, Any], cards: list[int]) -> int:
        """The lowest card goes under the Imp, the next two to the neighbours."""
        return min(cards)

    # -- tricks --

    def play(self, obs: dict[str, Any], cards: list[int]) -> int:
        price = obs["price"]
        best_low = max((c for _, c in obs["trick"] if c < price), default=None)
        hand = obs["hand"]
        return max(cards, key=lambda card: (-self.left_below(hand, card, price, best_low),
                                            self.value(obs, card), -card))

    @staticmethod
    def left_below(hand: list[int], card: int, price: int, best_low: int | None) -> int:
        """How many of our other cards lie below the price once ``card`` is played: the card
        itself if it takes the bottle, else the trick's highest card under the price (which
        takes it), else the price (what the players after us do is not guessed)."""
        if card < price and (best_low is None or card > best_low):
            new_price = card
        elif best_low is not None:
            new_price = best_low
        else:
            new_price = price
        return sum(1 for c in hand if c < new_price and c != card)

    def value(self, obs: dict[str, Any], card: int) -> float:
        me = obs["seat"]
        players = len(obs["scores"])
        price = obs["price"]
        hand = obs["hand"]
        trick = [c for _, c in obs["trick"]]
        after_me = players - 1 - len(trick)
        unseen = self.unseen(obs)
        trick_coins = sum(self.coins[c] for c in trick)
        expected_later = after_me * 3.5
        low_in_trick = [c for c in trick if c < price]
        best_low = max(low_in_trick, default=None)
        my_won = sum(self.coins[c] for c in obs["won"][me])
        imp_estimate = 3.5 * players

        if card < price and (best_low is None or card > best_low):
            # we would take the bottle at this price, unless a later player goes between
            risk = self.stuck_risk(card, hand, unseen, players, len(hand))
            gain = trick_coins + self.coins[card] + expected_later
            return (1 - risk) * gain - risk * (imp_estimate + my_won + gain)
        if card < price:
            # someone else takes the bottle: our low card is gone for good
            relief = (price - card) / price * 4
            return relief - self.coins[card] * 0.6
        # above the price
        if best_low is not None:
            return -self.coins[card] * 0.6  # goes to whoever takes the bottle
        highest = max(trick, default=0)
        if card < highest:
            return -self.coins[card] * 0.6
        undercut = self.undercut_chance(price, unseen, after_me)
        gain = trick_coins + self.coins[card] + expected_later
        value = (1 - undercut) * gain - undercut * self.coins[card] * 0.6
        return value * (0.5 if obs.get("bottle_owner") == me else 1.0)

    def unseen(self, obs: dict[str, Any]) -> list[int]:
        """Cards that may still be in other hands (or under the Imp)."""
        known = set(obs["hand"]) | set(obs["played"])
        if obs.get("imp_card") is not None:
            known.add(obs["imp_card"])
        return [c for c in self.coins if c not in known]

    @staticmethod
    def stuck_risk(card: int, hand: list[int], unseen: list[int], players: int,
                   tricks_left: int) -> float:
        """How likely we end the hand with the bottle if we buy it at ``card``."""
        below_elsewhere: float = sum(1 for c in unseen if c < card)
        hidden_share = (players - 1) / max(len(unseen), 1)  # some unseen cards are the Imp's
        below_elsewhere *= 1 - hidden_share
        below_mine = sum(1 for c in hand if c < card)
        risk = 0.55 ** below_elsewhere
        risk = 1 - (1 - risk) * (0.8 ** below_mine)
        if tricks_left <= 2:
            risk = max(risk, 0.5 if below_elsewhere >= 1 else 0.95)
        return min(1.0, risk)

    @staticmethod
    def undercut_chance(price: int, unseen: list[int], after_me: int) -> float:
        if after_me == 0:
            return 0.0
        low_share = sum(1 for c in unseen if c < price) / max(len(unseen), 1)
        return 1 - (1 - low_share) ** after_me


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser("arena chochlik heuristic bot", "chochlik-heuristic")
    parser.add_argument("--random-rate", type=float, default=0.0,
                        help="probability of playing a uniformly random legal action instead")
    args = parser.parse_args(argv)
    policy = ChochlikHeuristic(args.random_rate, args.seed)
    return play(policy, args)


if __name__ == "__main__":
    sys.exit(main())
