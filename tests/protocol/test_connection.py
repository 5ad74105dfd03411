"""The server-side connection state machine, read like transcripts."""

from __future__ import annotations

import pytest

from protocol.connection import ENDED, NEED_DATA, LocalProtocolError, ServerConnection, State
from protocol.errors import ErrorCode, PeerError
from protocol.limits import MAX_CONSECUTIVE_ERRORS
from protocol.messages import Action, Bye, Error, Event, Hello, Request, Welcome

WELCOME = Welcome(protocol=1, server="arena", game="chochlik", players=3, limits={})


def connected() -> ServerConnection:
    conn = ServerConnection(game="chochlik")
    conn.send(WELCOME)
    return conn


def feed(conn: ServerConnection, *lines: str) -> list:
    conn.receive_data("".join(line + "\n" for line in lines).encode())
    events = []
    while (event := conn.next_event()) is not NEED_DATA and event is not ENDED:
        events.append(event)
    return events


def test_greeting_then_hello_then_actions_then_bye():
    conn = connected()
    assert conn.state is State.AWAIT_HELLO
    assert feed(conn, '{"type":"hello","name":"bot"}') == [Hello("bot")]
    assert conn.state is State.READY
    conn.send(Request(id=1, legal=["play 1"], time_left_ms=10, observation={}))
    assert feed(conn, '{"type":"action","id":1,"action":"play 1"}') == [Action(1, "play 1")]
    assert feed(conn, '{"type":"bye"}') == [Bye()]
    assert conn.state is State.CLOSED
    assert conn.next_event() is ENDED


def test_action_before_hello_and_a_second_hello_are_unexpected():
    conn = connected()
    (error,) = feed(conn, '{"type":"action","id":1,"action":"x"}')
    assert error.code is ErrorCode.UNEXPECTED_MESSAGE and not error.fatal
    assert conn.state is State.AWAIT_HELLO
    feed(conn, '{"type":"hello","name":"bot"}')
    (error,) = feed(conn, '{"type":"hello","name":"bot"}')
    assert error.code is ErrorCode.UNEXPECTED_MESSAGE and conn.state is State.READY


@pytest.mark.parametrize("hello,code,fatal", [
    ('{"type":"hello","name":"bot","protocol":2}', ErrorCode.VERSION_MISMATCH, True),
    ('{"type":"hello","name":"bot","game":"wypas"}', ErrorCode.WRONG_GAME, True),
    ('{"type":"hello","name":"   "}', ErrorCode.BAD_HELLO, False),
    ('{"type":"hello","name":"' + "n" * 41 + '"}', ErrorCode.BAD_HELLO, False),
    ('{"type":"hello","name":"a\\u0007b"}', ErrorCode.BAD_HELLO, False),
    ('{"type":"hello","name":"a","token":""}', ErrorCode.BAD_HELLO, False),
])
def test_bad_hellos(hello, code, fatal):
    conn = connected()
    (error,) = feed(conn, hello)
    assert error.code is code and error.fatal is fatal
    assert conn.state is (State.CLOSED if fatal else State.AWAIT_HELLO)


def test_too_many_bad_lines_in_a_row_close_the_connection_and_a_good_line_resets_the_count():
    conn = connected()
    feed(conn, '{"type":"hello","name":"bot"}')
    errors = feed(conn, *["junk"] * (MAX_CONSECUTIVE_ERRORS - 1), '{"type":"bye","reason":"x"}')
    assert len(errors) == MAX_CONSECUTIVE_ERRORS  # the bye still went through
    conn = connected()
    errors = feed(conn, *["junk"] * (MAX_CONSECUTIVE_ERRORS + 5))
    assert [e.fatal for e in errors] == [False] * (MAX_CONSECUTIVE_ERRORS - 1) + [True]
    assert errors[-1].code is ErrorCode.TOO_MANY_ERRORS and conn.state is State.CLOSED


def test_a_too_long_line_is_an_error_and_the_connection_goes_on():
    conn = ServerConnection(game="chochlik", max_line=100)
    conn.send(WELCOME)
    events = feed(conn, "x" * 500, '{"type":"hello","name":"bot"}')
    assert isinstance(events[0], PeerError) and events[0].code is ErrorCode.LINE_TOO_LONG
    assert events[1] == Hello("bot")


def test_end_of_stream_ends_the_connection_dropping_a_partial_line():
    conn = connected()
    conn.receive_data(b'{"type":"hello","na')
    assert conn.next_event() is NEED_DATA
    conn.receive_data(b"")
    assert conn.next_event() is ENDED and conn.state is State.CLOSED


