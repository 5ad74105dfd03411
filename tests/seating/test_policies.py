"""Seating policies as plain values: sessions are strings, time is a number."""

from __future__ import annotations

import pytest

from arena.events.schedule import plan
from arena.seating.arrival import ArrivalSeating
from arena.seating.roster import RosterEntry, RosterSeating
from arena.seating.scheduled import Instance, ScheduledSeating
from protocol.errors import ErrorCode


def test_arrival_seats_the_first_comers_and_reseats_them_at_the_back():
    seating = ArrivalSeating(3, settle=0, probation=0)  # arrival order alone
    assert seating.ready("a", 0) == [] and seating.ready("b", 0) == []
    seating.gone("b", 0)
    assert seating.ready("c", 0) == []
    (table,) = seating.ready("d", 0)
    assert table.sessions == ("a", "c", "d") and seating.statistics().tables_running == 1
    assert seating.ready("e", 0) == []
    assert seating.game_over(table, 1) == []
    (again,) = seating.ready("a", 1) + seating.ready("f", 1)
    assert again.sessions == ("a", "f", "e")  # table 2: arrival order e a f, rotated by one


class Bot:
    def __init__(self, name):
        self.name = name


def test_one_player_never_takes_two_seats_at_a_table():
    seating = ArrivalSeating(2, settle=0)
    first, second, other = Bot("Greedy"), Bot("greedy"), Bot("honest")
    assert seating.ready(first, 0) == [] and seating.ready(second, 0) == []  # same player
    (table,) = seating.ready(other, 0)
    assert {bot.name for bot in table.sessions} == {"Greedy", "honest"}
    assert list(seating.waiting) == [second]  # waits for another table


def test_seats_rotate_so_the_first_to_arrive_does_not_always_deal_first():
    seating = ArrivalSeating(3, settle=0)
    firsts = []
    for game in range(6):
        tables = [t for name in "abc" for t in seating.ready(name, game)]
        (table,) = tables
        firsts.append(table.sessions[0])
        seating.game_over(table, game)
    assert set(firsts) == {"a", "b", "c"}


def roster(games=2, timeout=None):
    entries = [RosterEntry(name, f"t-{name}") for name in ("n", "e", "s")]
    return RosterSeating(entries, games, connect_timeout=timeout)


def test_a_roster_seats_by_token_and_rotates_seats_every_game():
    seating = roster()
    assert seating.admit("x", "who", "t-x").refusal is ErrorCode.UNKNOWN_TOKEN
    assert seating.admit("S", "anything", "t-s").name == "s"
    assert seating.admit("S2", "copy", "t-s").refusal is ErrorCode.TOKEN_IN_USE
    seating.admit("N", "", "t-n")
    seating.admit("E", "", "t-e")
    assert seating.ready("S", 0) + seating.ready("N", 0) == []
    (first,) = seating.ready("E", 0)
    assert first.sessions == ("N", "E", "S") and first.entrants == (0, 1, 2)
    assert seating.game_over(first, 1) == []
    (second,) = seating.ready("N", 1) + seating.ready("E", 1) + seating.ready("S", 1)
    assert second.entrants == (2, 0, 1) and second.names == ("s", "n", "e")
    seating.game_over(second, 2)
    assert seating.statistics().done


def test_a_roster_gives_up_on_absent_bots_at_the_connect_deadline():
    seating = roster(games=1, timeout=10)
    seating.start(100.0)
    assert seating.next_deadline() == 110.0
    seating.admit("N", "", "t-n")
    assert seating.ready("N", 101) == [] and seating.expire(109.9) == []
    (table,) = seating.expire(110.0)
    assert table.sessions == ("N", None, None)
    assert seating.statistics().ever_connected == frozenset({"t-n"})


