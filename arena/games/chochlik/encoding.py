"""chochlik for learning code (``arena.envs``): its action index space (4 verbs x 36 cards)
and its observation as a vector (see :mod:`arena.games.encoding`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.games.chochlik.core import DECK, HIGHEST_CARD, TOKENS, VERBS
from arena.games.encoding import SEATS, one_hot, relative, seat_values

ACTIONS: tuple[str, ...] = tuple(TOKENS[verb][card] for verb in range(len(VERBS)) for card in DECK)
_CARDS = HIGHEST_CARD + 1


def _cards(cards: Sequence[int]) -> list[float]:
    return one_hot(_CARDS, *cards)


def encode(o: dict[str, Any]) -> np.ndarray:
    me, n = o["seat"], len(o["scores"])
    by_seat = [[] for _ in range(SEATS)]  # type: list[list[int]]
    for seat, pile in enumerate(o["won"]):
        by_seat[relative(seat, me, n)] = list(pile)
    parts = [
        _cards(o["hand"]), _cards(o["played"]), _cards([c for _, c in o["trick"]]),
        _cards([o["imp_card"]] if o["imp_card"] is not None else []),
        _cards([c for c in (o["passed_left"], o["passed_right"]) if c is not None]),
        _cards([c for c in (o["received_from_left"], o["received_from_right"])
                if c is not None]),
        one_hot(_CARDS, o["price"]),
        *(_cards(pile) for pile in by_seat),
        one_hot(SEATS + 1, relative(o["bottle_owner"], me, n)),
        one_hot(SEATS + 1, relative(o["leader"], me, n)),
        one_hot(3, ("pass", "play", "over").index(o["phase"])),
        [score / 100 for score in seat_values(o["scores"], me)],
        [n / SEATS],
    ]
    return np.asarray([x for part in parts for x in part], dtype=np.float32)
