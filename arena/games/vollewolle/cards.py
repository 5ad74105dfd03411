"""Volle Wolle's cards and final scoring (pure functions, no game state).

The deck is data: ``deck.csv`` (beside this module), one row per card with the columns ``id, kind,
points, modifier, bone_symbol, sheep_number``.  The real card list of the published game is not
available; the file shipped is a placeholder (``shared/rules/vollewolle.md`` §3.4) that a real
list can replace without code changes, as long as it keeps one ``bone`` card and gives every
sheep card a sheep number.
"""

from __future__ import annotations

import csv
import enum
import io
from collections.abc import Sequence
from importlib import resources

import attrs


class Kind(enum.IntEnum):
    WHITE = 0
    BLACK = 1
    TRIO_370 = 2
    TRIO_007 = 3
    DOG = 4
    BONE = 5


KIND_BY_NAME = {"white": Kind.WHITE, "black": Kind.BLACK, "3-7-0": Kind.TRIO_370,
                "0-0-7": Kind.TRIO_007, "dog": Kind.DOG, "bone": Kind.BONE}
KIND_NAMES = {kind: name for name, kind in KIND_BY_NAME.items()}
_WHITE, _BLACK, _TRIO_370, _TRIO_007 = Kind.WHITE, Kind.BLACK, Kind.TRIO_370, Kind.TRIO_007
#: Kinds that go onto the flock (the others lie beside it).
SHEEP_KINDS = frozenset((Kind.WHITE, Kind.BLACK, Kind.TRIO_370, Kind.TRIO_007))

#: Points for 0, 1 or 2 cards of the 3-7-0 kind beyond the last complete trio (a trio is 0).
TRIO_370_POINTS = (0, 3, 14)
#: Points per complete trio of 0-0-7 cards (one or two spare cards are worth 0).
TRIO_007_POINTS = 21
ONE_DOG_POINTS = 9
MOST_DOGS_PENALTY = -5
BONE_POINTS_PER_DOG = 4
#: Sheep returned to the box by a player without a dog.
RETURNED_WITHOUT_DOG = 2


@attrs.frozen
class Card:
    id: str
    kind: Kind
    points: int
    modifier: int  # + bonus (optional) / - malus (mandatory) on the roll, 0 none
    bone_symbol: bool
    sheep_number: int | None  # breaks ties between equal bids; None for dogs and the bone

    @property
    def is_sheep(self) -> bool:
        return self.kind in SHEEP_KINDS


def parse_deck(text: str) -> tuple[Card, ...]:
    """The cards of a deck file; :class:`ValueError` names the row of anything wrong."""
    cards = []
    rows = csv.DictReader(io.StringIO(text))
    for number, row in enumerate(rows, start=2):
        try:
            kind = KIND_BY_NAME[row["kind"].strip()]
            sheep_number = row["sheep_number"].strip()
            card = Card(row["id"].strip(), kind, int(row["points"]), int(row["modifier"]),
                        row["bone_symbol"].strip() == "1",
                        int(sheep_number) if sheep_number else None)
        except (KeyError, ValueError, AttributeError) as exc:
            raise ValueError(f"deck row {number}: {exc!r}") from None
        if card.is_sheep and card.sheep_number is None:
            raise ValueError(f"deck row {number}: sheep card {card.id} has no sheep number")
        cards.append(card)
    ids = [card.id for card in cards]
    if len(set(ids)) != len(ids) or not all(ids) or any(" " in i for i in ids):
        raise ValueError("deck: card ids must be unique, non-empty, without spaces")
    if sum(card.kind is Kind.BONE for card in cards) != 1:
        raise ValueError("deck: there must be exactly one bone card")
    return tuple(cards)


def load_deck() -> tuple[Card, ...]:
    text = resources.files("arena.games.vollewolle").joinpath("deck.csv").read_text("utf-8")
    return parse_deck(text)


@attrs.frozen
class Scoring:
    """One player's final score, line by line (as the ``final_scoring`` event shows it)."""

    white: int
    black: int
    trio_370: int
    trio_007: int
    dogs: int
    most_dogs: int
    bone: int
    wool: int
    returned: tuple[str, ...]  # sheep returned to the box for having no dog

    @property
    def total(self) -> int:
        return (self.white + self.black + self.trio_370 + self.trio_007 + self.dogs
                + self.most_dogs + self.bone + self.wool)


def score_player(flock: Sequence[Card], dogs: int, has_bone: bool, wool: int,
                 most_dogs: bool) -> Scoring:
    """Final scoring of one player (``most_dogs``: no other player has more dogs, and this one
    has at least one).  Without a dog, the two white sheep worth least are returned to the box:
    the owner's choice in the rules, and returning the cheapest is always the best choice."""
    whites: list[Card] = []
    black = count_370 = count_007 = 0
    for card in flock:  # one pass, kinds compared with module names (enum lookups are slow)
        kind = card.kind
        if kind is _WHITE:
            whites.append(card)
        elif kind is _BLACK:
            black += card.points
        elif kind is _TRIO_370:
            count_370 += 1
        elif kind is _TRIO_007:
            count_007 += 1
    whites.sort(key=_white_order)
    returned = whites[:RETURNED_WITHOUT_DOG] if dogs == 0 else []
    return Scoring(
        white=sum(card.points for card in whites[len(returned):]),
        black=black,
        trio_370=TRIO_370_POINTS[count_370 % 3],
        trio_007=TRIO_007_POINTS * (count_007 // 3),
        dogs=ONE_DOG_POINTS if dogs == 1 else 0,
        most_dogs=MOST_DOGS_PENALTY if most_dogs else 0,
        bone=BONE_POINTS_PER_DOG * dogs if has_bone else 0,
        wool=wool,
        returned=tuple(card.id for card in returned),
    )


def _white_order(card: Card) -> tuple[int, str]:
    """Cheapest first; equal points by id."""
    return card.points, card.id


def score_table(flocks: Sequence[Sequence[Card]], dogs: Sequence[int], bone_holder: int | None,
                wool: Sequence[int]) -> list[Scoring]:
    """Every player's final scoring; every player tied for the most dogs loses 5."""
    most = max(dogs)
    return [score_player(flock, dogs[seat], bone_holder == seat, wool[seat],
                         most > 0 and dogs[seat] == most)
            for seat, flock in enumerate(flocks)]
