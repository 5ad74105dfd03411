"""Phase 2 of a wypas turn, redyk: sheep into the two pens under the row rule (one colour
ascending by one, or one value in different colours), jokers declared."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from arena.games.wypas.cards import (
    CARD_IDS,
    CARDS,
    COLOURS,
    INDEX,
    IS_JOKER,
    IS_SHEEP,
    JOKERS,
    KIND,
    MAX_VALUE,
    Placed,
    fits,
)
from arena.games.wypas.core import (
    _PLACE,
    DONE,
    Phase,
    WypasFields,
)
from arena.games.wypas.windows import (
    Decision,
)

#: ``place <card> <pen>`` by pen and card index (the legal lists of redyk repeat them)
PLACE_TOKENS = tuple(tuple(f"place {card_id} {pen}" for card_id in CARD_IDS) for pen in (0, 1))


class Pens(WypasFields):
    """Phase 2 of a wypas turn, redyk: sheep into the two pens under the row rule (one colour"""

    # -- phase 2: redyk --

    def _clockwise_from_baca(self) -> list[int]:
        return [(self.baca + step) % self.n for step in range(self.n)]

    def _start_redyk(self) -> None:
        self.phase = Phase.REDYK
        self._table_changed()
        self.phase_left = self._clockwise_from_baca()
        self.actor = None
        self._continue_redyk()

    def _continue_redyk(self) -> None:
        # every seat is asked, even with nothing it could place (its hand is its own business)
        if self.phase_left:
            self._ask(_PLACE, self.phase_left[0])
        else:
            self._start_shearing()

    def _pen_choices(self, seat: int) -> list[int]:
        """Pens worth offering: both, but only the first of two empty pens (they are alike)."""
        first, second = self._pens[seat]
        return [0] if not first and not second else [0, 1]

    def _legal_place(self, seat: int) -> list[str]:
        actions = []
        pens = self._pens[seat]
        choices = self._pen_choices(seat)
        for card in self._hands[seat]:
            if IS_JOKER[card]:  # (by card index: quicker than comparing enum members)
                for pen in choices:
                    if self._joker_fits(card, pens[pen]):
                        actions.append(PLACE_TOKENS[pen][card])
            elif IS_SHEEP[card]:
                info = CARDS[card]
                for pen in choices:
                    if fits(pens[pen], info.colour, info.value):  # type: ignore[arg-type]
                        actions.append(PLACE_TOKENS[pen][card])
        actions.append(DONE)
        return actions

    def _joker_options(self, card: int, pen: Sequence[Placed]) -> Iterator[tuple[str, int]]:
        """What a joker may be declared as in this pen, (colour, value) in order, found lazily
        (the legal list only asks whether there is one)."""
        printed = CARDS[card].colour
        colours = COLOURS if printed is None else (printed,)
        return ((colour, value) for colour in colours for value in range(1, MAX_VALUE + 1)
                if fits(pen, colour, value))

    def _joker_fits(self, card: int, pen: Sequence[Placed]) -> bool:
        return next(self._joker_options(card, pen), None) is not None

    def _declarations(self) -> list[tuple[str, int]]:
        assert self.actor is not None and self.placing is not None
        return list(self._joker_options(self.placing, self._pens[self.actor][self.placing_pen]))

    def _place_action(self, seat: int, verb: str, rest: str) -> None:
        if verb == DONE:
            self.phase_left.pop(0)
            self.decision = None
            self._next_main()
            return
        card_id, pen_text = rest.split()
        card, pen = INDEX[card_id], int(pen_text)
        if KIND[card] in JOKERS:
            self.placing, self.placing_pen = card, pen
            self._ask(Decision.DECLARE, seat)
            return
        info = CARDS[card]
        self._place(seat, card, pen, info.colour, info.value)  # type: ignore[arg-type]

    def _place(self, seat: int, card: int, pen: int, colour: str, value: int) -> None:
        self.placing = None
        self._take(seat, card)
        self._pens[seat][pen].append((CARD_IDS[card], colour, value))
        self._pens_changed()
        if self.recording:
            self.events.emit("placed", {"seat": seat, "pen": pen, "card": CARD_IDS[card],
                                        "colour": colour, "value": value})
        self._after(seat)
