"""The toy's board for the pages: the cards of the last reveal, each seat's stake and score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.board import Board, card


class ToyBoard(Board):
    KINDS = frozenset({"revealed"})
    OWN_CARDS = {"card": "your card"}

    def __init__(self, names: Sequence[str], info: Mapping[str, Any]) -> None:
        super().__init__(names, info)
        self.shown: list[Any] = []
        self.stakes: list[Any] = [""] * len(names)
        self.scores: list[Any] = [0] * len(names)
        self.rounds = 0

    def take(self, kind: str, d: Mapping[str, Any]) -> str | None:
        self.rounds += 1
        self.shown, self.stakes = list(d.get("cards") or []), list(d.get("stakes") or [])
        winner = d.get("winner")
        for seat, stake in enumerate(self.stakes):
            if isinstance(stake, int) and seat < len(self.scores):
                self.scores[seat] += (sum(self.stakes) - stake) if seat == winner else -stake
        return f"the cards are shown: {self.name(winner)} has the highest"

    def view(self) -> dict[str, Any]:
        cards = [card(c, caption=self.name(s), ident=c) for s, c in enumerate(self.shown)]
        panel = {"title": f"round {self.rounds} shown" if self.shown else "no card shown yet",
                 "cards": cards, "lines": []}
        cells = [[str(self.scores[s]), str(self.stakes[s]) if s < len(self.stakes) else ""]
                 for s in range(len(self.names))]
        return {"title": f"after {self.rounds} round(s)", "panels": [panel], "over": self.over,
                "seats": self.seats_table(["score", "last stake"], cells)}
