"""A vollewolle turn's two ends: rolling the dice for one's bid (keeping dice, reaching with
wool, success or the black sheep) and taking cards from the display."""

from __future__ import annotations

from typing import Any

from arena.games.base import StateBase
from arena.games.vollewolle.core import (
    _BONE,
    _DOG,
    _KEEPING,
    _REACHING,
    _TAKING,
    ATTEMPTS,
    CARDS,
    IS_BLACK,
    IS_SHEEP,
    KEPT_NAMES,
    MIN_BID,
    ROLLING,
    Decision,
    VolleWolleOptions,
    _Views,
)


class VolleWolleFields(StateBase):
    """A vollewolle state's fields, declared once for every part of the rules that reads them
    (the state sets them in ``__init__``); the turns' parts are mixed into
    :class:`arena.games.vollewolle.rules.VolleWolleState` and call the rest through ``self``."""

    options: VolleWolleOptions
    _recording: bool
    deck: list[int]
    drawn: int
    bid_backs: list[int]
    start_player: int
    display: list[int]
    flocks: list[list[int]]
    dogs: list[int]
    bone_holder: int | None
    wool: list[int]
    round: int
    bids: list[int | None]
    order: list[int]
    position: int
    decision: Decision
    dice: list[int]
    kept: tuple[int, ...]
    attempt: int
    target: int
    reaching_bid: bool
    taker: int | None
    take_left: int
    black_only: bool
    scoring: list[Any] | None
    _flock_views: list[tuple[str, ...]]
    _sheep_numbers: list[int]
    _modifiers: list[int]
    _views: _Views | None  # what observe reads, rebuilt after it changed

    # what the turns call in the rest of the rules (the state's class comes first, so these
    # are never called)
    def _ask(self, decision: Decision, seat: int) -> None:
        raise NotImplementedError  # in rules.py

    def _bid_of(self, seat: int) -> int:
        raise NotImplementedError  # in rules.py

    def _end_turn(self) -> None:
        raise NotImplementedError  # in rules.py

    def _modifier(self, seat: int) -> int:
        raise NotImplementedError  # in rules.py


