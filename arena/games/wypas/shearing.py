"""Phase 3 of a wypas turn: shearing pens (scored at once), the end of the turn and of the
game."""

from __future__ import annotations

from arena.games.wypas.cards import (
    CARD_IDS,
    INDEX,
    shear,
)
from arena.games.wypas.core import (
    _OVER,
    _SHEAR,
    BLEAT,
    DEAL_SIZE,
    DONE,
    END_BONUS,
    FLEECES_TO_END,
    LATE_BONUS,
    Phase,
    WypasFields,
)


class Shearing(WypasFields):
    """Phase 3 of a wypas turn: shearing pens (scored at once), the end of the turn and of the"""

    # -- phase 3: shearing --

    def _start_shearing(self) -> None:
        self.phase = Phase.SHEARING
        self._table_changed()
        self.phase_left = self._clockwise_from_baca()
        self.actor = None
        self._continue_shearing()

    def _continue_shearing(self) -> None:
        while self.phase_left:
            seat = self.phase_left[0]
            if any(self._pens[seat]):
                self._ask(_SHEAR, seat)
                return
            self.phase_left.pop(0)
        self._end_shearing()

    def _legal_shear(self, seat: int) -> list[str]:
        actions = []
        for pen in (0, 1):
            if self._pens[seat][pen]:
                if self.options.strict_bleating:
                    actions.append(f"shear {pen} {BLEAT}")
                actions.append(f"shear {pen}")
        actions.append(DONE)
        return actions

    def _shear_action(self, seat: int, verb: str, rest: str) -> None:
        if verb == DONE:
            self.phase_left.pop(0)
            self.decision = None
            self._next_main()
            return
        pen_text, _, bleat = rest.partition(" ")
        self._shear(seat, int(pen_text), bleated=bleat == BLEAT or not self.options.strict_bleating)
        if self.phase is not _OVER:
            self._after(seat)

    def _shear(self, seat: int, pen: int, *, bleated: bool) -> None:
        cards = self._pens[seat][pen]
        wolf = self._wolves[seat][pen]
        outcome = shear(cards, wolf is not None)
        self._pens[seat][pen] = []
        self._wolves[seat][pen] = None
        self._pens_changed()
        gone = list(outcome.discarded) + ([outcome.eaten] if outcome.eaten else [])
        if wolf is not None:
            gone.append(CARD_IDS[wolf])
        self.discard.extend(INDEX[card_id] for card_id in gone)
        points = outcome.points if bleated else 0
        bonus = 0
        if outcome.fleece:
            self.fleeces[seat] += 1
            if self.fleeces[seat] == FLEECES_TO_END:
                if self.end_triggered_by is None:
                    self.end_triggered_by = seat
                    bonus = END_BONUS
                else:
                    bonus = LATE_BONUS
        self.scores[seat] += points + bonus
        if self.recording:
            self.events.emit("sheared", {
                "seat": seat, "pen": pen, "wolf": None if wolf is None else CARD_IDS[wolf],
                "eaten": outcome.eaten, "discarded": list(outcome.discarded),
                "fleece": list(outcome.fleece), "bleated": bleated, "points": points,
                "bonus": bonus, "fleeces": self.fleeces[seat], "score": self.scores[seat]})
        if bonus == END_BONUS:
            self.events.emit("end_triggered", {"seat": seat})
            self.phase = Phase.FINAL_SHEARING
            # the trigger player finishes its step, then everyone else gets one final step
            self.phase_left = [seat] + [(seat + step) % self.n for step in range(1, self.n)]
        self._table_changed()  # fleeces, scores, the end, the phase

    def _end_shearing(self) -> None:
        if self.phase is Phase.FINAL_SHEARING:
            self._finish("fifth_fleece")
        elif self.turn >= self.options.turn_cap:
            self._finish("turn_cap")
        else:
            self._deal(DEAL_SIZE)
            self.baca = self.left_of(self.baca)
            self.turn += 1
            self._table_changed()
            self._start_turn()

    def _finish(self, reason: str) -> None:
        self.phase = Phase.OVER
        self._table_changed()
        self.decision = None
        self.actor = None
        self.events.emit("game_over", {"reason": reason, "scores": list(self.scores),
                                       "fleeces": list(self.fleeces)})
