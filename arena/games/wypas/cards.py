"""Wypas's cards, pens and fleece scoring (pure functions, no game state).

The deck is data: ``deck.csv`` (beside this module), one row per kind of card with the columns
``kind, colour, value, copies``.  The per-colour card list of the published game is not
available; the file shipped is the placeholder of ``shared/rules/wypas.md`` §2.3 (yellow 1-3,
red 1-4, green 1-5, violet 1-6, a Dolly per colour, 4 Super Dollies, 5 thieves, 5 dogs, 5
wolves, 4 black sheep), which a real list can replace without code changes.  The ``baca`` and
``juhas`` rows are not shuffled into the play deck.

Card ids come from the file in order, one per copy: ``kind[-colour][-value]#copy``
(``sheep-red-3#0``, ``dolly-green#0``, ``super_dolly#2``, ``thief#4``).

A placed card is ``(card id, colour, value)``: a sheep its printed colour and value, a Dolly
its colour and the value declared for it, a Super Dolly both declared, a black sheep ``None``
and 0 (it counts as a card and is worth nothing).
"""

from __future__ import annotations

import csv
import enum
import io
from collections.abc import Sequence
from importlib import resources

import attrs

MAX_VALUE = 6  # no sheep, declared or printed, is worth more


class Kind(enum.IntEnum):
    SHEEP = 0
    DOLLY = 1
    SUPER_DOLLY = 2
    THIEF = 3
    DOG = 4
    WOLF = 5
    BLACK_SHEEP = 6


KIND_BY_NAME = {"sheep": Kind.SHEEP, "dolly": Kind.DOLLY, "super_dolly": Kind.SUPER_DOLLY,
                "thief": Kind.THIEF, "dog": Kind.DOG, "wolf": Kind.WOLF,
                "black_sheep": Kind.BLACK_SHEEP}
KIND_NAMES = {kind: name for name, kind in KIND_BY_NAME.items()}
#: Cards that are sheep (laid as bids, placed in pens); the others are special cards.
SHEEP_KINDS = frozenset((Kind.SHEEP, Kind.DOLLY, Kind.SUPER_DOLLY))
JOKERS = frozenset((Kind.DOLLY, Kind.SUPER_DOLLY))
#: Rows of the deck file that are not shuffled into the play deck.
NOT_IN_PLAY = ("baca", "juhas")


@attrs.frozen
class Card:
    id: str
    kind: Kind
    colour: str | None  # sheep and Dolly; None for the others
    value: int | None  # sheep only

    @property
    def is_sheep(self) -> bool:
        return self.kind in SHEEP_KINDS


def parse_deck(text: str) -> tuple[Card, ...]:
    """The play deck of a deck file; :class:`ValueError` names the row of anything wrong."""
    cards: list[Card] = []
    for number, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        try:
            name = row["kind"].strip()
            if name in NOT_IN_PLAY:
                continue
            kind = KIND_BY_NAME[name]
            colour = row["colour"].strip() or None
            value = int(row["value"]) if row["value"].strip() else None
            copies = int(row["copies"])
        except (KeyError, ValueError, AttributeError) as exc:
            raise ValueError(f"deck row {number}: {exc!r}") from None
        if kind is Kind.SHEEP and (colour is None or value is None
                                   or not 1 <= value <= MAX_VALUE):
            raise ValueError(f"deck row {number}: a sheep needs a colour and a value 1-6")
        if kind is Kind.DOLLY and colour is None:
            raise ValueError(f"deck row {number}: a Dolly needs a colour")
        stem = "-".join(str(part) for part in (name, colour, value) if part is not None)
        cards.extend(Card(f"{stem}#{copy}", kind, colour, value) for copy in range(copies))
    if len({card.id for card in cards}) != len(cards):
        raise ValueError("deck: two rows give the same card ids")
    return tuple(cards)


def load_deck() -> tuple[Card, ...]:
    text = resources.files("arena.games.wypas").joinpath("deck.csv").read_text("utf-8")
    return parse_deck(text)


