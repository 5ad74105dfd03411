"""wypas's judge for ``arena play --ask worthwhile`` (named by the game's spec,
``GameSpec.worthwhile``): in a reaction window (``window``, ``response``) a special card is
worth a person's look only when the wypas heuristic bot would play it (a thief on a hand of
three or more, a wolf or black sheep on a pen of three sheep, a dog for one's own threatened
pen or against a card aimed at one's own seat); otherwise the window is passed.  Each offer is
a card on a target with what the target shows, so that an offer turned down is not made again
while its target stays as it was (for a thief: while the same seat is the one to rob).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from reference_bots.wypas_heuristic import WypasHeuristic

PASS = "pass"
#: wypas decisions taken in reaction windows.
WINDOW_DECISIONS = frozenset({"window", "response"})


class WorthwhileJudge:
    """The offers worth a person's look at one seat of one game."""

    decline = PASS
    nothing_worth = "no special card worth playing now"
    declined_again = "you passed on the same card and target already"

    def __init__(self, seat: int, info: Mapping[str, Any]) -> None:
        self.judge = WypasHeuristic(seed=0)
        self.judge.on_message({"type": "game_start", "seat": seat, "info": dict(info)})

    def offers(self, request: Mapping[str, Any]) -> set[tuple[Any, ...]] | None:
        """In a wypas reaction window (worthwhile mode): the cards worth playing, each with its
        target and the target's state; None outside windows or on an unexpected shape."""
        legal = list(request.get("legal") or ())
        observation = dict(request.get("observation") or {})
        decision = observation.get("decision")
        if PASS not in legal or decision not in WINDOW_DECISIONS:
            return None
        judge = self.judge
        try:
            if decision == "response":
                token = judge.on_response(observation, legal)
                chain = observation["window"]["chain"]
                return set() if token == PASS else {(token, json.dumps(chain))}
            found = set()
            for token in legal:
                if token == PASS:
                    continue
                target = judge.target_for(observation, token.split()[1])
                if target is not None:
                    seen = ("" if judge.kind(token.split()[1]) == "thief"
                            else self.state_of(observation, target))
                    found.add((observation.get("turn"), observation.get("phase"), token, target,
                               seen))
            return found
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            return None  # an unexpected shape: ask

    @staticmethod
    def state_of(observation: Mapping[str, Any], target: str) -> str:
        """What a target seat shows (hand size, pens and wolves): when it changes, ask
        again."""
        seat = int(target.split()[1])
        return json.dumps([observation["hand_sizes"][seat], observation["pens"][seat],
                           observation["wolves"][seat]])
