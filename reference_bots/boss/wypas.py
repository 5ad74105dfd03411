"""The wypas boss: worlds sampled from one seat's observation (reference_bots/boss/wypas_worlds.py).

wypas hides the other hands (their sizes are public), the deck and the used pile (their sizes
are public), and the face-down lot card.  What ``searched`` names is searched: shearing and
each step of a bid (the default), placing a sheep (redyk), and a special card played in a
reaction window (or only its target).  A world is played by the reference heuristic (every seat, one
decision in ten at random) to the end of the next turn's shearing, and scored as the seat's
points minus the others' average, plus half a point per sheep in its pens against theirs (a pen
kept growing is worth points later), plus, when the game ends within the rollout, 10 per
pairwise win less 10 per loss (averaged over the others: the tournament ranks).  Shearing and
placing take the action with the best mean (UCB1 over worlds); a bid or a special card is
tried against the heuristic's choice in the same worlds with the same rollout randomness, a
card still in hand worth half a point, and replaces it only beyond two standard errors of
their paired differences.  Every other decision is the reference heuristic's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from typing import Any

from arena.games.wypas.core import parse_options
from arena.games.wypas.rules import WypasState, info
from reference_bots.boss.search import Budget, Deadline, Simulate, rollout, search
from reference_bots.boss.wypas_worlds import WINDOW_DECISIONS, buildable, sample_world

__all__ = ["SEARCHED", "WypasBoss", "sample_world", "searchable"]
from reference_bots.wypas_heuristic import WypasHeuristic

#: what may be searched (``--search``): the decisions of each name
SEARCHED = {"shear": ("shear",), "place": ("place",), "bid": ("bid",),
            "special": WINDOW_DECISIONS, "target": ("target",)}
#: What the boss searches unless told (``--search``): shearing and bidding (placing gained
#: with a fixed number of worlds but not at 100 ms, and made games 2.3 times as long; special
#: cards lost; docs/bots/opponents.md).
DEFAULT_SEARCHED = ("shear", "bid")
ROLLOUT_RANDOM = 0.1
#: A bid other than the heuristic's is made only when it beats it by this many standard errors
#: of their paired differences (the same worlds and rollout randomness for every candidate).
CONFIDENCE = 2.0
#: What a card still in a hand at a paired decision's horizon is worth (a bid spends cards).
HAND_WEIGHT = 0.5
#: What each pairwise win (minus each loss), against the others' mean, adds to a rollout that
#: reaches the game's end: the tournament ranks, it does not add points up.
RANK_WEIGHT = 10.0


def searchable(obs: dict[str, Any], searched: Collection[str] = tuple(SEARCHED)) -> bool:
    """A decision whose worlds the sampler builds (shearing or placing, no window, the game
    not ending), among ``searched``."""
    return (any(obs["decision"] in SEARCHED.get(name, ()) for name in searched)
            and buildable(obs))


class _Fields:
    """An engine observation read as the heuristic reads a protocol one."""

    __slots__ = ("observation",)

    def __init__(self, observation: Any) -> None:
        self.observation = observation

    def __getitem__(self, name: str) -> Any:
        return getattr(self.observation, name)

    def get(self, name: str, default: Any = None) -> Any:
        return getattr(self.observation, name, default)


def heuristics(players: int, options: Any) -> list[WypasHeuristic]:
    table = info(options)
    bots = []
    for seat in range(players):
        bot = WypasHeuristic()
        bot.on_message({"type": "game_start", "seat": seat, "info": table})
        bots.append(bot)
    return bots


def bid_candidates(legal: list[str], heuristic: WypasHeuristic,
                   obs: dict[str, Any]) -> list[str]:
    """The bids tried against the heuristic's: pass, commit, and laying the card worth least
    to the seat or the one that adds most to the stake."""
    adds = [token for token in legal if token.startswith("add ")]
    found: list[str] = [token for token in ("pass", "commit") if token in legal]
    if adds:
        cards = [token.split()[1] for token in adds]
        found.append("add " + min(cards, key=lambda c: (heuristic.worth(obs, c),
                                                        -heuristic.bid_value(c))))
        found.append("add " + max(cards, key=lambda c: (heuristic.bid_value(c),
                                                        -heuristic.worth(obs, c))))
    return list(dict.fromkeys(found))


def paired_values(candidates: list[str], sample: Callable[[random.Random], WypasState],
                  simulate: Simulate, rng: random.Random, iterations: int | None,
                  deadline: Deadline) -> dict[str, list[float]]:
    """Each candidate's values in the same sampled worlds, each played on with the same
    random stream (common random numbers)."""
    values: dict[str, list[float]] = {token: [] for token in candidates}
    worlds = 0
    while True:
        if iterations is not None:
            if worlds >= max(1, iterations // len(candidates)):
                break
        elif deadline.passed() and (worlds >= 2 or deadline.wall() >= deadline.wall_end):
            break  # two worlds at least to compare, unless the wall-clock cap has passed
        world, seed = sample(rng), rng.random()
        for token in candidates:
            twin = world.clone()
            values[token].append(simulate(twin, token, random.Random(seed)))
        worlds += 1
    return values


def paired_best(own: str, values: dict[str, list[float]], confidence: float) -> str:
    """The candidate with the best mean, if it beats ``own`` by ``confidence`` standard errors of
    their paired differences, else ``own``."""
    best = max(values, key=lambda token: (sum(values[token]), token == own))
    n = len(values[own])
    if best == own or n < 2:
        return own
    diffs = [a - b for a, b in zip(values[best], values[own])]
    mean = sum(diffs) / n
    spread = (sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) ** 0.5
    return best if mean > confidence * spread else own


def shear_points(pen: Any) -> int:
    """What shearing ``pen`` now would score (no wolf, no bonus)."""
    if len(pen) < 2:
        return 0
    values = sorted(placed[2] for placed in pen)
    return values[0] if len(pen) == 2 else sum(values) + len(pen) - 3


class WypasBoss:
    """The boss's policy for the client library.  The keyword options after ``searched`` are
    for studies (``boss_strength.py --boss-options``): the rollout's horizon in turns, the
    value of a sheep in a pen and of the points its pen would shear for now, the rollouts'
    share of random actions, the value of a card in hand at a paired decision, the standard
    errors a paired decision needs to leave the heuristic's choice, and the value of each
    pairwise win when a rollout reaches the game's end."""

    wanted_events = frozenset({"sheared"})  # which cards left the game as fleeces

    def __init__(self, think_ms: float = 100.0, iterations: int | None = None,
                 seed: object = None, searched: Collection[str] = DEFAULT_SEARCHED,
                 horizon: int = 1, pen_weight: float = 0.5, shear_weight: float = 0.0,
                 rollout_random: float = ROLLOUT_RANDOM, hand_weight: float = HAND_WEIGHT,
                 confidence: float = CONFIDENCE, rank_weight: float = RANK_WEIGHT) -> None:
        if not set(searched) <= set(SEARCHED):
            raise ValueError(f"searched decisions must be among {sorted(SEARCHED)}")
        self.horizon, self.pen_weight, self.shear_weight = horizon, pen_weight, shear_weight
        self.rollout_random, self.hand_weight = rollout_random, hand_weight
        self.confidence, self.rank_weight = confidence, rank_weight
        self.budget = Budget(think_ms, iterations, seed)
        self.searched = tuple(searched)
        self.rest = WypasHeuristic(0.0, None if seed is None else str(seed))
        self.options: Any = None
        self.rollers: list[WypasHeuristic] = []
        self.fleeces: set[str] = set()

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "game_start":
            self.options = parse_options(message.get("options") or {})
            self.rollers = heuristics(self.options.players, self.options)
            self.fleeces = set()
        elif message.get("type") == "event" and message.get("kind") == "sheared":
            self.fleeces.update(message["data"]["fleece"])
        self.rest.on_message(message)

    def choose(self, request: dict[str, Any]) -> str:
        deadline = self.budget.deadline(request)
        obs, legal = request["observation"], request["legal"]
        rng = self.budget.next_rng()
        if self.options is None or not searchable(obs, self.searched) or len(legal) == 1:
            return self.rest.choose(request)
        me, turn = obs["seat"], obs["turn"]
        start = list(obs["scores"])
        rollers = self.rollers
        # a bid or a special card: its cards in hand count, and the heuristic's choice stands
        # unless another beats it in the same worlds
        paired = obs["decision"] == "bid" or obs["window"] is not None
        hand_weight = self.hand_weight if paired else 0.0

        def policy(world: WypasState, seat: int, rng: random.Random) -> str:
            choices = world.legal_actions(seat)
            if rng.random() < self.rollout_random:
                return choices[int(rng.random() * len(choices))]
            return rollers[seat].choose({"observation": _Fields(world.observe(seat)),
                                         "legal": choices})

        def stop(world: WypasState) -> bool:
            return world.turn > turn + self.horizon or world.is_over()

        def simulate(world: WypasState, action: str, rng: random.Random) -> float:
            rollout(world, me, action, policy, rng, stop)
            return self.value(world, me, start, hand_weight)

        def sample(r: random.Random) -> WypasState:
            return sample_world(obs, self.options, r, self.fleeces)

        if paired:
            own = self.rest.choose(request)
            candidates = [own] + [token for token in (
                bid_candidates(legal, self.rest, obs) if obs["decision"] == "bid" else legal)
                if token != own]
            values = paired_values(candidates, sample, simulate, rng,
                                   self.budget.iterations, deadline)
            return paired_best(own, values, self.confidence)
        return search(legal, sample, simulate, rng, iterations=self.budget.iterations,
                      deadline=deadline)

    def value(self, world: WypasState, me: int, start: list[int], hand_weight: float) -> float:
        """A rollout's end for seat ``me``: its points since ``start``, half a point per sheep in
        its pens and ``hand_weight`` per card in its hand, against the others' mean; and if the
        game is over, ``rank_weight`` per pairwise win less per loss, over the others."""
        players = len(start)
        gains = [world.scores[s] - start[s] + self.pen_value(world.pens[s])
                 + hand_weight * len(world.hands[s]) for s in range(players)]
        value = gains[me] - (sum(gains) - gains[me]) / (players - 1)
        if self.rank_weight and world.is_over():  # the game's result: pairwise wins
            mine = world.scores[me]
            value += self.rank_weight * sum(
                (mine > score) - (mine < score) for s, score in enumerate(world.scores)
                if s != me) / (players - 1)
        return value

    def pen_value(self, pens: Any) -> float:
        return sum(self.pen_weight * len(pen) + self.shear_weight * shear_points(pen)
                   for pen in pens)
