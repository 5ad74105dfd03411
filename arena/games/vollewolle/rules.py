"""vollewolle: Volle Wolle (Zoch 2007, Alessandro Zucchini), for 2 to 6 players.

Rules as implemented are in SPEC.md ("vollewolle"); the sources are ``shared/rules/vollewolle.md``
and the Hungarian rules text.  In short: every round lays out players + 1 cards; everyone bids
secretly at once (14..25, or 26+ for a wool chip); from the highest bid down, each player but the
last rolls D12+D10+D8 up to three times, setting one die aside after each failure, and takes 3, 2
or 1 cards on success (a failure gives a wool chip, and a total below 14 takes every black sheep
shown); the last player takes what is left.  Taken sheep go on top of the taker's flock, whose
top card's bonus (optional) or malus (mandatory) changes later rolls.

Every choice is a small decision: ``bid 14`` .. ``bid 25``, ``bid 26+``; ``keep d12|d10|d8``;
``reach`` / ``decline`` (reach the target with the fewest chips; a bonus is added whole or not at
all); ``roll`` / ``take all`` (the last of two players); ``take <card id>`` (one card at a time,
which is also the order they go onto the flock).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from arena.games.base import (
    EventLog,
    EventSpec,
    GameSpec,
    IllegalAction,
    OtherWorld,
    Result,
)
from arena.games.chance import Chance, SeededChance
from arena.games.vollewolle.board import VolleWolleBoard
from arena.games.vollewolle.cards import KIND_NAMES, score_table
from arena.games.vollewolle.core import (
    _BIDDING,
    _KEEPING,
    _OVER,
    _REACHING,
    _ROLLING_OR_TAKING,
    _TAKING,
    BID_BACKS,
    BID_TOKENS,
    BID_VALUE,
    CARD_IDS,
    CARDS,
    DECLINE,
    DICE,
    HIGH_BID,
    INDEX,
    KEEP_DIE,
    KEEP_TOKENS,
    KEPT_NAMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    REACH,
    ROLL,
    ROLLING,
    SIDES,
    STARTING_WOOL,
    TAKE_ALL,
    TAKE_CARD,
    TAKE_TOKENS,
    Decision,
    VolleWolleObservation,
    VolleWolleOptions,
    _observation,
    _Views,
    parse_options,
)
from arena.games.vollewolle.drawing import DRAWING
from arena.games.vollewolle.turns import Turns

# --- The state -----------------------------------------------------------------------------------


class VolleWolleState(Turns):
    """A game of Volle Wolle.  Internal lists of card indices, mutated in place.

    Chance: the deck is ``chance.shuffle(card ids, "deck")``, bid-card backs
    ``chance.shuffle(BID_BACKS, "bid_backs")``, the start player (the last tie-break)
    ``chance.roll((players,), "start_player")``, and each roll ``chance.roll(sides of the dice
    rolled, "dice", round, turn position, attempt)``: the same seed gives the same cards and the
    same dice for the same situation, whatever the players did before."""

    def __init__(self, options: VolleWolleOptions, seed: object, *, record_events: bool = False,
                 chance: Chance | None = None) -> None:
        n = self.n = options.players
        self.options = options
        self.chance: Chance = chance if chance is not None else SeededChance(seed)
        self.events = EventLog(record_events)
        self._recording = record_events
        self.deck = [INDEX[card_id] for card_id in self.chance.shuffle(CARD_IDS, "deck")]
        self.drawn = 0
        self.bid_backs = self.chance.shuffle(BID_BACKS, "bid_backs")[:n]
        self.start_player = self.chance.roll((n,), "start_player")[0] - 1
        self.display: list[int] = []
        self.flocks: list[list[int]] = [[] for _ in range(n)]
        self._no_bids: tuple[None, ...] = (None,) * n  # the bids a seat sees before its own
        self._rebuild_views()
        self.dogs = [0] * n
        self.bone_holder: int | None = None
        self.wool = [STARTING_WOOL] * n
        self.round = 0
        self.bids: list[int | None] = [None] * n
        self.order: list[int] = []
        self.position = 0
        self.decision = _BIDDING
        self._acting: tuple[int, ...] = ()
        self.dice = [0, 0, 0]
        self.kept: tuple[int, ...] = ()  # die indices, in the order they were kept
        self.attempt = 0
        self.target = 0  # what the open REACH decision reaches: the bid, or MIN_BID
        self.reaching_bid = True  # False: the REACH decision lifts a failed roll to 14
        self.taker: int | None = None
        self.take_left = 0
        self.black_only = False
        self.scoring: list[Any] | None = None
        self._start_round()

    # -- the interface --

    def is_over(self) -> bool:
        return self.decision is _OVER

    def legal_actions(self, seat: int) -> list[str]:
        if seat not in self._acting:
            return []
        decision = self.decision
        if decision is _BIDDING:
            return self.legal_bids(seat)
        if decision is _TAKING:
            return [TAKE_TOKENS[card] for card in self._candidates()]
        if decision is _KEEPING:
            return [KEEP_TOKENS[die] for die in ROLLING[self.kept][0]]
        if decision is _REACHING:
            return [REACH, DECLINE]
        return [ROLL, TAKE_ALL]

    def legal_bids(self, seat: int) -> list[str]:
        """The bids ``seat`` may make: 26+ only with a wool chip to pay for it."""
        return list(BID_TOKENS if self.wool[seat] else BID_TOKENS[:-1])

    def default_action(self, seat: int) -> str | None:
        """The lowest bid; never spend wool; the last of two players takes the rest; any die
        and any card otherwise."""
        decision = self.decision
        if decision is _BIDDING:
            return BID_TOKENS[0]
        if decision is _REACHING:
            return DECLINE
        if decision is _ROLLING_OR_TAKING:
            return TAKE_ALL
        return None

    def apply(self, seat: int, action: str) -> None:
        if seat not in self._acting:
            raise IllegalAction(f"seat {seat} has nothing to decide now")
        decision = self.decision
        if decision is _BIDDING:
            self._bid(seat, action)
        elif decision is _TAKING:
            card = TAKE_CARD.get(action)
            if card is None or card not in self._candidates():
                raise IllegalAction(f"{action!r} is not a card you may take now")
            self._take(seat, card)
            self.take_left -= 1
            self._continue_taking()
        elif decision is _KEEPING:
            die = KEEP_DIE.get(action)
            if die is None or die in self.kept:
                raise IllegalAction(f"{action!r}: keep one of the dice you just rolled")
            self.kept += (die,)
            self.attempt += 1
            self._roll()
        elif decision is _REACHING:
            if action == REACH:
                self._reach()
            elif action == DECLINE:
                self._decline()
            else:
                raise IllegalAction(f"{action!r}: answer {REACH} or {DECLINE}")
        elif action == ROLL:
            self._start_roll(seat)
        elif action == TAKE_ALL:
            self._start_taking(seat, len(self.display))
        else:
            raise IllegalAction(f"{action!r}: answer {ROLL} or {TAKE_ALL}")

    def result(self) -> Result | None:
        if self.scoring is None:
            return None
        return Result.from_scores([s.total for s in self.scoring], rounds=self.round)

    def observe(self, seat: int) -> VolleWolleObservation:
        decision = self.decision
        rolling = self.attempt > 0
        reaching = decision is _REACHING
        taker = self.taker
        turn = (taker if taker is not None
                else self.order[self.position] if self.order else None)
        if decision is not _BIDDING:
            bids: tuple[int | None, ...] = tuple(self.bids)
        elif self.bids[seat] is None:
            bids = self._no_bids
        else:  # only its own bid
            masked: list[int | None] = list(self._no_bids)
            masked[seat] = self.bids[seat]
            bids = tuple(masked)
        views = self._views
        if views is None:
            views = self._views = self._build_views()
        display, wool, flocks, dogs, sheep_numbers, modifiers, order = views
        return _observation({
            "seat": seat,
            "round": self.round,
            "decision": decision._value_ if seat in self._acting else None,  # a plain attribute
            "display": display,
            "deck_left": len(self.deck) - self.drawn,
            "wool": wool,
            "flocks": flocks,
            "dogs": dogs,
            "bone_holder": self.bone_holder,
            "sheep_numbers": sheep_numbers,
            "modifiers": modifiers,
            "start_player": self.start_player,
            "bids": bids,
            "order": order,
            "turn": turn,
            "attempt": self.attempt if rolling else None,
            "dice": tuple(self.dice) if rolling else None,
            "kept": KEPT_NAMES[self.kept],
            "target": (self.target if reaching
                       else self._bid_of(turn) if rolling and turn is not None else None),
            "reach_for": ("bid" if self.reaching_bid else "black_sheep") if reaching else None,
            "wool_needed": self._reach_cost()[1] if reaching else None,
            "to_take": self.take_left,
            "take_from": (None if taker is None
                          else "black_sheep" if self.black_only else "display"),
        })

    # clone (StateBase) copies these
    COPIED = ("deck", "bid_backs", "display", "dogs", "wool", "bids", "order", "dice",
              "_flock_views", "_sheep_numbers", "_modifiers")
    COPIED_NESTED = ("flocks",)

    # -- helpers --

    def _rebuild_views(self) -> None:
        """What observations show of the flocks, kept up to date as cards are taken (observe is
        the hot path): ids top first, each seat's tie-breaking sheep number and its top card's
        modifier; and no tuples of :meth:`_build_views` yet."""
        self._views = None
        self._flock_views = [tuple(CARD_IDS[card] for card in reversed(flock))
                             for flock in self.flocks]
        self._sheep_numbers = [
            next((n for n in (CARDS[c].sheep_number for c in reversed(flock)) if n is not None),
                 back) for flock, back in zip(self.flocks, self.bid_backs)]
        self._modifiers = [CARDS[flock[-1]].modifier if flock else 0 for flock in self.flocks]

    def _build_views(self) -> _Views:
        """The parts of an observation that change only when a round starts, bids are revealed,
        wool is paid or won, or a card is taken: every such change sets ``_views`` to None, and
        the next observation builds them again."""
        return (tuple([CARD_IDS[card] for card in self.display]), tuple(self.wool),
                tuple(self._flock_views), tuple(self.dogs), tuple(self._sheep_numbers),
                tuple(self._modifiers), tuple(self.order))

    def _modifier(self, seat: int) -> int:
        """The modifier of the top card of the seat's flock (0 if none)."""
        return self._modifiers[seat]

    def _bid_of(self, seat: int) -> int:
        bid = self.bids[seat]
        assert bid is not None
        return bid

    def _ask(self, decision: Decision, seat: int) -> None:
        self.decision = decision
        self._acting = (seat,)

    # -- a round: lay out, bid, reveal --

    def _start_round(self) -> None:
        n = self.n
        if self.drawn >= len(self.deck):
            self._finish_game()
            return
        self.round += 1
        count = min(n + 1, len(self.deck) - self.drawn)
        self.display = self.deck[self.drawn:self.drawn + count]
        self.drawn += count
        self.bids = [None] * n
        self.order = []
        self._views = None
        self.position = 0
        self.decision = _BIDDING
        self._acting = tuple(range(n))
        self.events.emit("round_start", {"round": self.round,
                                   "display": [CARD_IDS[c] for c in self.display],
                                   "deck_left": len(self.deck) - self.drawn})

    def _bid(self, seat: int, action: str) -> None:
        value = BID_VALUE.get(action)
        if value is None:
            raise IllegalAction(f"{action!r} is not a bid (bid 14 .. bid 25, bid 26+)")
        if value == HIGH_BID and not self.wool[seat]:
            raise IllegalAction("bid 26+ costs a wool chip and you have none")
        self.bids[seat] = value
        self._acting = tuple([s for s in self._acting if s != seat])
        if not self._acting:
            self._reveal()

    def _reveal(self) -> None:
        n = self.n
        paid = [seat for seat in range(n) if self.bids[seat] == HIGH_BID]
        for seat in paid:
            self.wool[seat] -= 1
        numbers = list(self._sheep_numbers)
        self.order = sorted(range(n), key=lambda s: (-self._bid_of(s), numbers[s],
                                                      (s - self.start_player) % n))
        self._views = None
        self.events.emit("bids_revealed", {"bids": list(self.bids), "paid": paid,
                                     "sheep_numbers": numbers, "order": list(self.order)})
        self.position = 0
        self._next_turn()

    # -- turns --

    def _next_turn(self) -> None:
        if not self.display:  # nothing left: nobody else rolls or gets wool this round
            self._end_round()
            return
        seat = self.order[self.position]
        if self.position < self.n - 1:
            self._start_roll(seat)
        elif self.n == 2:
            self._ask(_ROLLING_OR_TAKING, seat)
        else:
            self._start_taking(seat, len(self.display))

    def _end_turn(self) -> None:
        self.attempt = 0
        self.kept = ()
        self.taker = None
        if self.position < self.n - 1:
            self.position += 1
            self._next_turn()
        elif self.display:  # two players: what the last roller left goes to the other one
            self._start_taking(self.order[0], len(self.display))
        else:
            self._end_round()

    def _end_round(self) -> None:
        self.events.emit("round_end", {"round": self.round, "wool": list(self.wool)})
        self._start_round()

    # -- the end --

    def _finish_game(self) -> None:
        self.decision = _OVER
        self._acting = ()
        self.scoring = score_table([[CARDS[c] for c in flock] for flock in self.flocks],
                                   self.dogs, self.bone_holder, self.wool)
        if self._recording:
            self.events.emit("final_scoring", {"scores": [
                {**attrs.asdict(s, recurse=False), "returned": list(s.returned), "total": s.total}
                for s in self.scoring]})


