"""The toy for learning code: its stakes as the action index space, and its observation as a
vector (see :mod:`arena.games.encoding`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.games.encoding import SEATS, one_hot, seat_values
from tests.games.toy.rules import CARDS, STAKES

ACTIONS: tuple[str, ...] = STAKES


def encode(o: dict[str, Any]) -> np.ndarray:
    me = o["seat"]
    card = [CARDS.index(o["card"])] if o["card"] is not None else []
    staked = [float(s) for s in seat_values([int(x) for x in o["staked"]], me)]
    parts = [one_hot(len(CARDS), *card), staked,
             [score / 10 for score in seat_values(o["scores"], me)],
             [o["round"] / max(o["rounds"], 1), len(o["scores"]) / SEATS]]
    return np.asarray([x for part in parts for x in part], dtype=np.float32)
