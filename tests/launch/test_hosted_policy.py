"""Which hosted versions the ladder runs (:mod:`arena.launch.hosted_policy`): pure."""

from __future__ import annotations

from arena.launch.hosted_policy import Plan, Rotation, Running, VersionKey, plan

A, B, C, D = (VersionKey(name, 1) for name in "abcd")


def test_free_places_go_to_those_waiting_longest_newcomers_last():
    decided = plan([A, B, C, D], [], {C: 5.0, B: 1.0}, {}, Rotation(3), now=10.0)
    assert decided == Plan(start=(B, C, A))
    assert plan([A, B], [Running(A, 0.0)], {}, {}, Rotation(3), 1.0) == Plan(start=(B,))


def test_with_enough_places_nobody_is_stopped_for_another():
    running = [Running(A, 0.0, games=50, idle_since=0.0)]
    assert plan([A], running, {}, {}, Rotation(1), now=1000.0) == Plan()


def test_a_version_no_longer_active_is_stopped_and_an_excluded_one_not_started():
    running = [Running(A, 0.0), Running(B, 0.0, stopping=True)]
    assert plan([C, D], running, {}, {C: 2.0}, Rotation(3), 1.0) == Plan(start=(D,), stop=(A,))


def test_a_version_left_out_comes_back_when_its_rest_is_over():
    left_out = {A: 600.0}  # its restarts used up at 0: left out until 600
    assert plan([A], [], {}, left_out, Rotation(1), 599.0) == Plan()
    assert plan([A], [], {}, left_out, Rotation(1), 600.0) == Plan(start=(A,))


def test_when_versions_wait_the_one_that_played_its_share_or_idled_yields():
    rotation = Rotation(2, share=6, idle=20.0)
    running = [Running(A, 0.0, games=3, idle_since=None),  # playing, not its share yet
               Running(B, 1.0, games=6, idle_since=None)]  # its share (after its game)
    assert plan([A, B, C], running, {C: 0.0}, {}, rotation, 30.0) == Plan(stop=(B,))
    idle = [Running(A, 0.0, games=1, idle_since=5.0), Running(B, 1.0, games=2)]
    assert plan([A, B, C], idle, {C: 0.0}, {}, rotation, 24.0) == Plan()
    assert plan([A, B, C], idle, {C: 0.0}, {}, rotation, 25.0) == Plan(stop=(A,))
    # one yields for each waiting version; the one being stopped already counts
    many = [Running(A, 0.0, games=9), Running(B, 1.0, games=7, stopping=True)]
    assert plan([A, B, C, D], many, {C: 0.0, D: 1.0}, {}, rotation, 30.0) == Plan(
        stop=(A,))
