"""Ladder seating over a simulated population: bots with hidden strengths arrive and leave over
simulated time, each game's result is drawn from the strengths with a seeded generator, and
the ratings the seating reads are learnt from those results (the ladder's ``LiveRating``)."""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections.abc import Callable

import attrs
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.events.live_rating import LiveRating
from arena.gameplay.records import GameRecord
from arena.seating.arrival import ArrivalSeating
from arena.seating.interface import SeatedTable
from arena.seating.ladder import LadderSeating


@attrs.define
class Run:
    played: dict[str, int]
    #: From ready (or from when enough bots waited to make a table, if later) to seated.
    waits: list[float]
    still_waiting: list[float]  # the same, at the end, for those still waiting
    tables: list[tuple[str, ...]]
    gaps: list[float]  # the spread of hidden strengths at each table
    lifetime: dict[str, float]


def simulate(make: Callable[[LiveRating], object], *, seed: int, bots: int, players: int,
             horizon: float) -> Run:
    rng = random.Random(seed)
    strength = {f"bot{i}": rng.gauss(1500, 300) for i in range(bots)}
    view = LiveRating(players)
    seating = make(view)
    arrive = {name: rng.uniform(0, horizon / 3) for name in strength}
    leave = {name: (rng.uniform(arrive[name] + 60, horizon) if rng.random() < 0.3
                    else math.inf) for name in strength}
    events: list[tuple[float, int, str, object]] = []
    order = itertools.count()
    for name in strength:
        heapq.heappush(events, (arrive[name], next(order), "arrive", name))
        if leave[name] < math.inf:
            heapq.heappush(events, (leave[name], next(order), "leave", name))
    connected: set[str] = set()
    ready_at: dict[str, float] = {}
    #: Since when each waiting bot has waited with a table's worth of bots waiting.
    enough_since: dict[str, float] = {}
    seated: set[str] = set()
    run = Run({name: 0 for name in strength}, [], [], [], [],
              {name: min(leave[name], horizon) - arrive[name] for name in strength})

    def start(tables: list[SeatedTable], now: float) -> None:
        for table in tables:
            names = tuple(table.sessions)
            assert all(s in connected and s not in seated for s in names), names
            assert len(set(names)) == players
            seated.update(names)
            for name in names:
                ready_at.pop(name)
                run.waits.append(now - enough_since.pop(name, now))
            run.tables.append(names)
            run.gaps.append(max(strength[n] for n in names) - min(strength[n] for n in names))
            heapq.heappush(events, (now + rng.uniform(1.0, 3.0), next(order), "end", table))

    def ready(name: str, now: float) -> None:
        ready_at[name] = now
        start(seating.ready(name, now), now)  # type: ignore[attr-defined]

    while True:
        deadline = seating.next_deadline()  # type: ignore[attr-defined]
        if events and (deadline is None or events[0][0] <= deadline):
            now, _, kind, what = heapq.heappop(events)
        elif deadline is not None:
            now, kind, what = deadline, "tick", None
        else:
            break
        if now > horizon:
            break
        if kind == "arrive":
            connected.add(str(what))
            ready(str(what), now)
        elif kind == "leave":
            connected.discard(str(what))
            ready_at.pop(str(what), None)
            enough_since.pop(str(what), None)
            start(seating.gone(what, now), now)  # type: ignore[attr-defined]
        elif kind == "end":
            assert isinstance(what, SeatedTable)
            names = list(what.sessions)
            noise = [strength[n] * math.log(10) / 400 - math.log(-math.log(rng.random()))
                     for n in names]
            places = sorted(range(len(names)), key=lambda seat: -noise[seat])
            ranks = [places.index(seat) + 1 for seat in range(len(names))]
            view.add(GameRecord(
                number=0, game_id="g", entrants=(None,) * players, names=tuple(names),
                seed="s", scores=tuple(ranks), ranks=tuple(ranks), winners=(0,), aborted=None,
                defaults=(0,) * players, errors=(0,) * players, rounds=1, log_path=None,
                seconds=0.0))
            for name in names:
                run.played[name] += 1
                seated.discard(name)
            start(seating.game_over(what, now), now)  # type: ignore[attr-defined]
            for name in names:
                if name in connected:
                    ready(name, now)
        else:
            start(seating.expire(now), now)  # type: ignore[attr-defined]
        if len(ready_at) >= players:
            for name in ready_at:
                enough_since.setdefault(name, now)
        else:
            enough_since.clear()
    run.still_waiting = [horizon - since for since in enough_since.values()]
    return run


def connected_groups(names: list[str], tables: list[tuple[str, ...]]) -> int:
    parent = {name: name for name in names}

    def find(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    for table in tables:
        for other in table[1:]:
            parent[find(other)] = find(table[0])
    return len({find(name) for name in names})


def ladder(players: int, max_wait: float = 30.0, **options: object
           ) -> Callable[[LiveRating], object]:
    return lambda view: LadderSeating(players, view, seed="sim", max_wait=max_wait,
                                      **options)  # type: ignore[arg-type]


def test_a_population_of_hundreds_every_bot_plays_nobody_starves_close_games_dominate():
    run = simulate(ladder(2), seed=1, bots=200, players=2, horizon=250.0)
    bound = 30.0 + 0.05  # max_wait, and the newcomer's settling time
    assert max(run.waits) <= bound and max(run.still_waiting, default=0) <= bound
    assert all(run.played[name] > 0 for name, alive in run.lifetime.items() if alive > 40)
    assert connected_groups([n for n, games in run.played.items() if games], run.tables) == 1
    arrival = simulate(lambda view: ArrivalSeating(2), seed=1, bots=200, players=2,
                       horizon=250.0)
    late = len(run.gaps) // 2  # once the ratings have learnt
    ladder_gap = sum(run.gaps[late:]) / len(run.gaps[late:])
    arrival_gap = sum(arrival.gaps[late:]) / len(arrival.gaps[late:])
    assert ladder_gap < 0.65 * arrival_gap, (ladder_gap, arrival_gap)


@settings(max_examples=15, deadline=None)
@example(seed=36810, players=2, bots=8, duplicate=False, distant_every=2)  # two groups, once
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), bots=st.integers(8, 40),
       duplicate=st.booleans(), distant_every=st.integers(2, 6))
def test_any_small_population_keeps_the_bound_and_one_who_met_whom_graph(
        seed: int, players: int, bots: int, duplicate: bool, distant_every: int):
    run = simulate(ladder(players, max_wait=10.0, duplicate=duplicate,
                          distant_every=distant_every),
                   seed=seed, bots=bots, players=players, horizon=150.0)
    bound = 10.0 + 0.05
    assert max(run.waits, default=0) <= bound
    assert max(run.still_waiting, default=0) <= bound
    assert connected_groups([n for n, games in run.played.items() if games], run.tables) == 1
