"""The match driver, pure: requests, tries, timeouts, defaults, disconnects, the log."""

from __future__ import annotations

import random

import attrs
import pytest

from arena.gameplay.driver import MatchDriver
from arena.games import get_game
from protocol.messages import Cancel, Error, Event, GameEnd, GameStart, Request

SPEC = get_game("chochlik")
TIMEOUT = 5.0


def driver(seed: str = "m", hands: int = 1, players: int = 3) -> MatchDriver:
    options = SPEC.parse_options({"hands": hands, "players": players})
    return MatchDriver(SPEC, options, seed, [f"bot{i}" for i in range(players)], game_id="g",
                       table=1, move_timeout=TIMEOUT)


def by_seat(out, kind):
    return {o.seat: o.message for o in out if isinstance(o.message, kind)}


def only(out, seat, kind):
    found = [o.message for o in out if o.seat == seat and isinstance(o.message, kind)]
    assert len(found) == 1, found
    return found[0]


def test_start_sends_game_start_and_asks_every_seat_at_once():
    d = driver()
    out = d.start(0.0)
    starts = by_seat(out, GameStart)
    assert sorted(starts) == [0, 1, 2]
    assert starts[1].seat == 1 and starts[1].names == ["bot0", "bot1", "bot2"]
    assert starts[1].info["cards"][0] == {"card": 1, "colour": "yellow", "coins": 1}
    assert "seed" not in attrs.fields_dict(GameStart)  # the seed would give the deal away
    requests = by_seat(out, Request)
    assert sorted(requests) == [0, 1, 2]  # passing is simultaneous
    assert {r.id for r in requests.values()} == {1}  # each connection counts its own requests
    for seat, request in requests.items():
        assert request.time_left_ms == 5000
        assert request.legal == [f"imp {c}" for c in request.observation.hand]
        assert request.observation.seat == seat


def test_private_events_go_only_to_their_seat():
    d = driver()
    out = d.start(0.0)
    dealt = [(o.seat, o.message.data["seat"]) for o in out
             if isinstance(o.message, Event) and o.message.kind == "dealt"]
    assert sorted(dealt) == [(0, 0), (1, 1), (2, 2)]


def test_a_legal_answer_is_applied_and_the_next_decision_asked():
    d = driver()
    first = by_seat(d.start(0.0), Request)[0]
    out = d.answer(0, first.id, first.legal[0], 0.25)
    follow = only(out, 0, Request)
    assert follow.legal[0].startswith("left ")
    assert d.open[0].id == follow.id
    actions = [r for r in d.log.records if r["type"] == "action"]
    assert actions[-1] == {"type": "action", "seat": 0, "action": first.legal[0],
                           "id": first.id, "ms": 250, "by": "bot"}


def test_illegal_answers_cost_tries_then_the_server_plays_a_default():
    d = driver()
    request = by_seat(d.start(0.0), Request)[0]
    for tries_left in (2, 1):
        out = d.answer(0, request.id, "play 99", 1.0)
        error = only(out, 0, Error)
        assert error.code == "illegal_action" and error.tries_left == tries_left
        assert error.legal == request.legal and error.id == request.id
        assert error.time_left_ms == 4000
    out = d.answer(0, request.id, "imp 99", 1.5)
    cancel = only(out, 0, Cancel)
    assert cancel.id == request.id and cancel.reason == "too_many_tries"
    assert cancel.played in request.legal
    assert only(out, 0, Request).legal[0].startswith("left ")  # the game goes on
    last = [r for r in d.log.records if r["type"] == "action"][-1]
    assert last["by"] == "default" and last["reason"] == "too_many_tries"
    assert d.stats[0].defaults == {"too_many_tries": 1} and d.stats[0].errors == 3


def test_a_wrong_request_id_is_an_error_that_costs_a_try():
    d = driver()
    request = by_seat(d.start(0.0), Request)[0]
    out = d.answer(0, request.id + 1, request.legal[0], 1.0)  # never sent to seat 0
    error = only(out, 0, Error)
    assert error.code == "wrong_request_id" and error.tries_left == 2
    assert error.id == request.id  # the error counts against the open request
    for never_sent in (0, -1, 99999):
        assert only(d.answer(0, never_sent, "imp 1", 1.0), 0, Error).code == "wrong_request_id"