def test_a_roster_stops_waiting_for_a_withdrawn_or_departed_bot():
    seating = roster(games=2)
    for session, token in (("N", "t-n"), ("E", "t-e")):
        seating.admit(session, "", token)
        seating.ready(session, 0)
    (table,) = seating.withdraw("t-s", 1)  # its process ended before it connected
    assert table.sessions == ("N", "E", None)
    seating.gone("E", 2)
    assert seating.game_over(table, 3) == []
    (second,) = seating.ready("N", 3)
    assert second.sessions == (None, "N", None)
    assert seating.statistics().left_early == frozenset({"t-e"})


def scheduled(concurrency=2, instances_each=2, timeout=None):
    planned = list(plan(3, 3, sets=2, seed="s"))  # 12 tables of entrants 0, 1, 2
    instances = [Instance(e, f"{e}.{k}") for e in range(3) for k in range(instances_each)]
    return planned, ScheduledSeating(planned, ["a", "b", "c"], instances, concurrency,
                                     connect_timeout=timeout)


def test_a_schedule_runs_k_tables_at_once_with_one_idle_instance_per_seat():
    planned, seating = scheduled()
    started = []
    for e in range(3):
        for k in range(2):
            assert seating.admit(f"s{e}{k}", "x", f"{e}.{k}").name == "abc"[e]
            started += seating.ready(f"s{e}{k}", 0)
    assert [t.number for t in started] == [0, 1]
    first = started[0]
    assert first.seed == planned[0].seed and first.tag == planned[0]
    assert [int(s[1]) for s in first.sessions] == list(planned[0].entrants)
    assert seating.ready("s00", 1) == []  # no table may start: two are running
    more = seating.game_over(first, 2)
    assert more == []  # the freed sessions are not ready yet
    for session in first.sessions:
        more += seating.ready(session, 2)
    assert [t.number for t in more] == [2]
    assert seating.statistics().tables_running == 2


def test_a_schedule_plays_an_entrant_with_no_instance_left_by_default():
    planned, seating = scheduled(concurrency=1, instances_each=1, timeout=5)
    seating.start(0)
    for e in (0, 1):
        seating.admit(f"s{e}", "", f"{e}.0")
        seating.ready(f"s{e}", 0)
    (table,) = seating.expire(5)  # entrant 2 never connected
    assert table.sessions[table.entrants.index(2)] is None


def test_draining_starts_no_more_tables_and_ends_when_the_running_ones_do():
    planned, seating = scheduled(concurrency=1, instances_each=1)
    for e in range(3):
        seating.admit(f"s{e}", "", f"{e}.0")
        started = seating.ready(f"s{e}", 0)
    (table,) = started
    seating.drain()
    assert not seating.statistics().done
    seating.game_over(table, 1)
    assert seating.ready("s0", 1) == [] and seating.statistics().done


def test_a_table_needing_two_instances_of_a_bot_starts_with_the_one_left():
    planned = list(plan(2, 3, sets=1, seed="s"))  # two bots at tables of three: one sits twice
    twice = next(e for e in (0, 1) if planned[0].entrants.count(e) == 2)
    instances = [Instance(e, f"{e}.{k}") for e in (0, 1) for k in range(2)]
    seating = ScheduledSeating(planned, ["a", "b"], instances, 1, connect_timeout=5)
    seating.start(0)
    for e in (0, 1):
        seating.admit(f"s{e}", "", f"{e}.0")
        assert seating.ready(f"s{e}", 0) == []  # the second instance may still come
    (table,) = seating.expire(5)  # it never did
    seats = [s for s, e in zip(table.sessions, table.entrants) if e == twice]
    assert sorted(seats, key=str) == sorted([f"s{twice}", None], key=str)


