"""A boss's think time is its own CPU time, cut by a wall-clock cap (reference_bots/boss/search.py).

The clocks are inputs: a fake CPU clock and a fake wall clock stand for a quiet host (the two
run together) and a busy one (the wall runs faster than the boss's CPU time), so that the
number of worlds a decision searches is checked exactly, without sleeping.
"""

from __future__ import annotations

import random

import pytest

from arena.games import GAMES
from reference_bots.boss.options import boss_parser
from reference_bots.boss.search import (
    WALL_FACTOR,
    WALL_LIMIT_S,
    Budget,
    Deadline,
    search,
    wall_cap,
)
from reference_bots.boss.wypas import WypasBoss
from tests.reference_bots.test_boss import as_json, wypas_decisions


class Host:
    """Fake clocks: each world costs ``world_s`` of CPU and ``load`` times that of wall time."""

    def __init__(self, load: float, world_s: float = 0.001) -> None:
        self.cpu_s = self.wall_s = 0.0
        self.load, self.world_s = load, world_s

    def cpu(self) -> float:
        return self.cpu_s

    def wall(self) -> float:
        return self.wall_s

    def work(self) -> None:
        self.cpu_s += self.world_s
        self.wall_s += self.world_s * self.load


def worlds_searched(host: Host, think_ms: float, request: dict | None = None) -> int:
    worlds = 0

    def simulate(world: object, action: str, rng: random.Random) -> float:
        nonlocal worlds
        host.work()
        worlds += 1
        return rng.random()

    budget = Budget(think_ms, cpu=host.cpu, wall=host.wall)
    search(["a", "b", "c"], lambda rng: None, simulate, random.Random(1),
           deadline=budget.deadline(request))
    return worlds


def test_a_busy_host_gives_the_boss_the_worlds_of_a_quiet_one_up_to_the_wall_cap():
    assert worlds_searched(Host(load=1.0), 100) == 100  # 100 ms of CPU, 1 ms a world
    # eight times as slow in wall time (the host's other work): still 100 worlds, in 800 ms of
    # wall time (a wall-time budget gave 12)
    assert worlds_searched(Host(load=8.0), 100) == 100
    # twenty times as slow: the wall cap (10 x 100 ms) ends it at 50 worlds, 1 s of wall time
    host = Host(load=20.0)
    assert worlds_searched(host, 100) == 50
    assert host.wall_s == pytest.approx(1.0)
    # a server that gives the answer 0.4 s: the boss stops at half of it
    host = Host(load=8.0)
    assert worlds_searched(host, 100, {"time_left_ms": 400}) == 25
    assert host.wall_s == pytest.approx(0.2)


def test_the_wall_cap_stays_inside_the_servers_move_timeout_but_never_below_the_think_time():
    assert wall_cap(0.1) == pytest.approx(WALL_FACTOR * 0.1) == pytest.approx(1.0)
    assert wall_cap(1.0) == WALL_LIMIT_S < 5.0  # the server's default move timeout is 5 s
    assert wall_cap(4.0) == 4.0  # a think time asked beyond the limit is the wall cap itself
    assert wall_cap(4.0, time_left_s=5.0) == 2.5  # ...but never past half the time left
    assert wall_cap(0.1, time_left_s=0.5) == 0.25
    host = Host(load=1.0)
    deadline = Deadline(0.05, host.cpu, host.wall)
    host.cpu_s = 0.049
    assert not deadline.passed()
    host.cpu_s = 0.05
    assert deadline.passed()
    host = Host(load=1.0)
    deadline = Deadline(0.05, host.cpu, host.wall)
    host.wall_s = 0.6  # no CPU spent (the boss never scheduled): the wall cap still ends it
    assert deadline.passed()


def test_the_boss_reads_its_budget_from_its_clocks_at_each_decision():
    state, fleeces, obs = next((s, f, o) for s, f, o in wypas_decisions(5, 3, 1)
                               if o["decision"] == "shear" and len(s.legal_actions(1)) > 1)
    bot = WypasBoss(think_ms=125, seed=3)
    bot.on_message({"type": "game_start", "seat": 1, "info": as_json(GAMES["wypas"].info(
        state.options)), "options": GAMES["wypas"].options_to_dict(state.options)})
    bot.fleeces = set(fleeces)
    readings = 0

    def cpu() -> float:  # each reading: another 1/64 s of the boss's CPU time (exact in binary)
        nonlocal readings
        readings += 1
        return readings / 64

    walls = 0

    def wall() -> float:  # each reading: another 1/1024 s of wall time (far from the cap)
        nonlocal walls
        walls += 1
        return walls / 1024

    bot.budget.cpu, bot.budget.wall = cpu, wall
    legal = state.legal_actions(1)
    assert bot.choose({"observation": obs, "legal": legal, "time_left_ms": 5000}) in legal
    # one reading at the decision's start (1/64), then one a world once every action was tried,
    # until 1/64 + 125 ms = 9/64: the search stopped on the boss's clocks, not the host's
    assert readings == 9


def test_think_ms_is_documented_as_cpu_time_with_a_wall_cap():
    text = " ".join(boss_parser("boss", "boss").format_help().split())
    assert "CPU time" in text and "wall" in text and "the time the server gives" in text
