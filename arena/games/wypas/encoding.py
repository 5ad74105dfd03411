"""wypas for learning code (``arena.envs``): its tokens name targets and joker values in too
many combinations to list, so its action index is the legal list's position; its observation
as a vector (see :mod:`arena.games.encoding`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.games.encoding import SEATS, one_hot, relative, seat_values
from arena.games.wypas.cards import CARD_IDS as WYPAS_CARDS
from arena.games.wypas.core import MAX_PLAYERS as WYPAS_MAX
from arena.games.wypas.core import Phase
from arena.games.wypas.windows import Decision as WypasDecision

ACTIONS: None = None  # the legal list's positions: too many tokens to list
_WYPAS_INDEX = {card: i for i, card in enumerate(WYPAS_CARDS)}
_WYPAS_DECISIONS = [d.value for d in WypasDecision]
_PHASES = [p.value for p in Phase]
assert WYPAS_MAX <= SEATS


def encode(o: dict[str, Any]) -> np.ndarray:
    me, n = o["seat"], len(o["scores"])
    size = len(WYPAS_CARDS)
    pens = [[0.0] * size for _ in range(SEATS * 2)]
    for seat, pair in enumerate(o["pens"]):
        for pen, cards in enumerate(pair):
            for placed in cards:
                pens[relative(seat, me, n) * 2 + pen][_WYPAS_INDEX[placed[0]]] = 1.0
    wolves = [0.0] * (SEATS * 2)
    for seat, pair in enumerate(o["wolves"]):
        for pen, wolf in enumerate(pair):
            wolves[relative(seat, me, n) * 2 + pen] = float(wolf is not None)
    parts = [
        one_hot(size, *(_WYPAS_INDEX[c] for c in o["hand"])),
        one_hot(size, *(_WYPAS_INDEX[c] for c in o["lot"])),
        one_hot(size, *(_WYPAS_INDEX[c] for c in (o["auction_card"], o["hidden_card"])
                         if c in _WYPAS_INDEX)),
        *pens, wolves,
        [h / 10 for h in seat_values(o["hand_sizes"], me)],
        [f / 5 for f in seat_values(o["fleeces"], me)],
        [s / 30 for s in seat_values(o["scores"], me)],
        [s / 20 for s in seat_values(o["stakes"], me)],
        one_hot(len(_PHASES), _PHASES.index(o["phase"])),
        one_hot(len(_WYPAS_DECISIONS) + 1, _WYPAS_DECISIONS.index(o["decision"])
                 if o["decision"] else len(_WYPAS_DECISIONS)),
        one_hot(SEATS + 1, relative(o["baca"], me, n)),
        one_hot(SEATS + 1, relative(o["high_bidder"], me, n)),
        [o["turn"] / max(o["turn_cap"], 1), o["deck_size"] / size, o["discard_size"] / size,
         float(o["lot_hidden"]), n / SEATS],
    ]
    return np.asarray([x for part in parts for x in part], dtype=np.float32)
