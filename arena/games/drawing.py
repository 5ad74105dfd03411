"""What a game declares so that ``arena play`` can draw it for a person (its ``GameSpec``'s
``drawing``): the observation drawn, cards named, choices labelled, a legend, the ends of hands
and games as tables.  The frame (:mod:`arena.games.render`: below both ``arena play`` in the
terminal and the pages' play page, which draw alike) asks the spec; each game's own drawing
lives in its folder (``<game>/drawing.py``).

Everything works on what a seat receives (the JSON of an observation, an event's ``data``,
``game_start``'s ``info``) and forgives what it does not know: an unknown card id or seat is
shown as it came.  The helpers here are plain text, shared by the games' drawings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs

Observation = Mapping[str, Any]
Data = Mapping[str, Any]
#: How a game names a card id for a person (``17♠(3)``).
CardName = Callable[[Any], str]


class TableView(Protocol):
    """What a drawing gets besides the observation: the players' names by seat, the game's
    ``info`` (:class:`arena.games.render.Table` is one)."""

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def info(self) -> Mapping[str, Any]: ...

    def name(self, seat: Any) -> str: ...

    def by_seat(self, values: Sequence[Any], show: Callable[[Any], str] = str) -> str: ...

    def name_column(self) -> int: ...

    def seat_cell(self, seat: int) -> str: ...

    def card_namer(self) -> CardName: ...

    def cards(self, key: str) -> dict[Any, Mapping[str, Any]]: ...

    def grid(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str: ...


def _no_label(_info: Mapping[str, Any], token: str) -> str:
    return token


def _no_namer(_info: Mapping[str, Any]) -> CardName:
    return str


@attrs.frozen
class Drawing:
    """A game's drawing for people.  ``observation(o, table)`` draws what a seat observes and
    shows every field except those in ``left_out`` (each with its reason; a test checks);
    ``namer(info)`` names cards; ``label(info, token)`` shows a legal action with its card;
    ``legend`` says what the codes mean; ``tables`` draws events (the end of a hand or game) as
    tables, by event kind, returning None for data of another shape (then a line is shown)."""

    observation: Callable[[Observation, TableView], str]
    namer: Callable[[Mapping[str, Any]], CardName] = _no_namer
    label: Callable[[Mapping[str, Any], str], str] = _no_label
    legend: str = ""
    left_out: Mapping[str, str] = attrs.field(factory=dict)
    tables: Mapping[str, Callable[[Data, TableView], str | None]] = attrs.field(factory=dict)


def by_id(info: Mapping[str, Any], key: str) -> dict[Any, Mapping[str, Any]]:
    """``info.cards`` by id (``key`` names the id field)."""
    return {card.get(key): card for card in info.get("cards", ()) if isinstance(card, Mapping)}


def signed(number: Any) -> str:
    if isinstance(number, int) and not isinstance(number, bool):
        return f"{number:+d}"
    return str(number)


def listed(items: Sequence[Any], show: Callable[[Any], str] = str, empty: str = "—") -> str:
    return ", ".join(show(item) for item in items) if items else empty


def you(observation: Observation, table: TableView) -> str:
    seat = observation.get("seat")
    return f"you: {table.name(seat)} (seat {seat})"


def per_seat(data: Data, key: str, table: TableView) -> list[Any] | None:
    value = data.get(key)
    return value if isinstance(value, list) and len(value) == len(table.names) else None


def named_cards(value: Any, card: CardName) -> str:
    """A card, or a list (of lists) of cards, as the game names them: ``4♠(1) 9♦(3)``."""
    if isinstance(value, list):
        inner = [named_cards(item, card) for item in value]
        return "[" + " ".join(inner) + "]" if any(isinstance(i, list) for i in value) else (
            " ".join(inner) or "—")
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return card(value)
    return json.dumps(value)


def card_label(token: str, name: CardName, verbs: frozenset[str], numbers: bool = False) -> str:
    """``play 4`` as ``play 4♠(1)``: a one-word argument of one of ``verbs`` named as a card
    (read as a number when ``numbers``); any other token stays as it is."""
    verb, _, rest = token.partition(" ")
    if not rest or " " in rest:
        return token
    argument: Any = int(rest) if numbers and rest.isdigit() else rest
    if verb not in verbs:
        return token
    return f"{verb} {name(argument)}"
