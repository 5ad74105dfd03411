"""The boards' common part: the base :class:`Board`, cards and the seats' table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Card = dict[str, Any]


def card(label: Any, *, corner: Any = None, colour: str = "plain", title: str = "",
         caption: str | None = None, ident: Any = None) -> Card:
    """A card drawn: ``ident`` is the game's id of the card (None for what is no card of the
    game: a die, the bottle, a card face down)."""
    shown: Card = {"label": str(label), "corner": None if corner is None else str(corner),
                   "colour": colour, "title": title or str(label), "id": ident}
    if caption is not None:
        shown["caption"] = caption
    return shown


def fields(data: Mapping[str, Any]) -> str:
    return " ".join(f"{key}={value}" for key, value in data.items())


class Board:
    """A game's public view so far (this base class: no board, each event as its fields)."""

    #: The kinds of public events the board reads.
    KINDS: frozenset[str] = frozenset()
    #: The observation's fields that hold the seat's own cards (a card id, or a list of ids),
    #: each with its title: the play page draws them as cards beside the public board.
    OWN_CARDS: Mapping[str, str] = {}

    def __init__(self, names: Sequence[str], info: Mapping[str, Any]) -> None:
        self.names = list(names)
        self.info = info
        self.scores: list[Any] | None = None
        self.over: str | None = None

    def seat(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return f"seat {seat} ({self.names[seat]})"
        return f"seat {seat}"

    def name(self, seat: Any) -> str:
        """The short name (``beta``) of a seat."""
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def step(self, kind: str, data: Mapping[str, Any]) -> str:
        """Take one public event: the step list's sentence for it."""
        if kind not in self.KINDS:
            return f"{kind} {fields(data)}".strip()
        return self.take(kind, data) or f"{kind} {fields(data)}".strip()

    def take(self, kind: str, data: Mapping[str, Any]) -> str | None:
        return None

    def result(self, scores: Sequence[Any] | None, ranks: Sequence[Any] | None) -> str:
        self.scores = list(scores) if scores is not None else None
        self.over = "the game is over"
        if not scores:
            return "the game is over"
        best = max(scores)
        winners = [self.name(s) for s, score in enumerate(scores) if score == best]
        return f"the game is over: {' and '.join(winners)} won with {best}"

    def aborted(self, reason: Any) -> str:
        self.over = f"aborted: {reason}"
        return self.over

    def view(self) -> dict[str, Any]:
        return {"panels": [], "seats": None, "over": self.over}

    def face(self, ident: Any) -> Card:
        """A card of the game drawn (this base class: its id)."""
        return card(ident, ident=ident)

    def own_cards(self, observation: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The seat's own cards (:attr:`OWN_CARDS`) as panels, as ``view`` draws its own."""
        panels = []
        for field, title in self.OWN_CARDS.items():
            value = observation.get(field)
            ids = value if isinstance(value, list) else [] if value is None else [value]
            panels.append({"title": title, "cards": [self.face(ident) for ident in ids],
                           "lines": [] if ids else ["none"]})
        return panels

    def seats_table(self, columns: Sequence[str], cells: Sequence[Sequence[Any]],
                    current: int | None = None) -> dict[str, Any]:
        """The seats' table: a row per seat, its name first."""
        return {"columns": ["seat", *columns], "current": current,
                "rows": [[self.seat(s), *cells[s]] for s in range(len(self.names))]}