def colours_of(cards: Sequence[Card]) -> tuple[str, ...]:
    """The sheep colours of a deck, in file order."""
    seen: dict[str, None] = {}
    for card in cards:
        if card.colour is not None:
            seen.setdefault(card.colour)
    return tuple(seen)


CARDS = load_deck()
CARD_IDS: tuple[str, ...] = tuple(card.id for card in CARDS)
INDEX = {card_id: i for i, card_id in enumerate(CARD_IDS)}
KIND = tuple(card.kind for card in CARDS)
IS_SHEEP = tuple(card.is_sheep for card in CARDS)
# by card index, for the engine's hot paths (Python 3.11 reads an enum member slowly)
IS_JOKER = tuple(card.kind in JOKERS for card in CARDS)
IS_SPECIAL = tuple(card.kind >= Kind.THIEF for card in CARDS)  # played in reaction windows
IS_DOG = tuple(card.kind is Kind.DOG for card in CARDS)
IS_THIEF = tuple(card.kind is Kind.THIEF for card in CARDS)
COLOURS = colours_of(CARDS)


# --- Pens ----------------------------------------------------------------------------------------

Placed = tuple[str, str | None, int]  # (card id, colour, value); a black sheep: (id, None, 0)


def fits(pen: Sequence[Placed], colour: str, value: int) -> bool:
    """May a sheep of this (declared) colour and value join the pen?  The "filler" model: a
    black sheep has no colour and no value, so only the other sheep decide the row's kind.

    - empty: anything;
    - one sheep: the next value of its colour, or its value in another colour;
    - a colour row (one colour, ascending by one): the next value of that colour;
    - a value row (one value, all colours different): that value in a colour not there yet.
    """
    if not 1 <= value <= MAX_VALUE:
        return False
    sheep = [(c, v) for _, c, v in pen if c is not None]
    if not sheep:
        return True
    first_colour, first_value = sheep[0]
    if len(sheep) == 1:
        return ((colour == first_colour and value == first_value + 1)
                or (value == first_value and colour != first_colour))
    if all(c == first_colour for c, _ in sheep):
        return colour == first_colour and value == max(v for _, v in sheep) + 1
    return value == first_value and all(c != colour for c, _ in sheep)


def sheep_in(pen: Sequence[Placed]) -> int:
    """Sheep in a pen other than black sheep (a wolf or a black sheep needs two of them)."""
    return len([placed for placed in pen if placed[1] is not None])  # quicker than a sum()


# --- Shearing ------------------------------------------------------------------------------------


@attrs.frozen
class Shearing:
    """One shorn pen: what the wolf ate, what went to the used pile, the fleece and its points
    (before any strict-bleating rule or end bonus)."""

    eaten: str | None
    discarded: tuple[str, ...]
    fleece: tuple[str, ...]  # empty when the pen was not a fleece (one card or none)
    points: int


def shear(pen: Sequence[Placed], wolf: bool) -> Shearing:
    """Score a pen ("Meeeedyikator"): a wolf first eats the highest sheep (not a black sheep;
    among equal values the first placed, which changes no score); then 1 card: used pile, not a
    fleece; 2 cards: the higher goes to the used pile and the lower scores its value; 3 or
    more: the sum, plus 1, 2, 3 for 4, 5, 6 cards (and n - 3 beyond)."""
    cards = list(pen)
    eaten = None
    if wolf:
        sheep = [placed for placed in cards if placed[1] is not None]
        if sheep:
            victim = max(sheep, key=lambda placed: placed[2])  # max keeps the first of equals
            cards.remove(victim)
            eaten = victim[0]
    if len(cards) <= 1:
        return Shearing(eaten, tuple(card for card, _, _ in cards), (), 0)
    if len(cards) == 2:
        # the higher card is discarded; of two equal values the first placed stays
        lower, higher = sorted(cards, key=lambda placed: placed[2])
        return Shearing(eaten, (higher[0],), (lower[0],), lower[2])
    points = sum(value for _, _, value in cards) + len(cards) - 3
    return Shearing(eaten, (), tuple(card for card, _, _ in cards), points)
