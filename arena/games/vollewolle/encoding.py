"""vollewolle for learning code (``arena.envs``): its action index space (the bids, the dice,
reach/decline/roll/take all and a take per card) and its observation as a vector (see
:mod:`arena.games.encoding`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.games.encoding import SEATS, one_hot, relative, seat_values
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

ACTIONS: tuple[str, ...] = (*BID_TOKENS, *KEEP_TOKENS, REACH, DECLINE, ROLL, TAKE_ALL,
                            *TAKE_TOKENS)
_WOOL_INDEX = {card: i for i, card in enumerate(WOOL_CARDS)}
_DECISIONS = [d.value for d in Decision]
assert MAX_PLAYERS <= SEATS


def encode(o: dict[str, Any]) -> np.ndarray:
    me, n = o["seat"], len(o["wool"])
    size = len(WOOL_CARDS)
    flocks = [[0.0] * size for _ in range(SEATS)]
    tops = [[0.0] * size for _ in range(SEATS)]
    for seat, flock in enumerate(o["flocks"]):
        for card in flock:
            flocks[relative(seat, me, n)][_WOOL_INDEX[card]] = 1.0
        if flock:
            tops[relative(seat, me, n)][_WOOL_INDEX[flock[0]]] = 1.0
    bids = [0.0] * (SEATS * 13)
    for seat, bid in enumerate(o["bids"]):
        if bid is not None:
            bids[relative(seat, me, n) * 13 + bid - 14] = 1.0
    dice = list(o["dice"] or (0, 0, 0))
    parts = [
        one_hot(size, *(_WOOL_INDEX[c] for c in o["display"])),
        *flocks, *tops, bids,
        [w / 5 for w in seat_values(o["wool"], me)],
        [d / 3 for d in seat_values(o["dogs"], me)],
        [m / 3 for m in seat_values(o["modifiers"], me)],
        one_hot(SEATS + 1, relative(o["bone_holder"], me, n)),
        one_hot(SEATS + 1, relative(o["turn"], me, n)),
        one_hot(len(_DECISIONS) + 1, _DECISIONS.index(o["decision"]) if o["decision"] else
                 len(_DECISIONS)),
        [dice[0] / 12, dice[1] / 10, dice[2] / 8, (o["attempt"] or 0) / 3,
         (o["target"] or 0) / 26, (o["wool_needed"] or 0) / 5, o["to_take"] / 3,
         o["deck_left"] / size, float(o["take_from"] == "black_sheep"), n / SEATS],
        one_hot(3, *(("d12", "d10", "d8").index(k) for k in o["kept"])),
    ]
    return np.asarray([x for part in parts for x in part], dtype=np.float32)
