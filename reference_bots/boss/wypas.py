"""The wypas boss: worlds sampled from one seat's observation at its shearing and placing
decisions.

wypas hides the other hands (their sizes are public), the deck and the used pile (their sizes
are public), and the face-down lot card.  Shearing and placing a sheep (redyk) are searched: in
the redyk and shearing phases with no reaction window open nothing else is hidden, so a world
deals every card the seat cannot see now (not in its hand, the pens or above them) to the other
hands, the deck and the used pile at random, by their sizes (the cards sheared into fleeces,
told by the public ``sheared`` events, are out of the game).  It is played by the reference
heuristic (every seat, one decision in ten at random) to the end of the next turn's shearing,
and scored as the seat's points minus the others' average, plus half a point per sheep in its
pens against theirs (a pen kept growing is worth points later).  Every other decision (the
auction, a joker's declaration, the reaction windows) is the reference heuristic's.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any

from arena.games.chance import SeededChance
from arena.games.wypas.cards import CARD_IDS, INDEX
from arena.games.wypas.core import Phase, parse_options
from arena.games.wypas.rules import WypasState, info
from arena.games.wypas.windows import Decision, Windows
from reference_bots.boss.search import Budget, rollout, search
from reference_bots.wypas_heuristic import WypasHeuristic

#: the decisions searched, by phase: shearing, and placing a sheep in redyk (after the auction
#: nothing but the hands, the deck and the used pile is hidden in either)
SEARCHED = {"shear": "shearing", "place": "redyk"}
#: What the boss searches unless told (``--search``): placing gained with a fixed number of
#: worlds but not at 100 ms, and made games 2.3 times as long (docs/bots/opponents.md).
DEFAULT_SEARCHED = ("shear",)
ROLLOUT_RANDOM = 0.1


def searchable(obs: dict[str, Any], searched: Collection[str] = tuple(SEARCHED)) -> bool:
    """A decision whose worlds the sampler builds (shearing or placing, no window, the game
    not ending), among ``searched``."""
    decision = obs["decision"]
    return (decision in searched and SEARCHED.get(decision) == obs["phase"]
            and obs["window"] is None and obs["check"] is None)


def sample_world(obs: dict[str, Any], options: Any, rng: random.Random,
                 fleeces: Collection[str] = frozenset()) -> WypasState:
    """An engine state the seat cannot tell from the real one (at a searchable decision);
    ``fleeces``: the cards sheared into fleeces so far (public ``sheared`` events), out of the
    game.  Unseen cards beyond the hands, the deck and the used pile are out of the game too
    (fleeces the seat was not told of)."""
    n, me = len(obs["scores"]), obs["seat"]
    state = WypasState(options, rng.random())
    state.chance = SeededChance(rng.random())
    seen = set(obs["hand"])
    for pair in obs["pens"]:
        for pen in pair:
            seen.update(placed[0] for placed in pen)
    for pair in obs["wolves"]:
        seen.update(wolf for wolf in pair if wolf is not None)
    unseen = [INDEX[card] for card in CARD_IDS if card not in seen and card not in fleeces]
    rng.shuffle(unseen)
    hands: list[list[int]] = []
    for seat in range(n):
        if seat == me:
            hands.append(sorted(INDEX[card] for card in obs["hand"]))
        else:
            size = obs["hand_sizes"][seat]
            hands.append(sorted(unseen[:size]))
            del unseen[:size]
    state.deck = unseen[:obs["deck_size"]]
    state.discard = unseen[obs["deck_size"]:obs["deck_size"] + obs["discard_size"]]
    state.hands = hands
    state.pens = [[[tuple(placed) for placed in pen] for pen in pair] for pair in obs["pens"]]
    state.wolves = [[None if wolf is None else INDEX[wolf] for wolf in pair]
                    for pair in obs["wolves"]]
    state.fleeces, state.scores = list(obs["fleeces"]), list(obs["scores"])
    state.baca, state.turn = obs["baca"], obs["turn"]
    state.phase = Phase(obs["phase"])
    state.end_triggered_by = obs["end_triggered_by"]
    state.final_left = []
    state.lot, state.drawn_lot = [], []
    state.hidden_card, state.lot_hidden = None, False
    state.opener, state.auction_card, state.auction_hidden = obs["baca"], None, False
    state._clear_bids()
    state.placing, state.placing_pen = None, 0
    order = [(obs["baca"] + step) % n for step in range(n)]
    state.phase_left = order[order.index(me):]
    state.actor, state.decision = me, Decision(obs["decision"])
    state.windows = Windows(state)
    state._drop_views()
    state._table_changed()
    return state


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


class WypasBoss:
    """The boss's policy for the client library."""

    wanted_events = frozenset({"sheared"})  # which cards left the game as fleeces

    def __init__(self, think_ms: float = 100.0, iterations: int | None = None,
                 seed: object = None, searched: Collection[str] = DEFAULT_SEARCHED) -> None:
        if not set(searched) <= set(SEARCHED):
            raise ValueError(f"searched decisions must be among {sorted(SEARCHED)}")
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
        me, turn, players = obs["seat"], obs["turn"], len(obs["scores"])
        start = list(obs["scores"])
        rollers = self.rollers

        def policy(world: WypasState, seat: int, rng: random.Random) -> str:
            choices = world.legal_actions(seat)
            if rng.random() < ROLLOUT_RANDOM:
                return choices[int(rng.random() * len(choices))]
            return rollers[seat].choose({"observation": _Fields(world.observe(seat)),
                                         "legal": choices})

        def stop(world: WypasState) -> bool:
            return world.turn > turn + 1 or world.is_over()

        def simulate(world: WypasState, action: str, rng: random.Random) -> float:
            rollout(world, me, action, policy, rng, stop)
            gains = [world.scores[s] - start[s] + 0.5 * sum(len(pen) for pen in world.pens[s])
                     for s in range(players)]
            return gains[me] - (sum(gains) - gains[me]) / (players - 1)

        def sample(r: random.Random) -> WypasState:
            return sample_world(obs, self.options, r, self.fleeces)

        return search(legal, sample, simulate, rng, iterations=self.budget.iterations,
                      deadline=deadline)
