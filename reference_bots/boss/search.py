"""The search every boss bot shares: determinized Monte Carlo over the seat's legal actions.

A decision samples a *world* (an engine state the seat cannot tell from the real one, built by
the game's sampler from what the seat has seen, never from the server's state), plays one of
its legal actions there, lets a fast rollout policy play every seat to the horizon, and scores
the end for the seat.  Which action is tried in each world is chosen by UCB1 over the root
actions (the seat's legal list is the same in every world it cannot tell apart: it is part of
what it sees), and the action with the best average result is played.

The budget is wall time (``think_ms``) or, for tests and reproducible runs, a fixed number of
iterations; the random stream is seeded per decision from the bot's seed and the decision's
number, so that a fixed iteration count gives the same choice for the same observation.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

#: Plays one iteration from a sampled world: (world, root action, rng) -> the seat's value.
Simulate = Callable[[Any, str, random.Random], float]


def search(legal: Sequence[str], sample: Callable[[random.Random], Any], simulate: Simulate,
           rng: random.Random, *, think_ms: float = 100.0,
           iterations: int | None = None) -> str:
    """The action of ``legal`` with the best mean value over sampled worlds (UCB1 at the root).

    ``iterations`` fixes the work (a test's determinism); otherwise the search runs until
    ``think_ms`` have passed, and tries every action at least once."""
    if len(legal) == 1:
        return legal[0]
    count = [0] * len(legal)
    total = [0.0] * len(legal)
    low, high = math.inf, -math.inf
    deadline = time.perf_counter() + think_ms / 1000.0
    done = 0
    while True:
        if iterations is not None:
            if done >= iterations:
                break
        elif done >= len(legal) and time.perf_counter() >= deadline:
            break
        if done < len(legal):
            index = done
        else:
            spread = max(high - low, 1e-9)
            log_n = math.log(done)
            index = max(range(len(legal)), key=lambda i: total[i] / count[i]
                        + 0.7 * spread * math.sqrt(log_n / count[i]))
        value = simulate(sample(rng), legal[index], rng)
        count[index] += 1
        total[index] += value
        low, high = min(low, value), max(high, value)
        done += 1
    return _best(legal, count, total)


def _best(legal: Sequence[str], count: list[int], total: list[float]) -> str:
    tried = [i for i in range(len(legal)) if count[i]]
    best = max(tried, key=lambda i: (total[i] / count[i], count[i], -i))
    return legal[best]


def rollout(world: Any, seat: int, action: str, policy: Callable[[Any, int, random.Random], str],
            rng: random.Random, stop: Callable[[Any], bool]) -> None:
    """Play ``action`` for ``seat`` in ``world``, then ``policy`` for every seat to act until
    the game is over or ``stop(world)``."""
    world.apply(seat, action)
    while not stop(world):
        acting = world.to_act()
        if not acting:
            return
        for other in acting:
            if other in world.to_act():
                world.apply(other, policy(world, other, rng))


class Budget:
    """How long a boss thinks: ``think_ms`` of wall time, or exactly ``iterations`` worlds."""

    def __init__(self, think_ms: float = 100.0, iterations: int | None = None,
                 seed: object = None) -> None:
        if think_ms <= 0 and iterations is None:
            raise ValueError("think time must be positive")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.think_ms = think_ms
        self.iterations = iterations
        self.seed = seed
        self.decisions = 0

    def next_rng(self) -> random.Random:
        """The random stream of the next decision (seeded: the bot's seed and its number)."""
        self.decisions += 1
        if self.seed is None:
            return random.Random()
        return random.Random(f"{self.seed}:{self.decisions}")
