"""Variants of the toy game (tests/games/toy/) that each break one promise, for ``arena
check-game`` to catch: ``LEAKY`` shows each seat its neighbour's hidden card, ``LAX`` takes
options it does not know, and :data:`BROKEN` one more for each other battery."""

from __future__ import annotations

import random
from typing import Any

import attrs

from arena.games.base import Result
from arena.games.chance import SeededChance
from arena.kit.check_game import GameCheck
from tests.games.toy import SPEC as TOY
from tests.games.toy.rules import STAKES, ToyObservation, ToyState, parse_options


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


class OddDefault(ToyState):
    def default_action(self, seat: int) -> str | None:
        return "stake 9" if seat in self._acting else None  # not a legal token


class WrongRanks(ToyState):
    def result(self) -> Result | None:
        result = super().result()
        return None if result is None else attrs.evolve(
            result, ranks=tuple(range(1, self.n + 1)))  # whatever the scores say


class Unseeded(ToyState):
    def __init__(self, options: Any, seed: object, **kwargs: Any) -> None:
        kwargs["chance"] = SeededChance(random.random())  # the seed is ignored
        super().__init__(options, seed, **kwargs)


class SharedScores(ToyState):
    COPIED = ("cards", "stakes", "shown")  # a clone's scores are its original's


class FirstStakerPays(ToyState):
    def apply(self, seat: int, action: str) -> None:
        first = len(self._acting) == self.n and action in STAKES
        super().apply(seat, action)
        if first:
            self.scores[seat] -= 1  # answering first costs a point: the order matters


class UndeclaredEvent(ToyState):
    def apply(self, seat: int, action: str) -> None:
        super().apply(seat, action)
        self.events.emit("sneaked", {"seat": seat})


def broken(state_class: type[ToyState], name: str) -> Any:
    def new_state(options: Any, seed: object, *, record_events: bool = False,
                  chance: Any = None) -> ToyState:
        return state_class(options, seed, record_events=record_events, chance=chance)

    return attrs.evolve(TOY, name=name, new_state=new_state)


#: A toy that fails each battery (and the reason it gives), by the battery.
BROKEN: dict[GameCheck, tuple[Any, str]] = {
    GameCheck.OPTIONS: (LAX, "parse_options({'no_such_option': 1}) is accepted"),
    GameCheck.LEGAL: (broken(OddDefault, "odddefault"), "default 'stake 9' is not in"),
    GameCheck.END: (broken(WrongRanks, "wrongranks"), "do not follow scores"),
    GameCheck.REPLAY: (broken(Unseeded, "unseeded"), "the replay's"),
    GameCheck.CLONE: (broken(SharedScores, "sharedscores"), "playing a clone on changed"),
    GameCheck.SIMULTANEOUS: (broken(FirstStakerPays, "firststaker"), "in another order"),
    GameCheck.HIDDEN: (LEAKY, "in a world that differs only in what it may not know"),
    GameCheck.SCHEMAS: (broken(UndeclaredEvent, "undeclared"), "'sneaked' is not declared"),
}
