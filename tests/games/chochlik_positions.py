"""Build chochlik positions for rule tests: a hand in the trick phase with given cards.

This reaches into the engine's internal fields on purpose (tests mirror the module); the
rule tests then only use the public interface: to_act, legal_actions, apply, observe, events.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.chochlik import ChochlikOptions, ChochlikState, Phase


def position(
    hands: Sequence[Sequence[int]],
    *,
    leader: int = 0,
    price: int = 19,
    owner: int | None = None,
    won: Sequence[Sequence[int]] | None = None,
    imp: Sequence[int] = (),
    target: int | None = 200,
    hands_limit: int | None = None,
) -> ChochlikState:
    n = len(hands)
    state = ChochlikState(ChochlikOptions(players=n, target=target, hands=hands_limit), "test",
                          record_events=True)
    state.take_events()
    state.hands = [sorted(hand) for hand in hands]
    state.phase = Phase.PLAY
    state.leader = state.turn = leader
    state._acting = (leader,)
    state.price = price
    state.owner = owner
    state.won = [list(pile) for pile in won] if won else [[] for _ in hands]
    state.imp_pile = list(imp)
    state._refresh_views()
    return state


def play(state: ChochlikState, *cards: int) -> None:
    """Play the cards in turn order, each by the seat whose turn it is."""
    for card in cards:
        (seat,) = state.to_act()
        state.apply(seat, f"play {card}")
