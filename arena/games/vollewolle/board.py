"""vollewolle's board: the display of cards, the dice of the last roll, and each seat's flock
(the cards it took: white and black sheep, the 3-7-0 and 0-0-7, dogs, the bone), wool and bid
as the public sees them (the bids once revealed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.board import Board, Card, card
from arena.games.drawing import by_id
from arena.games.vollewolle.drawing import namer

DICE = ("d12", "d10", "d8")


class VolleWolleBoard(Board):
    KINDS = frozenset({"round_start", "bids_revealed", "rolled", "failed", "succeeded", "took",
                       "round_end", "final_scoring"})

    def __init__(self, names: Sequence[str], info: Mapping[str, Any]) -> None:
        super().__init__(names, info)
        self.cards = by_id(info, "id")
        self.named = namer(info)
        n = len(names)
        self.round: Any = None
        self.display: list[Any] = []
        self.deck_left: Any = None
        self.roll: Mapping[str, Any] | None = None
        self.outcome: str | None = None
        self.flocks: list[list[Any]] = [[] for _ in range(n)]
        self.wool: list[Any] = [0] * n
        self.bids: list[Any] = [None] * n
        self.turn: int | None = None
        self.totals: list[Any] | None = None

    def face(self, card_id: Any) -> Card:
        known = self.cards.get(card_id) or {}
        kind = str(known.get("kind", "plain"))
        if kind == "white":
            corner: Any = known.get("points")
            if known.get("modifier"):
                corner = f"{corner} {int(known['modifier']):+d}"
        elif kind == "black":
            corner = known.get("points")
        else:
            corner = None
        colour = {"white": "wool", "black": "black", "dog": "dog", "bone": "bone"}.get(
            kind, "special")
        return card(card_id, corner=corner, colour=colour, title=self.named(card_id),
                    ident=card_id)

    def take(self, kind: str, d: Mapping[str, Any]) -> str | None:
        seat = d.get("seat")
        if kind == "round_start":
            self.round, self.display = d.get("round"), list(d.get("display") or [])
            self.deck_left, self.roll, self.outcome = d.get("deck_left"), None, None
            self.bids = [None] * len(self.names)
            return (f"round {d.get('round')}: {len(self.display)} cards on display "
                    f"({d.get('deck_left')} left in the deck); the seats bid")
        if kind == "bids_revealed":
            self.bids = list(d.get("bids") or self.bids)
            order = list(d.get("order") or [])
            self.turn = order[0] if order else None
            bids = ", ".join(f"{self.name(s)} {b}" for s, b in enumerate(self.bids))
            paid = list(d.get("paid") or [])
            return (f"the bids: {bids}" + (f"; {', '.join(map(self.name, paid))} paid wool"
                                           if paid else "")
                    + (f"; {self.name(order[0])} rolls first" if order else ""))
        if kind == "rolled":
            self.roll, self.turn, self.outcome = d, seat, None
            dice = ", ".join(f"{die}: {face}" for die, face in zip(DICE, d.get("dice") or ()))
            return (f"{self.seat(seat)} rolled {dice} (attempt {d.get('attempt')}): "
                    f"total {d.get('total')}")
        if kind == "failed":
            self.outcome = f"{self.name(seat)} failed with {d.get('total')}"
            return (f"{self.name(seat)} missed the bid with {d.get('total')}"
                    + (": a black sheep" if d.get("black_sheep") else "")
                    + " and takes a wool chip")
        if kind == "succeeded":
            self.outcome = f"{self.name(seat)} made it with {d.get('total')}"
            return (f"{self.name(seat)} reached the bid with {d.get('total')} and takes "
                    f"{d.get('cards')} card(s)")
        if kind == "took":
            taken = d.get("card")
            if taken in self.display:
                self.display.remove(taken)
            if isinstance(seat, int) and 0 <= seat < len(self.flocks):
                self.flocks[seat].append(taken)
            bone = d.get("bone_from")
            return (f"{self.name(seat)} took {self.named(taken)}"
                    + (f" (the bone comes from {self.name(bone)})" if bone is not None else ""))
        if kind == "round_end":
            self.wool = list(d.get("wool") or self.wool)
            self.turn = None
            return f"round {d.get('round')} is over; wool " + ", ".join(
                f"{self.name(s)} {w}" for s, w in enumerate(self.wool))
        if kind == "final_scoring":
            self.totals = [s.get("total") if isinstance(s, Mapping) else s
                           for s in d.get("scores") or []]
            return "the final scoring: " + ", ".join(
                f"{self.name(s)} {t}" for s, t in enumerate(self.totals))
        return None

    def dogs(self, seat: int) -> int:
        return sum((self.cards.get(c) or {}).get("kind") == "dog" for c in self.flocks[seat])

    def points(self, seat: int) -> int:
        return sum(int((self.cards.get(c) or {}).get("points") or 0) for c in self.flocks[seat])

    def view(self) -> dict[str, Any]:
        panels: list[dict[str, Any]] = [{
            "title": "the display", "cards": [self.face(c) for c in self.display],
            "lines": [f"{self.deck_left} cards left in the deck"]
            if self.deck_left is not None else []}]
        if self.roll is not None:
            dice = [card(face, corner=die, colour="die", title=f"{die} shows {face}")
                    for die, face in zip(DICE, self.roll.get("dice") or ())]
            panels.append({"title": f"{self.name(self.roll.get('seat'))}'s dice, attempt "
                                    f"{self.roll.get('attempt')}",
                           "cards": dice,
                           "lines": [f"total {self.roll.get('total')}"
                                     + (f" (modifier {self.roll.get('modifier')})"
                                        if self.roll.get("modifier") else ""),
                                     *([self.outcome] if self.outcome else [])]})
        cells = []
        for s in range(len(self.names)):
            cells.append([{"cards": [self.face(c) for c in self.flocks[s]]},
                          str(self.points(s)), str(self.dogs(s)), str(self.wool[s]),
                          "—" if self.bids[s] is None else str(self.bids[s]),
                          "" if self.totals is None or s >= len(self.totals)
                          else str(self.totals[s])])
        title = f"round {self.round}" if self.round is not None else "before the first round"
        return {"title": title, "panels": panels, "over": self.over,
                "seats": self.seats_table(["flock", "sheep points", "dogs", "wool", "bid",
                                           "final score"], cells, self.turn)}
