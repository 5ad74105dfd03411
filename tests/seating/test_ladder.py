"""Ladder seating with plain values: sessions are names, ratings a dict, time a number."""

from __future__ import annotations

from arena.events.live_rating import LiveRating
from arena.gameplay.records import GameRecord
from arena.seating.interface import SeatedTable
from arena.seating.ladder import LadderSeating


class Fixed:
    """Ratings given outright: name -> (mean, uncertainty)."""

    newcomer_uncertainty = 350.0

    def __init__(self, ratings: dict[str, tuple[float, float]]) -> None:
        self.ratings = ratings

    def estimate(self, name: str) -> tuple[float, float]:
        return self.ratings.get(name, (1500.0, 350.0))


def known(*means: float) -> Fixed:
    return Fixed({f"b{int(m)}": (m, 50.0) for m in means})


def ladder(view: Fixed, players: int = 2, **options: object) -> LadderSeating:
    """A ladder with many tables running elsewhere, so that its pool can fill up."""
    seating = LadderSeating(players, view, seed="s", settle=0.0, **options)  # type: ignore[arg-type]
    seating.running = 100
    return seating


def queue(seating: LadderSeating, names: list[str], now: float = 0.0) -> list[SeatedTable]:
    tables = []
    for name in names:
        tables += seating.ready(name, now)
    return tables


def test_the_longest_waiting_meets_the_closest_rating():
    seating = ladder(known(1000, 1100, 1290, 1300, 1700, 1800), pool=6, duplicate=False)
    tables = queue(seating, ["b1300", "b1000", "b1800", "b1100", "b1700", "b1290"])
    assert [sorted(t.names) for t in tables] == [["b1290", "b1300"]]  # the anchor: first
    assert len(seating.waiting) == 4  # fewer than the pool wait on, until their patience ends
    assert [sorted(t.names) for t in seating.expire(2.0)] == [["b1000", "b1100"],
                                                                ["b1700", "b1800"]]


def test_a_small_ladder_never_waits_for_a_pool_it_cannot_have():
    seating = LadderSeating(2, known(1000, 1800, 1500, 1510), seed="s", settle=0.0, pool=6)
    first = queue(seating, ["b1000", "b1800"])  # nobody else plays: no pool to wait for
    assert [sorted(t.names) for t in first] == [["b1000", "b1800"]]
    second = queue(seating, ["b1500", "b1510"])  # 2 waiting + 2 playing cannot make 6
    assert [sorted(t.names) for t in second] == [["b1500", "b1510"]]
    big = LadderSeating(2, known(1000, 1800, 1500, 1510), seed="s", settle=0.0, pool=4)
    queue(big, ["b1000", "b1800"])
    assert queue(big, ["b1500", "b1510"]) == []  # 2 waiting + 2 playing can make 4: wait


def test_a_small_ladders_duel_pairs_meet_each_other_not_only_themselves():
    """Four bots in two duels: the two of a duel finish together and are ready together.  They
    used to meet again at once, for ever (a who-met-whom graph of two groups: found by the
    population test's example seed=36810).  Now they wait (up to ``patience``) for a bot they
    have not met through anybody, and meet it."""
    seating = LadderSeating(2, known(1000, 1010, 1500, 1510), seed="s", settle=0.0, pool=6,
                            duplicate=False, patience=2.0)
    first, second = queue(seating, ["b1000", "b1010"]) + queue(seating, ["b1500", "b1510"])
    assert seating.game_over(first, 3.0) == []
    assert queue(seating, ["b1000", "b1010"], 3.0) == []  # the others play: wait for them
    assert seating.next_deadline() == 5.0
    assert seating.game_over(second, 4.0) == []
    tables = queue(seating, ["b1500"], 4.0)  # a stranger: the anchor meets it
    assert [sorted(t.names) for t in tables] == [["b1000", "b1500"]]
    assert seating.kinds["mixing"] == 1
    tables = queue(seating, ["b1510"], 4.0)
    assert [sorted(t.names) for t in tables] == [["b1010", "b1510"]]


