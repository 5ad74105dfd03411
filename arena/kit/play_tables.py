"""The ends of hands and games drawn as tables, a row per seat, as the game's drawing declares
them (chochlik's ``hand_end``, vollewolle's ``final_scoring``, wypas's ``game_over``).  Other
events stay one line (:func:`arena.games.render.describe_event`); :func:`describe` picks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.render import Table, describe_event, drawing_of

Data = Mapping[str, Any]


def describe(kind: str, data: Data, table: Table) -> str:
    """An event for a person: a table for the end of a hand or game, else one line (indented
    two spaces either way).  Data that does not fit the table's shape is shown as a line."""
    drawing = drawing_of(table.game)
    draw_table = drawing.tables.get(kind) if drawing is not None else None
    shown = draw_table(data, table) if draw_table else None
    return shown if shown is not None else "  " + describe_event(kind, data, table)
