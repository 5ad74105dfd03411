"""Which requests ``arena play`` answers for the person, so that they are asked only for real
decisions (``--ask``):

- ``always``: every request is asked, a lone choice too;
- ``choices`` (the default): a request whose legal list has one action (a lone ``pass`` when
  there is nothing to add to a bid, ``done`` when nothing can be placed, the last card) is
  answered with it;
- ``worthwhile``: that, and where the game has a judge (``GameSpec.worthwhile``; wypas's
  reaction windows, ``reference_bots/wypas_worthwhile.py``) the person is asked only when a
  choice is worth their look as the judge says; otherwise the judge's ``decline`` token is
  sent.  An offer the person turned down is not made again (the judge says what makes two
  offers the same): holding a thief, one is asked once a phase, not after every bid.

Pure: the answer depends only on the request, the seat and the game's cards.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Mapping
from typing import Any, Protocol

from arena.games import GAMES


class Ask(enum.Enum):
    ALWAYS = "always"
    CHOICES = "choices"
    WORTHWHILE = "worthwhile"


class Judge(Protocol):
    """What a game's ``worthwhile`` factory makes (see ``GameSpec.worthwhile``)."""

    decline: str  # the token that declines what is offered (wypas: ``pass``)
    nothing_worth: str  # why it was declined for the person
    declined_again: str  # why, when the person declined the same offers already

    def offers(self, request: Mapping[str, Any]) -> set[Any] | None: ...


def judge_for(game: str, seat: int, info: Mapping[str, Any]) -> Judge | None:
    """The game's judge at ``seat`` (None: the game has none)."""
    spec = GAMES.get(game)
    if spec is None or spec.worthwhile is None:
        return None
    module, _, factory = spec.worthwhile.partition(":")
    judge: Judge = getattr(importlib.import_module(module), factory)(seat, info)
    return judge


class AutoAnswer:
    """The answers given for the person at one table (one per game: seat and cards)."""

    def __init__(self, ask: Ask, game: str, seat: int, info: Mapping[str, Any]) -> None:
        self.ask = ask
        self.game = game
        self.judge = judge_for(game, seat, info) if ask is Ask.WORTHWHILE else None
        #: Offers (see :meth:`offers`) the person turned down.
        self.declined: set[Any] = set()

    def answer(self, request: Mapping[str, Any]) -> tuple[str, str] | None:
        """The action to send for the person and why, or None: ask them."""
        legal = list(request.get("legal") or ())
        if self.ask is Ask.ALWAYS or not legal:
            return None
        if len(legal) == 1:
            return legal[0], "your only choice"
        offers = self.offers(request)
        if offers is None or self.judge is None:
            return None
        if not offers:
            return self.judge.decline, self.judge.nothing_worth
        if offers <= self.declined:
            return self.judge.decline, self.judge.declined_again
        return None

    def answered(self, request: Mapping[str, Any], action: str) -> None:
        """The person answered ``request`` with ``action``: declining declines its offers."""
        if self.judge is not None and action == self.judge.decline:
            self.declined |= self.offers(request) or set()

    def offers(self, request: Mapping[str, Any]) -> set[Any] | None:
        """What the game's judge finds worth the person's look (None: no judgement, ask)."""
        return None if self.judge is None else self.judge.offers(request)
