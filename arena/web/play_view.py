"""What the play page adds to each line the person's seat is sent, so that the browser draws it
for a person (pure: a message in, the same message with more fields out).

The protocol's own fields are left as they are (the page speaks the protocol with them); the
additions are drawings of what the seat was sent and nothing else:

- ``event``: ``text``, the step's sentence, and for the kinds the public is sent ``board``, the
  public board's changed parts (:class:`arena.web.boards.Drawing`, drawn by ``viewer.js``);
- ``request`` (and an ``error`` that asks again): ``drawn``, the seat's observation drawn as
  ``arena play`` draws it (the game's own drawing: cards by their names), ``own``, the seat's
  own cards drawn as cards (panels, as the board's: ``Board.own_cards``), ``labels``, each
  legal action labelled with its card;
- ``game_start``: ``legend``, what the codes mean, and ``board``, the board as it starts;
- ``game_end``: ``text`` and ``board`` as for an event, and ``table``, the result as rows
  (name, score, rank, won).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games import GAMES
from arena.games.render import Table, describe_event, draw
from arena.web.boards import Drawing


class SeatView:
    """One seat's messages annotated, from ``game_start`` on."""

    def __init__(self, game: str) -> None:
        self.game = game
        spec = GAMES.get(game)
        self.drawing = spec.drawing if spec is not None else None
        self.table = Table((), {}, game)
        self.board: Drawing | None = None

    def label(self, token: str) -> str:
        return self.drawing.label(self.table.info, token) if self.drawing is not None else token

    def annotate(self, message: dict[str, Any]) -> dict[str, Any]:
        kind = message.get("type")
        if kind == "game_start":
            names, info = tuple(message.get("names") or ()), message.get("info") or {}
            self.table = Table(names, info, self.game)
            self.board = Drawing(self.game, names, info)
            message["board"] = self.board.changed()  # the board as it starts
            message["legend"] = self.drawing.legend if self.drawing is not None else ""
        elif kind == "event":
            message.update(self._event(str(message.get("kind")), message.get("data") or {},
                                       message))
        elif kind in ("request", "error") and isinstance(message.get("legal"), list):
            message["labels"] = [self.label(str(token)) for token in message["legal"]]
            if isinstance(message.get("observation"), Mapping):
                message["drawn"] = draw(self.game, message["observation"], self.table)
                if self.board is not None:
                    message["own"] = self.board.board.own_cards(message["observation"])
        elif kind == "game_end":
            if self.board is not None:
                message.update(self.board.step(message))
            message["table"] = result_rows(message, self.table)
        return message

    def _event(self, kind: str, data: Mapping[str, Any],
               message: Mapping[str, Any]) -> dict[str, Any]:
        if self.board is not None and kind in self.board.board.KINDS:
            return self.board.step(message)
        return {"text": describe_event(kind, data, self.table)}


def result_rows(game_end: Mapping[str, Any], table: Table) -> list[list[Any]]:
    """The end's table: a row per seat, ``[name, score, rank, "won" or ""]`` (none when the
    game was aborted)."""
    if game_end.get("aborted"):
        return []
    winners = set(game_end.get("winners") or ())
    return [[table.name(seat), score, rank, "won" if seat in winners else ""]
            for seat, (score, rank) in enumerate(zip(game_end.get("scores") or [],
                                                     game_end.get("ranks") or []))]