def test_registered_players_need_their_own_token():
    from arena.seating.arrival import load_registry

    registry = load_registry("# players\nAlice alice-secret-token-1\n\nbob bob-secret-token-22")
    seating = ArrivalSeating(3, registry)
    assert seating.admit("s1", "alice", "alice-secret-token-1").name == "Alice"  # as registered
    assert seating.admit("s2", "Alice", "bob-secret-token-22").refusal is ErrorCode.BAD_TOKEN
    assert seating.admit("s3", "bob", None).refusal is ErrorCode.BAD_TOKEN
    assert seating.admit("s4", "mallory", "x" * 20).refusal is ErrorCode.UNKNOWN_TOKEN
    assert ArrivalSeating(3).admit("s5", "anyone", None).name == "anyone"  # the open mode
    for bad, why in (("alice", "line 1: expected 'name token'"),
                     ("alice short", "line 1: a token needs at least 16 characters"),
                     ("a 0123456789abcdef\nA 0123456789abcdef", "line 2: 'A' is registered")):
        with pytest.raises(ValueError, match=why):
            load_registry(bad)


class Link:
    """A session as arrival seating sees it: a name, and whether its connection is ending."""

    def __init__(self, name, leaving=False):
        self.name, self.leaving = name, leaving

    def __repr__(self):
        return self.name


def test_a_newcomer_that_leaves_while_settling_is_never_seated():
    seating = ArrivalSeating(3, settle=0.05, probation=0.5)
    assert seating.ready("a", 0.0) == [] and seating.ready("b", 0.0) == []
    assert seating.next_deadline() == 0.05
    assert seating.ready("churn", 0.01) == []  # would fill a table at once without settling
    seating.gone("churn", 0.02)  # said hello and closed
    assert seating.expire(0.05) == [] and list(seating.waiting) == ["a", "b"]
    assert seating.ready("c", 0.1) == []
    (table,) = seating.expire(0.2)
    assert sorted(table.sessions) == ["a", "b", "c"]
    assert seating.next_deadline() == 0.5  # no more settling; a's probation ends
    # after a game, a known bot is ready again at once (no second settling)
    seating.game_over(table, 1.0)
    assert seating.ready("a", 1.0) + seating.ready("b", 1.0) == []
    (again,) = seating.ready("c", 1.0)
    assert sorted(again.sessions) == ["a", "b", "c"]


def test_a_session_already_leaving_is_dropped_instead_of_seated():
    seating = ArrivalSeating(2, settle=0)
    closing = Link("closing")
    assert seating.ready(closing, 0) == []
    closing.leaving = True  # its connection ended; the server's gone() is on the way
    assert seating.ready(Link("x"), 0) == []
    assert [s.name for s in seating.waiting] == ["x"]


def test_survivors_of_a_table_that_did_not_start_keep_their_place_at_the_front():
    seating = ArrivalSeating(3, settle=0)
    assert seating.ready("a", 0) + seating.ready("b", 0) == []
    (table,) = seating.ready("x", 0)
    assert table.sessions == ("a", "b", "x")
    assert seating.ready("c", 0) + seating.ready("d", 0) == []
    seating.gone("x", 0.01)  # before the table started
    (next_table,) = seating.unstarted(table, ["b", "a"], 0.05)
    assert sorted(next_table.sessions) == ["a", "b", "c"]  # a and b first, then c
    assert list(seating.waiting) == ["d"]
    assert seating.statistics().tables_running == 1


def test_survivors_come_back_in_their_arrival_order_whatever_the_seat_rotation():
    seating = ArrivalSeating(3, settle=0)
    (first,) = [t for name in "abc" for t in seating.ready(name, 0)]
    seating.game_over(first, 1)
    (second,) = [t for name in "def" for t in seating.ready(name, 1)]
    assert second.sessions == ("e", "f", "d")  # table 2: arrival d e f rotated by one
    assert seating.ready("g", 1) + seating.ready("h", 1) == []
    seating.gone("e", 1.01)
    (third,) = seating.unstarted(second, ["f", "d"], 1.05)
    assert third.sessions == ("g", "d", "f")  # arrival d f g, rotated by two
    assert list(seating.waiting) == ["h"]


