"""The vollewolle boss: worlds sampled from one seat's observation, its bid and dice searched.

Almost everything in vollewolle is public; what a seat does not know is the order of the cards
still in the deck and, while bidding, the bids the others are making.  A world deals the unseen
cards (every card not shown in a display yet: the public ``round_start`` events tell which were)
into a random deck, and fresh dice (:class:`SeatDice`).

The bid is what is searched (the heuristic loses most there: it guesses the others' bids from
their past ones and the cards they take ahead of it from an average).  The others' bids in a
world come from a model of each opponent: the reference heuristic's bid in that seat's place
(every input is public: the display, the flocks, the bids revealed so far), moved by a residual
drawn from what that opponent's revealed bids differed from the model's prediction before (and
a prior spread that counts as one residual), so a bot that bids otherwise widens its own
model.  Each candidate bid
(the heuristic's own and its neighbours, and ``26+``) is then played in the *same* worlds with
the same dice (common random numbers: the comparison's variance is the difference's, not each
value's) to the round's end, every seat's rolling and taking by the reference heuristic, and
scored with the game's own final scoring on the flocks as they are then, plus what the rest of
the game is expected to add (:func:`fitted_value`: weights of the holdings' features, times
the share of the cards left, fitted on heuristic self-play: the sheep a seat without a dog
would return, its dogs against the others', the bone, 0-0-7s and 3-7-0s short of a trio and
whether the cards to finish it are still out, the top card's modifier, the wool; before it the
hand-made :func:`estimate_value`), the seat's minus the others' average.  Another bid
replaces the heuristic's only when it beats it by ``CONFIDENCE`` standard errors of their paired
differences (fewer than two worlds: the heuristic's bid).  ``keep`` and ``reach``/``decline``
are searched alike, every legal choice, another than the heuristic's only beyond
``DICE_CONFIDENCE`` standard errors (its exact expectation over the dice is right for its own
card values; the search adds what the others then take).  Taking is the heuristic's.  Every
heuristic choice (the boss's own, the models', the rollouts') is made by
:class:`~reference_bots.boss.vollewolle_fast.FastHeuristic`: the same choices, faster.
Within a think time a decision stops at :data:`MAX_WORLDS` worlds: in measurement, more worlds
won less (80 or 200 worlds against 40, the same games)."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from arena.games.chance import SeededChance
from arena.games.vollewolle.cards import Kind, score_table
from arena.games.vollewolle.core import (
    BID_TOKENS,
    CARD_IDS,
    CARDS,
    DICE,
    INDEX,
    MIN_BID,
    SIDES,
    Decision,
    VolleWolleOptions,
)
from arena.games.vollewolle.rules import VolleWolleState
from reference_bots.boss.search import Budget, Deadline
from reference_bots.boss.vollewolle_fast import FastHeuristic
from reference_bots.boss.vollewolle_value import WEIGHTS, learned_value

T = TypeVar("T")
SEARCHED = ("bid", "keep", "reach")
BID_WINDOW = 2  # candidates: the heuristic's bid and this many bids either side, and:
ALWAYS = ("bid 26+",)
RESIDUAL_PRIOR = (-2, -1, 0, 1, 2)  # an opponent's bid minus the model's, before any is seen
PRIOR_WEIGHT = 1.0  # the prior spread counts as this many residuals seen
CONFIDENCE = 1.0  # another bid than the heuristic's must beat it by this many standard errors
DICE_CONFIDENCE = 2.0  # the same for another keep or reach/decline than the heuristic's
MODIFIER_WEIGHT = 1.0  # points per step of the top card's modifier while the deck lasts
PART_007 = (0, 2, 7)  # 0-0-7s short of a trio, while the deck lasts (the heuristic's guess)
MAX_WORLDS = 40  # within a think time, a decision's worlds stop here (more did worse)


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


def value(world: VolleWolleState, seat: int) -> float:
    """The seat's score as the flocks stand, minus the others' average."""
    totals = [s.total for s in score_table([[CARDS[c] for c in flock] for flock in world.flocks],
                                           world.dogs, world.bone_holder, world.wool)]
    return totals[seat] - (sum(totals) - totals[seat]) / (len(totals) - 1)




def round_value(world: VolleWolleState, seat: int) -> float:
    """:func:`value`, plus the top cards' modifiers (the seat's minus the others' average) while
    rounds remain: what the flock's top gives its next rolls."""
    found = value(world, seat)
    if world.is_over():
        return found
    mods = [CARDS[flock[-1]].modifier if flock else 0 for flock in world.flocks]
    return found + MODIFIER_WEIGHT * (mods[seat] - (sum(mods) - mods[seat]) / (len(mods) - 1))