def test_a_small_ladders_pair_that_waited_its_patience_plays_on():
    seating = LadderSeating(2, known(1000, 1010, 1500, 1510), seed="s", settle=0.0, pool=6,
                            duplicate=False, patience=2.0)
    first, _ = queue(seating, ["b1000", "b1010"]) + queue(seating, ["b1500", "b1510"])
    seating.game_over(first, 3.0)
    assert queue(seating, ["b1000", "b1010"], 3.0) == []
    assert [sorted(t.names) for t in seating.expire(5.0)] == [["b1000", "b1010"]]


def test_few_waiting_wait_for_patience_then_play():
    seating = ladder(known(1000, 1800), pool=6, patience=2.0)
    assert queue(seating, ["b1000", "b1800"]) == []
    assert seating.next_deadline() == 2.0
    assert seating.expire(1.9) == []
    assert sorted(seating.expire(2.0)[0].names) == ["b1000", "b1800"]


def test_every_kth_table_is_distant_and_newcomers_meet_varied_opponents():
    means = [1000 + 10 * i for i in range(40)]
    seating = ladder(known(*means), pool=100, distant_every=3, duplicate=False)
    assert queue(seating, [f"b{m}" for m in means]) == []  # all wait, then make 20 tables
    tables = seating.expire(2.0)
    assert seating.kinds == {"close": 14, "distant": 6} and len(tables) == 20
    gaps = [abs(float(t.names[0][1:]) - float(t.names[1][1:])) for t in tables]
    distant = [gap for k, gap in enumerate(gaps, start=1) if k % 3 == 0]
    close = [gap for k, gap in enumerate(gaps, start=1) if k % 3]
    assert min(distant) > max(close[:4])

    newcomer = Fixed({"new": (1500.0, 350.0), **known(*means).ratings})
    seating = ladder(newcomer, players=3, pool=41, duplicate=False)
    table = queue(seating, ["new", *(f"b{m}" for m in means)])[0]
    assert "new" in table.names and seating.kinds["varied"] == 1
    opponents = sorted(float(n[1:]) for n in table.names if n != "new")
    assert opponents[1] - opponents[0] >= 100  # spread over the range, not neighbours


def test_a_bot_past_the_bound_is_seated_with_whoever_waited_longest():
    seating = ladder(known(1000, 1500, 1510, 2000), players=2, pool=10, patience=50.0,
                     max_wait=30.0, duplicate=False)
    queue(seating, ["b1000", "b2000"], now=0.0)
    queue(seating, ["b1500", "b1510"], now=10.0)
    assert seating.next_deadline() == 30.0
    tables = seating.expire(30.0)
    assert sorted(tables[0].names) == ["b1000", "b2000"] and seating.kinds == {"starved": 1}


def test_a_duplicate_set_plays_every_seating_of_one_deal_then_ends():
    seating = ladder(known(1000, 1010, 1500, 1510), pool=4)
    first = queue(seating, ["b1000", "b1500", "b1010", "b1510"])[0]
    assert first.tag is not None and first.tag.rotation == 0 and first.seed is not None
    assert seating.game_over(first, 1.0) == []
    assert seating.ready(first.sessions[0], 1.0) == []  # its partner is not back yet
    second = seating.ready(first.sessions[1], 1.0)[0]
    assert second.sessions == first.sessions[::-1] and second.seed == first.seed
    assert second.tag is not None and second.tag.set_index == first.tag.set_index
    assert second.tag.rotation == 1
    seating.game_over(second, 1.5)
    after = queue(seating, list(second.sessions), now=1.5)  # the set is over: the queue
    assert after[0].tag is not None and after[0].tag.set_index != first.tag.set_index
    assert after[0].tag.rotation == 0 and after[0].seed != first.seed


def test_a_set_whose_bot_leaves_ends_and_its_others_wait_in_the_queue():
    seating = ladder(known(1000, 1010, 1500, 1510), pool=4)
    first = queue(seating, ["b1000", "b1500", "b1010", "b1510"])[0]
    seating.game_over(first, 1.0)
    seating.ready(first.sessions[0], 1.0)
    seating.gone(first.sessions[1], 1.5)
    assert first.sessions[0] in seating.waiting and seating.waiting[first.sessions[0]] == 1.0


