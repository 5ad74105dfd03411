"""Wypas's special cards, played in reaction windows (SPEC.md "Reaction windows").

The rules let a special card be played "at any moment", even in another player's phase, and a
shepherd dog answer any special card before it resolves.  Here:

- A **window** opens after every completed main-line action (naming a lot card, a committed
  bid, a pass, a sheep placed, a shear) and again after the special cards played in it have
  resolved.  Every seat that holds a special card it could play now is asked, all at once;
  a seat with nothing playable is not asked.  Each answers ``pass`` or ``play <card>`` and then
  chooses the target (``target <seat>`` / ``target <seat> <pen>``, or ``pass`` to keep the card).
- When every asked seat has answered, the cards played resolve one at a time in a fixed order,
  **clockwise from the seat whose action opened the window**, never in the order the answers
  arrived.  A card whose target is gone by its turn (or that was stolen meanwhile) stays in its
  owner's hand (``withdrawn``, to that seat only).
- Each card played opens a **response** window for dogs: every seat holding a dog, except the
  owner of the card on top, is asked ``pass`` or ``play <dog>``.  The first dog clockwise from
  the top card's owner goes on top of the chain and a new response window opens for it.  When
  nobody answers, the chain resolves: each dog not cancelled itself cancels the card below it,
  so the original card resolves when an even number of dogs answered it.
- Effects: the thief looks at its target's hand and takes one card (``steal <card>``); a wolf
  goes above the pen; a black sheep swaps into the pen for a sheep its player chooses
  (``swap <card>``), which goes to that player's hand; a dog chases the wolf above a pen.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from typing import Any

from arena.games.wypas.cards import CARD_IDS, INDEX, IS_DOG, IS_THIEF, KIND, Kind, sheep_in

#: The rules' state (arena.games.wypas.rules.WypasState): not imported, the rules import this
#: module; a window reads and changes the game's fields.
WypasState = Any

PASS = "pass"
PLAY = tuple(f"play {card_id}" for card_id in CARD_IDS)  # by card index
Target = tuple[int, ...]  # (seat,) for a thief, (seat, pen) for the others, () for a dog's cancel


class Decision(enum.Enum):
    """What a seat decides now (the observation's ``decision``), main line and windows."""

    HIDE = "hide"
    NAME = "name"
    BID = "bid"
    JOKER_VALUE = "joker_value"
    BLUFF_CARD = "bluff_card"
    BLUFF_VALUE = "bluff_value"
    AWARD = "award"
    PLACE = "place"
    DECLARE = "declare"
    SHEAR = "shear"
    WINDOW = "window"
    TARGET = "target"
    RESPONSE = "response"
    STEAL = "steal"
    SWAP = "swap"


class Stage(enum.Enum):
    CLOSED = "closed"
    WINDOW = "window"
    RESPONSE = "response"
    STEAL = "steal"
    SWAP = "swap"


# Python 3.11 looks an enum member up through its class slowly: what the state asks at every
# decision (and every window opened or answered) compares against these module-level names.
_CLOSED, _WINDOW, _RESPONSE, _STEAL, _SWAP = (
    Stage.CLOSED, Stage.WINDOW, Stage.RESPONSE, Stage.STEAL, Stage.SWAP)
_DECIDE_WINDOW, _DECIDE_TARGET, _DECIDE_RESPONSE = (
    Decision.WINDOW, Decision.TARGET, Decision.RESPONSE)
_THIEF, _DOG, _WOLF, _BLACK_SHEEP = Kind.THIEF, Kind.DOG, Kind.WOLF, Kind.BLACK_SHEEP


class Windows:
    """The reaction windows of one game, and the special cards being resolved."""

    def __init__(self, game: WypasState) -> None:
        self.game = game
        self.stage = _CLOSED
        self.first = 0  # the seat whose action opened the window
        self.waiting: list[int] = []  # seats still to answer, in seat order
        self.chosen: dict[int, int] = {}  # seat -> the special card it is choosing a target for
        # seat -> the special cards it may play in this window (fixed while the window is open:
        # nothing resolves before every asked seat has answered); the game's, never changed
        self.playable_now: Mapping[int, tuple[int, ...]] = {}
        self.answers: dict[int, tuple[int, Target]] = {}  # seat -> (card, target)
        self.queue: list[tuple[int, int, Target]] = []  # plays still to resolve, in order
        self.chain: list[tuple[int, int, Target]] = []  # the card played and the dogs on it
        self.resolver: tuple[int, Target] | None = None  # (seat, target) of a steal or swap
        self.opened = 0  # windows and response windows opened so far, asked or not

    def copy_for(self, game: WypasState) -> Windows:
        twin = object.__new__(Windows)
        twin.__dict__.update(self.__dict__)
        twin.game = game
        twin.waiting = list(self.waiting)
        twin.chosen = dict(self.chosen)
        twin.answers = dict(self.answers)
        twin.queue = list(self.queue)
        twin.chain = list(self.chain)
        return twin

    # -- what the state asks --

    def active(self) -> bool:
        return self.stage is not _CLOSED

    def to_act(self) -> tuple[int, ...]:
        stage = self.stage
        if stage is _WINDOW or stage is _RESPONSE:
            return tuple(self.waiting)
        assert self.resolver is not None  # a steal or a swap
        return (self.resolver[0],)

    def decision_of(self, seat: int) -> Decision | None:
        stage = self.stage
        if stage is _WINDOW or stage is _RESPONSE:
            if seat not in self.waiting:
                return None
            if stage is _RESPONSE:
                return _DECIDE_RESPONSE
            return _DECIDE_TARGET if seat in self.chosen else _DECIDE_WINDOW
        assert self.resolver is not None  # a steal or a swap
        if seat != self.resolver[0]:
            return None
        return Decision.STEAL if stage is _STEAL else Decision.SWAP

    def is_reaction(self, seat: int) -> bool:
        stage = self.stage
        return (stage is _WINDOW or stage is _RESPONSE) and seat in self.waiting

    def legal(self, seat: int) -> list[str]:
        game, ids, stage = self.game, CARD_IDS, self.stage
        if stage is _WINDOW:
            if seat in self.chosen:
                return [_target_token(t) for t in self.targets(seat, self.chosen[seat])] + [PASS]
            return [PASS] + [PLAY[card] for card in self.playable_now[seat]]
        if stage is _RESPONSE:
            return [PASS] + [PLAY[card] for card in game.specials(seat) if IS_DOG[card]]
        assert self.resolver is not None
        if stage is _STEAL:
            return [f"steal {ids[card]}" for card in game.hands[self.resolver[1][0]]]
        target_seat, pen = self.resolver[1]  # a swap
        return [f"swap {card}" for card, colour, _ in game.pens[target_seat][pen]
                if colour is not None]

    def default(self, seat: int) -> str | None:
        """A silent seat never plays a special card; a steal or a swap is a uniform draw."""
        return PASS if self.stage in (_WINDOW, _RESPONSE) else None

    def view(self, seat: int) -> Mapping[str, Any] | None:
        if self.stage is _CLOSED:
            return None
        ids = CARD_IDS
        return {
            "stage": self.stage._value_,  # without the enum property's cost
            "first": self.first,
            "chain": [{"seat": s, "card": ids[card], "target": list(target)}
                      for s, card, target in self.chain],
            "choosing": ids[self.chosen[seat]] if seat in self.chosen else None,
            "resolving": (None if self.resolver is None
                          else {"seat": self.resolver[0], "target": list(self.resolver[1])}),
        }

    # -- which cards, which targets --

    def targets(self, seat: int, card: int) -> list[Target]:
        game, kind = self.game, KIND[card]
        if kind is _THIEF:
            return [(other,) for other in range(game.n)
                    if other != seat and game.hands[other]]
        pens = [(s, p) for s in range(game.n) for p in (0, 1)]
        if kind is _WOLF:
            return [(s, p) for s, p in pens
                    if game.wolves[s][p] is None and sheep_in(game.pens[s][p]) >= 2]
        if kind is _BLACK_SHEEP:
            return [(s, p) for s, p in pens if sheep_in(game.pens[s][p]) >= 2]
        if kind is _DOG:
            return [(s, p) for s, p in pens if game.wolves[s][p] is not None]
        return []

    # -- opening and answering --

    def open_after(self, seat: int) -> None:
        """A window after ``seat``'s completed action (or after special cards resolved)."""
        self.first = seat
        self.opened += 1
        if self.chosen or self.answers:  # a window opens after every action: new dicts only
            self.chosen, self.answers = {}, {}  # when the old ones hold something
        playable = self.playable_now = self.game.playable()
        self.waiting = list(playable)
        self.stage = _WINDOW if playable else _CLOSED

    def apply(self, seat: int, action: str) -> None:
        """Play ``action``, which the state has checked against :meth:`legal`."""
        verb, _, rest = action.partition(" ")
        index, stage = INDEX, self.stage
        if stage is _STEAL:
            self._steal(index[rest])
        elif stage is _SWAP:
            self._swap(rest)
        elif stage is _RESPONSE:
            if verb != PASS:
                self.answers[seat] = (index[rest], ())
            self.waiting.remove(seat)
            if not self.waiting:
                self._end_response()
        elif verb == "play":
            self.chosen[seat] = index[rest]
        else:
            card = self.chosen.pop(seat, None)
            if verb == "target" and card is not None:
                self.answers[seat] = (card, tuple(map(int, rest.split())))
            self.waiting.remove(seat)
            if not self.waiting:
                self._resolve_window()

    # -- resolving --

    def _clockwise(self, start: int) -> list[int]:
        n = self.game.n
        return [(start + step) % n for step in range(n)]

    def _resolve_window(self) -> None:
        answers = self.answers  # mostly empty: everyone passed
        self.queue = [(seat, *answers[seat]) for seat in self._clockwise(self.first)
                      if seat in answers] if answers else []
        self.answers = {}
        if not self.queue:  # everyone passed: the window closes
            self.stage = _CLOSED
            self.game.windows_closed()
            return
        self._next_play()

    def _still_possible(self, seat: int, card: int, target: Target) -> bool:
        return card in self.game.hands[seat] and target in self.targets(seat, card)

    def _next_play(self) -> None:
        game, ids = self.game, CARD_IDS
        while self.queue:
            seat, card, target = self.queue.pop(0)
            if not self._still_possible(seat, card, target):
                game.events.emit("withdrawn", {"seat": seat, "card": ids[card],
                                               "reason": "no longer possible"},
                                 frozenset((seat,)))
                continue
            game._take(seat, card)
            game.events.emit("special_played", {"seat": seat, "card": ids[card],
                                                 "target": list(target), "cancels": None})
            self.chain = [(seat, card, target)]
            if self._open_response():
                return
            if self._resolve_chain():
                return  # a steal or a swap to choose first
        self.open_after(self.first)  # after special cards resolved, another window
        if self.stage is _CLOSED:
            game.windows_closed()

    def _open_response(self) -> bool:
        game = self.game
        top = self.chain[-1][0]
        self.opened += 1
        self.answers = {}
        self.waiting = [s for s in range(game.n) if s != top
                        and any(IS_DOG[card] for card in game.specials(s))]
        self.stage = _RESPONSE if self.waiting else _CLOSED
        return bool(self.waiting)

    def _end_response(self) -> None:
        game, ids = self.game, CARD_IDS
        top_seat, top_card, _ = self.chain[-1]
        if not self.answers:
            self.stage = _CLOSED
            if not self._resolve_chain():
                self._next_play()
            return
        order = self._clockwise((top_seat + 1) % game.n)
        dogger = next(seat for seat in order if seat in self.answers)
        for seat, (dog, _) in self.answers.items():
            if seat != dogger:
                game.events.emit("withdrawn", {"seat": seat, "card": ids[dog],
                                               "reason": "another dog went first"},
                                 frozenset((seat,)))
        dog = self.answers[dogger][0]
        game._take(dogger, dog)
        game.events.emit("special_played", {"seat": dogger, "card": ids[dog], "target": [],
                                            "cancels": ids[top_card]})
        self.chain.append((dogger, dog, ()))
        if not self._open_response() and not self._resolve_chain():
            self._next_play()

    def _resolve_chain(self) -> bool:
        """Resolve the chain; True when the card's effect waits for a choice (steal, swap)."""
        game, ids = self.game, CARD_IDS
        seat, card, target = self.chain[0]
        dogs = [dog for _, dog, _ in self.chain[1:]]
        cancelled = len(dogs) % 2 == 1
        self.chain = []
        self.stage = _CLOSED
        game.discard.extend(dogs)
        game.events.emit("resolved", {"card": ids[card], "cancelled": cancelled,
                                      "dogs": [ids[dog] for dog in dogs]})
        kind = KIND[card]
        if cancelled:
            game.discard.append(card)
            return False
        if kind is _WOLF:
            game.wolves[target[0]][target[1]] = card
            game._pens_changed()
        elif kind is _DOG:
            wolf = game.wolves[target[0]][target[1]]
            game.wolves[target[0]][target[1]] = None
            game._pens_changed()
            game.discard.extend((card, wolf))  # type: ignore[arg-type]
            game.events.emit("chased", {"seat": seat, "target": list(target),
                                        "wolf": ids[wolf]})  # type: ignore[index]
        elif kind is _THIEF:
            victim = target[0]
            if not game.hands[victim]:  # it played its last card, a dog, meanwhile
                game.discard.append(card)
                return False
            game.events.emit("hand_seen", {"seat": victim,
                                           "cards": [ids[c] for c in game.hands[victim]]},
                             frozenset((seat,)))
            self.resolver, self.stage = (seat, target), _STEAL
            self._thief = card
            return True
        else:  # the black sheep
            self.resolver, self.stage = (seat, target), _SWAP
            self._black_sheep = card
            return True
        return False

    def _steal(self, card: int) -> None:
        game, ids = self.game, CARD_IDS
        seat, (victim,) = self.resolver  # type: ignore[misc]
        game._take(victim, card)
        game._give(seat, card)
        game.discard.append(self._thief)
        game.events.emit("stole", {"seat": seat, "from": victim})
        game.events.emit("stolen_card", {"seat": seat, "from": victim, "card": ids[card]},
                         frozenset((seat, victim)))
        self._after_effect()

    def _swap(self, card_id: str) -> None:
        game, ids = self.game, CARD_IDS
        seat, (owner, pen) = self.resolver  # type: ignore[misc]
        cards = game.pens[owner][pen]
        slot = next(i for i, (card, _, _) in enumerate(cards) if card == card_id)
        black = self._black_sheep
        cards[slot] = (ids[black], None, 0)
        game._pens_changed()
        game._give(seat, INDEX[card_id])
        game.events.emit("swapped", {"seat": seat, "target": [owner, pen], "card": card_id,
                                     "black_sheep": ids[black]})
        self._after_effect()

    def _after_effect(self) -> None:
        self.resolver = None
        self.stage = _CLOSED
        self._next_play()


def kinds_with_a_pen_target(game: WypasState) -> frozenset[Kind]:
    """The special kinds with a pen to aim at now: a dog where a wolf is, a wolf where two
    sheep are and no wolf, a black sheep where two sheep are."""
    found: set[Kind] = set()
    for wolves, pens in zip(game.wolves, game.pens):
        for wolf, pen in zip(wolves, pens):
            if wolf is not None:
                found.add(_DOG)
            if len(pen) >= 2 and sheep_in(pen) >= 2:
                found.add(_BLACK_SHEEP)
                if wolf is None:
                    found.add(_WOLF)
    return frozenset(found)


def playable_specials(game: WypasState) -> dict[int, tuple[int, ...]]:
    """Each seat that could play a special card now, with those cards (each with a target): a
    thief when another seat holds cards, the others by ``game.pen_kinds()``."""
    holders = [(seat, specials) for seat in range(game.n) if (specials := game.specials(seat))]
    if not holders:
        return {}
    kinds = game.pen_kinds()
    # a holder's own hand is not empty, so another's is when two hands are not
    thief = game.n - game.hands.count([]) >= 2
    found = {}
    for seat, specials in holders:
        cards = tuple([card for card in specials
                       if KIND[card] in kinds or (thief and IS_THIEF[card])])
        if cards:
            found[seat] = cards
    return found


@functools.cache  # a handful of targets, asked at every target decision
def _target_token(target: Target) -> str:
    return "target " + " ".join(map(str, target))

