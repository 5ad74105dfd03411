"""Build wypas positions for rule tests.

``game()`` starts a real game with a scripted deck: the hands dealt, the lot drawn and the cards
after it are chosen.  ``position()`` also sets pens, wolves, fleeces and scores, reaching into
the engine's fields on purpose (tests mirror the module); the rule tests then use only the
public interface: to_act, legal_actions, apply, observe, events.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.chance import ScriptedChance
from arena.games.wypas import CARD_IDS, HAND_SIZE, INDEX, WypasOptions, WypasState, lot_size


def deck_order(players: int, baca: int, hands: Sequence[Sequence[str]], lot: Sequence[str] = (),
               then: Sequence[str] = ()) -> list[str]:
    """The shuffled deck that deals ``hands`` (missing cards filled with unused ones), then
    draws ``lot`` and then ``then`` (the deck is drawn from its end)."""
    chosen = {card for hand in hands for card in hand} | set(lot) | set(then)
    spare = iter(card for card in CARD_IDS if card not in chosen
                 and not card.startswith(("thief", "dog", "wolf", "black_sheep")))
    full = [list(hand) + [next(spare) for _ in range(HAND_SIZE - len(hand))] for hand in hands]
    draws = []
    for round_ in range(HAND_SIZE):
        for step in range(1, players + 1):
            draws.append(full[(baca + step) % players][round_])
    draws.extend(lot)
    draws.extend(then)
    rest = [card for card in CARD_IDS if card not in set(draws)]
    return rest + draws[::-1]


def game(players: int, hands: Sequence[Sequence[str]], lot: Sequence[str] = (), *,
         baca: int = 0, then: Sequence[str] = (), **options) -> WypasState:
    """A new game with the baca at ``baca``, these hands and this lot (by default the next
    cards of the deck), every event kept."""
    order = deck_order(players, baca, hands, lot, then)
    chance = ScriptedChance("position", shuffles={"deck": [order]},
                            rolls={"first_baca": [baca + 1]})
    state = WypasState(WypasOptions(players=players, **options), "position",
                       record_events=True, chance=chance)
    assert len(lot) in (0, lot_size(players))
    return state


def position(players: int, *, hands: Sequence[Sequence[str]], baca: int = 0,
             pens: dict[tuple[int, int], Sequence[tuple[str, str | None, int]]] | None = None,
             wolves: dict[tuple[int, int], str] | None = None,
             fleeces: Sequence[int] | None = None, scores: Sequence[int] | None = None,
             phase: str = "shearing", turn: int = 1, deck: Sequence[str] | None = None,
             **options) -> WypasState:
    """A game at the start of redyk or shearing of ``turn`` with exactly these hands, pens
    (``{(seat, pen): [(card, colour, value), ...]}``), wolves, fleeces and scores.  The deck
    holds ``deck`` (drawn from its end), by default every card not placed, in id order."""
    state = WypasState(WypasOptions(players=players, **options), "position", record_events=True,
                       chance=ScriptedChance("position", rolls={"first_baca": [baca + 1]}))
    state.take_events()
    used = {card for hand in hands for card in hand}
    state.hands = [sorted(INDEX[card] for card in hand) for hand in hands]
    state.pens = [[[], []] for _ in range(players)]
    for (seat, pen), cards in (pens or {}).items():
        state.pens[seat][pen] = list(cards)
        used |= {card for card, _, _ in cards}
    state.wolves = [[None, None] for _ in range(players)]
    for (seat, pen), wolf in (wolves or {}).items():
        state.wolves[seat][pen] = INDEX[wolf]
        used.add(wolf)
    if fleeces is not None:
        state.fleeces = list(fleeces)
    if scores is not None:
        state.scores = list(scores)
    state.turn = turn
    rest = list(deck) if deck is not None else [c for c in CARD_IDS if c not in used]
    state.deck = [INDEX[card] for card in rest]
    state.discard = []
    state.lot, state.lot_hidden, state.hidden_card = [], False, None
    if phase == "redyk":
        state._start_redyk()
    else:
        state._start_shearing()
    return state