def new_state(options: VolleWolleOptions, seed: object, *, record_events: bool = False,
              chance: Chance | None = None) -> VolleWolleState:
    return VolleWolleState(options, seed, record_events=record_events, chance=chance)


def info(_options: VolleWolleOptions) -> dict[str, Any]:
    """The public card table and the dice, sent to bots at game start."""
    return {
        "dice": dict(zip(DICE, SIDES)),
        "cards": [{"id": card.id, "kind": KIND_NAMES[card.kind], "points": card.points,
                   "modifier": card.modifier, "bone_symbol": card.bone_symbol,
                   "sheep_number": card.sheep_number} for card in CARDS],
    }


def other_world(state: VolleWolleState, seat: int, actions: Sequence[tuple[int, str]],
                rng: Any) -> OtherWorld:
    """What ``seat`` cannot know: the order of the cards still in the deck (permuted), and the
    other seats' bids of a bidding round not yet revealed (each changed to another bid it was
    allowed to make)."""
    undrawn = [CARD_IDS[card] for card in state.deck[state.drawn:]]
    shuffled = undrawn[:]
    rng.shuffle(shuffled)
    sigma = dict(zip(undrawn, shuffled))
    script = list(actions)
    if state.decision is Decision.BID:
        for other in range(state.n):
            if other == seat or state.bids[other] is None:
                continue
            index = max(i for i, (s, _) in enumerate(script) if s == other)
            allowed = [t for t in state.legal_bids(other) if t != script[index][1]]
            script[index] = (other, rng.choice(allowed))
    return sigma, script


SPEC = GameSpec(
    name="vollewolle",
    title="Volle Wolle",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    parse_options=parse_options,
    new_state=new_state,
    options_type=VolleWolleOptions,
    observation_type=VolleWolleObservation,
    events={
        "round_start": EventSpec(("round", "display", "deck_left")),
        "bids_revealed": EventSpec(("bids", "paid", "sheep_numbers", "order")),
        "rolled": EventSpec(("seat", "attempt", "kept", "dice", "modifier", "total")),
        "succeeded": EventSpec(("seat", "attempt", "total", "bonus", "wool", "cards")),
        "failed": EventSpec(("seat", "total", "bonus", "wool", "black_sheep")),
        "took": EventSpec(("seat", "card", "bone_from")),
        "round_end": EventSpec(("round", "wool")),
        "final_scoring": EventSpec(("scores",)),
    },
    other_world=other_world,
    info=info,
    reference_bot="vollewolle-heuristic",
    bots={"vollewolle-heuristic": "reference_bots.vollewolle_heuristic",
          "vollewolle-boss": "reference_bots.vollewolle_boss"},
    drawing=DRAWING,
    board=VolleWolleBoard,
    encoding="arena.games.vollewolle.encoding",
)
