"""Seeded random streams, one per purpose.

A game's randomness comes only from here.  Each purpose (``"deal"``, ``"dice"``,
``"reshuffle"``, the match driver's ``"default"``) gets its own :class:`random.Random`, seeded
from the string ``f"{seed}:{purpose}"``.  Seeding ``random.Random`` with a string is stable
across processes and platforms, so a game is a pure function of (options, seed, actions), and
two tables with the same seed see the same deals even when their players act differently.
"""

from __future__ import annotations

import hashlib
import hmac
import random


def secret_seed(master: object, *parts: object) -> str:
    """A seed for one table or game that reveals nothing about ``master`` or its siblings.

    Each game's seed is written to its log (replay needs it) and a finished log may be read by
    anyone, bots included; an HMAC keeps the seeds of games still running out of reach."""
    message = ":".join(str(part) for part in parts).encode()
    return hmac.new(str(master).encode(), message, hashlib.sha256).hexdigest()[:24]


def derive_seed(*parts: object) -> str:
    """A seed string for a sub-part (a table, a game, a hand): ``derive_seed(s, 3) == "s:3"``."""
    return ":".join(str(part) for part in parts)


class RngStreams:
    """Lazily created, independent random streams keyed by purpose."""

    __slots__ = ("seed", "_streams")

    def __init__(self, seed: object) -> None:
        self.seed = str(seed)
        self._streams: dict[str, random.Random] = {}

    def __getitem__(self, purpose: str) -> random.Random:
        stream = self._streams.get(purpose)
        if stream is None:
            stream = self._streams[purpose] = random.Random(derive_seed(self.seed, purpose))
        return stream

    def clone(self) -> RngStreams:
        copy = RngStreams(self.seed)
        for purpose, stream in self._streams.items():
            twin = random.Random()
            twin.setstate(stream.getstate())
            copy._streams[purpose] = twin
        return copy
