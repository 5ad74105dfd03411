"""The chochlik boss: worlds sampled from one seat's observation, searched to the hand's end.

What the seat knows (its request's observation, nothing else): its hand, its own Imp card and
passes (and so which card each neighbour holds until it is played), every card played this hand
in order (from which the tricks, their leaders and so every seat's missing colours follow: a seat
that did not follow the led colour has none left), the piles won, the price and the bottle's
owner.  What it does not know: the other hands and the other Imp cards.  A world deals the unseen
cards to them at random, respecting hand sizes, the missing colours and the passes it made, and
at a table of three what the passes it received say if the others pass as the heuristic does
(:mod:`reference_bots.boss.chochlik_passes`).

Passing is the reference heuristic's rule (the three lowest cards go): a search over the passes,
whose worlds must play the whole hand after them, chose worse at these budgets.

A world is scored at the end of the hand: the seat's coins this hand minus the other seats'
average (the game's totals only add hands up)."""

from __future__ import annotations

import random
from typing import Any

from arena.games.chochlik import (
    COLOUR,
    DECK,
    HAND_SIZE,
    START_PRICE,
    ChochlikOptions,
    ChochlikState,
    Phase,
    parse_options,
)
from reference_bots.boss.chochlik_passes import PassModel
from reference_bots.boss.chochlik_rollout import play_out
from reference_bots.boss.search import Budget, search


def tricks_and_voids(obs: dict[str, Any]) -> tuple[int, list[set[int]], list[set[int]]]:
    """The number of tricks finished this hand and, by seat, the colours it showed it lacks and
    the cards it played this hand."""
    n = len(obs["scores"])
    played = list(obs["played"])
    done = (len(played) - len(obs["trick"])) // n
    voids: list[set[int]] = [set() for _ in range(n)]
    by_seat: list[set[int]] = [set() for _ in range(n)]
    leader = (obs["dealer"] + 1) % n
    price = START_PRICE
    for t in range(done):
        cards = played[t * n:(t + 1) * n]
        seats = [(leader + i) % n for i in range(n)]
        led = COLOUR[cards[0]]
        for seat, card in zip(seats, cards):
            by_seat[seat].add(card)
            if COLOUR[card] != led:
                voids[seat].add(led)
        low = [(c, s) for s, c in zip(seats, cards) if c < price]
        if low:
            price, leader = max(low)
        else:
            leader = max((c, s) for s, c in zip(seats, cards))[1]
    trick = [tuple(entry) for entry in obs["trick"]]
    if trick:
        led = COLOUR[trick[0][1]]
        for seat, card in trick:
            by_seat[seat].add(card)
            if COLOUR[card] != led:
                voids[seat].add(led)
    return done, voids, by_seat


def deal_hidden(unseen: list[int], sizes: dict[int, int], voids: list[set[int]],
                fixed: dict[int, list[int]], imp_slots: int,
                rng: random.Random) -> tuple[dict[int, list[int]], list[int]]:
    """The unseen cards dealt to the other seats (``sizes`` cards each, ``fixed`` ones first,
    none of a colour it lacks) and ``imp_slots`` to the Imp's pile; the voids are dropped if
    no deal is found quickly (they are then ignored, never the sizes)."""
    for attempt in range(60):
        cards = unseen[:]
        rng.shuffle(cards)
        # the most constrained cards first: those few seats may take
        cards.sort(key=lambda c: sum(1 for s in sizes if COLOUR[c] in voids[s]), reverse=True)
        hands = {s: list(fixed.get(s, ())) for s in sizes}
        room = {s: sizes[s] - len(hands[s]) for s in sizes}
        imp: list[int] = []
        ok = True
        for card in cards:
            takers = [s for s in sizes if room[s] > 0
                      and (attempt >= 50 or COLOUR[card] not in voids[s])]
            weights = [room[s] for s in takers]
            if imp_slots - len(imp) > 0:
                takers.append(-1)
                weights.append(imp_slots - len(imp))
            if not takers:
                ok = False
                break
            taker = rng.choices(takers, weights)[0]
            if taker < 0:
                imp.append(card)
            else:
                hands[taker].append(card)
                room[taker] -= 1
        if ok:
            return hands, imp
    raise ValueError("no deal fits the observation")


def sample_world(obs: dict[str, Any], options: ChochlikOptions, rng: random.Random,
                 template: ChochlikState | None = None) -> ChochlikState:
    """An engine state the seat cannot tell from the real one, from its observation alone."""
    return WorldSampler(obs, options, template)(rng)