def test_a_bad_line_read_before_a_request_was_sent_never_costs_that_request_a_try():
    from protocol.errors import ErrorCode, PeerError

    d = driver()
    request = by_seat(d.start(0.0), Request)[0]
    bad = PeerError(ErrorCode.MALFORMED, "not JSON")
    out = d.bad_input(0, bad, 0.5, newest_sent=request.id - 1)  # read before request 1
    error = only(out, 0, Error)
    assert error.id is None and error.tries_left is None and d.open[0].tries_left == 3
    out = d.bad_input(0, bad, 0.6, newest_sent=request.id)  # read after it was sent
    assert only(out, 0, Error).tries_left == 2


def test_timeout_plays_a_default_and_a_late_answer_is_ignored_as_stale():
    d = driver()
    request = by_seat(d.start(0.0), Request)[0]
    assert d.next_deadline() == pytest.approx(TIMEOUT)
    assert d.expire(4.9) == []
    out = d.expire(5.0)
    cancels = by_seat(out, Cancel)
    assert {c.reason for c in cancels.values()} == {"timeout"}
    assert cancels[0].played in request.legal
    out = d.answer(0, request.id, request.legal[0], 5.1)
    error = only(out, 0, Error)
    assert error.code == "stale_request" and error.tries_left is None
    assert d.stats[0].errors == 0  # a late answer is not the bot's fault
    actions = [r for r in d.log.records if r["type"] == "action"]
    assert all(a["by"] == "default" and a["reason"] == "timeout" for a in actions)
    assert not any(a["action"] == request.legal[0] and a["by"] == "bot" for a in actions)


def test_bad_input_costs_a_try_only_when_a_request_is_open():
    from protocol.errors import ErrorCode, PeerError

    d = driver()
    d.start(0.0)
    out = d.bad_input(1, PeerError(ErrorCode.MALFORMED, "not JSON"), 0.5)
    assert only(out, 1, Error).tries_left == 2
    # during tricks only one seat is asked: the others have no open request
    d2 = driver()
    d2.start(0.0)
    while d2.state.phase.value == "pass":
        seat, request = min(d2.open.items())
        d2.answer(seat, request.id, request.legal[0], 0.1)
    idle = next(seat for seat in range(3) if seat not in d2.open)
    error = only(d2.bad_input(idle, PeerError(ErrorCode.MALFORMED, "x"), 0.5), idle, Error)
    assert error.tries_left is None and error.id is None


def test_a_disconnected_seat_is_played_by_the_default_policy_to_the_end():
    d = driver(hands=2)
    requests = by_seat(d.start(0.0), Request)
    d.disconnect(2, 0.1)
    rng = random.Random(4)
    while not d.finished:
        for seat, request in list(d.open.items()):
            assert seat != 2
            out = d.answer(seat, request.id, rng.choice(request.legal), 0.2)
            assert not any(o.seat == 2 and isinstance(o.message, Request) for o in out)
    assert d.result.rounds == 2
    assert sum(d.stats[2].defaults.values()) > 0 and "disconnected" in d.stats[2].defaults
    assert requests[2].id not in [r["id"] for r in d.log.records
                                  if r["type"] == "action" and r["by"] == "bot" and r["seat"] == 2]


def test_when_everyone_is_gone_the_game_ends_early_and_is_logged_as_such():
    """No whole game of defaults for ghosts (a client that connects, says hello and leaves,
    again and again, made the server play thousands)."""
    d = driver(hands=3)
    d.start(0.0)
    for seat in range(2):
        d.disconnect(seat, 1.0)
    assert not d.finished  # one bot is still there: it plays on against the defaults
    out = d.disconnect(2, 1.0)
    assert d.finished and d.aborted == "all_seats_gone"
    end = only(out, 0, GameEnd)
    assert end.aborted == "all_seats_gone" and end.scores == []
    assert d.log.records[-1] == {"type": "aborted", "reason": "all_seats_gone"}


def test_a_game_whose_seats_are_all_gone_before_it_starts_never_starts():
    d = driver()
    for seat in range(3):
        d.disconnect(seat, 0.0)
    assert d.finished and d.start(0.0) == []


def test_defaults_are_deterministic_for_a_seed():
    def everyone_silent(seed):
        d = driver(seed)
        d.start(0.0)
        now = 0.0
        while not d.finished:
            now = d.next_deadline()
            d.expire(now)
        return [r["action"] for r in d.log.records if r["type"] == "action"]

    assert everyone_silent("a") == everyone_silent("a")
    assert everyone_silent("a") != everyone_silent("b")