def played_once(seating: ArrivalSeating, names: str, now: float) -> None:
    """``names`` arrive together, play a game and are regulars, none of them waiting."""
    (table,) = [t for name in names for t in seating.ready(name, now)] + seating.expire(
        now + seating.settle)
    assert seating.game_over(table, now + seating.settle) == []


def test_a_fresh_newcomer_never_sits_with_regulars():
    """Regulars (they finished a game here) wait for each other; sessions on probation sit
    together; without the probation, g1 would fill a table with a and b."""
    seating = ArrivalSeating(3, settle=0, probation=1.0)
    played_once(seating, "abc", 0.0)
    assert seating.ready("a", 0.5) + seating.ready("b", 0.5) == []
    assert seating.ready("g1", 0.5) + seating.ready("g2", 0.6) == []
    (ghosts,) = seating.ready("g3", 0.7)
    assert sorted(ghosts.sessions) == ["g1", "g2", "g3"]
    assert seating.ready("g4", 0.7) == []
    (regulars,) = seating.ready("c", 0.8)  # at once: a regular is never held back
    assert sorted(regulars.sessions) == ["a", "b", "c"]
    assert list(seating.waiting) == ["g4"]


def test_survivors_of_an_unstarted_newcomers_table_are_still_on_probation():
    seating = ArrivalSeating(3, settle=0, probation=1.0)
    played_once(seating, "abc", 0.0)
    (newcomers,) = [t for name in ["n", "g1", "g2"] for t in seating.ready(name, 0.1)]
    seating.gone("g1", 0.12)  # left before the table started
    assert seating.unstarted(newcomers, ["n", "g2"], 0.15) == []
    assert seating.ready("a", 0.2) == [] and seating.ready("b", 0.2) == []
    assert list(seating.waiting) == ["n", "g2", "a", "b"]  # n is not seated with a and b
    (regulars,) = seating.ready("c", 0.2)
    assert sorted(regulars.sessions) == ["a", "b", "c"]


def test_a_lone_newcomer_sits_with_regulars_when_its_probation_ends():
    seating = ArrivalSeating(3, settle=0.05, probation=1.0)
    played_once(seating, "abc", 0.0)
    seating.gone("c", 1.0)
    assert seating.next_deadline() is None
    assert seating.ready("a", 2.0) + seating.ready("b", 2.0) + seating.ready("new", 2.0) == []
    assert seating.next_deadline() == 2.05  # settling
    assert seating.expire(2.05) == []
    assert seating.next_deadline() == 3.0  # its probation
    assert seating.expire(2.99) == []
    (table,) = seating.expire(3.0)
    assert sorted(table.sessions) == ["a", "b", "new"]
    assert seating.next_deadline() is None
    assert seating.game_over(table, 3.5) == []  # now all regulars: no wait at all
    (again,) = [t for name in ["new", "a", "b"] for t in seating.ready(name, 3.5)]
    assert sorted(again.sessions) == ["a", "b", "new"]


def test_a_regular_that_left_is_forgotten_and_comes_back_a_newcomer():
    seating = ArrivalSeating(2, settle=0, probation=1.0)
    played_once(seating, "ab", 0.0)
    seating.gone("a", 0.1)
    assert seating.regulars == {"b"}
    assert seating.ready("b", 0.2) + seating.ready("a", 0.2) == []  # a new connection
    (table,) = seating.expire(1.2)
    assert sorted(table.sessions) == ["a", "b"]


def test_a_token_that_is_no_text_utf_8_can_hold_is_refused_not_a_crash():
    """A hello's JSON may hold a lone surrogate ("\\ud800"); comparing it with a registered
    token raised UnicodeEncodeError (a traceback per connection, no refusal) under --tokens."""
    seating = ArrivalSeating(2, {"alice": "a" * 24}, settle=0)
    assert seating.admit("s1", "alice", "\ud800").refusal is ErrorCode.BAD_TOKEN
