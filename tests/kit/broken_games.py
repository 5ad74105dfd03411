"""Variants of the toy game (tests/games/toy/) that each break one promise, for ``arena
check-game`` to catch: ``LEAKY`` shows each seat its neighbour's hidden card, ``LAX`` takes
options it does not know."""

from __future__ import annotations

from typing import Any

import attrs

from tests.games.toy import SPEC as TOY
from tests.games.toy.rules import ToyObservation, ToyState, parse_options


@attrs.frozen
class LeakyObservation(ToyObservation):
    neighbour: str | None = None  # the next seat's hidden card: the planted leak


class LeakyState(ToyState):
    def observe(self, seat: int) -> LeakyObservation:
        mine = attrs.asdict(super().observe(seat), recurse=False)
        return LeakyObservation(**mine, neighbour=self.cards[(seat + 1) % self.n])


def new_leaky(options: Any, seed: object, *, record_events: bool = False,
              chance: Any = None) -> LeakyState:
    return LeakyState(options, seed, record_events=record_events, chance=chance)


def lax_options(raw: Any) -> Any:
    return parse_options({key: value for key, value in raw.items() if key != "no_such_option"})


LEAKY = attrs.evolve(TOY, name="leakytoy", new_state=new_leaky,
                     observation_type=LeakyObservation)
LAX = attrs.evolve(TOY, name="laxtoy", parse_options=lax_options)
