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

from collections.abc import Sequence
from typing import Any

from arena.games.base import (
    EventLog,
    EventSpec,
    GameSpec,
    IllegalAction,
    OtherWorld,
    Result,
    StateBase,
)
from arena.games.chance import Chance, SeededChance
from arena.games.wypas.auction import Auction
from arena.games.wypas.board import WypasBoard
from arena.games.wypas.cards import (
    CARD_IDS,
    CARDS,
    COLOURS,
    INDEX,
    KIND_NAMES,
    Placed,
)
from arena.games.wypas.core import (
    _AWARD,
    _BID,
    _BLUFF_CARD,
    _BLUFF_VALUE,
    _DECLARE,
    _HIDE,
    _JOKER_VALUE,
    _NAME,
    _PLACE,
    _SHEAR,
    DONE,
    HAND_SIZE,
    HIDDEN,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PASS,
    Bluff,
    Phase,
    WypasObservation,
    WypasOptions,
    parse_options,
)
from arena.games.wypas.drawing import DRAWING
from arena.games.wypas.pens import Pens
from arena.games.wypas.shearing import Shearing
from arena.games.wypas.views import Views
from arena.games.wypas.windows import (
    _CLOSED,
    Decision,
    Windows,
)
from arena.games.wypas.worlds import other_world as worlds

# --- The state -----------------------------------------------------------------------------------


class WypasState(Views, Auction, Pens, Shearing, StateBase):
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
        # the most frequent events are built only when recorded (self-play for search and the
        # benchmarks records none): their data would cost more than the rules around them
        self.recording = record_events
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

    # -- the interface --

    # The interface runs at every decision: it reads ``windows.stage`` where a call of
    # windows.active() would cost more than the test.

    def to_act(self) -> tuple[int, ...]:
        acting = self._acting
        if acting is None:
            windows = self.windows
            if windows.stage is not _CLOSED:
                acting = windows.to_act()
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
        windows = self.windows
        if windows.stage is not _CLOSED:
            return windows.decision_of(seat)
        return self.decision if seat == self.actor else None

    def legal_actions(self, seat: int) -> list[str]:
        legal = self._legal.get(seat)  # _legal_now, inlined
        if legal is None:
            legal = self._legal[seat] = self._compute_legal(seat)
        return legal[:]  # a copy: the list kept for apply stays as it is

    def _legal_now(self, seat: int) -> list[str]:
        """``seat``'s legal list, computed once per step (apply validates against it too)."""
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self._compute_legal(seat)
        return legal

    def _compute_legal(self, seat: int) -> list[str]:
        windows = self.windows
        if windows.stage is not _CLOSED:
            return windows.legal(seat) if windows.decision_of(seat) is not None else []
        decision = self.decision
        if decision is None or seat != self.actor:
            return []
        if decision is _BID:  # the most frequent
            return self._legal_bid(seat)
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
        legal = self._legal.get(seat)  # _legal_now, its call saved when the list is there
        if legal is None:
            legal = self._legal_now(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} has nothing to decide now")
        if action not in legal:
            raise IllegalAction(f"{action!r} is not one of your legal actions now")
        # the state changes, and with it who acts and every legal list
        self._acting, self._legal = None, {}
        windows = self.windows
        if windows.stage is not _CLOSED:
            windows.apply(seat, action)
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
        if self.recording:
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
        if self.decision is None and self.windows.stage is _CLOSED:
            self._next_main()

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
    bots={"wypas-heuristic": "reference_bots.wypas_heuristic",
          "wypas-boss": "reference_bots.wypas_boss"},
    drawing=DRAWING,
    board=WypasBoard,
    encoding="arena.games.wypas.encoding",
    worthwhile="reference_bots.wypas_worthwhile:WorthwhileJudge",
)