def test_game_end_reaches_every_seat_with_the_result_and_reveal():
    d = driver()
    d.start(0.0)
    rng = random.Random(1)
    out = []
    while not d.finished:
        seat, request = next(iter(d.open.items()))
        out = d.answer(seat, request.id, rng.choice(request.legal), 0.0)
    ends = by_seat(out, GameEnd)
    assert sorted(ends) == [0, 1, 2]
    assert ends[0].scores == list(d.result.scores)
    assert len(ends[0].reveal["imp_piles"][0]) == 3
    assert d.log.records[-1]["type"] == "result"
    assert d.answer(0, 1, "play 1", 0.0)[0].message.code == "stale_request"
    assert d.answer(0, 12345, "play 1", 0.0)[0].message.code == "wrong_request_id"


def test_a_flood_of_late_answers_is_answered_but_logged_only_up_to_a_cap():
    from arena.gameplay.driver import MAX_LOGGED_ERRORS

    d = driver()
    request = by_seat(d.start(0.0), Request)[0]
    d.answer(0, request.id, request.legal[0], 0.1)
    for _ in range(MAX_LOGGED_ERRORS + 50):
        assert only(d.answer(0, request.id, request.legal[0], 0.2), 0, Error).code == \
            "stale_request"
    d.abort("server_shutdown", 1.0)
    errors = [r for r in d.log.records if r["type"] == "error" and r["seat"] == 0]
    assert len(errors) == MAX_LOGGED_ERRORS
    assert {"type": "note", "seat": 0, "what": "50 more errors, not logged"} in d.log.records


def test_a_huge_illegal_answer_is_quoted_back_short():
    d = driver()
    request = by_seat(d.start(0.0), Request)[0]
    error = only(d.answer(0, request.id, "\x7f" * 60000, 0.1), 0, Error)
    assert len(error.message) < 200 and error.code == "illegal_action"


def test_abort_cancels_open_requests_and_logs_it():
    d = driver()
    d.start(0.0)
    out = d.abort("server_shutdown", 1.0)
    assert {c.reason for c in by_seat(out, Cancel).values()} == {"server_shutdown"}
    ends = by_seat(out, GameEnd)
    assert ends[0].aborted == "server_shutdown"
    assert d.log.records[-1] == {"type": "aborted", "reason": "server_shutdown"}
    assert d.finished and d.open == {}


def test_a_reaction_window_gets_the_reaction_time_limit_and_other_decisions_the_move_limit(
        monkeypatch):
    options = SPEC.parse_options({"hands": 1, "players": 3})
    state = SPEC.new_state(options, "r", record_events=True)
    monkeypatch.setattr(state, "is_reaction", lambda seat: seat == 0)  # seat 0 reacts
    d = MatchDriver(SPEC, options, "r", ["a", "b", "c"], game_id="g", table=1,
                    move_timeout=TIMEOUT, reaction_timeout=1.0, state=state)
    requests = by_seat(d.start(10.0), Request)
    assert requests[0].time_left_ms == 1000
    assert requests[1].time_left_ms == requests[2].time_left_ms == 5000
    assert d.open[0].deadline == pytest.approx(11.0)
    assert d.open[1].deadline == d.open[2].deadline == pytest.approx(15.0)
    assert d.next_deadline() == pytest.approx(11.0)
    error = only(d.answer(0, requests[0].id, "imp 99", 10.25), 0, Error)
    assert error.time_left_ms == 750  # counted from the reaction deadline
    out = d.expire(11.0)  # only the reaction window has run out
    assert list(by_seat(out, Cancel)) == [0] and by_seat(out, Cancel)[0].reason == "timeout"
    assert 1 in d.open and 2 in d.open
    assert d.log.header["move_timeout_ms"] == 5000
    assert d.log.header["reaction_timeout_ms"] == 1000


def test_without_a_reaction_timeout_a_reaction_window_gets_the_move_timeout(monkeypatch):
    options = SPEC.parse_options({"hands": 1, "players": 3})
    state = SPEC.new_state(options, "r", record_events=True)
    monkeypatch.setattr(state, "is_reaction", lambda seat: True)
    d = MatchDriver(SPEC, options, "r", ["a", "b", "c"], game_id="g", table=1,
                    move_timeout=TIMEOUT, state=state)
    assert {r.time_left_ms for r in by_seat(d.start(0.0), Request).values()} == {5000}
    assert d.log.header["reaction_timeout_ms"] == 5000


# -- clocks: the time bank, and which limit a timeout names --

def banked(bank: float) -> MatchDriver:
    options = SPEC.parse_options({"hands": 1, "players": 3})
    return MatchDriver(SPEC, options, "m", ["a", "b", "c"], game_id="g", table=1,
                       move_timeout=TIMEOUT, time_bank=bank)