def test_a_set_is_over_only_once_none_of_its_games_runs_or_will_run():
    """Its games share a deal: the book stores them (and the pages show them) only then."""
    over: list[int] = []
    seating = ladder(known(1000, 1010, 1500, 1510), pool=4, set_over=over.append)
    first = queue(seating, ["b1000", "b1500", "b1010", "b1510"])[0]
    assert first.tag is not None
    seating.game_over(first, 1.0)
    second = queue(seating, list(first.sessions), now=1.0)[0]
    assert over == []  # its second game is still to be played, then in play
    seating.game_over(second, 2.0)
    assert over == [first.tag.set_index]  # played in full

    left: list[int] = []  # a bot leaves while the set's first game runs
    seating = ladder(known(1000, 1010, 1500, 1510), pool=4, set_over=left.append)
    first = queue(seating, ["b1000", "b1500", "b1010", "b1510"])[0]
    seating.gone(first.sessions[1], 0.5)
    assert left == []  # ended, but its game still runs: the other bot plays that deal
    seating.game_over(first, 1.0)
    assert first.tag is not None and left == [first.tag.set_index]

    waited: list[int] = []  # a bot keeps the set waiting past max_wait
    seating = ladder(known(1000, 1010, 1500, 1510), pool=4, max_wait=30.0,
                     set_over=waited.append)
    first = queue(seating, ["b1000", "b1500", "b1010", "b1510"])[0]
    seating.game_over(first, 1.0)
    seating.ready(first.sessions[0], 1.0)
    seating.expire(30.0)
    assert waited == []
    seating.expire(31.0)
    assert first.tag is not None and waited == [first.tag.set_index]

    unstarted: list[int] = []  # its next table does not start (a bot was gone)
    seating = ladder(known(1000, 1010, 1500, 1510), pool=4, set_over=unstarted.append)
    first = queue(seating, ["b1000", "b1500", "b1010", "b1510"])[0]
    seating.game_over(first, 1.0)
    second = queue(seating, list(first.sessions), now=1.0)[0]
    seating.unstarted(second, [second.sessions[0]], 1.5)
    assert first.tag is not None and unstarted == [first.tag.set_index]


def duel(number: int, names: tuple[str, str]) -> GameRecord:
    return GameRecord(number=number, game_id=f"g{number}", entrants=(None, None), names=names,
                      seed="s", scores=(1, 0), ranks=(1, 2), winners=(0,), aborted=None,
                      defaults=(0, 0), errors=(0, 0), rounds=1, log_path=None, seconds=0.1)


def test_the_live_rating_seats_a_newcomer_as_provisional_until_it_has_played():
    view = LiveRating(2)
    assert view.estimate("new") == (1500.0, view.newcomer_uncertainty)
    settled = [f"s{i}" for i in range(6)]  # s0 the strongest
    number = 0
    for _ in range(20):
        for i in range(6):
            for j in range(i + 1, 6):
                view.add(duel(number := number + 1, (settled[i], settled[j])))
    kinds = []
    for _ in range(2):
        seating = ladder(view, pool=7, duplicate=False)  # type: ignore[arg-type]
        assert view.newcomer_uncertainty > seating.provisional
        queue(seating, ["new", *settled])
        kinds.append(seating.kinds)
        for rival in settled[3:]:  # it beats the weaker half, loses to the stronger
            for _ in range(2):
                view.add(duel(number := number + 1, ("new", rival)))
                view.add(duel(number := number + 1, (settled[5 - settled.index(rival)],
                                                     "new")))
    assert kinds == [{"varied": 1}, {"close": 1}]
    mean, spread = view.estimate("new")
    assert view.estimate("s2")[0] > mean > view.estimate("s3")[0]


def test_the_decision_benchmark_runs_and_summarises():
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "ladder_seating.py"
    done = subprocess.run([sys.executable, str(script), "--waiting", "30", "--decisions", "5",
                           "--rounds", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("SUMMARY ")]
    rows = json.loads(line.removeprefix("SUMMARY "))
    assert [row["target"] for row in rows] == [10.0, 10.0]
    assert all(0 < row["median"] <= row["max"] for row in rows)
