"""chochlik's basics: the card table, the action tokens, the phases, the options and the
observation a seat receives."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from arena.games.base import OptionsError

# --- The classic card table (shared/rules/chochlik.md §1.1) -------------------------------------

YELLOW, BLUE, RED = 0, 1, 2
COLOUR_NAMES = ("yellow", "blue", "red")
_SUITS = {
    YELLOW: (1, 2, 3, 5, 7, 9, 12, 15, 18, 22, 25, 28),
    BLUE: (4, 6, 8, 10, 13, 17, 20, 24, 27, 30, 32, 34),
    RED: (11, 14, 16, 21, 23, 26, 29, 31, 33, 35, 36, 37),
}
#: The neutral start card: the bottle's first price, never dealt and never won.
START_PRICE = 19
HIGHEST_CARD = 37
COLOUR: list[int] = [-1] * (HIGHEST_CARD + 1)
COINS: list[int] = [0] * (HIGHEST_CARD + 1)
for _colour, _numbers in _SUITS.items():
    for _rank, _number in enumerate(_numbers):
        COLOUR[_number] = _colour
        COINS[_number] = _rank // 2 + 1  # 1,1,2,2,...,6,6 within every colour
DECK: tuple[int, ...] = tuple(sorted(n for numbers in _SUITS.values() for n in numbers))

#: Cards dealt to each seat, by player count (the whole deck is dealt).
HAND_SIZE = {3: 12, 4: 9}

# --- Action tokens -------------------------------------------------------------------------------

IMP, LEFT, RIGHT, PLAY = 0, 1, 2, 3
VERBS = ("imp", "left", "right", "play")
#: TOKENS[verb][card] is the token string, built once so legal lists cost no formatting.
TOKENS: tuple[tuple[str, ...], ...] = tuple(
    tuple(f"{verb} {card}" for card in range(HIGHEST_CARD + 1)) for verb in VERBS
)
_PARSE: dict[str, tuple[int, int]] = {
    TOKENS[verb][card]: (verb, card) for verb in range(len(VERBS)) for card in DECK
}
#: Passing takes three decisions per seat, in this order.
PASS_STEPS = (IMP, LEFT, RIGHT)


class Phase(enum.Enum):
    PASS = "pass"
    PLAY = "play"
    OVER = "over"


# A member looked up on its enum class costs a metaclass lookup, several times a global's: the
# state compares with these module-level names (several times per decision).
_PASSING, _PLAYING, _OVER = Phase.PASS, Phase.PLAY, Phase.OVER


# --- Options -------------------------------------------------------------------------------------

DEFAULT_TARGET = 200


def _positive_or_none(_instance: object, attribute: attrs.Attribute, value: int | None) -> None:
    if value is not None and (not isinstance(value, int) or value < 1):
        raise OptionsError(f"{attribute.name} must be a positive whole number or none")


@attrs.frozen
class ChochlikOptions:
    """``target``: the game ends after the hand in which some total reaches it (``None``: no
    target); ``hands``: or after this many hands (``None``: no limit), whichever comes first."""

    players: int = attrs.field(default=3, metadata={"help": "seats at a table: 3 or 4"})
    target: int | None = attrs.field(
        default=DEFAULT_TARGET, validator=_positive_or_none,
        metadata={"help": "the game ends after the hand in which a total reaches this "
                          "(0 or none: no target)"})
    hands: int | None = attrs.field(
        default=None, validator=_positive_or_none,
        metadata={"help": "the game ends after this many hands (given alone: no target)"})

    @players.validator
    def _check_players(self, _attribute: attrs.Attribute, value: int) -> None:
        if value not in HAND_SIZE:
            raise OptionsError(f"chochlik is for 3 or 4 players, not {value!r}")

    def __attrs_post_init__(self) -> None:
        if self.target is None and self.hands is None:
            raise OptionsError("chochlik needs a target score, a number of hands, or both")


def _as_count(name: str, value: Any) -> int | None:
    if value is None or value == "none":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise OptionsError(f"{name} must be a whole number, not {value!r}") from None
    return None if number == 0 and name in ("target", "hands") else number


def parse_options(raw: Mapping[str, Any]) -> ChochlikOptions:
    """Options from a mapping; values may be strings.  ``target`` or ``hands`` of 0 or
    ``"none"`` switches that end condition off.  A number of hands given without a target
    means exactly that many hands (the default target applies only when ``target`` is given
    or ``hands`` is not)."""
    unknown = set(raw) - {"players", "target", "hands"}
    if unknown:
        raise OptionsError(f"unknown chochlik option(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {name: _as_count(name, value) for name, value in raw.items()}
    if values.get("hands") is not None and "target" not in values:
        values["target"] = None
    if "players" in values and values["players"] is None:
        raise OptionsError("players must be 3 or 4")
    return ChochlikOptions(**values)


# --- Observation ---------------------------------------------------------------------------------


@attrs.frozen(slots=False)
class ChochlikObservation:
    """Everything one seat may know now.  Cards are numbers; colours and coins are in the
    game's ``info`` (sent at game start) and in SPEC.md.

    Without slots, so that the engine can build one per decision in a single step
    (:func:`_observation`)."""

    seat: int
    phase: str
    hand_number: int
    dealer: int
    turn: int | None
    hand: tuple[int, ...]
    imp_card: int | None
    passed_left: int | None
    passed_right: int | None
    received_from_left: int | None
    received_from_right: int | None
    trick: tuple[tuple[int, int], ...]
    leader: int
    price: int
    bottle_owner: int | None
    played: tuple[int, ...]
    won: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    target: int | None
    hands: int | None


def _observation(fields: dict[str, Any]) -> ChochlikObservation:
    """An observation with these fields (every one of the class's), built without running
    ``__init__``: the fast path of :meth:`ChochlikState.observe`, taken once per decision.  The
    class has no validators or converters to skip, and as a frozen attrs class without slots it
    keeps its fields in its ``__dict__``, which is filled in one step here."""
    observation = object.__new__(ChochlikObservation)
    observation.__dict__.update(fields)
    return observation
