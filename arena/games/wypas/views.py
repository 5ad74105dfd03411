"""The views of a wypas state: what observe, the legal lists and the reaction windows
read, kept beside the state and rebuilt only after what they show changed; and observe."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.wypas.cards import (
    CARD_IDS,
    IS_SPECIAL,
    Kind,
    Placed,
)
from arena.games.wypas.core import (
    _AUCTION,
    _BID,
    HIDDEN,
    WypasFields,
    WypasObservation,
)
from arena.games.wypas.windows import (
    _CLOSED,
    kinds_with_a_pen_target,
    playable_specials,
)

_new, _set_attribute = object.__new__, object.__setattr__  # observe's, as module names

# Every observation field as None, in observation order: the table view's, then those observe
# sets itself
_EVERY_FIELD = dict.fromkeys((
    "turn", "turn_cap", "phase", "baca", "pens", "wolves", "fleeces", "scores", "deck_size",
    "lot", "lot_hidden", "auction_card", "opener", "end_triggered_by",
    "seat", "decision", "hand", "hand_sizes", "discard_size", "hidden_card", "bidder", "stakes",
    "laid", "declared", "check", "passed", "high_bidder", "actor", "placing", "placing_pen",
    "window"))


class Views(WypasFields):
    """The views of a wypas state: what observe, the legal lists and the reaction windows"""

    # -- views: what observe, the legal lists and the reaction windows read --
    #
    # Every decision observes, lists the legal actions and opens or answers a window.  What
    # they read is kept beside the state as immutable views, rebuilt only after what they show
    # changed: a hand changes only through _give and _take, every change of pens or wolves is
    # followed by _pens_changed, of the observation's table part by _table_changed, of the bid
    # cards through _lay and _clear_bids; who acts and the legal lists are found once per step
    # (apply drops them).  Assigning a whole new ``hands``, ``pens`` or ``wolves`` (a test's
    # position) drops every view.

    def _drop_views(self) -> None:
        """Forget every view; each is rebuilt from the state when next needed (tests compare
        a state's answers with those of a clone without views)."""
        n = self.n
        self._hand_ids: list[tuple[str, ...] | None] = [None] * n
        self._hand_sizes: tuple[int, ...] | None = None
        self._specials: list[tuple[int, ...] | None] = [None] * n
        self._playable: dict[int, tuple[int, ...]] | None = None
        self._playable_kinds: frozenset[Kind] | None = None  # the pen kinds it was found for
        self._pens_view: tuple[tuple[tuple[Placed, ...], ...], ...] | None = None
        self._wolves_view: tuple[tuple[str | None, ...], ...] | None = None
        self._pen_kinds: frozenset[Kind] | None = None
        self._table: dict[str, Any] | None = None
        # this auction's bid cards, every one face up (observe hides the face-down ones)
        self._laid_ids: tuple[tuple[str, ...], ...] = tuple(
            [tuple([CARD_IDS[card] for card in laid]) for laid in self.laid])
        self._acting: tuple[int, ...] | None = None
        self._legal: dict[int, list[str]] = {}

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's cards, sorted; changed only through :meth:`_give` and :meth:`_take`."""
        return self._hands

    @hands.setter
    def hands(self, hands: list[list[int]]) -> None:
        self._hands = hands
        self._drop_views()

    @property
    def pens(self) -> list[list[list[Placed]]]:
        """Each seat's two pens of placed cards; every change is followed by _pens_changed."""
        return self._pens

    @pens.setter
    def pens(self, pens: list[list[list[Placed]]]) -> None:
        self._pens = pens
        self._drop_views()

    @property
    def wolves(self) -> list[list[int | None]]:
        """The wolf above each seat's pens; every change is followed by _pens_changed."""
        return self._wolves

    @wolves.setter
    def wolves(self, wolves: list[list[int | None]]) -> None:
        self._wolves = wolves
        self._drop_views()

    def _pens_changed(self) -> None:
        self._pens_view = self._wolves_view = self._pen_kinds = self._table = None

    def _give(self, seat: int, card: int) -> None:
        hand = self._hands[seat]
        hand.append(card)
        hand.sort()
        self._hand_changed(seat, card, len(hand) == 1)

    def _take(self, seat: int, card: int) -> None:
        hand = self._hands[seat]
        at = hand.index(card)
        del hand[at]
        ids = self._hand_ids[seat]
        self._hand_changed(seat, card, not hand)
        if ids is not None:
            # the view without the card's id: the slices cost less than building it again
            self._hand_ids[seat] = ids[:at] + ids[at + 1:]

    def _hand_changed(self, seat: int, card: int, emptiness_changed: bool) -> None:
        self._hand_ids[seat] = self._hand_sizes = None
        # what may be played in a window depends on the special cards in each hand and on
        # which hands are empty (a thief needs a victim), not on the sheep
        if IS_SPECIAL[card] or emptiness_changed:
            self._specials[seat] = self._playable = None

    def hand_ids(self, seat: int) -> tuple[str, ...]:
        ids = self._hand_ids[seat]
        if ids is None:
            ids = self._hand_ids[seat] = tuple([CARD_IDS[card] for card in self._hands[seat]])
        return ids

    def _count_hands(self) -> tuple[int, ...]:
        sizes = self._hand_sizes = tuple([len(hand) for hand in self._hands])
        return sizes

    def specials(self, seat: int) -> tuple[int, ...]:
        """The special cards in ``seat``'s hand, in hand order."""
        specials = self._specials[seat]
        if specials is None:
            specials = self._specials[seat] = tuple(
                [card for card in self._hands[seat] if IS_SPECIAL[card]])
        return specials

    def pen_kinds(self) -> frozenset[Kind]:
        """The special kinds with a pen to aim at now
        (:func:`~arena.games.wypas.windows.kinds_with_a_pen_target`)."""
        kinds = self._pen_kinds
        if kinds is None:
            kinds = self._pen_kinds = kinds_with_a_pen_target(self)
        return kinds

    def playable(self) -> Mapping[int, tuple[int, ...]]:
        """Each seat that could play a special card in a window now, with those cards
        (:func:`~arena.games.wypas.windows.playable_specials`); the same value until a hand
        changes or the pens offer other targets, so do not change it."""
        kinds = self._pen_kinds  # pen_kinds(), its call saved when the view is there
        if kinds is None:
            kinds = self.pen_kinds()
        found = self._playable
        if found is None or kinds != self._playable_kinds:
            found = self._playable = playable_specials(self)
            self._playable_kinds = kinds
        return found

    def _pens_observed(self) -> tuple[tuple[tuple[Placed, ...], ...], ...]:
        view = self._pens_view
        if view is None:
            view = self._pens_view = tuple(
                [tuple([tuple(pen) for pen in pens]) for pens in self._pens])
        return view

    def _wolves_observed(self) -> tuple[tuple[str | None, ...], ...]:
        view = self._wolves_view
        if view is None:
            view = self._wolves_view = tuple(
                [tuple([None if wolf is None else CARD_IDS[wolf] for wolf in pair])
                 for pair in self._wolves])
        return view

    def observe(self, seat: int) -> WypasObservation:
        windows = self.windows
        window_open = windows.stage is not _CLOSED
        # decision_of, inlined: observe runs at every decision
        if window_open:
            decision = windows.decision_of(seat)
        else:
            decision = self.decision if seat == self.actor else None
        hidden_card = self.hidden_card
        knows_hidden = hidden_card is not None and seat == self.baca and (
            self.lot_hidden or self.auction_hidden)
        placing = self.placing
        bluff = self.bluff
        # a copy of the table view, which holds every field, keeps its size: setting the rest
        # one by one replaces values, where adding them to a smaller dict would resize it twice
        fields = (self._table or self._table_observed()).copy()
        fields["seat"] = seat
        # _value_ is the member's value, read without the enum property's cost
        fields["decision"] = decision._value_ if decision is not None else None
        # each view is rebuilt only after what it shows changed (an empty hand is rebuilt
        # every time: it is free)
        fields["hand"] = self._hand_ids[seat] or self.hand_ids(seat)
        fields["hand_sizes"] = self._hand_sizes or self._count_hands()
        fields["discard_size"] = len(self.discard)
        fields["hidden_card"] = CARD_IDS[hidden_card] if knows_hidden else None  # type: ignore[index]
        fields["bidder"] = self.actor if self.decision is _BID else None
        fields["stakes"] = tuple(self.stakes)
        fields["laid"] = self._laid_seen_by(seat) if bluff.face_down_laid else self._laid_ids
        fields["declared"] = tuple(bluff.declared)
        # (without the Bluff option nobody checks: its view is None, found without a call)
        fields["check"] = None if bluff.check is None and bluff.offer is None else bluff.view()
        fields["passed"] = tuple(self.passed) if self.phase is _AUCTION else (False,) * self.n
        fields["high_bidder"] = self.high_bidder
        fields["actor"] = self.actor if self.decision is not None else None
        fields["placing"] = None if placing is None else CARD_IDS[placing]
        fields["placing_pen"] = None if placing is None else self.placing_pen
        fields["window"] = windows.view(seat) if window_open else None
        # the observation gets the dict as its own, without attrs' __init__: it has no
        # validators or converters to skip, and setting 31 frozen fields one by one would cost
        # more than the rest of observing (the tests check that every observation has exactly
        # the attrs fields)
        observation = _new(WypasObservation)
        _set_attribute(observation, "__dict__", fields)
        return observation

    def _table_observed(self) -> dict[str, Any]:
        """The part of every seat's observation that changes only from one auction, phase or
        turn to the next, with a pen, a shearing or a draw, and every other field as None
        (observe sets them in a copy); every change of it is followed by
        :meth:`_table_changed`."""
        auction_card = self.auction_card
        # set in a copy of every field as None, for the reason observe copies this one
        table = self._table = _EVERY_FIELD.copy()
        table["turn"] = self.turn
        table["turn_cap"] = self.options.turn_cap
        table["phase"] = self.phase._value_
        table["baca"] = self.baca
        table["pens"] = self._pens_view or self._pens_observed()
        table["wolves"] = self._wolves_view or self._wolves_observed()
        table["fleeces"] = tuple(self.fleeces)
        table["scores"] = tuple(self.scores)
        table["deck_size"] = len(self.deck)
        table["lot"] = tuple([CARD_IDS[card] for card in self.lot])
        table["lot_hidden"] = self.lot_hidden
        table["auction_card"] = (HIDDEN if self.auction_hidden
                                 else None if auction_card is None else CARD_IDS[auction_card])
        table["opener"] = self.opener if self.phase is _AUCTION else None
        table["end_triggered_by"] = self.end_triggered_by
        return table

    def _table_changed(self) -> None:
        self._table = None

    def _laid_seen_by(self, seat: int) -> tuple[tuple[str, ...], ...]:
        """This auction's bid cards as ``seat`` sees them when some are face down (one as
        ``face-down`` unless it is its own or a showdown revealed it)."""
        return tuple([tuple([self._public_id(card, seat) for card in laid])
                      for laid in self.laid])
