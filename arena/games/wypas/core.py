"""wypas's basics: the constants, the phases, the options, the observation a seat receives, the
bluff variant's bookkeeping, and :class:`WypasFields`, the state's fields as every part of the
rules (auction, pens, shearing, views) reads them."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from arena.games.base import (
    OptionsError,
    StateBase,
)
from arena.games.wypas.cards import (
    CARD_IDS,
    Placed,
)
from arena.games.wypas.windows import (
    Decision,
    Windows,
)

MIN_PLAYERS, MAX_PLAYERS = 3, 6
HAND_SIZE = 5
DEAL_SIZE = 3
FLEECES_TO_END = 5
END_BONUS, LATE_BONUS = 4, 2
HIDDEN = "hidden"
PASS, COMMIT, DONE = "pass", "commit", "done"
BLUFF, CHECK, FACE_DOWN = "bluff", "check", "face-down"
BLEAT = "meee"


ADD = tuple(f"add {card_id}" for card_id in CARD_IDS)  # the bid token of each card index


def lot_size(players: int) -> int:
    return 2 if players == 3 else 3


class Phase(enum.Enum):
    AUCTION = "auction"
    REDYK = "redyk"
    SHEARING = "shearing"
    FINAL_SHEARING = "final_shearing"
    OVER = "over"


# Python 3.11 looks an enum member up through its class slowly: the paths every action takes
# (apply, the legal lists, observe, the next main decision) compare against these names.
_HIDE, _NAME, _BID, _PLACE, _DECLARE, _SHEAR = (
    Decision.HIDE, Decision.NAME, Decision.BID, Decision.PLACE, Decision.DECLARE, Decision.SHEAR)
_JOKER_VALUE, _BLUFF_CARD, _BLUFF_VALUE, _AWARD = (
    Decision.JOKER_VALUE, Decision.BLUFF_CARD, Decision.BLUFF_VALUE, Decision.AWARD)
_AUCTION, _REDYK, _SHEARING, _OVER = Phase.AUCTION, Phase.REDYK, Phase.SHEARING, Phase.OVER


# --- Options and observation ---------------------------------------------------------------------


def _whole(name: str, raw: object) -> int:
    try:
        return int(str(raw))
    except ValueError:
        raise OptionsError(f"{name} must be a whole number, not {raw!r}") from None


def _flag(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise OptionsError(f"{name} must be true or false, not {raw!r}")


@attrs.frozen
class WypasOptions:
    players: int = attrs.field(default=4, metadata={"help": "seats at a table: 3 to 6"})
    turn_cap: int = attrs.field(default=60, metadata={
        "help": "the game ends after this many turns (an arena rule; no end bonus then)"})
    bluff: bool = attrs.field(default=False, metadata={
        "help": "the advanced Bluff rule: one face-down bid card per auction, checking"})
    strict_bleating: bool = attrs.field(default=False, metadata={
        "help": "a shear scores only when its action bleats (shear <pen> meee)"})

    @players.validator
    def _check_players(self, _attribute: attrs.Attribute, value: int) -> None:
        if not isinstance(value, int) or not MIN_PLAYERS <= value <= MAX_PLAYERS:
            raise OptionsError(f"wypas is for 3 to 6 players, not {value!r}")

    @turn_cap.validator
    def _check_cap(self, _attribute: attrs.Attribute, value: int) -> None:
        if not isinstance(value, int) or not 1 <= value <= 1000:
            raise OptionsError(f"turn_cap must be 1 to 1000, not {value!r}")


def parse_options(raw: Mapping[str, Any]) -> WypasOptions:
    known = {field.name for field in attrs.fields(WypasOptions)}
    unknown = set(raw) - known
    if unknown:
        raise OptionsError(f"unknown wypas option(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        values[name] = (_flag(name, value) if name in ("bluff", "strict_bleating")
                        else _whole(name, value))
    return WypasOptions(**values)


@attrs.frozen(slots=False)
class WypasObservation:
    """Everything one seat may know now.  Cards are ids (SPEC.md and ``game_start.info.cards``
    give each one's kind, colour and value); a placed card is ``[id, colour, value]``.

    Not slotted, so that the engine's observe can set every field at once (it builds one per
    decision)."""

    seat: int
    turn: int
    turn_cap: int
    phase: str
    decision: str | None  # what this seat must decide now, else None
    baca: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    pens: tuple[tuple[tuple[Placed, ...], ...], ...]  # by seat: [pen 0, pen 1]
    wolves: tuple[tuple[str | None, ...], ...]  # by seat: the wolf above pen 0, pen 1
    fleeces: tuple[int, ...]
    scores: tuple[int, ...]
    deck_size: int
    discard_size: int
    lot: tuple[str, ...]  # face-up lot cards not auctioned yet
    lot_hidden: bool  # the face-down lot card is still to be auctioned
    hidden_card: str | None  # the face-down lot card, to the seat that knows it
    auction_card: str | None  # the card being auctioned (id, or "hidden")
    opener: int | None
    bidder: int | None  # whose bidding turn it is
    stakes: tuple[int, ...]  # this auction, by seat
    laid: tuple[tuple[str, ...], ...]  # this auction's bid cards, by seat
    passed: tuple[bool, ...]
    high_bidder: int | None
    actor: int | None  # whose main decision (hide, name, bid, place, shear) is next
    placing: str | None  # in a declare decision: the joker being placed
    placing_pen: int | None
    end_triggered_by: int | None
    window: Mapping[str, Any] | None  # an open reaction window (SPEC.md "Reaction windows")
    declared: tuple[int, ...]  # bluff: the declared value of each seat's face-down bid card (0)
    check: Mapping[str, Any] | None  # bluff: the offer to check, or the check under way


# --- Bluff (an option) ---


@attrs.define
class Check:
    """A checked bluff: the checker must match ``target`` exactly (passing instead ends the
    check); so may later bidders."""

    bluffer: int
    checker: int
    target: int
    matched: list[int] = attrs.field(factory=list)


class Bluff:
    """One auction's face-down bid cards and checks (the Bluff option)."""

    def __init__(self, n: int) -> None:
        self.face_down: list[int | None] = [None] * n  # each seat's face-down card
        self.face_down_laid = False  # any face-down card in this auction yet
        self.declared = [0] * n
        self.bluffer: int | None = None  # the last committed stake with a face-down card
        self.offer: int | None = None  # the seat that may check it now
        self.fresh = False  # the bidder has not acted yet this turn (a check comes first)
        self.check: Check | None = None
        self.tied: list[int] = []  # a showdown tie the baca settles
        self.revealed: set[int] = set()  # seats whose face-down card a showdown revealed
        self.joker: int | None = None  # a joker laid as a bid, its value still to declare
        self.joker_values: dict[int, int] = {}  # jokers laid as bids: their declared values

    def copy(self) -> Bluff:
        twin = object.__new__(Bluff)
        twin.__dict__.update(self.__dict__)
        twin.face_down, twin.declared, twin.tied = (
            list(self.face_down), list(self.declared), list(self.tied))
        twin.revealed, twin.joker_values = set(self.revealed), dict(self.joker_values)
        if self.check is not None:
            twin.check = Check(self.check.bluffer, self.check.checker, self.check.target,
                               list(self.check.matched))
        return twin

    def view(self) -> Mapping[str, Any] | None:
        if self.check is not None:
            return {"bluffer": self.check.bluffer, "checker": self.check.checker,
                    "stake": self.check.target, "matched": list(self.check.matched),
                    "offer": None}
        if self.offer is not None:
            return {"bluffer": self.bluffer, "checker": None, "stake": None, "matched": [],
                    "offer": self.offer}
        return None



