"""Text drawings for people: what one seat observes, events and results.

Everything here works on the messages exactly as a bot receives them (the JSON of a request's
``observation``, an event's ``data``, ``game_end``) plus ``game_start``'s ``names`` and
``info`` (the card tables), so a person at the table (``arena play``) sees what a bot sees and
nothing more.  Drawings are forgiving: an unknown card or seat is shown as it came, never an
error, so a game that gains a field or a card still draws.

This is the frame; each game's own drawing is in its folder and its ``GameSpec`` names it
(:class:`arena.games.drawing.Drawing`).  A drawing shows every observation field except those
its ``left_out`` names (the tests check this on observations of random games); a game without a
drawing gets every field as ``name: value`` lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from arena.games import GAMES
from arena.games.drawing import CardName, Drawing, listed, named_cards
from arena.games.textgrid import fit, grid, name_width

Observation = Mapping[str, Any]


def drawing_of(game: str) -> Drawing | None:
    """The game's drawing, as its ``GameSpec`` declares it (None: no drawing, or no such
    game)."""
    spec = GAMES.get(game)
    return spec.drawing if spec is not None else None


def left_out(game: str) -> Mapping[str, str]:
    """Observation fields the game's drawing leaves out on purpose, each with the reason."""
    drawing = drawing_of(game)
    return drawing.left_out if drawing is not None else {}


#: Event fields that hold a seat number, shown as the seat's name.
SEAT_FIELDS = frozenset({
    "seat", "from", "to", "winner", "leader", "dealer", "bidder", "opener", "baca",
    "bottle_owner", "returned_to", "bluffer", "checker", "bone_from", "first"})
#: Event fields that hold a card or cards (lists, lists of lists), shown as the game names them.
CARD_FIELDS = frozenset({
    "card", "cards", "bottle_card", "imp_pile", "imp_piles", "returned_card", "display",
    "discarded", "fleece", "face_up", "eaten", "wolf", "black_sheep", "laid"})
#: Event fields that hold a value per seat, shown as ``name value`` pairs.
BY_SEAT_FIELDS = frozenset({
    "scores", "hand_scores", "won", "wool", "fleeces", "bids", "sheep_numbers", "totals"})


@attrs.frozen
class Table:
    """What a drawing needs besides the observation: the players' names by seat and the
    game's ``info`` from ``game_start``."""

    names: tuple[str, ...]
    info: Mapping[str, Any] = attrs.field(factory=dict)
    #: The game's name: cards in events are named as its drawings name them.
    game: str = ""

    def name(self, seat: Any) -> str:
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.names):
            return self.names[seat]
        return "nobody" if seat is None else f"seat {seat}"

    def by_seat(self, values: Sequence[Any], show: Callable[[Any], str] = str) -> str:
        return " · ".join(f"{self.name(seat)} {show(value)}" for seat, value in enumerate(values))

    def name_column(self) -> int:
        """The width of a column of the players' names (see :mod:`arena.games.textgrid`)."""
        return name_width(self.names)

    def seat_cell(self, seat: int) -> str:
        return fit(self.name(seat), self.name_column())

    def card_namer(self) -> CardName:
        drawing = drawing_of(self.game)
        return drawing.namer(self.info) if drawing is not None else str

    def cards(self, key: str) -> dict[Any, Mapping[str, Any]]:
        """``info.cards`` by id (``key`` names the id field)."""
        return {card.get(key): card for card in self.info.get("cards", ())
                if isinstance(card, Mapping)}

    def grid(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
        """Rows under a header, in columns (:func:`arena.games.textgrid.grid`)."""
        return grid(header, rows)


# --- any game ----------------------------------------------------------------------------------


def draw_fields(observation: Observation, table: Table) -> str:
    """Every field as ``name: value``: for a game without a drawing of its own."""
    return "\n".join(f"{key}: {json.dumps(value)}" for key, value in observation.items())


def draw(game: str, observation: Observation, table: Table) -> str:
    """What the seat observes, drawn for a person (see :func:`left_out`)."""
    drawing = drawing_of(game)
    return (drawing.observation if drawing is not None else draw_fields)(observation, table)


def _value(key: str, value: Any, table: Table) -> str:
    if key in SEAT_FIELDS and (value is None or isinstance(value, int)):
        return table.name(value)
    if key in CARD_FIELDS and not isinstance(value, bool):
        return named_cards(value, table.card_namer())
    if key in BY_SEAT_FIELDS and isinstance(value, list) and len(value) == len(table.names):
        return table.by_seat(value, lambda v: json.dumps(v, separators=(",", ":")))
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def describe_event(kind: str, data: Mapping[str, Any], table: Table) -> str:
    """One short line: ``bob: card played: card 17♠(3)`` (fields that are null are left
    out; cards named as the game's drawings name them)."""
    actor = f"{table.name(data['seat'])}: " if isinstance(data.get("seat"), int) else ""
    details = ", ".join(f"{key.replace('_', ' ')} {_value(key, value, table)}"
                        for key, value in data.items() if key != "seat" and value is not None)
    return f"{actor}{kind.replace('_', ' ')}" + (f": {details}" if details else "")


def describe_result(game_end: Mapping[str, Any], table: Table) -> str:
    """The result of a ``game_end`` as a table (each seat's score and rank), the winners and
    what the game revealed at its end."""
    if game_end.get("aborted"):
        return f"the game was aborted ({game_end['aborted']})"
    scores, ranks = game_end.get("scores") or [], game_end.get("ranks") or []
    winners = set(game_end.get("winners") or ())
    rows = [[table.name(seat), str(score), str(rank), "won" if seat in winners else ""]
            for seat, (score, rank) in enumerate(zip(scores, ranks))]
    lines = ["result:", grid(["player", "score", "rank", ""], rows),
             f"won by {listed(sorted(winners), table.name)}"]
    reveal = game_end.get("reveal")
    for key, value in (reveal.items() if isinstance(reveal, Mapping) else ()):
        lines.append(f"revealed: {key.replace('_', ' ')}: "
                     + named_cards(value, table.card_namer()))
    return "\n".join(lines)
