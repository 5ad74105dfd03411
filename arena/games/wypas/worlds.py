"""Wypas worlds one seat cannot tell apart (for the hidden-information property).

Which cards a seat has seen is found by replaying the game and collecting every card id in its
observations, its legal actions and the events it was sent.  Every other card (other hands, the
deck, the face-down lot card, a face-down bid card) is renamed at random, across kinds: another
world in which the other seats may hold special cards where they held sheep, and so be asked in
reaction windows where they were not.  The other seats' actions are translated to match, card
by card; where the new world asks a seat something the old one did not (a window, a bid it can
now make), that seat answers with its default (``pass``, ``done``), and where the old world's
seat answered with its default something the new one never asks, the answer is dropped.  The
seat's own stream must not change (tests/test_hidden_information.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from arena.games.base import OtherWorld
from arena.games.chance import RelabelledChance
from arena.games.wypas.cards import CARD_IDS, INDEX


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield from value.split()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def cards_seen(state: Any, seat: int, actions: Sequence[tuple[int, str]]) -> set[str]:
    """Every card id ``seat`` was shown while ``actions`` were played from the start, and then
    while the other seats' open reaction windows passed."""
    replay = type(state)(state.options, None, record_events=True, chance=state.chance.clone())
    seen: set[str] = set()

    def look() -> None:
        seen_now = replay.observe(seat)
        words = list(_strings(attrs.asdict(seen_now) if attrs.has(type(seen_now)) else seen_now))
        words.extend(_strings(list(replay.legal_actions(seat))))
        for event in replay.take_events():
            if event.visible_to(seat):
                words.extend(_strings(dict(event.data)))
        seen.update(word for word in words if word in INDEX)

    look()
    for actor, action in actions:
        replay.apply(actor, action)
        look()
    # the test lets the other seats' open windows pass before it compares: what the seat sees
    # by then (a hand its thief looks at, say) is seen too
    while True:
        waiting = [other for other in replay.to_act()
                   if other != seat and replay.is_reaction(other)]
        if not waiting:
            return seen
        replay.apply(waiting[0], replay.default_action(waiting[0]))  # type: ignore[arg-type]
        look()


def other_world(state: Any, seat: int, actions: Sequence[tuple[int, str]],
                rng: Any) -> OtherWorld:
    seen = cards_seen(state, seat, actions)
    # a special card chosen in a window is shown to all when it resolves; one chosen but not
    # resolved yet (or withdrawn) stays what it is, so that its owner is asked the same
    seen |= {action.split()[1] for _, action in actions if action.startswith("play ")}
    unseen = [card for card in CARD_IDS if card not in seen]
    renamed = unseen[:]
    rng.shuffle(renamed)
    sigma = dict(zip(unseen, renamed))

    def translate(action: str) -> str:
        return " ".join(sigma.get(word, word) for word in action.split())

    game = type(state)  # the state's own class: this module does not import the rules back
    old = game(state.options, None, record_events=False, chance=state.chance.clone())
    new = game(state.options, None, record_events=False,
               chance=RelabelledChance(state.chance.clone(), sigma))
    script: list[tuple[int, str]] = []
    for actor, action in actions:
        while True:
            # a window asks someone in the new world that the old one did not (or the old world
            # has gone past it): that seat passes
            behind = new.windows.opened < old.windows.opened
            level = new.windows.opened == old.windows.opened
            extra = [other for other in new.to_act()
                     if other != seat and new.is_reaction(other)
                     and (behind or level and new.decision_of(other) != old.decision_of(other))]
            if not extra:
                break
            default = new.default_action(extra[0])
            assert default is not None, "a reaction decision without a default"
            new.apply(extra[0], default)
            script.append((extra[0], default))
        if (old.windows.opened == new.windows.opened and actor in new.to_act()
                and new.decision_of(actor) == old.decision_of(actor)):
            translated = translate(action)
            new.apply(actor, translated)
            script.append((actor, translated))
        else:  # a window the new world never asked this seat in: it was a pass
            assert action == old.default_action(actor), (actor, action)
        old.apply(actor, action)
    return sigma, script