class WorldSampler:
    """Samples worlds for one decision: what the observation says is worked out once.

    At a table of three in the play phase the others' hands are dealt as their passes to the
    seat say, if they pass as the heuristic does (:mod:`chochlik_passes`), whenever some deal
    fits that; otherwise (four players, or passes the heuristic would not make) uniformly
    among the deals that respect hand sizes, the missing colours and the seat's own passes."""

    def __init__(self, obs: dict[str, Any], options: ChochlikOptions,
                 template: ChochlikState | None = None, use_passes: bool = True) -> None:
        self.obs, self.options, self.template = obs, options, template
        n = self.n = len(obs["scores"])
        me = self.me = obs["seat"]
        self.mine = [obs["imp_card"], obs["passed_left"], obs["passed_right"]]
        chosen = [c for c in self.mine if c is not None]
        self.hand = list(obs["hand"])
        self.others = [s for s in range(n) if s != me]
        self.model: PassModel | None = None
        if obs["phase"] == "pass":
            self.unseen = [c for c in DECK if c not in set(self.hand) | set(chosen)]
            return
        done, self.voids, by_seat = tricks_and_voids(obs)
        played = set(obs["played"])
        in_trick = {entry[0] for entry in obs["trick"]}
        self.sizes = {s: HAND_SIZE[n] - 1 - done - (s in in_trick) for s in self.others}
        self.left, self.right = (me + 1) % n, (me - 1) % n
        self.fixed: dict[int, list[int]] = {}
        for seat, card in ((self.left, obs["passed_left"]), (self.right, obs["passed_right"])):
            if card not in played:
                self.fixed.setdefault(seat, []).append(card)
        known = set(self.hand) | played | set(chosen)
        self.unseen = [c for c in DECK if c not in known]
        self.played = played
        if use_passes and n == 3:
            mine = set(self.hand) | by_seat[me] | set(chosen)
            pool = [c for c in DECK if c not in mine]
            model = PassModel(pool, set(pool) - played,
                              {s: by_seat[s] & set(pool) for s in self.others},
                              {s: self.voids[s] for s in self.others}, self.left, self.right,
                              obs["received_from_left"], obs["received_from_right"])
            if model.fits():
                self.model = model

    def __call__(self, rng: random.Random) -> ChochlikState:
        obs, n, me = self.obs, self.n, self.me
        template = self.template
        state = template.clone() if template is not None else ChochlikState(self.options,
                                                                               "world")
        pass_choice: list[list[int | None]] = [[None, None, None] for _ in range(n)]
        pass_choice[me] = list(self.mine)
        hand = self.hand
        if obs["phase"] == "pass":
            dealt, _ = deal_hidden(self.unseen, {s: HAND_SIZE[n] for s in self.others},
                                   [set() for _ in range(n)], {}, 0, rng)
            hands = [sorted(hand) if s == me else sorted(dealt[s]) for s in range(n)]
            state.pass_step = [sum(c is not None for c in self.mine) if s == me else 0
                               for s in range(n)]
            state._acting = tuple(s for s in range(n) if state.pass_step[s] < 3)
            state.phase = Phase.PASS
            state.imp_pile = []
            state.turn = state.leader = (obs["dealer"] + 1) % n
        else:
            left, right = self.left, self.right
            if self.model is not None:
                post_left, post_right, (a, b, i1, i2) = self.model.sample(rng)
                post_left.append(obs["passed_left"])
                post_right.append(obs["passed_right"])
                hands = [sorted(hand) if s == me else
                         sorted(c for c in (post_left if s == left else post_right)
                                if c not in self.played) for s in range(n)]
                state.imp_pile = [obs["imp_card"], i1, i2]
                pass_choice[left] = [i1, a, obs["received_from_left"]]
                pass_choice[right] = [i2, obs["received_from_right"], b]
            else:
                dealt, imp = deal_hidden(self.unseen, self.sizes, self.voids, self.fixed,
                                         n - 1, rng)
                hands = [sorted(hand) if s == me else sorted(dealt[s]) for s in range(n)]
                state.imp_pile = [obs["imp_card"], *imp]
                for seat, card in zip(self.others, imp):  # each other seat's own Imp card
                    pass_choice[seat] = [card, 0, 0]
                pass_choice[left][2] = obs["received_from_left"]
                pass_choice[right][1] = obs["received_from_right"]
            state.pass_step = [3] * n
            state.phase = Phase.PLAY
            state.turn = obs["turn"]
            state.leader = obs["leader"]
            state._acting = (obs["turn"],)
        state.hands = hands
        state.pass_choice = pass_choice
        state.trick = [tuple(entry) for entry in obs["trick"]]
        state.played = list(obs["played"])
        state.won = [list(pile) for pile in obs["won"]]
        state.price = obs["price"]
        state.owner = obs["bottle_owner"]
        state.scores = list(obs["scores"])
        state.hand_number = obs["hand_number"]
        state.dealer = obs["dealer"]
        state._refresh_views()
        # the game's end as the seat was told (a search's worlds may be set to end sooner)
        state._target, state._hands_limit = obs["target"], obs["hands"]
        return state


class ChochlikBoss:
    """The boss's policy for the client library: one search per request."""

    wanted_events: frozenset[str] = frozenset()  # the observation says everything it uses

    def __init__(self, think_ms: float = 100.0, iterations: int | None = None,
                 seed: object = None, use_passes: bool = True) -> None:
        self.budget = Budget(think_ms, iterations, seed)
        self.use_passes = use_passes
        self.options = ChochlikOptions()

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "game_start":
            try:
                self.options = parse_options(message.get("options") or {})
            except ValueError:
                self.options = ChochlikOptions()

    def choose(self, request: dict[str, Any]) -> str:
        deadline = self.budget.deadline(request)
        obs, legal = request["observation"], request["legal"]
        rng = self.budget.next_rng()
        if len(legal) == 1:
            return str(legal[0])
        if obs["phase"] == "pass":
            # the three lowest cards go (measured: a search over passes, whose worlds play
            # the whole hand after them, chose worse than this rule at 30-100 ms)
            return min(legal, key=lambda token: int(token.split()[1]))
        me, start = obs["seat"], list(obs["scores"])
        hand_number = obs["hand_number"]
        players = len(start)
        # the worlds end with this hand: no next deal to shuffle
        options = ChochlikOptions(players, target=None, hands=hand_number)
        template = ChochlikState(options, "world")

        def simulate(world: ChochlikState, action: str, rng: random.Random) -> float:
            world.apply(me, action)
            play_out(world, rng, hand_number)
            gains = [world.scores[s] - start[s] for s in range(players)]
            return gains[me] - (sum(gains) - gains[me]) / (players - 1)

        sampler = WorldSampler(obs, options, template, self.use_passes)
        return search(legal, sampler, simulate, rng, iterations=self.budget.iterations,
                      deadline=deadline)