def test_the_server_may_not_send_out_of_turn():
    conn = ServerConnection(game="chochlik")
    with pytest.raises(LocalProtocolError):
        conn.send(Event(kind="x", data={}))
    conn.send(WELCOME)
    with pytest.raises(LocalProtocolError):
        conn.send(WELCOME)
    with pytest.raises(LocalProtocolError):
        conn.send(Request(id=1, legal=[], time_left_ms=0, observation={}))  # before hello
    conn.send(Error(code="malformed", message="x"))
    conn.send(Bye(reason="server_shutdown"))
    assert conn.state is State.CLOSED


def ready_connection() -> ServerConnection:
    conn = ServerConnection(game="chochlik")
    conn.send(Welcome(protocol=1, server="arena", game="chochlik", players=3, limits={}))
    conn.receive_data(b'{"type":"hello","name":"bot"}\n')
    assert isinstance(conn.next_event(), Hello)
    return conn


def test_the_connection_numbers_its_requests_and_answers_closed_ones():
    conn = ready_connection()
    assert [conn.requests.next_id(), conn.requests.next_id()] == [1, 2]
    stale = conn.notice_for_closed(1)
    assert (stale.code, stale.id) == ("stale_request", 1)
    never = conn.notice_for_closed(3)
    assert (never.code, never.id) == ("wrong_request_id", None)


def test_only_the_first_answer_to_the_newest_request_is_spared_the_rate_limit():
    conn = ready_connection()
    conn.requests.next_id()
    assert not conn.first_answer(Action(id=0, action="x"))
    assert conn.first_answer(Action(id=1, action="x"))
    assert not conn.first_answer(Action(id=1, action="x"))  # a second answer is rationed


def test_a_new_connection_resumes_the_numbering_of_the_lost_one():
    old = ready_connection()
    old.requests.next_id()
    assert old.first_answer(Action(id=1, action="x"))
    new = ready_connection()
    new.resume(old)
    assert new.requests.next_id() == 2
    assert not new.first_answer(Action(id=1, action="x"))
    assert new.notice_for_closed(1).code == "stale_request"


def test_offer_sends_nothing_a_closing_connection_may_not_send():
    conn = ready_connection()
    conn.close()
    assert conn.offer(Welcome(protocol=1, server="arena", game="chochlik", players=3,
                              limits={})) is None
    bye = conn.offer(Bye(reason="server_shutdown"))
    assert bye == b'{"type":"bye","reason":"server_shutdown"}\n'


def several() -> ServerConnection:
    """The connection of a server that hosts two games (its welcome lists them)."""
    conn = ServerConnection(games=("chochlik", "wypas"))
    conn.send(Welcome(protocol=1, server="arena", game=None, players=None, limits={},
                      games=["chochlik", "wypas"]))
    return conn


def test_at_a_server_of_several_games_a_hello_without_a_game_gets_one_clear_error():
    conn = several()
    (error,) = feed(conn, '{"type":"hello","name":"bot"}')
    assert error.code is ErrorCode.GAME_REQUIRED and error.fatal
    assert "'chochlik', 'wypas'" in error.detail and conn.state is State.CLOSED


def test_at_a_server_of_several_games_a_hello_names_one_of_them():
    conn = several()
    assert feed(conn, '{"type":"hello","name":"bot","game":"wypas"}') == [
        Hello("bot", game="wypas")]
    conn = several()
    (error,) = feed(conn, '{"type":"hello","name":"bot","game":"vollewolle"}')
    assert error.code is ErrorCode.WRONG_GAME and error.fatal
    assert "'chochlik', 'wypas'" in error.detail


def test_a_connection_greeted_by_the_front_door_awaits_its_hello_without_a_welcome():
    conn = ServerConnection(game="wypas")
    conn.greeted()
    assert conn.state is State.AWAIT_HELLO
    assert feed(conn, '{"type":"hello","name":"bot","game":"wypas"}') == [
        Hello("bot", game="wypas")]


def test_the_line_buffer_hands_over_what_it_holds():
    conn = several()
    conn.receive_data(b'{"type":"hello","name":"bot","game":"wypas"}\n{"type":"bye"}\n{"ty')
    assert conn.next_event() == Hello("bot", game="wypas")
    assert conn.hand_over() == (b'{"type":"hello","name":"bot","game":"wypas"}\n'
                                b'{"type":"bye"}\n{"ty')