def estimate_value(world: VolleWolleState, seat: int) -> float:
    """:func:`round_value`, and while the deck lasts what the final scoring cannot see yet: a
    seat without a dog gets back its returned sheep's points times the share of the deck left
    (a dog may come), and 0-0-7s short of a trio count :data:`PART_007`.  (The hand-made
    estimate the boss used before :func:`fitted_value`.)"""
    flocks = [[CARDS[c] for c in flock] for flock in world.flocks]
    table = score_table(flocks, world.dogs, world.bone_holder, world.wool)
    totals = [float(s.total) for s in table]
    left = len(world.deck) - world.drawn
    if not world.is_over() and left:
        share = left / len(CARD_IDS)
        for s, (flock, scoring) in enumerate(zip(flocks, table)):
            totals[s] += share * sum(CARDS[INDEX[c]].points for c in scoring.returned)
            totals[s] += PART_007[sum(card.kind is Kind.TRIO_007 for card in flock) % 3]
            totals[s] += MODIFIER_WEIGHT * (flock[-1].modifier if flock else 0)
    return totals[seat] - (sum(totals) - totals[seat]) / (len(totals) - 1)


def fitted_value(world: VolleWolleState, seat: int,
                 weights: Sequence[float] = WEIGHTS) -> float:
    """The seat's final score expected from the holdings at the round's start, minus the
    others' average, by the weights fitted on heuristic self-play (:mod:`vollewolle_value`);
    the game's final scoring once it is over (nothing is left to take)."""
    left = len(world.deck) - world.drawn + len(world.display)
    return learned_value([[CARDS[c] for c in flock] for flock in world.flocks], world.dogs,
                         world.bone_holder, world.wool, left, seat, weights)


def paired_best(own: str, values: dict[str, list[float]], confidence: float) -> str:
    """The candidate with the best mean, if it beats ``own`` by ``confidence`` standard errors of
    their paired differences (the worlds are common to all candidates), else ``own``."""
    best = max(values, key=lambda token: (sum(values[token]), token == own))
    n = len(values[own])
    if best == own or n < 2:
        return own if n < 2 and confidence > 0 else best
    diffs = [a - b for a, b in zip(values[best], values[own])]
    mean = sum(diffs) / n
    spread = (sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) ** 0.5
    return best if mean > confidence * spread else own


class SeatDice:
    """A world's dice for comparing choices: each die's face is drawn for the seat rolling it,
    the attempt and the die (not for the place in the turn order, as the engine keys them), so
    that every candidate meets the same faces wherever its bid puts the seats and whichever die
    it keeps (common random numbers).  A world rolls within one round: one table of faces
    (:meth:`faces`) serves every candidate."""

    def __init__(self, faces: dict[tuple[int, int, int], int], world: VolleWolleState) -> None:
        self.faces, self.world = faces, world

    @staticmethod
    def table(players: int, rng: random.Random) -> dict[tuple[int, int, int], int]:
        """A face for every (seat, attempt, die's sides)."""
        return {(seat, attempt, n): rng.randint(1, n) for seat in range(players)
                for attempt in (1, 2, 3) for n in SIDES}

    def roll(self, sides: Sequence[int], *where: object) -> tuple[int, ...]:
        _, _, position, attempt = where  # the engine's place of a roll: dice, round, place, a
        seat = self.world.order[position]  # type: ignore[call-overload]
        return tuple([self.faces[seat, attempt, n] for n in sides])  # type: ignore[index]

    def shuffle(self, items: Sequence[T], *where: object) -> list[T]:
        raise NotImplementedError("a world's dice only roll")

    def clone(self) -> SeatDice:
        return self


