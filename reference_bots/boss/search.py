"""The search every boss bot shares: determinized Monte Carlo over the seat's legal actions.

A decision samples a *world* (an engine state the seat cannot tell from the real one, built by
the game's sampler from what the seat has seen, never from the server's state), plays one of
its legal actions there, lets a fast rollout policy play every seat to the horizon, and scores
the end for the seat.  Which action is tried in each world is chosen by UCB1 over the root
actions (the seat's legal list is the same in every world it cannot tell apart: it is part of
what it sees), and the action with the best average result is played.

The budget is ``think_ms`` of the boss's own CPU time (the deciding thread's, so that a busy
host does not make it weaker than it was measured), cut at :data:`WALL_FACTOR` times that in
wall time, never past :data:`WALL_LIMIT_S` nor past :data:`TIME_LEFT_SHARE` of the request's
``time_left_ms`` (the server's move timeout): see :class:`Deadline`.  For tests and
reproducible runs the budget is a fixed number of iterations instead; the random stream is
seeded per decision from the bot's seed and the decision's number, so that a fixed iteration
count gives the same choice for the same observation.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

#: A decision's wall time is cut at this many times its CPU budget (a loaded host: the boss
#: thinks its measured CPU time when it can, and answers in bounded time when it cannot).  At
#: 3 a host at load 15 on 2 cores cut most decisions (the boss got about a third of its CPU).
WALL_FACTOR = 10.0
#: ...and never after this many seconds of wall time, whatever the factor gives (the server's
#: default move timeout is 5 s; a think time beyond this is still honoured in CPU time up to
#: it, never cut below the think time itself).
WALL_LIMIT_S = 2.5
#: ...and never after this share of the request's ``time_left_ms`` (the server's move timeout
#: and time bank, SPEC.md), whatever the think time: the rest is the answer's way back.
TIME_LEFT_SHARE = 0.5

#: A clock: seconds, only differences count.
Clock = Callable[[], float]

#: Plays one iteration from a sampled world: (world, root action, rng) -> the seat's value.
Simulate = Callable[[Any, str, random.Random], float]


class Deadline:
    """When a decision's thinking ends: ``think_s`` seconds of ``cpu`` time (by default the
    calling thread's CPU time) have been spent since it was made, or the wall-clock cap has
    passed (``think_s`` times :data:`WALL_FACTOR`, at most :data:`WALL_LIMIT_S` unless the
    think time itself is longer), whichever comes first.  The clocks are inputs (a test gives
    fake ones)."""

    def __init__(self, think_s: float, cpu: Clock = time.thread_time,
                 wall: Clock = time.perf_counter, time_left_s: float | None = None) -> None:
        self.cpu, self.wall = cpu, wall
        self.cpu_end = cpu() + think_s
        self.wall_end = wall() + wall_cap(think_s, time_left_s)

    def passed(self) -> bool:
        return self.cpu() >= self.cpu_end or self.wall() >= self.wall_end


def wall_cap(think_s: float, time_left_s: float | None = None) -> float:
    """The wall time a decision of ``think_s`` CPU seconds may take at most (``time_left_s``:
    what the server gives the answer, if known)."""
    cap = max(think_s, min(WALL_FACTOR * think_s, WALL_LIMIT_S))
    if time_left_s is not None:
        cap = min(cap, TIME_LEFT_SHARE * time_left_s)
    return cap


def search(legal: Sequence[str], sample: Callable[[random.Random], Any], simulate: Simulate,
           rng: random.Random, *, think_ms: float = 100.0,
           iterations: int | None = None, deadline: Deadline | None = None) -> str:
    """The action of ``legal`` with the best mean value over sampled worlds (UCB1 at the root).

    ``iterations`` fixes the work (a test's determinism); otherwise the search runs until
    ``deadline`` has passed (by default a :class:`Deadline` of ``think_ms`` made now), and
    tries every action at least once."""
    if len(legal) == 1:
        return legal[0]
    count = [0] * len(legal)
    total = [0.0] * len(legal)
    low, high = math.inf, -math.inf
    if deadline is None:
        deadline = Deadline(think_ms / 1000.0)
    done = 0
    while True:
        if iterations is not None:
            if done >= iterations:
                break
        elif done >= len(legal) and deadline.passed():
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
    """How long a boss thinks: ``think_ms`` of its own CPU time (with the wall-clock cap of
    :class:`Deadline`, read on the clocks ``cpu`` and ``wall``), or exactly ``iterations``
    worlds."""

    def __init__(self, think_ms: float = 100.0, iterations: int | None = None,
                 seed: object = None, cpu: Clock = time.thread_time,
                 wall: Clock = time.perf_counter) -> None:
        if think_ms <= 0 and iterations is None:
            raise ValueError("think time must be positive")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.think_ms = think_ms
        self.iterations = iterations
        self.seed = seed
        self.decisions = 0
        self.cpu, self.wall = cpu, wall

    def deadline(self, request: dict[str, Any] | None = None) -> Deadline:
        """The deadline of a decision starting now (``request``: its ``time_left_ms``, if any,
        caps the wall time too)."""
        left = (request or {}).get("time_left_ms")
        return Deadline(self.think_ms / 1000.0, self.cpu, self.wall,
                        None if left is None else left / 1000.0)

    def next_rng(self) -> random.Random:
        """The random stream of the next decision (seeded: the bot's seed and its number)."""
        self.decisions += 1
        if self.seed is None:
            return random.Random()
        return random.Random(f"{self.seed}:{self.decisions}")
