"""Chance: every random draw a game makes, through one object with named operations.

A game never touches ``random`` itself.  It asks its :class:`Chance` to ``shuffle`` a deck or
``roll`` some dice, and says *where* the draw happens (``"deck"``; ``"dice", round, turn,
attempt``).  :class:`SeededChance` derives each draw from the game's seed and that place alone,
not from a running stream, so two tables with one seed get the same deck and the same dice in
the same situation even after their players have acted differently (duplicate play).

Tests pass a :class:`ScriptedChance` to set any deck order or dice; the hidden-information test
passes a :class:`RelabelledChance` to deal a world that one seat cannot tell apart from another.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import struct
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

#: Bytes of hash per die: a 64-bit draw reduced modulo at most a few dozen sides is uniform to
#: within 2**-58, far below anything a game could notice.
_BYTES_PER_DIE = 8


def secret_seed(master: object, *parts: object) -> str:
    """A seed for one table or game that reveals nothing about ``master`` or its siblings.

    Each game's seed is written to its log (replay needs it) and a finished log may be read by
    anyone, bots included; an HMAC keeps the seeds of games still running out of reach."""
    message = ":".join(str(part) for part in parts).encode()
    return hmac.new(str(master).encode(), message, hashlib.sha256).hexdigest()[:24]


def derive_seed(*parts: object) -> str:
    """A seed string for a sub-part (a table, a game, a stream): ``derive_seed(s, 3) == "s:3"``.
    Seeding ``random.Random`` with a string is stable across processes and platforms."""
    return ":".join(str(part) for part in parts)


class Chance(Protocol):
    """The source of every random outcome of one game."""

    def shuffle(self, items: Sequence[T], *where: object) -> list[T]:
        """A new list with ``items`` in random order, drawn for the place ``where``."""

    def roll(self, sides: Sequence[int], *where: object) -> tuple[int, ...]:
        """One fair die per entry of ``sides`` (faces 1..n), drawn for the place ``where``."""

    def clone(self) -> Chance:
        """An independent copy that will draw exactly what this one would."""


def _place(where: tuple[object, ...]) -> str:
    return ":".join(map(str, where))


#: By the number of dice: reads a roll's digest as one big-endian unsigned integer of
#: ``_BYTES_PER_DIE`` bytes per die (``Q``), made by :func:`_draws` when first needed.
_DRAWS: dict[int, Callable[[bytes], tuple[int, ...]]] = {}


def _draws(dice: int) -> Callable[[bytes], tuple[int, ...]]:
    unpack = _DRAWS[dice] = struct.Struct(f">{dice}Q").unpack
    return unpack


class SeededChance:
    """Each draw is a keyed hash of (seed, place): a pure function, so it has no state to copy
    and the same place gives the same outcome in every table with the same seed."""

    __slots__ = ("seed", "_key", "_keyed")

    def __init__(self, seed: object) -> None:
        self.seed = str(seed)
        self._key = hashlib.blake2b(self.seed.encode(), digest_size=32).digest()
        #: By digest size, a hash that has taken the key: copying it is cheaper than keying.
        self._keyed: dict[int, Any] = {}

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return SeededChance, (self.seed,)  # copy and pickle without the cached hashes

    def _digest(self, kind: str, where: tuple[object, ...], size: int) -> bytes:
        keyed = self._keyed.get(size) or self._keyed_for(size)
        hasher = keyed.copy()
        hasher.update(f"{kind}|{_place(where)}".encode())
        return hasher.digest()

    def _keyed_for(self, size: int) -> Any:
        keyed = self._keyed[size] = hashlib.blake2b(key=self._key, digest_size=size)
        return keyed

    def shuffle(self, items: Sequence[T], *where: object) -> list[T]:
        order = list(items)
        random.Random(int.from_bytes(self._digest("shuffle", where, 32), "big")).shuffle(order)
        return order

    def roll(self, sides: Sequence[int], *where: object) -> tuple[int, ...]:
        # the sides are part of the place: rolling (10, 8) is another draw than (12, 10, 8)
        # (the same as _digest("roll", ...) without its call: a game may roll every decision)
        dice = len(sides)
        size = _BYTES_PER_DIE * dice
        hasher = (self._keyed.get(size) or self._keyed_for(size)).copy()
        hasher.update(f"roll|{_place((*where, *sides))}".encode())
        draws = (_DRAWS.get(dice) or _draws(dice))(hasher.digest())
        return tuple([1 + draw % n for draw, n in zip(draws, sides)])

    def clone(self) -> SeededChance:
        return self  # stateless


class ScriptedChance:
    """Draws set by a test.  ``shuffles[name]`` lists the orders to return, in turn, for the
    shuffles whose place starts with ``name``; ``rolls[name]`` lists die faces, in the order the
    game rolls them, for the rolls whose place starts with ``name`` (``dice=`` is short for
    ``rolls={"dice": ...}``).  Anything not scripted, or once a script runs out, comes from
    ``SeededChance(seed)``.

    A scripted order must be a permutation of the items shuffled and a face must fit its die;
    otherwise :class:`ValueError` (the test, not the game, is wrong)."""

    def __init__(self, seed: object = "scripted", *,
                 shuffles: Mapping[str, Iterable[Sequence[Any]]] | None = None,
                 rolls: Mapping[str, Iterable[int]] | None = None,
                 dice: Iterable[int] = ()) -> None:
        self.fallback = SeededChance(seed)
        self.shuffles = {name: deque(list(order) for order in orders)
                         for name, orders in (shuffles or {}).items()}
        self.rolls = {name: deque(faces) for name, faces in (rolls or {}).items()}
        self.rolls.setdefault("dice", deque()).extend(dice)

    def shuffle(self, items: Sequence[T], *where: object) -> list[T]:
        queue = self.shuffles.get(str(where[0])) if where else None
        if not queue:
            return self.fallback.shuffle(items, *where)
        order = queue.popleft()
        if sorted(map(repr, order)) != sorted(map(repr, items)):
            raise ValueError(f"scripted shuffle for {where} is not a permutation of the items")
        return list(order)

    def roll(self, sides: Sequence[int], *where: object) -> tuple[int, ...]:
        queue = self.rolls.get(str(where[0])) if where else None
        if not queue:
            return self.fallback.roll(sides, *where)
        faces = []
        for n in sides:
            if not queue:
                raise ValueError(f"the dice script ran out in the middle of a roll at {where}")
            face = queue.popleft()
            if not 1 <= face <= n:
                raise ValueError(f"scripted face {face} does not fit a D{n} at {where}")
            faces.append(face)
        return tuple(faces)

    def clone(self) -> ScriptedChance:
        twin = ScriptedChance(self.fallback.seed)
        twin.shuffles = {name: deque(list(o) for o in orders)
                         for name, orders in self.shuffles.items()}
        twin.rolls = {name: deque(faces) for name, faces in self.rolls.items()}
        return twin


class RelabelledChance:
    """Another chance whose shuffled items are renamed by ``sigma`` (items it does not name stay
    as they are): the same deal with some cards swapped for others.  Dice are untouched."""

    def __init__(self, base: Chance, sigma: Mapping[Any, Any]) -> None:
        self.base = base
        self.sigma = dict(sigma)

    def shuffle(self, items: Sequence[T], *where: object) -> list[T]:
        return [self.sigma.get(item, item) for item in self.base.shuffle(items, *where)]

    def roll(self, sides: Sequence[int], *where: object) -> tuple[int, ...]:
        return self.base.roll(sides, *where)

    def clone(self) -> RelabelledChance:
        return RelabelledChance(self.base.clone(), self.sigma)