def bid_number(token: str) -> int:
    return 26 if token.endswith("+") else int(token.split()[1])


class Opponents:
    """A bid model of every other seat: the reference heuristic in its place (its bid history
    from the revealed bids, as that seat saw them), and the residuals of its revealed bids."""

    def __init__(self, start: dict[str, Any], me: int, prior_weight: float = PRIOR_WEIGHT) -> None:
        self.start, self.me, self.prior_weight = start, me, prior_weight
        self.models: dict[int, FastHeuristic] = {}
        self.residuals: dict[int, list[int]] = {}
        self.predicted: dict[int, int] = {}
        self.revealed: list[dict[str, Any]] = []

    def on_revealed(self, message: dict[str, Any]) -> None:
        bids = message["data"]["bids"]
        for seat, bid in self.predicted.items():
            self.residuals.setdefault(seat, []).append(bids[seat] - bid)
        self.predicted = {}
        self.revealed.append(message)
        for model in self.models.values():
            model.on_message(message)

    def model(self, seat: int) -> FastHeuristic:
        if seat not in self.models:
            model = FastHeuristic(0.0, "model")
            model.on_message({**self.start, "seat": seat})
            for message in self.revealed:
                model.on_message(message)
            self.models[seat] = model
        return self.models[seat]

    def predict(self, obs: dict[str, Any]) -> dict[int, int]:
        """Each other seat's bid as the model makes it (noted, to learn its residual)."""
        n = len(obs["wool"])
        for seat in range(n):
            if seat != self.me:
                seen = {**obs, "seat": seat, "bids": [None] * n}
                legal = list(BID_TOKENS[:-1]) + (["bid 26+"] if obs["wool"][seat] else [])
                self.predicted[seat] = bid_number(self.model(seat).bid(seen, legal))
        return dict(self.predicted)

    def draw(self, predicted: dict[int, int], wool: list[int],
             rng: random.Random) -> list[tuple[int, str]]:
        """(seat, bid token) for every other seat in one world."""
        drawn = []
        for seat, bid in predicted.items():
            seen = self.residuals.get(seat, [])
            weight = len(seen) / (len(seen) + self.prior_weight)
            residual = rng.choice(seen if rng.random() < weight else RESIDUAL_PRIOR)
            bid = min(26 if wool[seat] else 25, max(MIN_BID, bid + residual))
            drawn.append((seat, BID_TOKENS[bid - MIN_BID]))
        return drawn


