"""chochlik's board: the trick on the table (cards coloured, with number and coins), the
bottle with its price and holder, each seat's score and the cards and coins it won this hand;
the imp's pile once a hand is over."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.board import Board, Card, card
from arena.games.chochlik.drawing import namer
from arena.games.drawing import by_id


class ChochlikBoard(Board):
    KINDS = frozenset({"hand_start", "play_start", "card_played", "trick_won", "hand_end"})
    CARD_FIELDS = ("hand", "won")
    OWN_CARDS = {"hand": "your hand"}

    def __init__(self, names: Sequence[str], info: Mapping[str, Any]) -> None:
        super().__init__(names, info)
        self.cards = by_id(info, "card")
        self.named = namer(info)
        n = len(names)
        self.hand: Any = None
        self.price: Any = info.get("start_price")
        self.holder: int | None = None
        self.trick: list[tuple[Any, Any]] = []
        self.last: tuple[Any, list[Any]] | None = None
        self.won: list[list[Any]] = [[] for _ in range(n)]
        self.total: list[Any] = [0] * n
        self.pile: list[Any] | None = None
        self.turn: int | None = None

    def face(self, number: Any, who: int | None = None) -> Card:
        known = self.cards.get(number) or {}
        return card(number, corner=known.get("coins"), colour=str(known.get("colour", "plain")),
                    title=self.named(number),
                    caption=None if who is None else self.name(who), ident=number)

    def coins(self, numbers: Sequence[Any]) -> int:
        return sum(int((self.cards.get(n) or {}).get("coins", 0)) for n in numbers)

    def take(self, kind: str, d: Mapping[str, Any]) -> str | None:
        n = len(self.names)
        if kind == "hand_start":
            self.hand, self.holder, self.trick, self.last, self.pile = (
                d.get("hand"), None, [], None, None)
            self.won = [[] for _ in range(n)]
            self.price = self.info.get("start_price")
            self.turn = None
            return (f"hand {d.get('hand')}: {self.name(d.get('dealer'))} deals, "
                    f"{self.name(d.get('leader'))} will lead; the cards are passed")
        if kind == "play_start":
            self.price, self.turn = d.get("price"), d.get("leader")
            return (f"the passes are made: {self.name(d.get('leader'))} leads, "
                    f"the bottle costs {d.get('price')}")
        if kind == "card_played":
            seat = d.get("seat")
            if not self.trick:
                self.last = None
            self.trick.append((seat, d.get("card")))
            self.turn = (seat + 1) % n if isinstance(seat, int) and n else None
            return f"{self.seat(seat)} played {self.named(d.get('card'))}"
        if kind == "trick_won":
            seat = d.get("seat")
            cards = list(d.get("cards") or [])
            if isinstance(seat, int) and 0 <= seat < n:
                self.won[seat].extend(cards)
            self.last, self.trick, self.turn = (seat, cards), [], seat
            text = f"{self.name(seat)} won the trick with {self.named(d.get('card'))}"
            if d.get("bottle"):
                self.holder, self.price = seat, d.get("price")
                text += f" and takes the bottle: its price is now {d.get('price')}"
            if d.get("returned_card") is not None:
                text += (f"; {self.named(d.get('returned_card'))} goes back to "
                         f"{self.name(d.get('returned_to'))}")
            return text
        if kind == "hand_end":
            self.holder, self.pile = d.get("bottle_owner"), list(d.get("imp_pile") or [])
            self.won = [list(w) for w in d.get("won") or self.won]
            self.total = list(d.get("scores") or self.total)
            self.turn = None
            scores = ", ".join(f"{self.name(s)} {v}" for s, v in enumerate(self.total))
            return (f"hand {d.get('hand')} is over: the bottle ends with "
                    f"{self.name(self.holder)} (the imp's pile: {d.get('imp_coins')} coins); "
                    f"scores {scores}")
        return None

    def view(self) -> dict[str, Any]:
        bottle = card(self.price if self.price is not None else "?", colour="bottle",
                      title=f"the bottle, price {self.price}",
                      caption=self.name(self.holder) if self.holder is not None else "nobody")
        if self.trick:
            trick = {"title": "the trick on the table",
                     "cards": [self.face(c, s) for s, c in self.trick], "lines": []}
        elif self.last is not None:
            trick = {"title": f"the last trick, won by {self.name(self.last[0])}",
                     "cards": [self.face(c) for c in self.last[1]], "lines": []}
        else:
            trick = {"title": "the trick on the table", "cards": [], "lines": ["no card yet"]}
        panels = [{"title": "the bottle", "cards": [bottle],
                   "lines": [f"price {self.price}", "held by " + (
                       self.name(self.holder) if self.holder is not None else "nobody yet")]},
                  trick]
        if self.pile is not None:
            panels.append({"title": "the imp's pile", "cards": [self.face(c) for c in self.pile],
                           "lines": [f"{self.coins(self.pile)} coins"]})
        cells = [[str(self.total[s]), str(len(self.won[s])), str(self.coins(self.won[s])),
                  "the bottle" if s == self.holder else ""] for s in range(len(self.names))]
        title = f"hand {self.hand}" if self.hand is not None else "before the deal"
        return {"title": title, "panels": panels, "over": self.over,
                "seats": self.seats_table(["score", "cards won", "coins won", "holds"], cells,
                                          self.turn)}
