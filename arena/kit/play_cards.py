"""Cards as a person reads them: a short name for a card id, the choices labelled with what
their card is, and a legend that says what the codes and numbers mean, each as the game's
drawing declares it (its ``GameSpec.drawing``, in the game's folder).

Everything works on what a seat receives (``game_start``'s ``info``), like
:mod:`arena.games.render`, and forgives what it does not know: an unknown card id, or a game
without a drawing, is shown as it came.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.drawing import CardName
from arena.games.render import drawing_of


def namer(game: str, info: Mapping[str, Any]) -> CardName:
    """How ``game`` names a card; for a game without a drawing, the card as it came."""
    drawing = drawing_of(game)
    return drawing.namer(info) if drawing is not None else str


def label(game: str, info: Mapping[str, Any], token: str) -> str:
    """A legal action as the list shows it: chochlik ``play 4`` is ``play 4♠(1)`` and vollewolle
    ``take s07`` is ``take s07(white 1 +2)`` (the card's colour and worth beside its code);
    wypas ids say their colour already and stay as they are."""
    drawing = drawing_of(game)
    return drawing.label(info, token) if drawing is not None else token


def labels(game: str, info: Mapping[str, Any], legal: Sequence[str]) -> list[str]:
    return [label(game, info, token) for token in legal]


def legend(game: str) -> str:
    """What a person needs to read the game's drawings and choices ("" for a game without)."""
    drawing = drawing_of(game)
    return drawing.legend if drawing is not None else ""
