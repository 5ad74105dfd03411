"""chochlik: The Bottle Imp (Chochlik w butelce), for 3 or 4 players.

Rules as implemented are in SPEC.md ("chochlik"); the sources are ``shared/rules/chochlik.md``
and the Polish rules text.  In short: 36 numbered cards in three colours; every hand each seat
secretly picks one card for the Imp's pile, one to pass left and one to pass right (all seats at
once, three decisions each, delivered when everyone has chosen); then tricks, follow colour.
The highest card below the bottle's price wins the trick *and the bottle*, and becomes the new
price; with no card below the price the highest card wins.  Whoever holds the bottle when the
hand ends loses the coins in the Imp's pile and scores nothing else; everyone else scores the
coins of the cards they won.

Action tokens: ``imp N``, ``left N``, ``right N`` while passing, ``play N`` in tricks.
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
from arena.games.chochlik.board import ChochlikBoard
from arena.games.chochlik.core import (
    _OVER,
    _PARSE,
    _PASSING,
    _PLAYING,
    COINS,
    COLOUR,
    COLOUR_NAMES,
    DECK,
    HAND_SIZE,
    IMP,
    LEFT,
    PASS_STEPS,
    PLAY,
    RIGHT,
    START_PRICE,
    TOKENS,
    VERBS,
    ChochlikObservation,
    ChochlikOptions,
    Phase,
    _observation,
    parse_options,
)
from arena.games.chochlik.drawing import DRAWING

# --- The state -----------------------------------------------------------------------------------


class ChochlikState(StateBase):
    """A chochlik game (many hands).  Internal lists, mutated in place; :meth:`clone` copies.

    Every hand's deal is ``chance.shuffle(DECK, "deal", hand)`` cut into equal hands, seat 0's
    first: the same seed deals the same hands whatever the players did before.

    For speed (observe, legal_actions and apply run once per decision): the scores have a tuple
    view refreshed when they change, and the piles won one rebuilt at the first observation
    after a trick; apply checks a card without building the legal list."""

    # views (see _refresh_views)
    _won_view: tuple[tuple[int, ...], ...] | None
    _scores_view: tuple[int, ...]
    _target: int | None
    _hands_limit: int | None

    def __init__(
        self,
        options: ChochlikOptions,
        seed: object,
        *,
        record_events: bool = False,
        chance: Chance | None = None,
    ) -> None:
        self.options = options
        self.n = options.players
        self.chance: Chance = chance if chance is not None else SeededChance(seed)
        self.events = EventLog(record_events)
        self.scores = [0] * self.n
        self.hand_number = 0
        self.dealer = 0
        self.imp_history: list[list[int]] = []
        self._start_hand()

    # -- the interface --

    def is_over(self) -> bool:
        return self.phase is _OVER

    def legal_actions(self, seat: int) -> list[str]:
        phase = self.phase
        if phase is _PLAYING:
            if seat != self.turn:
                return []
            tokens = TOKENS[PLAY]
            return [tokens[card] for card in self._playable(seat)]
        if phase is _PASSING:
            step = self.pass_step[seat]
            if step >= len(PASS_STEPS):
                return []
            tokens = TOKENS[PASS_STEPS[step]]
            return [tokens[card] for card in self.hands[seat]]
        return []

    def apply(self, seat: int, action: str) -> None:
        parsed = _PARSE.get(action)
        if parsed is None:
            raise IllegalAction(f"{action!r} is not a chochlik action token")
        verb, card = parsed
        if self.phase is _PLAYING:
            self._play(seat, verb, card)
        elif self.phase is _PASSING:
            self._choose_pass(seat, verb, card)
        else:
            raise IllegalAction("the game is over")

    def result(self) -> Result | None:
        if self.phase is not _OVER:
            return None
        return Result.from_scores(self.scores, {"imp_piles": [list(p) for p in self.imp_history]},
                                  rounds=self.hand_number)

    def observe(self, seat: int) -> ChochlikObservation:
        n = self.n
        choice = self.pass_choice[seat]
        phase = self.phase
        if phase is _PASSING:
            from_left = from_right = None
        else:  # the left neighbour (next seat) passes its "right" card to us, and vice versa
            from_left = self.pass_choice[(seat + 1) % n][RIGHT]
            from_right = self.pass_choice[(seat - 1) % n][LEFT]
        won = self._won_view
        if won is None:
            won = self._won_view = tuple([tuple(pile) for pile in self.won])
        return _observation({
            "seat": seat,
            "phase": phase._value_,  # a plain attribute (Enum.value is a property)
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "turn": self.turn if phase is _PLAYING else None,
            "hand": tuple(self.hands[seat]),
            "imp_card": choice[IMP],
            "passed_left": choice[LEFT],
            "passed_right": choice[RIGHT],
            "received_from_left": from_left,
            "received_from_right": from_right,
            "trick": tuple(self.trick),
            "leader": self.leader,
            "price": self.price,
            "bottle_owner": self.owner,
            "played": tuple(self.played),
            "won": won,
            "scores": self._scores_view,
            "target": self._target,
            "hands": self._hands_limit,
        })

    # clone (StateBase) copies these; the views are tuples, shared; any card is a fine
    # default (a uniform draw is as safe as any other)
    COPIED = ("scores", "pass_step", "imp_pile", "trick", "played")
    COPIED_NESTED = ("imp_history", "hands", "pass_choice", "won")

    def _refresh_views(self) -> None:
        """Bring the views in line with the fields, after they were set from outside (a test's
        position) or at the start of a hand."""
        self._won_view = None
        self._scores_view = tuple(self.scores)
        self._target, self._hands_limit = self.options.target, self.options.hands

    # -- a hand --

    def _start_hand(self) -> None:
        n = self.n
        self.hand_number += 1
        deck = self.chance.shuffle(DECK, "deal", self.hand_number)
        size = HAND_SIZE[n]
        self.hands = [sorted(deck[i * size:(i + 1) * size]) for i in range(n)]
        self.pass_choice: list[list[int | None]] = [[None, None, None] for _ in range(n)]
        self.pass_step = [0] * n
        self.imp_pile: list[int] = []
        self.trick: list[tuple[int, int]] = []
        self.played: list[int] = []
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.price = START_PRICE
        self.owner: int | None = None
        self.leader = (self.dealer + 1) % n
        self.turn = self.leader
        self.phase = _PASSING
        self._acting = tuple(range(n))
        self._refresh_views()
        self.events.emit("hand_start", {"hand": self.hand_number, "dealer": self.dealer,
                                  "leader": self.leader})
        for seat in range(n):
            self.events.emit("dealt", {"seat": seat, "cards": list(self.hands[seat])},
                       frozenset((seat,)))

    def _choose_pass(self, seat: int, verb: int, card: int) -> None:
        if not 0 <= seat < self.n or self.pass_step[seat] >= len(PASS_STEPS):
            raise IllegalAction(f"seat {seat} has nothing to choose now")
        step = self.pass_step[seat]
        expected = PASS_STEPS[step]
        if verb != expected:
            word = VERBS[expected]
            raise IllegalAction(f"choose the {word} card now (token {word} N)")
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction(f"card {card} is not in your hand")
        hand.remove(card)
        self.pass_choice[seat][verb] = card
        self.pass_step[seat] = step + 1
        if step + 1 == len(PASS_STEPS):
            self._acting = tuple(s for s in self._acting if s != seat)
            if not self._acting:
                self._deliver_passes()

    def _deliver_passes(self) -> None:
        n = self.n
        for seat, (imp, left, right) in enumerate(self.pass_choice):
            assert imp is not None and left is not None and right is not None  # all chose
            self.imp_pile.append(imp)
            self.hands[(seat + 1) % n].append(left)
            self.hands[(seat - 1) % n].append(right)
            self.events.emit("passed", {"from": seat, "to": (seat + 1) % n, "card": left},
                       frozenset((seat, (seat + 1) % n)))
            self.events.emit("passed", {"from": seat, "to": (seat - 1) % n, "card": right},
                       frozenset((seat, (seat - 1) % n)))
        for hand in self.hands:
            hand.sort()
        self.phase = _PLAYING
        self._acting = (self.turn,)
        self.events.emit("play_start", {"leader": self.leader, "price": self.price})

    def _playable(self, seat: int) -> list[int]:
        hand = self.hands[seat]
        if not self.trick:
            return hand
        led = COLOUR[self.trick[0][1]]
        following = [card for card in hand if COLOUR[card] == led]
        return following or hand

    def _play(self, seat: int, verb: int, card: int) -> None:
        if seat != self.turn:
            raise IllegalAction(f"it is seat {self.turn}'s turn, not seat {seat}'s")
        if verb != PLAY:
            raise IllegalAction("the passing is over: play a card (token play N)")
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction(f"card {card} is not in your hand")
        trick = self.trick
        if trick:  # what _playable allows, without building its list
            led = COLOUR[trick[0][1]]
            if COLOUR[card] != led and any(COLOUR[other] == led for other in hand):
                raise IllegalAction(f"you must follow {COLOUR_NAMES[led]}")
        hand.remove(card)
        trick.append((seat, card))
        self.played.append(card)
        self.events.emit("card_played", {"seat": seat, "card": card})
        if len(trick) < self.n:
            self.turn = (seat + 1) % self.n
            self._acting = (self.turn,)
        else:
            self._finish_trick()

    def _finish_trick(self) -> None:
        price = self.price
        low = [(card, seat) for seat, card in self.trick if card < price]
        takes_bottle = bool(low)
        win_card, winner = max(low) if takes_bottle else max((c, s) for s, c in self.trick)
        cards = [card for _, card in self.trick]
        self.won[winner].extend([card for card in cards if card != win_card])
        returned = returned_to = None
        if takes_bottle:
            if self.owner is not None:  # the old price card goes back to the one who played it
                returned, returned_to = price, self.owner
                self.won[self.owner].append(price)
            self.price = win_card
            self.owner = winner
        else:
            self.won[winner].append(win_card)
        self._won_view = None
        self.events.emit("trick_won", {
            "seat": winner, "card": win_card, "cards": cards, "bottle": takes_bottle,
            "price": self.price, "returned_card": returned,
            "returned_to": returned_to,
        })
        self.trick = []
        self.leader = self.turn = winner
        if self.hands[winner]:
            self._acting = (winner,)
        else:
            self._finish_hand()

    def _finish_hand(self) -> None:
        imp_coins = sum(COINS[card] for card in self.imp_pile)
        hand_scores = [
            -imp_coins if seat == self.owner else sum(COINS[card] for card in pile)
            for seat, pile in enumerate(self.won)
        ]
        for seat, points in enumerate(hand_scores):
            self.scores[seat] += points
        self._scores_view = tuple(self.scores)
        self.imp_history.append(sorted(self.imp_pile))
        self.events.emit("hand_end", {
            "hand": self.hand_number, "bottle_owner": self.owner,
            "bottle_card": self.price if self.owner is not None else None,
            "imp_pile": sorted(self.imp_pile), "imp_coins": imp_coins,
            "won": [list(pile) for pile in self.won],
            "hand_scores": hand_scores, "scores": list(self.scores),
        })
        target, hands = self.options.target, self.options.hands
        if (target is not None and max(self.scores) >= target) or (
            hands is not None and self.hand_number >= hands
        ):
            self.phase = _OVER
            self._acting = ()
            return
        self.dealer = (self.dealer + 1) % self.n
        self._start_hand()


def new_state(options: ChochlikOptions, seed: object, *, record_events: bool = False,
              chance: Chance | None = None) -> ChochlikState:
    return ChochlikState(options, seed, record_events=record_events, chance=chance)


def deal_script(hands: Sequence[Sequence[int]]) -> list[int]:
    """The shuffled deck that deals these hands (seat 0's first): for a scripted chance."""
    return [card for hand in hands for card in hand]


# --- What a seat cannot know (for the hidden-information test) ------------------------------


def hidden_from(state: ChochlikState, seat: int) -> set[int]:
    """The cards whose place ``seat`` cannot know now: other hands, the other seats' Imp cards
    and, until delivery, their passes."""
    hidden: set[int] = set()
    for other in range(state.n):
        if other != seat:
            hidden.update(state.hands[other])
            if state.phase is Phase.PASS:
                hidden.update(c for c in state.pass_choice[other] if c is not None)
    if state.phase is not Phase.PASS:
        hidden.update(state.imp_pile)
        hidden -= {c for c in state.pass_choice[seat] if c is not None}  # it knows where
    return hidden


def other_world(state: ChochlikState, seat: int, actions: Sequence[tuple[int, str]],
                rng: Any) -> OtherWorld:
    """The hidden cards permuted within colours (which colours a seat lacks is public: it showed
    when it did not follow), and every other seat's actions translated to match."""
    hidden = hidden_from(state, seat)
    sigma: dict[int, int] = {}
    for colour in range(len(COLOUR_NAMES)):
        cards = sorted(c for c in hidden if COLOUR[c] == colour)
        shuffled = cards[:]
        rng.shuffle(shuffled)
        sigma.update(zip(cards, shuffled))

    def translate(action: str) -> str:
        verb, card = action.split()
        return f"{verb} {sigma.get(int(card), int(card))}"

    return sigma, [(s, a if s == seat else translate(a)) for s, a in actions]


def info(_options: ChochlikOptions) -> dict[str, Any]:
    """The public card table, sent to bots at game start."""
    return {
        "start_price": START_PRICE,
        "cards": [{"card": c, "colour": COLOUR_NAMES[COLOUR[c]], "coins": COINS[c]} for c in DECK],
    }


SPEC = GameSpec(
    name="chochlik",
    title="The Bottle Imp (Chochlik w butelce)",
    min_players=3,
    max_players=4,
    parse_options=parse_options,
    new_state=new_state,
    options_type=ChochlikOptions,
    observation_type=ChochlikObservation,
    events={
        "hand_start": EventSpec(("hand", "dealer", "leader")),
        "dealt": EventSpec(("seat", "cards"), "that seat only"),
        "passed": EventSpec(("from", "to", "card"), "the giver and the receiver only"),
        "play_start": EventSpec(("leader", "price")),
        "card_played": EventSpec(("seat", "card")),
        "trick_won": EventSpec(("seat", "card", "cards", "bottle", "price", "returned_card",
                                "returned_to")),
        "hand_end": EventSpec(("hand", "bottle_owner", "bottle_card", "imp_pile", "imp_coins",
                               "won", "hand_scores", "scores")),
    },
    other_world=other_world,
    info=info,
    round_name="hand",
    tournament_options=lambda players: {"hands": players, "target": 0},
    short_game={"hands": 1},
    reference_bot="chochlik-heuristic",
    bots={"chochlik-heuristic": "reference_bots.chochlik_heuristic",
          "chochlik-boss": "reference_bots.chochlik_boss"},
    drawing=DRAWING,
    board=ChochlikBoard,
    encoding="arena.games.chochlik.encoding",
)
