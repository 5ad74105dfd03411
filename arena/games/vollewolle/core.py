"""vollewolle's basics: the cards by index, the dice, the tokens, the decisions, the options
and the observation a seat receives."""

from __future__ import annotations

import enum
import itertools
from collections.abc import Mapping
from typing import Any

import attrs

from arena.games.base import OptionsError
from arena.games.vollewolle.cards import Kind, load_deck

CARDS = load_deck()
CARD_IDS: tuple[str, ...] = tuple(card.id for card in CARDS)
INDEX = {card_id: i for i, card_id in enumerate(CARD_IDS)}
IS_SHEEP = tuple(card.is_sheep for card in CARDS)
IS_BLACK = tuple(card.kind is Kind.BLACK for card in CARDS)

DICE = ("d12", "d10", "d8")
SIDES = (12, 10, 8)
ATTEMPTS = 3
#: The lowest bid; also the total under which a failed roller takes the black sheep shown.
MIN_BID = 14
HIGH_BID = 26  # the "26+" bid: costs a wool chip, its target is 26
BID_BACKS = (1, 2, 3, 4, 5, 6)  # sheep numbers on the backs of the bid cards
STARTING_WOOL = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 6

BID_TOKENS: tuple[str, ...] = tuple(f"bid {v}" for v in range(MIN_BID, HIGH_BID)) + ("bid 26+",)
BID_VALUE = {token: MIN_BID + i for i, token in enumerate(BID_TOKENS)}
KEEP_TOKENS = tuple(f"keep {die}" for die in DICE)
KEEP_DIE = {token: die for die, token in enumerate(KEEP_TOKENS)}
#: By the dice kept so far (a tuple of die indices, in the order they were kept): their names,
#: and the dice rolled next with their sides.
KEPT_NAMES: dict[tuple[int, ...], tuple[str, ...]] = {}
ROLLING: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
for _kept in ((), *itertools.permutations(range(len(DICE)), 1),
              *itertools.permutations(range(len(DICE)), 2)):
    KEPT_NAMES[_kept] = tuple(DICE[die] for die in _kept)
    _rolling = tuple(die for die in range(len(DICE)) if die not in _kept)
    ROLLING[_kept] = (_rolling, tuple(SIDES[die] for die in _rolling))
TAKE_TOKENS = tuple(f"take {card_id}" for card_id in CARD_IDS)
TAKE_CARD = {token: i for i, token in enumerate(TAKE_TOKENS)}
REACH, DECLINE, ROLL, TAKE_ALL = "reach", "decline", "roll", "take all"


class Decision(enum.Enum):
    """What the acting seat(s) decide now."""

    BID = "bid"
    KEEP = "keep"
    REACH = "reach"
    ROLL_OR_TAKE = "roll_or_take"
    TAKE = "take"
    OVER = "over"


# A member looked up on its enum class costs a metaclass lookup, several times a global's: the
# state compares with these module-level names (several times per decision).
_BIDDING, _KEEPING, _REACHING = Decision.BID, Decision.KEEP, Decision.REACH
_ROLLING_OR_TAKING, _TAKING, _OVER = Decision.ROLL_OR_TAKE, Decision.TAKE, Decision.OVER
_DOG, _BONE = Kind.DOG, Kind.BONE


# --- Options and observation ---------------------------------------------------------------------


@attrs.frozen
class VolleWolleOptions:
    players: int = attrs.field(default=4, metadata={"help": "seats at a table: 2 to 6"})

    @players.validator
    def _check_players(self, _attribute: attrs.Attribute, value: int) -> None:
        if not isinstance(value, int) or not MIN_PLAYERS <= value <= MAX_PLAYERS:
            raise OptionsError(f"vollewolle is for 2 to 6 players, not {value!r}")


def parse_options(raw: Mapping[str, Any]) -> VolleWolleOptions:
    unknown = set(raw) - {"players"}
    if unknown:
        raise OptionsError(f"unknown vollewolle option(s): {', '.join(sorted(unknown))}")
    if "players" not in raw:
        return VolleWolleOptions()
    try:
        players = int(raw["players"])
    except (TypeError, ValueError):
        raise OptionsError(f"players must be a whole number, not {raw['players']!r}") from None
    return VolleWolleOptions(players=players)


@attrs.frozen(slots=False)
class VolleWolleObservation:
    """Everything one seat may know now.  Cards are ids; ``game_start.info.cards`` and SPEC.md
    give each card's kind, points, modifier, bone symbol and sheep number.

    Without slots, so that the engine can build one per decision in a single step
    (:func:`_observation`)."""

    seat: int
    round: int
    decision: str | None  # what this seat must decide now, else None
    display: tuple[str, ...]
    deck_left: int
    wool: tuple[int, ...]
    flocks: tuple[tuple[str, ...], ...]  # by seat, top card first
    dogs: tuple[int, ...]
    bone_holder: int | None
    sheep_numbers: tuple[int, ...]
    modifiers: tuple[int, ...]  # by seat: the modifier of its flock's top card (0 if none)
    start_player: int  # the last tie-break of equal bids and sheep numbers
    bids: tuple[int | None, ...]  # 26 is the 26+ bid; others' stay None until revealed
    order: tuple[int, ...]
    turn: int | None
    attempt: int | None
    dice: tuple[int, ...] | None
    kept: tuple[str, ...]
    target: int | None
    reach_for: str | None  # in a reach decision: "bid", or "black_sheep" (lift to 14)
    wool_needed: int | None  # in a reach decision: the chips "reach" spends
    to_take: int
    take_from: str | None


def _observation(fields: dict[str, Any]) -> VolleWolleObservation:
    """An observation with these fields (every one of the class's), built without running
    ``__init__``: the fast path of :meth:`VolleWolleState.observe`, taken once per decision.
    The class has no validators or converters to skip, and as a frozen attrs class without
    slots it keeps its fields in its ``__dict__``, which is filled in one step here."""
    observation = object.__new__(VolleWolleObservation)
    observation.__dict__.update(fields)
    return observation


#: What :meth:`VolleWolleState._build_views` gives: display, wool, flocks, dogs, sheep numbers,
#: modifiers, order.
_Views = tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[str, ...], ...], tuple[int, ...],
               tuple[int, ...], tuple[int, ...], tuple[int, ...]]
