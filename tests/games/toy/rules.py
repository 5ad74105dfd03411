"""High card, 2 to 4 players: each round every seat is dealt one hidden card from ten, then all
stake 0 to 3 at once (a simultaneous, secret decision); the stakes and cards are then shown and
the highest card takes every other stake.  ``rounds`` rounds (3 by default)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from arena.games.base import (
    EventLog,
    EventSpec,
    GameSpec,
    IllegalAction,
    OptionsError,
    OtherWorld,
    Result,
    StateBase,
)
from arena.games.chance import Chance, SeededChance
from tests.games.toy.board import ToyBoard

CARDS = tuple(f"c{value}" for value in range(1, 11))
VALUE = {card: int(card[1:]) for card in CARDS}
STAKES = tuple(f"stake {amount}" for amount in range(4))


def _players(_instance: object, _attribute: attrs.Attribute, value: int) -> None:
    if not 2 <= value <= 4:
        raise OptionsError(f"toy is for 2 to 4 players, not {value!r}")


@attrs.frozen
class ToyOptions:
    players: int = attrs.field(default=2, converter=int, validator=_players,
                               metadata={"help": "Seats at the table (2-4)."})
    rounds: int = attrs.field(default=3, converter=int,
                              metadata={"help": "Rounds to play (one card each per round)."})


def parse_options(raw: Mapping[str, Any]) -> ToyOptions:
    unknown = set(raw) - {"players", "rounds"}
    if unknown:
        raise OptionsError(f"unknown toy option(s): {', '.join(sorted(unknown))}")
    try:
        options = ToyOptions(**raw)
    except (TypeError, ValueError) as error:
        raise OptionsError(str(error)) from None
    if options.rounds < 1:
        raise OptionsError("toy needs at least one round")
    return options


@attrs.frozen
class ToyObservation:
    seat: int
    round: int
    rounds: int
    card: str | None  # this seat's hidden card
    staked: tuple[bool, ...]  # who has staked this round (not how much)
    scores: tuple[int, ...]
    shown: tuple[str, ...]  # last round's cards, by seat (empty before the first reveal)


class ToyState(StateBase):
    """Chance: round r's deal is ``chance.shuffle(CARDS, "deal", r)``, seat 0's card first."""

    COPIED = ("cards", "stakes", "scores", "shown")

    def __init__(self, options: ToyOptions, seed: object, *, record_events: bool = False,
                 chance: Chance | None = None) -> None:
        self.n, self.options = options.players, options
        self.chance = chance if chance is not None else SeededChance(seed)
        self.events = EventLog(record_events)
        self.round = 0
        self.scores = [0] * self.n
        self.shown: list[str] = []
        self._deal()

    def _deal(self) -> None:
        self.round += 1
        self.cards = self.chance.shuffle(CARDS, "deal", self.round)[:self.n]
        self.stakes: list[int | None] = [None] * self.n
        self._acting = tuple(range(self.n))
        for seat, card in enumerate(self.cards):
            self.events.emit("dealt", {"seat": seat, "card": card}, frozenset((seat,)))

    def is_over(self) -> bool:
        return not self._acting

    def legal_actions(self, seat: int) -> list[str]:
        return list(STAKES) if seat in self._acting else []

    def default_action(self, seat: int) -> str | None:
        return STAKES[0] if seat in self._acting else None  # a timeout stakes nothing

    def apply(self, seat: int, action: str) -> None:
        if seat not in self._acting or action not in STAKES:
            raise IllegalAction(f"seat {seat} may not play {action!r} now")
        self.stakes[seat] = STAKES.index(action)
        self._acting = tuple(other for other in self._acting if other != seat)
        if not self._acting:
            self._reveal()

    def _reveal(self) -> None:
        stakes = [stake or 0 for stake in self.stakes]
        best = max(VALUE[card] for card in self.cards)
        winner = next(seat for seat, card in enumerate(self.cards) if VALUE[card] == best)
        for seat in range(self.n):
            self.scores[seat] += (sum(stakes) - stakes[seat]) if seat == winner else -stakes[seat]
        self.shown = list(self.cards)
        self.events.emit("revealed", {"cards": self.shown, "stakes": stakes, "winner": winner})
        if self.round < self.options.rounds:
            self._deal()

    def result(self) -> Result | None:
        return None if self._acting else Result.from_scores(self.scores, rounds=self.round)

    def observe(self, seat: int) -> ToyObservation:
        return ToyObservation(
            seat=seat, round=self.round, rounds=self.options.rounds,
            card=self.cards[seat] if self._acting else None,
            staked=tuple(stake is not None for stake in self.stakes),
            scores=tuple(self.scores), shown=tuple(self.shown))


def new_state(options: ToyOptions, seed: object, *, record_events: bool = False,
              chance: Chance | None = None) -> ToyState:
    return ToyState(options, seed, record_events=record_events, chance=chance)


def other_world(state: ToyState, seat: int, actions: Sequence[tuple[int, str]],
                rng: Any) -> OtherWorld:
    """The cards ``seat`` has not seen (its own, every round's, and the revealed ones)
    renamed among themselves; the stakes stay as they were (no card in them)."""
    replay = ToyState(state.options, None, chance=state.chance.clone())
    seen = {replay.cards[seat]}
    for actor, action in actions:
        replay.apply(actor, action)
        seen.update(replay.shown)
        if replay._acting:
            seen.add(replay.cards[seat])
    unseen = [card for card in CARDS if card not in seen]
    renamed = unseen[:]
    rng.shuffle(renamed)
    return dict(zip(unseen, renamed, strict=True)), list(actions)


def info(_options: ToyOptions) -> dict[str, Any]:
    return {"cards": [{"id": card, "value": VALUE[card]} for card in CARDS]}


SPEC = GameSpec(
    name="toy", title="High card (a test's toy game)", min_players=2, max_players=4,
    parse_options=parse_options, new_state=new_state, options_type=ToyOptions,
    observation_type=ToyObservation,
    events={"dealt": EventSpec(("seat", "card"), "that seat only"),
            "revealed": EventSpec(("cards", "stakes", "winner"))},
    other_world=other_world, info=info, short_game={"rounds": 2},
    encoding="tests.games.toy.encoding", duplicate_default=True, board=ToyBoard,
    spec_section="tests.games.toy:spec.md")