class WypasFields(StateBase):
    """A wypas state's fields, declared once for every part of the rules that reads them (the
    state sets them in ``__init__``); the parts are mixed into
    :class:`arena.games.wypas.rules.WypasState`, and each calls the others through ``self``."""

    options: WypasOptions
    recording: bool  # events are recorded
    deck: list[int]
    discard: list[int]
    reshuffles: int
    _hands: list[list[int]]
    _pens: list[list[list[Placed]]]
    _wolves: list[list[int | None]]
    fleeces: list[int]
    scores: list[int]
    baca: int
    turn: int
    phase: Phase
    end_triggered_by: int | None
    final_left: list[int]
    actor: int | None
    decision: Decision | None
    lot: list[int]
    drawn_lot: list[int]
    hidden_card: int | None
    lot_hidden: bool
    opener: int
    auction_card: int | None
    auction_hidden: bool
    stakes: list[int]
    laid: list[list[int]]
    passed: list[bool]
    high_bidder: int | None
    bluff: Bluff
    placing: int | None
    placing_pen: int
    phase_left: list[int]
    windows: Windows
    _laid_ids: tuple[tuple[str, ...], ...]

    # what one part calls in another (defined where the comment says; the state's class
    # comes before this one, so these are never called)
    def _after(self, seat: int) -> None:
        raise NotImplementedError  # in rules.py

    def _ask(self, decision: Decision, seat: int) -> None:
        raise NotImplementedError  # in rules.py

    def _clockwise_from_baca(self) -> list[int]:
        raise NotImplementedError  # in pens.py

    def _continue_redyk(self) -> None:
        raise NotImplementedError  # in pens.py

    def _continue_shearing(self) -> None:
        raise NotImplementedError  # in shearing.py

    def _deal(self, per_seat: int) -> None:
        raise NotImplementedError  # in rules.py

    def _draw(self) -> int | None:
        raise NotImplementedError  # in rules.py

    def _give(self, seat: int, card: int) -> None:
        raise NotImplementedError  # in views.py

    def _next_main(self) -> None:
        raise NotImplementedError  # in auction.py

    def _pens_changed(self) -> None:
        raise NotImplementedError  # in views.py

    def _public_id(self, card: int, seat: int | None = None) -> str:
        raise NotImplementedError  # in auction.py

    def _start_redyk(self) -> None:
        raise NotImplementedError  # in pens.py

    def _start_shearing(self) -> None:
        raise NotImplementedError  # in shearing.py

    def _start_turn(self) -> None:
        raise NotImplementedError  # in auction.py

    def _table_changed(self) -> None:
        raise NotImplementedError  # in views.py

    def _take(self, seat: int, card: int) -> None:
        raise NotImplementedError  # in views.py

    def decision_of(self, seat: int) -> Decision | None:
        raise NotImplementedError  # in rules.py

    def left_of(self, seat: int) -> int:
        raise NotImplementedError  # in rules.py
