"""Each game's fixed action index space and flat observation encoding, for learning code.

An action index space is the tuple of every token the game can ever list (chochlik: 4 verbs x
36 cards; vollewolle: the bids, the dice, reach/decline/roll/take all and a take per card).
wypas's tokens name targets and joker values in too many combinations to list, so its space is
the legal list's positions: index i is the i-th legal token (at most
:data:`~arena.games.base.MAX_LEGAL_ACTIONS`).

An encoding turns the seat's protocol observation (a dict, as a bot receives it) into a float32
vector of a fixed length; seats are counted from the observing seat (0 = itself), so a policy
learnt in one seat plays in any.  Only the observation is read: what the seat may know.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arena.games.base import MAX_LEGAL_ACTIONS
from arena.games.chochlik import DECK, HIGHEST_CARD, TOKENS, VERBS
from arena.games.vollewolle.core import (
    BID_TOKENS,
    DECLINE,
    KEEP_TOKENS,
    MAX_PLAYERS,
    REACH,
    ROLL,
    TAKE_ALL,
    TAKE_TOKENS,
    Decision,
)
from arena.games.vollewolle.core import CARD_IDS as WOOL_CARDS
from arena.games.wypas.cards import CARD_IDS as WYPAS_CARDS
from arena.games.wypas.core import MAX_PLAYERS as WYPAS_MAX
from arena.games.wypas.core import Phase
from arena.games.wypas.windows import Decision as WypasDecision

SEATS = 6  # seat slots in every encoding (the most players any game seats)


def _relative(seat: int | None, me: int, players: int) -> int:
    """A seat counted from the observer: 0 itself, 1 the next, ...; SEATS for none."""
    return SEATS if seat is None else (seat - me) % players


def _one_hot(size: int, *indices: int | None) -> list[float]:
    row = [0.0] * size
    for index in indices:
        if index is not None and 0 <= index < size:
            row[index] = 1.0
    return row


# -- chochlik ----------------------------------------------------------------------------------

CHOCHLIK_ACTIONS: tuple[str, ...] = tuple(TOKENS[verb][card] for verb in range(len(VERBS))
                                          for card in DECK)
_CARDS = HIGHEST_CARD + 1


def _cards(cards: Sequence[int]) -> list[float]:
    return _one_hot(_CARDS, *cards)


def encode_chochlik(o: dict[str, Any]) -> np.ndarray:
    me, n = o["seat"], len(o["scores"])
    by_seat = [[] for _ in range(SEATS)]  # type: list[list[int]]
    for seat, pile in enumerate(o["won"]):
        by_seat[_relative(seat, me, n)] = list(pile)
    parts = [
        _cards(o["hand"]), _cards(o["played"]), _cards([c for _, c in o["trick"]]),
        _cards([o["imp_card"]] if o["imp_card"] is not None else []),
        _cards([c for c in (o["passed_left"], o["passed_right"]) if c is not None]),
        _cards([c for c in (o["received_from_left"], o["received_from_right"])
                if c is not None]),
        _one_hot(_CARDS, o["price"]),
        *(_cards(pile) for pile in by_seat),
        _one_hot(SEATS + 1, _relative(o["bottle_owner"], me, n)),
        _one_hot(SEATS + 1, _relative(o["leader"], me, n)),
        _one_hot(3, ("pass", "play", "over").index(o["phase"])),
        [score / 100 for score in _seat_values(o["scores"], me)],
        [n / SEATS],
    ]
    return np.asarray([x for part in parts for x in part], dtype=np.float32)


def _seat_values(values: Sequence[int | None], me: int) -> list[float]:
    n = len(values)
    out = [0.0] * SEATS
    for seat, value in enumerate(values):
        out[_relative(seat, me, n)] = float(value or 0)
    return out


# -- vollewolle --------------------------------------------------------------------------------

VOLLEWOLLE_ACTIONS: tuple[str, ...] = (*BID_TOKENS, *KEEP_TOKENS, REACH, DECLINE, ROLL, TAKE_ALL,
                                       *TAKE_TOKENS)
_WOOL_INDEX = {card: i for i, card in enumerate(WOOL_CARDS)}
_DECISIONS = [d.value for d in Decision]
assert MAX_PLAYERS <= SEATS


def encode_vollewolle(o: dict[str, Any]) -> np.ndarray:
    me, n = o["seat"], len(o["wool"])
    size = len(WOOL_CARDS)
    flocks = [[0.0] * size for _ in range(SEATS)]
    tops = [[0.0] * size for _ in range(SEATS)]
    for seat, flock in enumerate(o["flocks"]):
        for card in flock:
            flocks[_relative(seat, me, n)][_WOOL_INDEX[card]] = 1.0
        if flock:
            tops[_relative(seat, me, n)][_WOOL_INDEX[flock[0]]] = 1.0
    bids = [0.0] * (SEATS * 13)
    for seat, bid in enumerate(o["bids"]):
        if bid is not None:
            bids[_relative(seat, me, n) * 13 + bid - 14] = 1.0
    dice = list(o["dice"] or (0, 0, 0))
    parts = [
        _one_hot(size, *(_WOOL_INDEX[c] for c in o["display"])),
        *flocks, *tops, bids,
        [w / 5 for w in _seat_values(o["wool"], me)],
        [d / 3 for d in _seat_values(o["dogs"], me)],
        [m / 3 for m in _seat_values(o["modifiers"], me)],
        _one_hot(SEATS + 1, _relative(o["bone_holder"], me, n)),
        _one_hot(SEATS + 1, _relative(o["turn"], me, n)),
        _one_hot(len(_DECISIONS) + 1, _DECISIONS.index(o["decision"]) if o["decision"] else
                 len(_DECISIONS)),
        [dice[0] / 12, dice[1] / 10, dice[2] / 8, (o["attempt"] or 0) / 3,
         (o["target"] or 0) / 26, (o["wool_needed"] or 0) / 5, o["to_take"] / 3,
         o["deck_left"] / size, float(o["take_from"] == "black_sheep"), n / SEATS],
        _one_hot(3, *(("d12", "d10", "d8").index(k) for k in o["kept"])),
    ]
    return np.asarray([x for part in parts for x in part], dtype=np.float32)


# -- wypas -------------------------------------------------------------------------------------

WYPAS_ACTIONS: None = None  # the legal list's positions (see the module's text)
_WYPAS_INDEX = {card: i for i, card in enumerate(WYPAS_CARDS)}
_WYPAS_DECISIONS = [d.value for d in WypasDecision]
_PHASES = [p.value for p in Phase]
assert WYPAS_MAX <= SEATS


def encode_wypas(o: dict[str, Any]) -> np.ndarray:
    me, n = o["seat"], len(o["scores"])
    size = len(WYPAS_CARDS)
    pens = [[0.0] * size for _ in range(SEATS * 2)]
    for seat, pair in enumerate(o["pens"]):
        for pen, cards in enumerate(pair):
            for placed in cards:
                pens[_relative(seat, me, n) * 2 + pen][_WYPAS_INDEX[placed[0]]] = 1.0
    wolves = [0.0] * (SEATS * 2)
    for seat, pair in enumerate(o["wolves"]):
        for pen, wolf in enumerate(pair):
            wolves[_relative(seat, me, n) * 2 + pen] = float(wolf is not None)
    parts = [
        _one_hot(size, *(_WYPAS_INDEX[c] for c in o["hand"])),
        _one_hot(size, *(_WYPAS_INDEX[c] for c in o["lot"])),
        _one_hot(size, *(_WYPAS_INDEX[c] for c in (o["auction_card"], o["hidden_card"])
                         if c in _WYPAS_INDEX)),
        *pens, wolves,
        [h / 10 for h in _seat_values(o["hand_sizes"], me)],
        [f / 5 for f in _seat_values(o["fleeces"], me)],
        [s / 30 for s in _seat_values(o["scores"], me)],
        [s / 20 for s in _seat_values(o["stakes"], me)],
        _one_hot(len(_PHASES), _PHASES.index(o["phase"])),
        _one_hot(len(_WYPAS_DECISIONS) + 1, _WYPAS_DECISIONS.index(o["decision"])
                 if o["decision"] else len(_WYPAS_DECISIONS)),
        _one_hot(SEATS + 1, _relative(o["baca"], me, n)),
        _one_hot(SEATS + 1, _relative(o["high_bidder"], me, n)),
        [o["turn"] / max(o["turn_cap"], 1), o["deck_size"] / size, o["discard_size"] / size,
         float(o["lot_hidden"]), n / SEATS],
    ]
    return np.asarray([x for part in parts for x in part], dtype=np.float32)


#: By game: (the action tokens, or None for the legal list's positions; the encoder).
GAME_CODECS: dict[str, tuple[tuple[str, ...] | None, Callable[[dict[str, Any]], np.ndarray]]] = {
    "chochlik": (CHOCHLIK_ACTIONS, encode_chochlik),
    "vollewolle": (VOLLEWOLLE_ACTIONS, encode_vollewolle),
    "wypas": (WYPAS_ACTIONS, encode_wypas),
}


def action_count(game: str) -> int:
    tokens = GAME_CODECS[game][0]
    return MAX_LEGAL_ACTIONS if tokens is None else len(tokens)
