"""Build vollewolle positions for rule tests: round 1 with a chosen display, flocks and chips,
and scripted dice.

This reaches into the engine's internal fields on purpose (tests mirror the module); the rule
tests then only use the public interface: to_act, legal_actions, apply, observe, events.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.chance import ScriptedChance
from arena.games.vollewolle import CARD_IDS, INDEX, VolleWolleOptions, VolleWolleState


def position(
    players: int,
    display: Sequence[str],
    *,
    flocks: Sequence[Sequence[str]] | None = None,  # bottom first: the last id is the top card
    wool: Sequence[int] | None = None,
    dogs: Sequence[int] | None = None,
    bone_holder: int | None = None,
    bid_backs: Sequence[int] | None = None,
    dice: Sequence[int] = (),
    deck_rest: Sequence[str] | None = None,
) -> VolleWolleState:
    """A game at the bidding of round 1 with ``display`` laid out; the deck holds
    ``deck_rest`` (by default every card not placed anywhere, in id order)."""
    state = VolleWolleState(VolleWolleOptions(players=players), "position", record_events=True,
                            chance=ScriptedChance("position", dice=dice))
    flocks = flocks or [[] for _ in range(players)]
    placed = set(display) | {card for flock in flocks for card in flock}
    if bone_holder is not None:
        placed.add("bone")
    if dogs:
        dog_ids = iter(card for card in CARD_IDS if card.startswith("dog") and card not in placed)
        placed |= {next(dog_ids) for _ in range(sum(dogs))}
    rest = list(deck_rest) if deck_rest is not None else [
        card for card in CARD_IDS if card not in placed]
    state.display = [INDEX[card] for card in display]
    state.deck = state.display + [INDEX[card] for card in rest]
    state.drawn = len(display)
    state.flocks = [[INDEX[card] for card in flock] for flock in flocks]
    if wool is not None:
        state.wool = list(wool)
    if dogs is not None:
        state.dogs = list(dogs)
    state.bone_holder = bone_holder
    if bid_backs is not None:
        state.bid_backs = list(bid_backs)
    state._rebuild_views()
    state.take_events()
    return state


def bid_all(state: VolleWolleState, bids: Sequence[int | str]) -> None:
    for seat, bid in enumerate(bids):
        state.apply(seat, f"bid {bid}")


def kinds(state: VolleWolleState) -> list[str]:
    return [event.kind for event in state.take_events()]
