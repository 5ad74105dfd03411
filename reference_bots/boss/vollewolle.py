"""The vollewolle boss: worlds sampled from one seat's observation, searched to the round's end.

Almost everything in vollewolle is public; what a seat does not know is the order of the cards
still in the deck and, while bidding, the bids the others have made.  A world deals the unseen
cards (every card not shown in a display yet: the public ``round_start`` events tell which were)
into a random deck, gives every other seat its bid still to make, and a fresh seed for the dice.

Which cards to take is searched: each world is played by a cheap rollout policy to
the end of the round and scored with the game's own final scoring on the flocks as they are then
(the seat's total minus the others' average).  Bidding and rolling (which die to keep, reach or
decline, roll or take) are the reference heuristic's: its exact expectation over the dice is
what a sampled search can only approach, and a search over bids with these rollouts chose worse
(measured: 8 games at 10 ms, a third fewer points than the heuristic's bids)."""

from __future__ import annotations

import random
from typing import Any

from arena.games.chance import SeededChance
from arena.games.vollewolle.cards import score_table
from arena.games.vollewolle.core import (
    BID_TOKENS,
    CARD_IDS,
    CARDS,
    DICE,
    INDEX,
    Decision,
    VolleWolleOptions,
)
from arena.games.vollewolle.rules import VolleWolleState
from reference_bots.boss.search import Budget, rollout, search
from reference_bots.vollewolle_heuristic import VolleWolleHeuristic

SEARCHED = ("take",)


def sample_world(obs: dict[str, Any], drawn: set[str] | None, rng: random.Random,
                 template: VolleWolleState | None = None) -> VolleWolleState:
    """An engine state the seat cannot tell from the real one, from its observation and the
    displays it was shown (``drawn``: every card id laid out so far, or None if unknown)."""
    n = len(obs["wool"])
    me = obs["seat"]
    state = (template.clone() if template is not None
             else VolleWolleState(VolleWolleOptions(players=n), "world"))
    display = list(obs["display"])
    if drawn is None:  # not seen from the start: every card not on the table may be left
        drawn = set(display) | {card for flock in obs["flocks"] for card in flock}
    unseen = [card for card in CARD_IDS if card not in drawn and card not in display]
    rng.shuffle(unseen)
    state.chance = SeededChance(rng.random())  # fresh dice
    state.deck = [INDEX[card] for card in unseen[:obs["deck_left"]]]
    state.drawn = 0
    state.display = [INDEX[card] for card in display]
    state.flocks = [[INDEX[card] for card in reversed(flock)] for flock in obs["flocks"]]
    backs = [s + 1 for s in range(n)]
    for seat, flock in enumerate(state.flocks):
        if all(CARDS[card].sheep_number is None for card in flock):
            backs[seat] = obs["sheep_numbers"][seat]
    state.bid_backs = backs
    state.start_player = obs["start_player"]
    state.dogs = list(obs["dogs"])
    state.bone_holder = obs["bone_holder"]
    state.wool = list(obs["wool"])
    state.round = obs["round"]
    state.order = list(obs["order"])
    decision = Decision(obs["decision"])
    state.decision = decision
    if decision is Decision.BID:
        state.bids = [obs["bids"][me] if s == me else None for s in range(n)]
        state._acting = tuple(s for s in range(n) if state.bids[s] is None)
        state.position = 0
    else:
        state.bids = list(obs["bids"])
        state._acting = (me,)
        state.position = state.order.index(obs["turn"])
    state.attempt = obs["attempt"] or 0
    state.dice = list(obs["dice"] or (0, 0, 0))
    state.kept = tuple(DICE.index(name) for name in obs["kept"])
    state.target = obs["target"] or 0
    state.reaching_bid = obs["reach_for"] != "black_sheep"
    state.taker = me if decision is Decision.TAKE else None
    state.take_left = obs["to_take"]
    state.black_only = obs["take_from"] == "black_sheep"
    state.scoring = None
    state._rebuild_views()
    return state


def rollout_policy(world: VolleWolleState, seat: int, rng: random.Random) -> str:
    """Cheap and plausible: bids 14 to 19 at random (never the wool bid), keep the highest die,
    reach when it costs at most one chip, roll again or take at random, take any card."""
    decision = world.decision
    if decision is Decision.BID:
        return BID_TOKENS[int(rng.random() * 6)]
    legal = world.legal_actions(seat)
    if decision is Decision.KEEP:
        return max(legal, key=lambda token: world.dice[DICE.index(token[5:])])
    if decision is Decision.REACH:
        return "reach" if world._reach_cost()[1] <= 1 else "decline"
    return legal[int(rng.random() * len(legal))]


def value(world: VolleWolleState, seat: int) -> float:
    """The seat's score as the flocks stand, minus the others' average."""
    totals = [s.total for s in score_table([[CARDS[c] for c in flock] for flock in world.flocks],
                                           world.dogs, world.bone_holder, world.wool)]
    return totals[seat] - (sum(totals) - totals[seat]) / (len(totals) - 1)


class VolleWolleBoss:
    """The boss's policy for the client library."""

    wanted_events = frozenset({"round_start", "bids_revealed"})

    def __init__(self, think_ms: float = 100.0, iterations: int | None = None,
                 seed: object = None) -> None:
        self.budget = Budget(think_ms, iterations, seed)
        self.roller = VolleWolleHeuristic(0.0, None if seed is None else str(seed))
        self.drawn: set[str] | None = None

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "game_start":
            self.drawn = None if message.get("resumed") else set()
        elif kind == "event" and message.get("kind") == "round_start" and self.drawn is not None:
            self.drawn.update(message["data"]["display"])
        self.roller.on_message(message)

    def choose(self, request: dict[str, Any]) -> str:
        obs, legal = request["observation"], request["legal"]
        rng = self.budget.next_rng()
        if obs["decision"] not in SEARCHED:
            return self.roller.choose(request)
        if len(legal) == 1:
            return str(legal[0])
        me, round_now = obs["seat"], obs["round"]
        template = VolleWolleState(VolleWolleOptions(players=len(obs["wool"])), "world")

        def stop(world: VolleWolleState) -> bool:
            return world.round != round_now or world.is_over()

        def simulate(world: VolleWolleState, action: str, rng: random.Random) -> float:
            rollout(world, me, action, rollout_policy, rng, stop)
            return value(world, me)

        return search(legal, lambda r: sample_world(obs, self.drawn, r, template), simulate, rng,
                      think_ms=self.budget.think_ms, iterations=self.budget.iterations)
