"""wypas: Wypas (Kuźnia Gier 2008, Maciej Zasowski and Michał Stachyra), for 3 to 6 players.

Rules as implemented are in SPEC.md ("wypas"); the sources are ``shared/rules/wypas.md`` and
the Polish rules text.  A turn: the baca draws 3 lot cards (2 with 3 players) and hides one;
each is auctioned (bids are sheep cards laid from the hand, the stake is their sum, every card
laid is discarded, the baca gets a card nobody bid on); redyk (sheep into two pens: one colour
ascending by one, or one value in different colours); shearing, scored at once; 3 cards dealt
to each; the baca card passes left.  The game ends when someone shears a 5th fleece (+4; others
reaching 5 in one final shearing step +2), or at the turn cap.

Every choice is a small decision (the tokens are in SPEC.md): ``hide <card>``; ``name <card>``
/ ``name hidden``; ``add <card>``, ``commit``, ``pass``; ``place <card> <pen>`` (a joker then
``as <colour>-<value>``), ``done``; ``shear <pen>``, ``done``.  Special cards are played in
reaction windows (:mod:`arena.games.wypas.windows`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from arena.games.base import (
    EventLog,
    EventSpec,
    GameSpec,
    IllegalAction,
    OptionsError,
    OtherWorld,
    Result,
    StateBase,
)
from arena.games.chance import Chance, SeededChance
from arena.games.wypas.cards import (
    CARD_IDS,
    CARDS,
    COLOURS,
    INDEX,
    IS_JOKER,
    IS_SHEEP,
    IS_SPECIAL,
    JOKERS,
    KIND,
    KIND_NAMES,
    MAX_VALUE,
    Kind,
    Placed,
    fits,
    shear,
)
from arena.games.wypas.drawing import DRAWING
from arena.games.wypas.windows import (
    Decision,
    Windows,
    kinds_with_a_pen_target,
    playable_specials,
)
from arena.games.wypas.worlds import other_world as worlds

MIN_PLAYERS, MAX_PLAYERS = 3, 6
HAND_SIZE = 5
DEAL_SIZE = 3
FLEECES_TO_END = 5
END_BONUS, LATE_BONUS = 4, 2
HIDDEN = "hidden"
PASS, COMMIT, DONE = "pass", "commit", "done"
BLUFF, CHECK, FACE_DOWN = "bluff", "check", "face-down"
BLEAT = "meee"


ADD = tuple(f"add {card_id}" for card_id in CARD_IDS)  # the bid token of each card index


def lot_size(players: int) -> int:
    return 2 if players == 3 else 3


class Phase(enum.Enum):
    AUCTION = "auction"
    REDYK = "redyk"
    SHEARING = "shearing"
    FINAL_SHEARING = "final_shearing"
    OVER = "over"


# Python 3.11 looks an enum member up through its class slowly: the paths every action takes
# (apply, the legal lists, observe, the next main decision) compare against these names.
_HIDE, _NAME, _BID, _PLACE, _DECLARE, _SHEAR = (
    Decision.HIDE, Decision.NAME, Decision.BID, Decision.PLACE, Decision.DECLARE, Decision.SHEAR)
_JOKER_VALUE, _BLUFF_CARD, _BLUFF_VALUE, _AWARD = (
    Decision.JOKER_VALUE, Decision.BLUFF_CARD, Decision.BLUFF_VALUE, Decision.AWARD)
_AUCTION, _REDYK = Phase.AUCTION, Phase.REDYK


# --- Options and observation ---------------------------------------------------------------------


def _whole(name: str, raw: object) -> int:
    try:
        return int(str(raw))
    except ValueError:
        raise OptionsError(f"{name} must be a whole number, not {raw!r}") from None


def _flag(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise OptionsError(f"{name} must be true or false, not {raw!r}")


@attrs.frozen
class WypasOptions:
    players: int = attrs.field(default=4, metadata={"help": "seats at a table: 3 to 6"})
    turn_cap: int = attrs.field(default=60, metadata={
        "help": "the game ends after this many turns (an arena rule; no end bonus then)"})
    bluff: bool = attrs.field(default=False, metadata={
        "help": "the advanced Bluff rule: one face-down bid card per auction, checking"})
    strict_bleating: bool = attrs.field(default=False, metadata={
        "help": "a shear scores only when its action bleats (shear <pen> meee)"})

    @players.validator
    def _check_players(self, _attribute: attrs.Attribute, value: int) -> None:
        if not isinstance(value, int) or not MIN_PLAYERS <= value <= MAX_PLAYERS:
            raise OptionsError(f"wypas is for 3 to 6 players, not {value!r}")

    @turn_cap.validator
    def _check_cap(self, _attribute: attrs.Attribute, value: int) -> None:
        if not isinstance(value, int) or not 1 <= value <= 1000:
            raise OptionsError(f"turn_cap must be 1 to 1000, not {value!r}")


def parse_options(raw: Mapping[str, Any]) -> WypasOptions:
    known = {field.name for field in attrs.fields(WypasOptions)}
    unknown = set(raw) - known
    if unknown:
        raise OptionsError(f"unknown wypas option(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        values[name] = (_flag(name, value) if name in ("bluff", "strict_bleating")
                        else _whole(name, value))
    return WypasOptions(**values)


@attrs.frozen(slots=False)
class WypasObservation:
    """Everything one seat may know now.  Cards are ids (SPEC.md and ``game_start.info.cards``
    give each one's kind, colour and value); a placed card is ``[id, colour, value]``.

    Not slotted, so that :func:`_observation` can set every field at once (the engine builds
    one per decision)."""

    seat: int
    turn: int
    turn_cap: int
    phase: str
    decision: str | None  # what this seat must decide now, else None
    baca: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    pens: tuple[tuple[tuple[Placed, ...], ...], ...]  # by seat: [pen 0, pen 1]
    wolves: tuple[tuple[str | None, ...], ...]  # by seat: the wolf above pen 0, pen 1
    fleeces: tuple[int, ...]
    scores: tuple[int, ...]
    deck_size: int
    discard_size: int
    lot: tuple[str, ...]  # face-up lot cards not auctioned yet
    lot_hidden: bool  # the face-down lot card is still to be auctioned
    hidden_card: str | None  # the face-down lot card, to the seat that knows it
    auction_card: str | None  # the card being auctioned (id, or "hidden")
    opener: int | None
    bidder: int | None  # whose bidding turn it is
    stakes: tuple[int, ...]  # this auction, by seat
    laid: tuple[tuple[str, ...], ...]  # this auction's bid cards, by seat
    passed: tuple[bool, ...]
    high_bidder: int | None
    actor: int | None  # whose main decision (hide, name, bid, place, shear) is next
    placing: str | None  # in a declare decision: the joker being placed
    placing_pen: int | None
    end_triggered_by: int | None
    window: Mapping[str, Any] | None  # an open reaction window (SPEC.md "Reaction windows")
    declared: tuple[int, ...]  # bluff: the declared value of each seat's face-down bid card (0)
    check: Mapping[str, Any] | None  # bluff: the offer to check, or the check under way


def _observation(fields: dict[str, Any]) -> WypasObservation:
    """A :class:`WypasObservation` from a dict holding every field, without attrs' ``__init__``
    (it has no validators or converters to skip, and setting 31 frozen fields one by one costs
    more than the rest of observing).  ``fields`` becomes the value's own: do not reuse it.
    The tests check that every observation has exactly the attrs fields."""
    observation = object.__new__(WypasObservation)
    object.__setattr__(observation, "__dict__", fields)
    return observation


# --- Bluff (an option) ---


@attrs.define
class Check:
    """A checked bluff: the checker must match ``target`` exactly (passing instead ends the
    check); so may later bidders."""

    bluffer: int
    checker: int
    target: int
    matched: list[int] = attrs.field(factory=list)


class Bluff:
    """One auction's face-down bid cards and checks (the Bluff option)."""

    def __init__(self, n: int) -> None:
        self.face_down: list[int | None] = [None] * n  # each seat's face-down card
        self.face_down_laid = False  # any face-down card in this auction yet
        self.declared = [0] * n
        self.bluffer: int | None = None  # the last committed stake with a face-down card
        self.offer: int | None = None  # the seat that may check it now
        self.fresh = False  # the bidder has not acted yet this turn (a check comes first)
        self.check: Check | None = None
        self.tied: list[int] = []  # a showdown tie the baca settles
        self.revealed: set[int] = set()  # seats whose face-down card a showdown revealed
        self.joker: int | None = None  # a joker laid as a bid, its value still to declare
        self.joker_values: dict[int, int] = {}  # jokers laid as bids: their declared values

    def copy(self) -> Bluff:
        twin = object.__new__(Bluff)
        twin.__dict__.update(self.__dict__)
        twin.face_down, twin.declared, twin.tied = (
            list(self.face_down), list(self.declared), list(self.tied))
        twin.revealed, twin.joker_values = set(self.revealed), dict(self.joker_values)
        if self.check is not None:
            twin.check = Check(self.check.bluffer, self.check.checker, self.check.target,
                               list(self.check.matched))
        return twin

    def view(self) -> Mapping[str, Any] | None:
        if self.check is not None:
            return {"bluffer": self.check.bluffer, "checker": self.check.checker,
                    "stake": self.check.target, "matched": list(self.check.matched),
                    "offer": None}
        if self.offer is not None:
            return {"bluffer": self.bluffer, "checker": None, "stake": None, "matched": [],
                    "offer": self.offer}
        return None


# --- The state -----------------------------------------------------------------------------------


class WypasState(StateBase):
    """A game of Wypas.  Cards are indices into :data:`CARDS`; lists are mutated in place.

    Chance: the play deck is ``chance.shuffle(card ids, "deck")`` (drawn from the end), the
    first baca ``chance.roll((players,), "first_baca")``, and the used pile, when it becomes a
    new deck, ``chance.shuffle(positions, "reshuffle", k)`` for the k-th time."""

    def __init__(self, options: WypasOptions, seed: object, *, record_events: bool = False,
                 chance: Chance | None = None) -> None:
        n = self.n = options.players
        self.options = options
        self.chance: Chance = chance if chance is not None else SeededChance(seed)
        self.events = EventLog(record_events)
        self.deck = [INDEX[card_id] for card_id in self.chance.shuffle(CARD_IDS, "deck")]
        self.discard: list[int] = []
        self.reshuffles = 0
        self._hands: list[list[int]] = [[] for _ in range(n)]
        self._pens: list[list[list[Placed]]] = [[[], []] for _ in range(n)]
        self._wolves: list[list[int | None]] = [[None, None] for _ in range(n)]
        self.fleeces = [0] * n
        self.scores = [0] * n
        self.baca = self.chance.roll((n,), "first_baca")[0] - 1
        self.turn = 1
        self.phase = Phase.AUCTION
        self.end_triggered_by: int | None = None
        self.final_left: list[int] = []  # seats still to take their final shearing step
        # the main line: who decides what
        self.actor: int | None = None
        self.decision: Decision | None = None
        # the lot and the auction
        self.lot: list[int] = []
        self.drawn_lot: list[int] = []  # the lot while the baca chooses the face-down card
        self.hidden_card: int | None = None
        self.lot_hidden = False
        self.opener = self.baca
        self.auction_card: int | None = None  # a card index
        self.auction_hidden = False
        self.stakes: list[int]
        self.laid: list[list[int]]
        self.passed: list[bool]
        self.high_bidder: int | None
        self.bluff: Bluff
        self._clear_bids()
        # redyk: the joker waiting for its declaration
        self.placing: int | None = None
        self.placing_pen = 0
        self.phase_left: list[int] = []  # seats still to act in redyk or shearing
        self.windows = Windows(self)
        self._drop_views()
        self._deal_start()

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
        self._hand_changed(seat, card)

    def _take(self, seat: int, card: int) -> None:
        self._hands[seat].remove(card)
        self._hand_changed(seat, card)

    def _hand_changed(self, seat: int, card: int) -> None:
        self._hand_ids[seat] = self._hand_sizes = None
        # what may be played in a window depends on the special cards in each hand and on
        # which hands are empty (a thief needs a victim), not on the sheep
        if IS_SPECIAL[card] or len(self._hands[seat]) <= 1:
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

    # -- the interface --

    def to_act(self) -> tuple[int, ...]:
        acting = self._acting
        if acting is None:
            if self.windows.active():
                acting = self.windows.to_act()
            elif self.decision is None or self.actor is None:
                acting = ()
            else:
                acting = (self.actor,)
            self._acting = acting
        return acting

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def is_reaction(self, seat: int) -> bool:
        return self.windows.is_reaction(seat)

    def decision_of(self, seat: int) -> Decision | None:
        if self.windows.active():
            return self.windows.decision_of(seat)
        return self.decision if seat == self.actor else None

    def legal_actions(self, seat: int) -> list[str]:
        return self._legal_now(seat)[:]  # a copy: the list kept for apply stays as it is

    def _legal_now(self, seat: int) -> list[str]:
        """``seat``'s legal list, computed once per step (apply validates against it too)."""
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self._compute_legal(seat)
        return legal

    def _compute_legal(self, seat: int) -> list[str]:
        decision = self.decision_of(seat)
        if decision is None:
            return []
        if decision is _BID:  # the most frequent
            return self._legal_bid(seat)
        if self.windows.active():
            return self.windows.legal(seat)
        if decision is _PLACE:
            return self._legal_place(seat)
        if decision is _DECLARE:
            return [f"as {colour}-{value}" for colour, value in self._declarations()]
        if decision is _SHEAR:
            return self._legal_shear(seat)
        if decision is _HIDE:
            return [f"hide {CARD_IDS[card]}" for card in self.drawn_lot]
        if decision is _JOKER_VALUE:
            return [f"value {v}" for v in self._declarable(seat)]
        if decision is _BLUFF_CARD:
            return [f"face_down {CARD_IDS[card]}" for card in self._hands[seat]]
        if decision is _BLUFF_VALUE:
            return [f"value {v}" for v in self._declarable(seat)]
        if decision is _AWARD:
            return [f"award {other}" for other in self.bluff.tied]
        if decision is _NAME:
            names = [f"name {CARD_IDS[card]}" for card in self.lot]
            return names + ["name hidden"] if self.lot_hidden else names
        raise AssertionError(decision)

    def default_action(self, seat: int) -> str | None:
        """Never spend a card for a silent seat: pass a bid, end a redyk or a shearing step
        (``done``); any lot card to hide or name, any declaration."""
        decision = self.decision_of(seat)
        if self.windows.active():
            return self.windows.default(seat) if decision is not None else None
        if decision is Decision.BID:
            return PASS
        if decision in (Decision.PLACE, Decision.SHEAR):
            return DONE
        if decision is Decision.JOKER_VALUE:  # the joker is laid already: the most it may count
            return self.legal_actions(seat)[-1]
        if decision is Decision.AWARD:  # the digest's fallback: first clockwise from the opener
            return f"award {min(self.bluff.tied, key=lambda s: (s - self.opener) % self.n)}"
        return None

    def apply(self, seat: int, action: str) -> None:
        legal = self._legal_now(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} has nothing to decide now")
        if action not in legal:
            raise IllegalAction(f"{action!r} is not one of your legal actions now")
        # the state changes, and with it who acts and every legal list
        self._acting, self._legal = None, {}
        if self.windows.active():
            self.windows.apply(seat, action)
            return
        decision = self.decision
        verb, _, rest = action.partition(" ")
        if decision is _BID:
            self._bid_action(seat, verb, rest)
        elif decision is _PLACE:
            self._place_action(seat, verb, rest)
        elif decision is _DECLARE:
            colour, value = rest.rsplit("-", 1)
            self._place(seat, self.placing, self.placing_pen, colour, int(value))  # type: ignore[arg-type]
        elif decision is _SHEAR:
            self._shear_action(seat, verb, rest)
        elif decision is _HIDE:
            self._hide(INDEX[rest])
        elif decision is _BLUFF_CARD:
            self._lay_face_down(seat, INDEX[rest])
        elif decision is _BLUFF_VALUE:
            self._declare_bluff(seat, int(rest))
        elif decision is _JOKER_VALUE:
            self._declare_joker(seat, int(rest))
        elif decision is _AWARD:
            self._end_auction(int(rest))
            self._after(seat)
        else:
            self._name(None if rest == HIDDEN else INDEX[rest])

    def result(self) -> Result | None:
        if self.phase is not Phase.OVER:
            return None
        return Result.from_scores(self.scores, rounds=self.turn)

    def observe(self, seat: int) -> WypasObservation:
        decision = self.decision_of(seat)
        hidden_card = self.hidden_card
        knows_hidden = hidden_card is not None and seat == self.baca and (
            self.lot_hidden or self.auction_hidden)
        placing = self.placing
        return _observation({
            **(self._table or self._table_observed()),
            "seat": seat,
            # _value_ is the member's value, read without the enum property's cost
            "decision": decision._value_ if decision is not None else None,
            # each view is rebuilt only after what it shows changed (an empty hand is rebuilt
            # every time: it is free)
            "hand": self._hand_ids[seat] or self.hand_ids(seat),
            "hand_sizes": self._hand_sizes or self._count_hands(),
            "discard_size": len(self.discard),
            "hidden_card": CARD_IDS[hidden_card] if knows_hidden else None,  # type: ignore[index]
            "bidder": self.actor if self.decision is _BID else None,
            "stakes": tuple(self.stakes),
            "laid": self._laid_seen_by(seat) if self.bluff.face_down_laid else self._laid_ids,
            "declared": tuple(self.bluff.declared),
            "check": self.bluff.view(),
            "passed": tuple(self.passed) if self.phase is _AUCTION else (False,) * self.n,
            "high_bidder": self.high_bidder,
            "actor": self.actor if self.decision is not None else None,
            "placing": None if placing is None else CARD_IDS[placing],
            "placing_pen": None if placing is None else self.placing_pen,
            "window": self.windows.view(seat),
        })

    def _table_observed(self) -> dict[str, Any]:
        """The part of every seat's observation that changes only from one auction, phase or
        turn to the next, with a pen, a shearing or a draw; every change of it is followed by
        :meth:`_table_changed`."""
        auction_card = self.auction_card
        table = self._table = {
            "turn": self.turn, "turn_cap": self.options.turn_cap,
            "phase": self.phase._value_,
            "baca": self.baca,
            "pens": self._pens_view or self._pens_observed(),
            "wolves": self._wolves_view or self._wolves_observed(),
            "fleeces": tuple(self.fleeces), "scores": tuple(self.scores),
            "deck_size": len(self.deck),
            "lot": tuple([CARD_IDS[card] for card in self.lot]),
            "lot_hidden": self.lot_hidden,
            "auction_card": (HIDDEN if self.auction_hidden
                             else None if auction_card is None else CARD_IDS[auction_card]),
            "opener": self.opener if self.phase is _AUCTION else None,
            "end_triggered_by": self.end_triggered_by,
        }
        return table

    def _table_changed(self) -> None:
        self._table = None

    def _laid_seen_by(self, seat: int) -> tuple[tuple[str, ...], ...]:
        """This auction's bid cards as ``seat`` sees them when some are face down (one as
        ``face-down`` unless it is its own or a showdown revealed it)."""
        return tuple([tuple([self._public_id(card, seat) for card in laid])
                      for laid in self.laid])

    # clone (StateBase) copies these, and _cloned the rest
    COPIED = ("deck", "discard", "fleeces", "scores", "final_left", "lot", "drawn_lot",
              "stakes", "passed", "phase_left", "_hand_ids", "_specials")
    COPIED_NESTED = ("_hands", "laid", "_wolves")

    def _cloned(self, twin: Any) -> None:
        twin._pens = [[list(pen) for pen in pens] for pens in self._pens]
        twin._legal = dict(self._legal)
        twin.windows = self.windows.copy_for(twin)
        twin.bluff = self.bluff.copy()

    # -- helpers --

    def left_of(self, seat: int) -> int:
        return (seat + 1) % self.n

    def _ask(self, decision: Decision, seat: int) -> None:
        self.decision = decision
        self.actor = seat

    def _draw(self) -> int | None:
        """The top card of the deck; an empty deck is first refilled from the used pile."""
        if not self.deck:
            if not self.discard:
                return None
            self.reshuffles += 1
            order = self.chance.shuffle(range(len(self.discard)), "reshuffle", self.reshuffles)
            self.deck = [self.discard[i] for i in order]
            self.discard = []
            self.events.emit("reshuffled", {"deck_size": len(self.deck)})
        card = self.deck.pop()
        self._table_changed()
        return card

    def _deal(self, per_seat: int) -> None:
        """``per_seat`` cards to each, one at a time, starting left of the baca; each seat sees
        its own cards."""
        dealt: list[list[int]] = [[] for _ in range(self.n)]
        for _ in range(per_seat):
            for step in range(1, self.n + 1):
                seat = (self.baca + step) % self.n
                card = self._draw()
                if card is None:
                    break
                dealt[seat].append(card)
                self._give(seat, card)
        for seat, cards in enumerate(dealt):
            self.events.emit("dealt", {"seat": seat, "cards": [CARD_IDS[c] for c in cards]},
                             frozenset((seat,)))

    def _deal_start(self) -> None:
        self._deal(HAND_SIZE)
        self._start_turn()

    def _after(self, seat: int) -> None:
        """A main-line action by ``seat`` is complete: a reaction window, then the next main
        decision."""
        self.decision = None
        self.windows.open_after(seat)
        if self.decision is None and not self.windows.active():
            self._next_main()

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
        if stake > self._high() or (check is not None and stake == check.target):
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
            self.events.emit("bid", {"seat": seat, "stake": self.stakes[seat]})
        else:
            self.passed[seat] = True
            if bluff.check is not None and seat == bluff.check.checker:
                # checking is matching ("sprawdza i wyrównuje"): a checker who passes has not
                # checked, and the bluffer's stake stands as an ordinary highest stake
                bluff.check = None
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
        elif self.phase in (Phase.SHEARING, Phase.FINAL_SHEARING):
            self._continue_shearing()

    def _auction_under_way(self) -> bool:
        """Has anyone acted in the current auction yet (the opener bids first)?"""
        return self.high_bidder is not None or any(self.passed)

    def _ask_bidder(self, seat: int) -> None:
        # asked even when only "pass" is legal: how fast a seat passes must not show its hand
        self.bluff.fresh = True
        self._ask(_BID, seat)

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
            self._ask(Decision.PLACE, self.phase_left[0])
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
            kind = KIND[card]
            if kind is Kind.SHEEP:
                info = CARDS[card]
                for pen in choices:
                    if fits(pens[pen], info.colour, info.value):  # type: ignore[arg-type]
                        actions.append(f"place {CARD_IDS[card]} {pen}")
            elif kind in JOKERS:
                for pen in choices:
                    if self._joker_fits(card, pens[pen]):
                        actions.append(f"place {CARD_IDS[card]} {pen}")
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
        self.events.emit("placed", {"seat": seat, "pen": pen, "card": CARD_IDS[card],
                                    "colour": colour, "value": value})
        self._after(seat)

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
                self._ask(Decision.SHEAR, seat)
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
        if self.phase is not Phase.OVER:
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


def new_state(options: WypasOptions, seed: object, *, record_events: bool = False,
              chance: Chance | None = None) -> WypasState:
    return WypasState(options, seed, record_events=record_events, chance=chance)


def info(_options: WypasOptions) -> dict[str, Any]:
    """The public card table, sent to bots at game start."""
    return {
        "colours": list(COLOURS),
        "cards": [{"id": card.id, "kind": KIND_NAMES[card.kind], "colour": card.colour,
                   "value": card.value} for card in CARDS],
    }


def other_world(state: WypasState, seat: int, actions: Sequence[tuple[int, str]],
                rng: Any) -> OtherWorld:
    return worlds(state, seat, actions, rng)


SPEC = GameSpec(
    name="wypas",
    title="Wypas",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    parse_options=parse_options,
    new_state=new_state,
    options_type=WypasOptions,
    observation_type=WypasObservation,
    events={
        "dealt": EventSpec(("seat", "cards"), "that seat only"),
        "turn_start": EventSpec(("turn", "baca")),
        "lot_seen": EventSpec(("cards",), "the baca only"),
        "lot_laid": EventSpec(("face_up", "face_down")),
        "face_down_card": EventSpec(("card",), "the baca only"),
        "auction_start": EventSpec(("opener", "card")),
        "bid_card": EventSpec(("seat", "card", "value", "stake")),
        "bid": EventSpec(("seat", "stake")),
        "bid_passed": EventSpec(("seat",)),
        "auction_won": EventSpec(("seat", "card", "stake", "discarded")),
        "received": EventSpec(("seat", "card"), "the winner of the face-down card only"),
        "placed": EventSpec(("seat", "pen", "card", "colour", "value")),
        "sheared": EventSpec(("seat", "pen", "wolf", "eaten", "discarded", "fleece", "bleated",
                              "points", "bonus", "fleeces", "score")),
        "end_triggered": EventSpec(("seat",)),
        "reshuffled": EventSpec(("deck_size",)),
        "game_over": EventSpec(("reason", "scores", "fleeces")),
        "special_played": EventSpec(("seat", "card", "target", "cancels")),
        "withdrawn": EventSpec(("seat", "card", "reason"), "that seat only"),
        "resolved": EventSpec(("card", "cancelled", "dogs")),
        "chased": EventSpec(("seat", "target", "wolf")),
        "hand_seen": EventSpec(("seat", "cards"), "the thief's player only"),
        "stole": EventSpec(("seat", "from")),
        "stolen_card": EventSpec(("seat", "from", "card"), "the thief's player and its victim"),
        "swapped": EventSpec(("seat", "target", "card", "black_sheep")),
        "face_down_bid": EventSpec(("seat", "card"), "that seat only"),
        "checked": EventSpec(("seat", "bluffer", "stake")),
        "showdown": EventSpec(("revealed", "totals", "winner", "tied")),
    },
    other_world=other_world,
    info=info,
    round_name="turn",
    reaction_windows=True,
    short_game={"turn_cap": 4},
    reference_bot="wypas-heuristic",
    drawing=DRAWING,
)
