"""Which requests ``arena play`` answers for the person, so that they are asked only for real
decisions (``--ask``):

- ``always``: every request is asked, a lone choice too;
- ``choices`` (the default): a request whose legal list has one action (a lone ``pass`` when
  there is nothing to add to a bid, ``done`` when nothing can be placed, the last card) is
  answered with it;
- ``worthwhile``: that, and in wypas's reaction windows (``window``, ``response``) the person
  is asked only when a special card is worth playing as the wypas heuristic bot judges it
  (a thief on a hand of three or more, a wolf or black sheep on a pen of three sheep, a dog
  for one's own threatened pen or against a card aimed at one's own seat); otherwise ``pass``.
  An offer the person turned down (a card on a target) is not made again in the same phase of
  the same turn while its target's pens stay as they were (for a thief: while the same seat is
  the one to rob): holding a thief, one is asked once a phase, not after every bid.

Pure: the answer depends only on the request, the seat and the game's cards.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import Any

from arena.games import GAMES
from reference_bots.wypas_heuristic import WypasHeuristic

PASS = "pass"
#: wypas decisions taken in reaction windows.
WINDOW_DECISIONS = frozenset({"window", "response"})
#: The reference bots that judge which special cards are worth playing in a reaction window,
#: by the name a game's spec gives its reference bot.
JUDGES = {"wypas-heuristic": WypasHeuristic}


class Ask(enum.Enum):
    ALWAYS = "always"
    CHOICES = "choices"
    WORTHWHILE = "worthwhile"


class AutoAnswer:
    """The answers given for the person at one table (one per game: seat and cards)."""

    def __init__(self, ask: Ask, game: str, seat: int, info: Mapping[str, Any]) -> None:
        self.ask = ask
        self.game = game
        self.judge: WypasHeuristic | None = None
        #: Offers (see :meth:`offers`) the person turned down.
        self.declined: set[tuple[Any, ...]] = set()
        spec = GAMES.get(game)
        judge = JUDGES.get(spec.reference_bot or "") if spec is not None else None
        if ask is Ask.WORTHWHILE and judge is not None and spec is not None \
                and spec.reaction_windows:
            self.judge = judge(seed=0)
            self.judge.on_message({"type": "game_start", "seat": seat, "info": dict(info)})

    def answer(self, request: Mapping[str, Any]) -> tuple[str, str] | None:
        """The action to send for the person and why, or None: ask them."""
        legal = list(request.get("legal") or ())
        if self.ask is Ask.ALWAYS or not legal:
            return None
        if len(legal) == 1:
            return legal[0], "your only choice"
        offers = self.offers(request)
        if offers is None:
            return None
        if not offers:
            return PASS, "no special card worth playing now"
        if offers <= self.declined:
            return PASS, "you passed on the same card and target already"
        return None

    def answered(self, request: Mapping[str, Any], action: str) -> None:
        """The person answered ``request`` with ``action``: a ``pass`` declines its offers."""
        if action == PASS:
            self.declined |= self.offers(request) or set()

    def offers(self, request: Mapping[str, Any]) -> set[tuple[Any, ...]] | None:
        """In a wypas reaction window (worthwhile mode): the cards worth playing, each with its
        target and the target's state; None outside windows or on an unexpected shape."""
        legal = list(request.get("legal") or ())
        observation = dict(request.get("observation") or {})
        decision = observation.get("decision")
        if self.judge is None or PASS not in legal or decision not in WINDOW_DECISIONS:
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