class Turns(VolleWolleFields):
    """Rolling and taking cards (mixed into the state)."""

    # -- rolling --

    def _start_roll(self, seat: int) -> None:
        self.attempt = 1
        self.kept = ()
        self._roll()

    def _roll(self) -> None:
        seat = self.order[self.position]
        rolling, sides = ROLLING[self.kept]
        faces = self.chance.roll(sides, "dice", self.round, self.position, self.attempt)
        dice = self.dice
        for die, face in zip(rolling, faces):
            dice[die] = face
        modifier = self._modifiers[seat]
        total = sum(dice) + min(modifier, 0)
        if self._recording:  # a roll is every other decision: build its event only if kept
            self.events.emit("rolled", {"seat": seat, "attempt": self.attempt,
                                        "kept": list(KEPT_NAMES[self.kept]),
                                        "dice": list(self.dice), "modifier": modifier,
                                        "total": total})
        bid = self._bid_of(seat)
        if total >= bid:  # reached without bonus or wool: the cards must be taken
            self._succeed(seat, total, 0, 0)
        elif total + max(modifier, 0) + self.wool[seat] >= bid:
            self.target, self.reaching_bid = bid, True
            self._ask(_REACHING, seat)
        else:
            self._after_failed_attempt(seat)

    def _after_failed_attempt(self, seat: int) -> None:
        if self.attempt < ATTEMPTS:
            self._ask(_KEEPING, seat)
            return
        total = sum(self.dice) + min(self._modifier(seat), 0)
        if total >= MIN_BID or not any(IS_BLACK[card] for card in self.display):
            self._fail(seat, total, 0, 0, black_sheep=False)
        elif (self._bid_of(seat) > MIN_BID  # with a bid of 14, reaching 14 was the bid itself
              and self._lift_cost(seat, total)[1] <= self.wool[seat]):
            self.target, self.reaching_bid = MIN_BID, False
            self._ask(_REACHING, seat)
        else:
            self._fail(seat, total, 0, 0, black_sheep=True)

    def _lift_cost(self, seat: int, total: int) -> tuple[int, int]:
        """(bonus, wool) that lift a failed third roll of ``total`` to 14 without making the
        bid: the whole bonus and the fewest chips, unless the whole bonus would reach the bid
        (that was the bid's own question): then chips alone."""
        bonus = max(self._modifier(seat), 0)
        wool = max(MIN_BID - total - bonus, 0)
        if bonus and total + bonus + wool < self._bid_of(seat):
            return bonus, wool
        return 0, MIN_BID - total

    def _reach_cost(self) -> tuple[int, int]:
        """(bonus, wool) that the open REACH decision spends.  A bonus is added whole or not
        at all; wool chips are +1 each.  Toward the bid: the whole (free) bonus, then the
        fewest chips; toward 14: :meth:`_lift_cost`."""
        seat = self.order[self.position]
        total = sum(self.dice) + min(self._modifier(seat), 0)
        if not self.reaching_bid:
            return self._lift_cost(seat, total)
        bonus = max(self._modifier(seat), 0)
        return bonus, max(self.target - total - bonus, 0)

    def _reach(self) -> None:
        seat = self.order[self.position]
        bonus, wool = self._reach_cost()
        self.wool[seat] -= wool
        self._views = None
        total = sum(self.dice) + min(self._modifier(seat), 0) + bonus + wool
        if self.reaching_bid:
            self._succeed(seat, total, bonus, wool)
        else:  # lifted to 14 or more: the bid is still failed, but no black sheep
            self._fail(seat, total, bonus, wool, black_sheep=False)

    def _decline(self) -> None:
        seat = self.order[self.position]
        if self.reaching_bid:
            self._after_failed_attempt(seat)
        else:
            total = sum(self.dice) + min(self._modifier(seat), 0)
            self._fail(seat, total, 0, 0, black_sheep=True)

    def _succeed(self, seat: int, total: int, bonus: int, wool: int) -> None:
        cards = min(ATTEMPTS + 1 - self.attempt, len(self.display))
        self.events.emit("succeeded", {"seat": seat, "attempt": self.attempt, "total": total,
                                 "bonus": bonus, "wool": wool, "cards": cards})
        self._start_taking(seat, cards)

    def _fail(self, seat: int, total: int, bonus: int, wool: int, *, black_sheep: bool) -> None:
        self.wool[seat] += 1  # the failure chip (one, also under the 14 rule)
        self._views = None
        self.events.emit("failed", {"seat": seat, "total": total, "bonus": bonus, "wool": wool,
                              "black_sheep": black_sheep})
        if black_sheep:
            self.black_only = True
            self._start_taking(seat, sum(IS_BLACK[card] for card in self.display))
        else:
            self._end_turn()

    # -- taking cards --

    def _candidates(self) -> list[int]:
        if self.black_only:
            return [card for card in self.display if IS_BLACK[card]]
        return self.display

    def _start_taking(self, seat: int, count: int) -> None:
        self.taker = seat
        self.take_left = count
        self._continue_taking()

    def _continue_taking(self) -> None:
        """Ask for the next card, unless the choice cannot matter: every card left will be
        taken and at most one of them goes onto the flock."""
        seat = self.taker
        assert seat is not None
        while self.take_left > 0:
            candidates = self._candidates()
            if not candidates:
                break
            if self.take_left >= len(candidates) and sum([IS_SHEEP[c] for c in candidates]) <= 1:
                for card in list(candidates):
                    self._take(seat, card)
                break
            self._ask(_TAKING, seat)
            return
        self.take_left = 0
        self.black_only = False
        self._end_turn()

    def _take(self, seat: int, card: int) -> None:
        self.display.remove(card)
        self._views = None
        info = CARDS[card]
        bone_from = None
        if info.kind is _DOG:
            self.dogs[seat] += 1
        elif info.kind is _BONE:
            self.bone_holder = seat
        else:
            self.flocks[seat].append(card)
            self._flock_views[seat] = (info.id, *self._flock_views[seat])
            self._modifiers[seat] = info.modifier
            if info.sheep_number is not None:
                self._sheep_numbers[seat] = info.sheep_number
            if info.bone_symbol and self.bone_holder is not None and self.bone_holder != seat:
                bone_from, self.bone_holder = self.bone_holder, seat
        self.events.emit("took", {"seat": seat, "card": info.id, "bone_from": bone_from})
