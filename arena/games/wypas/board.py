"""wypas's board: the lot and the card at auction with each seat's stake, each seat's pens with
their cards and the wolves above them, fleeces and scores, and the open reaction window (the
special cards played and not yet resolved)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.board import Board, Card, card
from arena.games.drawing import by_id
from arena.games.wypas.drawing import namer

SPECIAL = {"thief", "dog", "wolf", "black_sheep", "super_dolly"}


class WypasBoard(Board):
    KINDS = frozenset({"turn_start", "lot_laid", "auction_start", "bid_card", "bid",
                       "bid_passed", "checked", "showdown", "auction_won", "placed", "swapped",
                       "sheared", "special_played", "resolved", "stole", "chased",
                       "reshuffled", "end_triggered", "game_over"})
    CARD_FIELDS = ("hand", "lot", "laid")
    OWN_CARDS = {"hand": "your hand"}

    def __init__(self, names: Sequence[str], info: Mapping[str, Any]) -> None:
        super().__init__(names, info)
        self.cards = by_id(info, "id")
        self.named = namer(info)
        n = len(names)
        self.turn: Any = None
        self.baca: int | None = None
        self.lot: list[Any] = []
        self.face_down = 0
        self.auction: Any = None
        self.stakes: list[Any] = [None] * n
        self.passed: set[int] = set()
        self.pens: dict[tuple[int, int], list[Any]] = {}
        self.wolves: dict[tuple[int, int], Any] = {}
        self.fleeces: list[Any] = [0] * n
        self.score: list[Any] = [0] * n
        #: The special cards played and not resolved: (seat, card, target, the card it cancels).
        self.chain: list[tuple[Any, Any, list[Any], Any]] = []
        self.actor: int | None = None
        #: The last shearing: its event's data.
        self.shorn: Mapping[str, Any] | None = None
        self.note: str | None = None

    def face(self, card_id: Any, caption: str | None = None) -> Card:
        known = self.cards.get(card_id) or {}
        kind = known.get("kind")
        if not known:
            return card("?" if card_id in ("hidden", "face-down") else card_id,
                        colour="back", title=f"a card face down ({card_id})", caption=caption)
        label = known.get("value") if kind == "sheep" else str(kind).replace("_", " ")
        if kind == "dolly":
            label = "dolly"
        return card(label, corner=known.get("colour") if kind == "dolly" else None,
                    colour=str(known.get("colour") or ("special" if kind in SPECIAL else "plain")),
                    title=self.named(card_id), caption=caption, ident=card_id)

    def card_name(self, card_id: Any) -> str:
        """The game's name of a card; a card face down says so."""
        return "a face-down card" if card_id in ("hidden", "face-down") else self.named(card_id)

    def where(self, target: Any) -> str:
        target = list(target or [])
        if len(target) >= 2:
            return f"{self.name(target[0])}'s pen {target[1]}"
        if target:
            return self.name(target[0])
        return "the card below it"

    def take(self, kind: str, d: Mapping[str, Any]) -> str | None:  # noqa: C901 (a dispatch)
        seat = d.get("seat")
        if isinstance(seat, int):
            self.actor = seat
        if kind == "turn_start":
            self.turn, self.baca, self.auction = d.get("turn"), d.get("baca"), None
            self.lot, self.face_down = [], 0
            return f"turn {d.get('turn')}: {self.seat(d.get('baca'))} is the baca and lays the lot"
        if kind == "lot_laid":
            self.lot, self.face_down = list(d.get("face_up") or []), int(d.get("face_down") or 0)
            return (f"the lot: {', '.join(map(self.named, self.lot)) or 'no card face up'}"
                    + (f" and {self.face_down} face down" if self.face_down else ""))
        if kind == "auction_start":
            self.auction, self.actor = d.get("card"), d.get("opener")
            self.stakes, self.passed = [None] * len(self.names), set()
            if d.get("card") in self.lot:
                self.lot.remove(d.get("card"))
            elif self.face_down:
                self.face_down -= 1
            return (f"{self.seat(d.get('opener'))} opens the auction for "
                    f"{self.card_name(d.get('card'))}")
        if kind == "bid_card":
            self.stake(seat, d.get("stake"))
            return (f"{self.seat(seat)} bids {self.card_name(d.get('card'))} "
                    f"(worth {d.get('value')}): stake {d.get('stake')}")
        if kind == "bid":
            self.stake(seat, d.get("stake"))
            return f"{self.seat(seat)} bids {d.get('stake')}"
        if kind == "bid_passed":
            if isinstance(seat, int):
                self.passed.add(seat)
            return f"{self.seat(seat)} passes"
        if kind == "checked":
            return f"{self.seat(seat)} checks {self.name(d.get('bluffer'))}'s bluff"
        if kind == "showdown":
            shown = ", ".join(f"{self.name(s)} {self.named(c)} (said {said})"
                              for s, c, said in d.get("revealed") or [])
            return f"the face-down bids are shown: {shown or 'none'}"
        if kind == "auction_won":
            self.auction, self.stakes, self.passed = None, [None] * len(self.names), set()
            return (f"{self.name(seat)} wins the auction: {self.card_name(d.get('card'))} for "
                    f"{d.get('stake')}")
        if kind == "placed":
            self.pens.setdefault((int(seat or 0), int(d.get("pen") or 0)), []).append(
                d.get("card"))
            return f"{self.seat(seat)} placed {self.card_name(d.get('card'))} in pen {d.get('pen')}"
        if kind == "swapped":
            pen = tuple((d.get("target") or [None, None])[:2])
            cards = self.pens.get(pen, [])  # type: ignore[arg-type]
            if d.get("card") in cards:
                cards[cards.index(d.get("card"))] = d.get("black_sheep")
            return (f"{self.name(seat)}'s black sheep takes the place of "
                    f"{self.card_name(d.get('card'))} in {self.where(d.get('target'))}")
        if kind == "sheared":
            pen = (seat, d.get("pen"))
            self.shorn = d
            self.pens.pop(pen, None)  # type: ignore[arg-type]
            self.wolves.pop(pen, None)  # type: ignore[arg-type]
            if isinstance(seat, int) and 0 <= seat < len(self.names):
                self.fleeces[seat], self.score[seat] = d.get("fleeces"), d.get("score")
            return (f"{self.seat(seat)} sheared pen {d.get('pen')}: {d.get('points')} points"
                    + (f", the wolf ate {d.get('eaten')}" if d.get("wolf") else "")
                    + f" (fleeces {d.get('fleeces')}, score {d.get('score')})")
        if kind == "special_played":
            self.chain.append((seat, d.get("card"), list(d.get("target") or []),
                               d.get("cancels")))
            if d.get("cancels") is not None:
                return f"{self.seat(seat)} answers {self.named(d.get('cancels'))} with a dog"
            return (f"{self.seat(seat)} played {self.card_name(d.get('card'))} at "
                    f"{self.where(d.get('target'))}")
        if kind == "resolved":
            played = next((c for c in self.chain if c[1] == d.get("card")), None)
            self.chain = []  # the chain resolves at once: the card and the dogs answering it
            if played is not None and not d.get("cancelled") and \
                    (self.cards.get(played[1]) or {}).get("kind") == "wolf":
                self.wolves[tuple(played[2][:2])] = played[1]  # type: ignore[index]
            return (f"{self.card_name(d.get('card'))} "
                    + ("is cancelled by a dog" if d.get("cancelled") else "takes effect"))
        if kind == "stole":
            return f"{self.name(seat)} steals a card from {self.name(d.get('from'))}"
        if kind == "chased":
            self.wolves.pop(tuple((d.get("target") or [])[:2]), None)  # type: ignore[arg-type]
            return f"{self.name(seat)}'s dog chases the wolf from {self.where(d.get('target'))}"
        if kind == "reshuffled":
            return f"the discards are shuffled into the deck ({d.get('deck_size')} cards)"
        if kind == "end_triggered":
            return f"{self.name(seat)} triggered the end: everyone shears once more"
        if kind == "game_over":
            self.score = list(d.get("scores") or self.score)
            self.fleeces = list(d.get("fleeces") or self.fleeces)
            return f"the game is over ({str(d.get('reason')).replace('_', ' ')})"
        return None

    def stake(self, seat: Any, stake: Any) -> None:
        if isinstance(seat, int) and 0 <= seat < len(self.stakes):
            self.stakes[seat] = stake

    def view(self) -> dict[str, Any]:
        panels: list[dict[str, Any]] = []
        if self.lot or self.face_down or self.auction is not None:
            lot = [self.face(c) for c in self.lot] + [self.face("hidden")] * self.face_down
            panels.append({"title": "the lot", "cards": lot, "lines": []})
        if self.auction is not None:
            stakes = ", ".join(f"{self.name(s)} {'passed' if s in self.passed else v}"
                               for s, v in enumerate(self.stakes) if v is not None
                               or s in self.passed)
            panels.append({"title": "at auction", "cards": [self.face(self.auction)],
                           "lines": [f"stakes: {stakes}" if stakes else "no bid yet"]})
        if self.chain:
            panels.append({"title": "the open reaction window",
                           "cards": [self.face(c, self.name(s)) for s, c, _, _ in self.chain],
                           "lines": [f"{self.name(s)}: {self.named(c)} " + (
                               f"cancels {self.named(x)}" if x is not None
                               else f"at {self.where(t)}") for s, c, t, x in self.chain]})
        if self.shorn is not None:
            d = self.shorn
            gone = [self.face(c) for c in list(d.get("fleece") or []) + list(
                d.get("discarded") or []) if isinstance(c, str)]
            panels.append({"title": f"the last shearing: {self.name(d.get('seat'))}'s pen "
                                    f"{d.get('pen')}", "cards": gone,
                           "lines": [f"{d.get('points')} points"
                                     + (f", the wolf ate {d.get('eaten')}" if d.get("wolf")
                                        else "")]})
        cells = []
        for s in range(len(self.names)):
            pens = sorted(p for p in set(self.pens) | set(self.wolves) if p[0] == s)
            shown = []
            for pen in pens:
                cards = [self.face(c) for c in self.pens.get(pen, [])]
                if pen in self.wolves:
                    cards.insert(0, self.face(self.wolves[pen], "above"))
                shown.append({"cards": cards, "label": f"pen {pen[1]}"})
            cells.append([{"pens": shown}, str(self.fleeces[s]), str(self.score[s])])
        title = f"turn {self.turn}" if self.turn is not None else "before the first turn"
        if self.baca is not None:
            title += f" · baca {self.name(self.baca)}"
        return {"title": title, "panels": panels, "over": self.over,
                "seats": self.seats_table(["pens", "fleeces", "score"], cells, self.actor)}
