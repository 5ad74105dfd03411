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
    #: The fields of a seat's observation that hold the game's card ids, drawn as cards on a
    #: seat's view of a replay (:meth:`observed`): a list of ids, or one list per seat.
    CARD_FIELDS: tuple[str, ...] = ()
    #: The observation's fields that hold the seat's own cards (a card id, or a list of ids),
    #: each with its title: the play page draws them as cards beside the public board.
    OWN_CARDS: Mapping[str, str] = {}

    def __init__(self, names: Sequence[str], info: Mapping[str, Any]) -> None:
        self.names = list(names)
        self.info = info
        #: The game's cards by id, from its ``info`` (a game's board fills it).
        self.cards: dict[Any, Mapping[str, Any]] = {}
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

    def face(self, ident: Any) -> Card:
        """A card of the game drawn (a game's board colours it)."""
        return card(ident, ident=ident)

    def observed(self, observation: Mapping[str, Any]) -> dict[str, Any]:
        """The :attr:`CARD_FIELDS` of a seat's observation drawn: a list of ids as
        ``{"cards": [...]}``, one list per seat as ``{"pens": [{"label", "cards"}]}`` (each
        seat's short name); a field missing or of another shape is left out (shown as text)."""
        shown: dict[str, Any] = {}
        for field in self.CARD_FIELDS:
            value = observation.get(field)
            if not isinstance(value, list):
                continue
            if value and all(isinstance(v, list) for v in value):
                shown[field] = {"pens": [{"label": self.name(s), "cards": [
                    self.face(c) for c in cards]} for s, cards in enumerate(value)]}
            elif not any(isinstance(v, (list, dict)) for v in value):
                shown[field] = {"cards": [self.face(c) for c in value]}
        return shown

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
