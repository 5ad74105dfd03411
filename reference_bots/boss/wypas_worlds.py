"""The wypas boss's worlds: engine states one seat cannot tell from the real game, built from its
observation and the public ``sheared`` events only (never from the server's state).

Searched decisions are shearing, placing a sheep (redyk) and bidding in an auction (the Bluff
option off), each with no reaction window open.  What is hidden there: the other hands (their
sizes are public), the deck and the used pile (their sizes are public), and in the auction the
face-down lot card unless the seat is the baca (still to be auctioned, or being auctioned now).
A world deals every card the seat cannot see now (not in its hand, the pens or above them, the
face-up lot, this auction's bid cards) at random: the face-down lot card first (when the seat
does not know it), then the other hands, the deck and the used pile by their sizes; the cards
sheared into fleeces (public ``sheared`` events) are out of the game.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any

from arena.games.chance import SeededChance
from arena.games.wypas.cards import CARD_IDS, CARDS, INDEX, IS_JOKER
from arena.games.wypas.core import Bluff, Phase
from arena.games.wypas.rules import WypasState
from arena.games.wypas.windows import Decision, Windows

#: the main-line decisions the sampler builds worlds for, by the phase they come in
PHASES = {"shear": "shearing", "place": "redyk", "bid": "auction"}
#: the reaction-window decisions it builds worlds for (a window of its own, no card played in
#: it yet), in any of those phases
WINDOW_DECISIONS = ("window", "target")


def buildable(obs: dict[str, Any]) -> bool:
    """A decision whose worlds :func:`sample_world` builds: shearing, placing or bidding with no
    window open, or playing a special card (and choosing its target) in a window no card was
    played in yet, in those phases; no bluff under way (the game not ending)."""
    decision, window = obs["decision"], obs["window"]
    if obs["check"] is not None or any(obs["declared"]):
        return False
    if window is None:
        return PHASES.get(decision) == obs["phase"]
    return (decision in WINDOW_DECISIONS and obs["phase"] in PHASES.values()
            and window["stage"] == "window" and not window["chain"]
            and window["resolving"] is None)


def seen_cards(obs: dict[str, Any]) -> set[str]:
    """Every card the observation shows where it is."""
    seen = set(obs["hand"]) | set(obs["lot"])
    for pair in obs["pens"]:
        for pen in pair:
            seen.update(placed[0] for placed in pen)
    for pair in obs["wolves"]:
        seen.update(wolf for wolf in pair if wolf is not None)
    for laid in obs["laid"]:
        seen.update(laid)
    if obs["hidden_card"] is not None:
        seen.add(obs["hidden_card"])
    return seen


def sample_world(obs: dict[str, Any], options: Any, rng: random.Random,
                 fleeces: Collection[str] = frozenset()) -> WypasState:
    """An engine state the seat cannot tell from the real one (at a :func:`buildable`
    decision); ``fleeces``: the cards sheared into fleeces so far (public ``sheared`` events),
    out of the game.  Unseen cards beyond the hands, the deck, the used pile and the face-down
    lot card are out of the game too (fleeces the seat was not told of)."""
    n, me = len(obs["scores"]), obs["seat"]
    state = WypasState(options, rng.random())
    state.chance = SeededChance(rng.random())
    seen = seen_cards(obs)
    unseen = [INDEX[card] for card in CARD_IDS if card not in seen and card not in fleeces]
    rng.shuffle(unseen)
    auction = obs["phase"] == "auction"
    hidden: int | None = None
    if auction and (obs["lot_hidden"] or obs["auction_card"] == "hidden"):
        hidden = INDEX[obs["hidden_card"]] if obs["hidden_card"] is not None else unseen.pop()
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
    window = obs["window"]
    # in a window, the main line waits on the seat whose action opened it (it goes on placing
    # or shearing, or the next bidder is found from it)
    actor = me if window is None else window["first"]
    if auction:
        _auction(state, obs, hidden)
        state.phase_left = []
    else:
        order = [(obs["baca"] + step) % n for step in range(n)]
        state.phase_left = order[order.index(actor):]
    state.windows = Windows(state)
    if window is None:
        state.actor, state.decision = me, Decision(obs["decision"])
    else:  # every seat with a playable special card is asked, all at once
        state.actor, state.decision = actor, None
        state._drop_views()
        state.windows.open_after(actor)
        if window["choosing"] is not None:
            state.windows.chosen[me] = INDEX[window["choosing"]]
    state._drop_views()
    state._table_changed()
    return state


def _auction(state: WypasState, obs: dict[str, Any], hidden: int | None) -> None:
    """The lot and the auction under way, as the seat sees them (``hidden``: the face-down lot
    card, known or drawn)."""
    state.lot = [INDEX[card] for card in obs["lot"]]
    state.lot_hidden = obs["lot_hidden"]
    state.hidden_card = hidden
    state.opener = obs["opener"]
    if obs["auction_card"] == "hidden":
        state.auction_card, state.auction_hidden = hidden, True
    elif obs["auction_card"] is not None:
        state.auction_card = INDEX[obs["auction_card"]]
    state.stakes = list(obs["stakes"])
    state.laid = [[INDEX[card] for card in laid] for laid in obs["laid"]]
    state._laid_ids = tuple(tuple(laid) for laid in obs["laid"])
    state.passed = list(obs["passed"])
    state.high_bidder = obs["high_bidder"]
    state.bluff = Bluff(len(obs["scores"]))
    state.bluff.fresh = True
    for seat, laid in enumerate(state.laid):
        jokers = [card for card in laid if IS_JOKER[card]]
        if jokers:  # the values declared for them: what the stake has beyond the sheep
            rest = state.stakes[seat] - sum(CARDS[card].value or 0 for card in laid
                                            if not IS_JOKER[card])
            for index, card in enumerate(jokers):
                share = rest // len(jokers) + (index < rest % len(jokers))
                state.bluff.joker_values[card] = max(1, share)
