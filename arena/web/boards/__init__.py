"""Each game's public view drawn as a board, for the replay and live pages.

A :class:`Board` folds a game's public events one at a time (:meth:`Board.step`) and says, after
each, what a person reads at a glance: a sentence for the step list (``seat 2 (beta) played
17♠(3)``) and the board as plain data (:func:`Board.view`) that ``static/viewer.js`` draws:

- ``panels``: titled rows of cards (the trick on the table, the display, the pens...) with a
  few lines of text under them;
- ``seats``: a table of one row per seat (score, cards won, flocks, bids...), each cell text or
  a row of cards.

The pages are sent each board as the parts that changed since the step before (a panel, a
seat's row, the title: :class:`Drawing`): a long game's replay is not its board a thousand
times over.

Each game's board is its own (:attr:`arena.games.base.GameSpec.board`, a subclass of
:class:`arena.games.board.Board`, in the game's package); a game without one gets the plain
board.  A card is ``{"label", "corner", "colour", "title"}``: its number or name, its small
figure (coins, points), a colour the page paints it with, and its full name (the games' own
names, ``arena.games.<game>.drawing``).  A board reads only the kinds of events the public is sent
(the kinds that go to one seat only are not in its ``KINDS``): fed a seat's or the full view's
events, it still draws the public view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games import GAMES
from arena.games.board import Board

__all__ = ["Board", "Drawing", "board_for", "parts"]


def board_for(game: str, names: Sequence[str], info: Mapping[str, Any]) -> Board:
    """The board of ``game`` (a plain one, each event as its fields, for a game without, or
    for a game this arena does not know)."""
    spec = GAMES.get(game)
    board: type[Board] = spec.board if spec is not None and spec.board is not None else Board
    return board(names, info)


def parts(view: Mapping[str, Any]) -> dict[str, Any]:
    """A board as its parts: ``title``, ``over``, ``columns``, ``current``, ``panels`` (their
    count) and ``panel<i>``, ``rows`` (their count) and ``row<i>``."""
    seats = view.get("seats") or {"columns": [], "rows": [], "current": None}
    flat = {"title": view.get("title"), "over": view.get("over"),
            "columns": seats["columns"], "current": seats["current"],
            "panels": len(view["panels"]), "rows": len(seats["rows"])}
    flat.update({f"panel{i}": panel for i, panel in enumerate(view["panels"])})
    flat.update({f"row{i}": row for i, row in enumerate(seats["rows"])})
    return flat


class Drawing:
    """A game's board, and its parts as last sent: each step's sentence and what changed."""

    def __init__(self, game: str, names: Sequence[str], info: Mapping[str, Any]) -> None:
        self.board = board_for(game, names, info)
        self.sent: dict[str, Any] = {}

    def changed(self) -> dict[str, Any]:
        now = parts(self.board.view())
        patch = {key: value for key, value in now.items() if self.sent.get(key) != value}
        self.sent = now
        return patch

    def step(self, step: Mapping[str, Any]) -> dict[str, Any]:
        """``{"text", "board"}`` of an event, the result or an abort (none of another step):
        the sentence and the board's changed parts."""
        kind = step.get("type")
        if kind == "event":
            text = self.board.step(str(step.get("kind")), step.get("data") or {})
        elif kind in ("result", "game_end") and not step.get("aborted"):
            text = self.board.result(step.get("scores"), step.get("ranks"))
        elif kind in ("aborted", "game_end"):
            text = self.board.aborted(step.get("reason") or step.get("aborted"))
        else:
            return {}
        return {"text": text, "board": self.changed()}
