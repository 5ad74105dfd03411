"""Phase 1 of a wypas turn: the lot, the auction of each card, the bluff variant's
showdown, and the main line's next decision."""

from __future__ import annotations

from arena.games.wypas.cards import (
    CARD_IDS,
    CARDS,
    INDEX,
    IS_JOKER,
    IS_SHEEP,
    JOKERS,
    KIND,
    MAX_VALUE,
)
from arena.games.wypas.core import (
    _AUCTION,
    _BID,
    _REDYK,
    _SHEARING,
    ADD,
    BLUFF,
    CHECK,
    COMMIT,
    FACE_DOWN,
    HIDDEN,
    PASS,
    Bluff,
    Check,
    Phase,
    WypasFields,
    lot_size,
)
from arena.games.wypas.windows import (
    Decision,
)


class Auction(WypasFields):
    """Phase 1 of a wypas turn: the lot, the auction of each card, the bluff variant's"""

    # -- phase 1: the auction --

    def _start_turn(self) -> None:
        self.phase = Phase.AUCTION
        self._table_changed()
        self.events.emit("turn_start", {"turn": self.turn, "baca": self.baca})
        drawn = []
        for _ in range(lot_size(self.n)):
            card = self._draw()
            if card is None:
                break
            drawn.append(card)
        self.lot = []  # laid out once the baca has chosen the face-down card
        self.drawn_lot = drawn
        self.opener = self.baca  # the first auction opens left of the baca
        if len(drawn) >= 2:
            self.events.emit("lot_seen", {"cards": [CARD_IDS[c] for c in drawn]},
                             frozenset((self.baca,)))
            self._ask(Decision.HIDE, self.baca)
        elif drawn:
            self._hide(drawn[0])
        else:
            self._hide(None)

    def _hide(self, card: int | None) -> None:
        self.lot = [c for c in self.drawn_lot if c != card]
        self.drawn_lot = []
        self.hidden_card = card
        self.lot_hidden = card is not None
        self._table_changed()
        self.events.emit("lot_laid", {"face_up": [CARD_IDS[c] for c in self.lot],
                                 "face_down": int(self.lot_hidden)})
        if card is not None:
            self.events.emit("face_down_card", {"card": CARD_IDS[card]}, frozenset((self.baca,)))
        self.decision = None
        self._next_auction()

    def _next_auction(self) -> None:
        if not self.lot and not self.lot_hidden:
            self._start_redyk()
            return
        self.opener = self.left_of(self.opener)
        self._table_changed()
        if len(self.lot) + self.lot_hidden == 1:
            self._name(self.lot[0] if self.lot else None)
        else:
            self._ask(Decision.NAME, self.opener)

    def _name(self, card: int | None) -> None:
        """The opener names the lot card to auction (None: the face-down one)."""
        if card is None:
            self.lot_hidden = False
            self.auction_hidden = True
            self.auction_card = self.hidden_card
        else:
            self.lot.remove(card)
            self.auction_hidden = False
            self.auction_card = card
        self._table_changed()
        self._clear_bids()
        self.events.emit("auction_start", {
            "opener": self.opener, "card": HIDDEN if card is None else CARD_IDS[card]})
        self.actor = self.opener
        self._after(self.opener)

    def _high(self) -> int:
        return 0 if self.high_bidder is None else self.stakes[self.high_bidder]

    def _bid_value(self, card: int) -> int:
        """What a laid card adds to a stake: a sheep its printed value, a joker the value
        declared for it (6 until it is declared)."""
        if KIND[card] in JOKERS:
            return self.bluff.joker_values.get(card, MAX_VALUE)
        return CARDS[card].value or 0

    def _legal_bid(self, seat: int) -> list[str]:
        stake = self.stakes[seat]
        bluff = self.bluff
        check = bluff.check
        if check is not None and seat == check.checker:  # must match exactly, or pass
            target = check.target
            actions = [ADD[card] for card in self._hands[seat] if IS_SHEEP[card]
                       and stake + (1 if IS_JOKER[card] else self._bid_value(card)) <= target]
            if bluff.face_down[seat] is None and self._hands[seat] and stake < target:
                actions.append(BLUFF)
            if stake == target:
                actions.append(COMMIT)
            actions.append(PASS)
            return actions
        actions = [ADD[card] for card in self._hands[seat] if IS_SHEEP[card]]
        if self.options.bluff and bluff.face_down[seat] is None and self._hands[seat]:
            actions.append(BLUFF)
        if bluff.offer == seat and bluff.fresh and check is None:
            actions.append(CHECK)
        high = self.high_bidder  # self._high(), without its call
        if (stake > (0 if high is None else self.stakes[high])
                or (check is not None and stake == check.target)):
            actions.append(COMMIT)
        actions.append(PASS)
        return actions

    def _declarable(self, seat: int) -> list[int]:
        """The values a face-down card may be declared at: 1-6, and for a checker no more than
        its stake needs to match."""
        check = self.bluff.check
        top = MAX_VALUE
        if check is not None and seat == check.checker:
            top = min(top, check.target - self.stakes[seat])
        return list(range(1, top + 1))

    def _declare_joker(self, seat: int, value: int) -> None:
        card = self.bluff.joker
        assert card is not None
        self.bluff.joker = None
        self.bluff.joker_values[card] = value
        self.stakes[seat] += value
        self.events.emit("bid_card", {"seat": seat, "card": CARD_IDS[card], "value": value,
                                      "stake": self.stakes[seat]})
        self._ask(Decision.BID, seat)

    def _lay_face_down(self, seat: int, card: int) -> None:
        self._take(seat, card)
        self.bluff.face_down[seat] = card
        self.bluff.face_down_laid = True
        self._ask(Decision.BLUFF_VALUE, seat)

    def _declare_bluff(self, seat: int, value: int) -> None:
        card = self.bluff.face_down[seat]
        assert card is not None
        self._lay(seat, card)
        self.bluff.declared[seat] = value
        self.stakes[seat] += value
        self.events.emit("bid_card", {"seat": seat, "card": FACE_DOWN, "value": value,
                                      "stake": self.stakes[seat]})
        self.events.emit("face_down_bid", {"seat": seat, "card": CARD_IDS[card]},
                         frozenset((seat,)))
        self._ask(Decision.BID, seat)

    def _bid_action(self, seat: int, verb: str, rest: str) -> None:
        bluff = self.bluff
        if bluff.offer == seat and verb != CHECK:
            bluff.offer = None  # only the next bidder, first thing on its turn, may check
        bluff.fresh = False
        if verb == BLUFF:
            self._ask(Decision.BLUFF_CARD, seat)
            return
        if verb == CHECK:
            assert bluff.offer == seat and bluff.bluffer is not None
            bluff.check = Check(bluff.bluffer, seat, self.stakes[bluff.bluffer])
            bluff.offer = None
            self.events.emit("checked", {"seat": seat, "bluffer": bluff.bluffer,
                                         "stake": bluff.check.target})
            return  # the checker goes on: cards until its stake matches
        if verb == "add":
            card = INDEX[rest]
            self._take(seat, card)
            self._lay(seat, card)
            if IS_JOKER[card]:  # its value is declared next
                self.bluff.joker = card
                self._ask(Decision.JOKER_VALUE, seat)
                return
            value = self._bid_value(card)
            self.stakes[seat] += value
            if self.recording:
                self.events.emit("bid_card", {"seat": seat, "card": rest, "value": value,
                                              "stake": self.stakes[seat]})
            return  # the same seat goes on bidding: no window after a card alone
        if verb == COMMIT:
            check = bluff.check
            if check is not None and self.stakes[seat] == check.target:
                check.matched.append(seat)
            else:
                if check is not None:  # a raise: no showdown, the bidding goes on
                    bluff.check = None
                self.high_bidder = seat
                if bluff.face_down[seat] is not None:
                    bluff.bluffer, bluff.offer = seat, self._next_active(seat)
            if self.recording:
                self.events.emit("bid", {"seat": seat, "stake": self.stakes[seat]})
        else:
            self.passed[seat] = True
            if bluff.check is not None and seat == bluff.check.checker:
                # checking is matching ("sprawdza i wyrównuje"): a checker who passes has not
                # checked, and the bluffer's stake stands as an ordinary highest stake
                bluff.check = None
            if self.recording:
                self.events.emit("bid_passed", {"seat": seat})
        if self._auction_decided():
            self._end_auction()
        self._after(seat)

    def _auction_decided(self) -> bool:
        """Everyone passed, or only the high bidder is still in."""
        still_in = self.passed.count(False)
        high = self.high_bidder
        return still_in == 0 or (still_in == 1 and high is not None and not self.passed[high])

    def _next_bidder(self) -> int:
        return self._next_active(self.actor if self.actor is not None else self.opener)

    def _next_active(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            candidate = (seat + step) % self.n
            if not self.passed[candidate]:
                return candidate
        raise AssertionError("no bidder left")

    def _showdown(self) -> None:
        """Everyone still in matched a checked bluff: the face-down cards are revealed and the
        highest true total wins (the bluffer beats its checker on a tie; the baca settles
        other ties)."""
        bluff = self.bluff
        check = bluff.check
        assert check is not None
        seats = [check.bluffer] + check.matched
        totals = {seat: sum(self._true_value(seat, card) for card in self.laid[seat])
                  for seat in seats}
        best = max(totals.values())
        tied = [seat for seat in seats if totals[seat] == best]
        if check.bluffer in tied and check.checker in tied:  # the bluffer beats its checker
            tied.remove(check.checker)
        bluff.revealed = set(seats)
        self.events.emit("showdown", {
            "revealed": [[seat, CARD_IDS[card], bluff.declared[seat]]
                         for seat, card in enumerate(bluff.face_down)
                         if card is not None and seat in bluff.revealed],
            "totals": [totals.get(seat) for seat in range(self.n)],
            "winner": tied[0] if len(tied) == 1 else None, "tied": tied})
        if len(tied) == 1:
            self._end_auction(tied[0])
            self._after(tied[0])
        else:
            bluff.tied = tied
            self._ask(Decision.AWARD, self.baca)

    def _true_value(self, seat: int, card: int) -> int:
        """A bid card's value at a showdown: a face-down sheep its printed value, a face-down
        joker the value declared for it, a face-down special card 0."""
        if card != self.bluff.face_down[seat]:
            return self._bid_value(card)
        if KIND[card] in JOKERS:
            return self.bluff.declared[seat]
        return CARDS[card].value or 0

    def _end_auction(self, winner: int | None = None) -> None:
        bid = winner is not None or self.high_bidder is not None
        if winner is None:
            winner = self.high_bidder if self.high_bidder is not None else self.baca
        card = self.auction_card
        assert card is not None
        self._give(winner, card)
        spent = [c for laid in self.laid for c in laid]
        self.discard.extend(spent)
        hidden = self.auction_hidden
        if self.recording:
            self.events.emit("auction_won", {
                "seat": winner, "card": HIDDEN if hidden else CARD_IDS[card],
                "stake": self.stakes[winner] if bid else 0,
                "discarded": [self._public_id(c) for c in spent]})
        if hidden:
            self.events.emit("received", {"seat": winner, "card": CARD_IDS[card]},
                             frozenset((winner,)))
            self.hidden_card = None
        self.auction_card = None
        self.auction_hidden = False
        self._table_changed()
        self._clear_bids()

    def _clear_bids(self) -> None:
        """No stakes, bid cards, passes or face-down cards: before and after an auction."""
        n = self.n
        self.stakes = [0] * n
        self.laid = [[] for _ in range(n)]
        self._laid_ids = ((),) * n  # every bid card face up
        self.passed = [False] * n
        self.high_bidder = None
        self.bluff = Bluff(n)

    def _lay(self, seat: int, card: int) -> None:
        """A bid card joins ``seat``'s stake (its value is counted by the caller)."""
        self.laid[seat].append(card)
        ids = self._laid_ids
        self._laid_ids = (*ids[:seat], (*ids[seat], CARD_IDS[card]), *ids[seat + 1:])

    def _public_id(self, card: int, seat: int | None = None) -> str:
        """A bid card as everyone may see it: a face-down card stays face down (also in the
        used pile) unless a showdown revealed it or ``seat`` laid it."""
        face_down = self.bluff.face_down
        if card in face_down:
            owner = face_down.index(card)
            if owner != seat and owner not in self.bluff.revealed:
                return FACE_DOWN
        return CARD_IDS[card]

    def windows_closed(self) -> None:
        """The reaction window (and every special card played in it) is over."""
        self._next_main()

    def _next_main(self) -> None:
        """Ask for the next main-line decision after a completed action (and its window)."""
        if self.phase is _AUCTION:
            if self.auction_card is None:
                self._next_auction()
            elif not self._auction_under_way():
                self._ask_bidder(self.opener)
            else:
                seat = self._next_bidder()
                check = self.bluff.check
                if check is not None and seat == check.bluffer and check.matched:
                    self._showdown()
                else:
                    self._ask_bidder(seat)
        elif self.phase is _REDYK:
            self._continue_redyk()
        elif self.phase is _SHEARING or self.phase is Phase.FINAL_SHEARING:
            self._continue_shearing()

    def _auction_under_way(self) -> bool:
        """Has anyone acted in the current auction yet (the opener bids first)?"""
        return self.high_bidder is not None or any(self.passed)

    def _ask_bidder(self, seat: int) -> None:
        # asked even when only "pass" is legal: how fast a seat passes must not show its hand
        self.bluff.fresh = True
        self._ask(_BID, seat)