class VolleWolleBoss:
    """The boss's policy for the client library."""

    wanted_events = frozenset({"round_start", "bids_revealed"})

    def __init__(self, think_ms: float = 100.0, iterations: int | None = None,
                 seed: object = None, window: int = BID_WINDOW,
                 confidence: float = CONFIDENCE,
                 searched: tuple[str, ...] = SEARCHED,
                 dice_confidence: float = DICE_CONFIDENCE, seat_dice: bool = True,
                 prior_weight: float = PRIOR_WEIGHT, always: tuple[str, ...] = ALWAYS,
                 value: str = "fitted", weights: Sequence[float] | str = WEIGHTS,
                 max_worlds: int = MAX_WORLDS) -> None:
        self.budget = Budget(think_ms, iterations, seed)
        self.mine = FastHeuristic(0.0, None if seed is None else str(seed))
        self.player = FastHeuristic(0.0, "rollout")  # plays every seat in the worlds
        self.opponents: Opponents | None = None
        self.drawn: set[str] | None = None
        self.window, self.confidence = window, confidence
        self.searched, self.dice_confidence = searched, dice_confidence
        self.seat_dice, self.prior_weight, self.always = seat_dice, prior_weight, always
        if isinstance(weights, str):  # a file of weights (a variant under measurement)
            with open(weights) as source:
                weights = list(json.load(source))
        if len(weights) != len(WEIGHTS):
            raise ValueError(f"weights: {len(WEIGHTS)} numbers, not {len(weights)}")
        evaluations: dict[str, Callable[[VolleWolleState, int], float]] = {
            "fitted": functools.partial(fitted_value, weights=weights),
            "estimate": estimate_value, "round": round_value, "heuristic": self.heuristic_value}
        if value not in evaluations:
            raise ValueError(f"value: one of {', '.join(evaluations)}")
        self.evaluate = evaluations[value]
        self.max_worlds = max_worlds
        self.worlds: list[int] = []  # the worlds of each searched decision (for measurement)

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "game_start":
            self.drawn = None if message.get("resumed") else set()
            self.player.on_message(message)
            self.opponents = Opponents(message, message.get("seat", 0), self.prior_weight)
        elif kind == "event" and self.drawn is not None and message.get("kind") == "round_start":
            self.drawn.update(message["data"]["display"])
        elif kind == "event" and message.get("kind") == "bids_revealed" and self.opponents:
            self.opponents.on_revealed(message)
        self.mine.on_message(message)

    def choose(self, request: dict[str, Any]) -> str:
        deadline = self.budget.deadline(request)
        obs, legal = request["observation"], request["legal"]
        rng = self.budget.next_rng()
        self.mine.forget()
        self.player.forget()
        own = self.mine.choose(request)
        decision = obs["decision"]
        if decision not in self.searched or len(legal) == 1 or self.opponents is None:
            return own
        if decision != "bid":  # keep or reach: every legal choice, the others' bids known
            values = self.values(obs, legal, rng, deadline, None)
            return paired_best(own, values, self.dice_confidence)
        at = legal.index(own)
        candidates = legal[max(0, at - self.window): at + self.window + 1]
        candidates += [t for t in self.always if t in legal and t not in candidates]
        values = self.values(obs, candidates, rng, deadline, self.opponents.predict(obs))
        return paired_best(own, values, self.confidence)

    def values(self, obs: dict[str, Any], candidates: list[str], rng: random.Random,
               deadline: Deadline, predicted: dict[int, int] | None) -> dict[str, list[float]]:
        """Each candidate's values in the same sampled worlds (same dice; at a bid, the same
        others' bids drawn from ``predicted``), each played to the round's end."""
        assert self.opponents is not None
        me, round_now = obs["seat"], obs["round"]
        template = VolleWolleState(VolleWolleOptions(players=len(obs["wool"])), "world")
        values: dict[str, list[float]] = {token: [] for token in candidates}
        worlds = 0
        while True:
            if self.budget.iterations is not None:
                if worlds >= self.budget.iterations:
                    break
            elif worlds and (worlds >= self.max_worlds or deadline.passed()):
                break
            world = sample_world(obs, self.drawn, rng, template)
            dice = SeatDice.table(len(obs["wool"]), rng) if self.seat_dice else rng.random()
            others = [] if predicted is None else self.opponents.draw(predicted, obs["wool"], rng)
            for token in candidates:
                twin = world.clone()
                twin.chance = (SeatDice(dice, twin) if isinstance(dice, dict)
                               else SeededChance(dice))
                twin.apply(me, token)
                for seat, bid in others:
                    twin.apply(seat, bid)
                self.play_round(twin, round_now)
                values[token].append(self.evaluate(twin, me))
            worlds += 1
        self.worlds.append(worlds)
        return values

    def heuristic_value(self, world: VolleWolleState, me: int) -> float:
        """The heuristic's own estimate of each seat's final score (partial sets, dogs to come,
        the top card's modifier), the seat's minus the others' average."""
        if world.is_over():
            return value(world, me)
        scores = []
        for seat in range(world.n):
            seen = vars(world.observe(seat))
            scores.append(self.player.score(seen, list(seen["flocks"][seat]), seen["dogs"][seat],
                                            seen["bone_holder"] == seat))
        return scores[me] - (sum(scores) - scores[me]) / (len(scores) - 1)

    def play_round(self, world: VolleWolleState, round_now: int) -> None:
        """Every seat plays the reference heuristic until the round is over."""
        while world.round == round_now and not world.is_over():
            for seat in world.to_act():
                request = {"observation": vars(world.observe(seat)),
                           "legal": world.legal_actions(seat)}
                world.apply(seat, self.player.choose(request))