def test_time_over_the_limit_is_taken_from_the_bank_and_logged():
    d = banked(10.0)
    first = by_seat(d.start(0.0), Request)[0]
    assert (first.time_left_ms, first.time_bank_ms) == (15000, 10000)
    follow = only(d.answer(0, first.id, first.legal[0], 7.5), 0, Request)  # 2.5 s over
    assert (follow.time_left_ms, follow.time_bank_ms) == (12500, 7500)
    action = [r for r in d.log.records if r["type"] == "action"][-1]
    assert (action["ms"], action["bank_ms"]) == (7500, 7500)
    assert d.log.header["time_bank_ms"] == 10000


def test_a_timeout_names_the_limit_that_ran_out():
    d = banked(2.0)
    d.start(0.0)
    assert d.next_deadline() == 7.0  # the move limit, then the bank
    out = d.expire(6.9)
    assert out == []
    cancels = by_seat(d.expire(7.0), Cancel)
    assert {c.limit for c in cancels.values()} == {"time_bank"}
    assert d.bank == [0.0, 0.0, 0.0]
    follow = d.open[0]
    assert follow.deadline - follow.issued_at == TIMEOUT  # nothing left in the bank
    plain = driver()
    plain.start(0.0)
    assert {c.limit for c in by_seat(plain.expire(TIMEOUT), Cancel).values()} == {"move_timeout"}
    timed_out = [r for r in plain.log.records if r.get("reason") == "timeout"]
    assert timed_out and all(r["limit"] == "move_timeout" for r in timed_out)


def test_without_a_bank_requests_say_nothing_of_one():
    first = by_seat(driver().start(0.0), Request)[0]
    assert first.time_bank_ms is None and first.time_left_ms == 5000


# -- reconnection: the seat's bot comes back --

def test_a_returning_bot_gets_the_game_its_observation_and_its_open_request():
    d = driver()
    first = by_seat(d.start(0.0), Request)[1]
    d.connection_lost(1)
    out = d.resync(1, 2.0)
    assert [o.seat for o in out] == [1, 1]
    start, request = out[0].message, out[1].message
    assert isinstance(start, GameStart) and start.resumed and start.seat == 1
    assert start.observation == first.observation
    assert isinstance(request, Request) and request.id == first.id
    assert request.legal == first.legal and request.time_left_ms == 3000  # the clock ran on
    assert [r["what"] for r in d.log.records if r["type"] == "note"] == [
        "connection lost", "reconnected"]
    # the answer to the re-sent request is taken as any other
    assert not any(isinstance(o.message, Error)
                   for o in d.answer(1, request.id, request.legal[0], 2.5))


def test_a_returning_bot_with_nothing_to_answer_gets_its_observation_only():
    d = driver()
    requests = by_seat(d.start(0.0), Request)
    d.answer(0, requests[0].id, requests[0].legal[0], 0.1)
    out = d.resync(0, 0.2)
    # seat 0 has a new request (left/right choice) open
    assert isinstance(out[1].message, Request) and out[1].message.id == d.open[0].id
    finished = driver()
    finished.start(0.0)
    finished.abort("server_shutdown", 1.0)
    assert finished.resync(0, 1.0) == []


# -- the audit trail --

def test_every_request_is_logged_as_sent_with_a_digest_of_its_observation():
    from arena.gameplay.driver import observation_digest

    d = driver()
    sent = by_seat(d.start(0.0), Request)
    logged = {r["seat"]: r for r in d.log.records if r["type"] == "request"}
    for seat, request in sent.items():
        assert logged[seat] == {"type": "request", "seat": seat, "id": request.id,
                                "legal": request.legal,
                                "observation": observation_digest(request.observation)}
    assert observation_digest(sent[0].observation) != observation_digest(sent[1].observation)


def test_a_request_held_back_has_no_deadline_and_its_clock_starts_when_sent():
    """Fair time (``arena serve --hosted``): the edge holds a hosted bot's request until a core
    is free; it never times out while held, and gets its whole limit from when it is sent."""
    d = driver()
    out = d.start(0.0)
    held = by_seat(out, Request)[1]
    d.hold(1, held.id)
    d.hold(1, held.id + 7)  # another id: not that seat's open request, nothing happens
    assert d.is_open(1, held.id) and not d.is_open(1, held.id + 7)
    expired = d.expire(TIMEOUT + 100.0)  # the others time out; seat 1's clock stands still
    assert sorted(by_seat(expired, Cancel)) == [0, 2]
    assert d.is_open(1, held.id)
    d.sent(1, held.id, 200.0)
    assert 1 not in by_seat(d.expire(200.0 + TIMEOUT - 0.1), Cancel)
    assert by_seat(d.expire(200.0 + TIMEOUT), Cancel)[1].id == held.id
    assert not d.is_open(1, held.id)
