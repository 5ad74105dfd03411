"""The codec, table-driven both ways: each message and its line."""

from __future__ import annotations

import json
import math
import os

import attrs
import pytest

from protocol.codec import decode_client, decode_server, encode
from protocol.errors import ErrorCode, PeerError
from protocol.limits import MAX_LINE_BYTES
from protocol.messages import (
    Action,
    Bye,
    Cancel,
    Error,
    Event,
    GameEnd,
    GameStart,
    Hello,
    Request,
    Welcome,
)

CLIENT_CASES = [
    (Hello(name="bob"), '{"type":"hello","name":"bob"}'),
    (Hello(name="Żółw", token="t-1", protocol=1, game="chochlik"),
     '{"type":"hello","name":"Żółw","token":"t-1","protocol":1,"game":"chochlik"}'),
    (Action(id=7, action="play 17"), '{"type":"action","id":7,"action":"play 17"}'),
    (Bye(), '{"type":"bye"}'),
]

SERVER_CASES = [
    (Welcome(protocol=1, server="arena", game="chochlik", players=3,
             limits={"max_line_bytes": 65536}),
     '{"type":"welcome","protocol":1,"server":"arena","game":"chochlik","players":3,'
     '"limits":{"max_line_bytes":65536}}'),
    (Welcome(protocol=1, server="arena", game=None, players=None, limits={},
             games=["chochlik", "wypas"]),
     '{"type":"welcome","protocol":1,"server":"arena","limits":{},"games":["chochlik","wypas"]}'),
    (GameStart(game_id="g1", table=1, game="chochlik", seat=2, names=["a", "b", "c"],
               options={"players": 3}, info={}),
     '{"type":"game_start","game_id":"g1","table":1,"game":"chochlik","seat":2,'
     '"names":["a","b","c"],"options":{"players":3},"info":{}}'),
    (Request(id=3, legal=["play 1", "play 2"], time_left_ms=5000, observation={"hand": [1, 2]}),
     '{"type":"request","id":3,"legal":["play 1","play 2"],"time_left_ms":5000,'
     '"observation":{"hand":[1,2]}}'),
    (Cancel(id=3, reason="timeout", played="play 2"),
     '{"type":"cancel","id":3,"reason":"timeout","played":"play 2"}'),
    (Cancel(id=4, reason="superseded"), '{"type":"cancel","id":4,"reason":"superseded"}'),
    (Event(kind="card_played", data={"seat": 1, "card": 17}),
     '{"type":"event","kind":"card_played","data":{"seat":1,"card":17}}'),
    (GameEnd(game_id="g1", scores=[3, -1, 9], ranks=[2, 3, 1], winners=[2], reveal={}),
     '{"type":"game_end","game_id":"g1","scores":[3,-1,9],"ranks":[2,3,1],"winners":[2],'
     '"reveal":{}}'),
    (Error(code="illegal_action", message="no", id=3, legal=["play 1"], tries_left=2,
           time_left_ms=4000),
     '{"type":"error","code":"illegal_action","message":"no","fatal":false,"id":3,'
     '"legal":["play 1"],"tries_left":2,"time_left_ms":4000}'),
    (Bye(reason="server_shutdown"), '{"type":"bye","reason":"server_shutdown"}'),
]


@pytest.mark.parametrize("message,line", CLIENT_CASES)
def test_client_messages_both_ways(message, line):
    assert encode(message) == (line + "\n").encode()
    assert decode_client(line.encode()) == message


@pytest.mark.parametrize("message,line", SERVER_CASES)
def test_server_messages_both_ways(message, line):
    assert encode(message) == (line + "\n").encode()
    assert decode_server(line.encode()) == message


def test_null_fields_may_be_sent_or_left_out_and_unknown_fields_are_ignored():
    assert decode_client(b'{"type":"hello","name":"a","token":null,"colour":"red"}') == Hello("a")


def test_nested_attrs_values_tuples_and_sets_become_json():
    @attrs.frozen
    class Obs:
        hand: tuple[int, ...]
        seen: frozenset[int]

    observation = Obs((3, 1), frozenset({5, 2}))
    line = encode(Request(id=1, legal=["x"], time_left_ms=1, observation=observation))
    assert json.loads(line)["observation"] == {"hand": [3, 1], "seen": [2, 5]}


def test_an_attrs_value_without_slots_is_written_by_its_fields_whatever_its_dict_holds():
    @attrs.frozen(slots=False)
    class Obs:
        a: int
        b: str

    plain, built_backwards, with_extra = Obs(1, "x"), object.__new__(Obs), Obs(2, "y")
    built_backwards.__dict__.update({"b": "z", "a": 3})  # as a fast observe might build it
    object.__setattr__(with_extra, "cached", [9])  # a cached attribute is not a field
    assert [json.loads(encode(Request(id=1, legal=["x"], time_left_ms=1, observation=o)))
            ["observation"] for o in (plain, built_backwards, with_extra)] == [
        {"a": 1, "b": "x"}, {"a": 3, "b": "z"}, {"a": 2, "b": "y"}]
    assert b'"observation":{"a":3,"b":"z"}' in encode(
        Request(id=1, legal=["x"], time_left_ms=1, observation=built_backwards))


BAD_LINES = [
    (b"not json", ErrorCode.MALFORMED),
    (b"\xff\xfe", ErrorCode.MALFORMED),
    (b"[1,2]", ErrorCode.MALFORMED),
    (b'{"name":"x"}', ErrorCode.MALFORMED),
    (b'{"type":5}', ErrorCode.MALFORMED),
    (b'{"type":"dance"}', ErrorCode.UNKNOWN_MESSAGE),
    (b'{"type":"action","id":"7","action":"play 1"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":true,"action":"play 1"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":1.5,"action":"play 1"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":9007199254740992,"action":"play 1"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":-9007199254740992,"action":"play 1"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":' + b"9" * 4000 + b',"action":"play 1"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":NaN,"action":"play 1"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":1,"action":"play 1","x":Infinity}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":1,"action":"play 1","action":"play 2"}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":7}', ErrorCode.MALFORMED),
    (b'{"type":"action","id":7,"action":["play 1"]}', ErrorCode.MALFORMED),
    (b'{"type":"hello"}', ErrorCode.MALFORMED),
    (b'{"type":"hello","name":"a","protocol":"1"}', ErrorCode.MALFORMED),
    (b"[" * 100_000, ErrorCode.MALFORMED),
]


@pytest.mark.parametrize("line,code", BAD_LINES)
def test_bad_lines_become_peer_errors_with_a_code(line, code):
    error = decode_client(line)
    assert isinstance(error, PeerError) and error.code is code and error.detail
    assert len(error.detail) < 300  # never the bad value quoted back at length


def test_any_id_in_range_is_well_formed_even_negative_or_zero():
    # an id that was never sent is wrong_request_id (decided by the table), not malformed
    for request_id in (-1, 0, 2**53 - 1, -(2**53 - 1)):
        line = b'{"type":"action","id":%d,"action":"x"}' % request_id
        assert decode_client(line) == Action(id=request_id, action="x")


def test_the_server_never_writes_a_line_over_the_limit():
    with pytest.raises(ValueError, match="exceeds the line limit"):
        encode(Event(kind="x", data={"blob": "a" * MAX_LINE_BYTES}))


@pytest.mark.parametrize("message,line", SERVER_CASES)
def test_fields_encoded_beforehand_give_the_same_line(message, line):
    from protocol.codec import to_json
    for name in attrs.fields_dict(type(message)):
        value = getattr(message, name)
        if value is not None:
            assert encode(message, {name: to_json(value)}) == (line + "\n").encode()


def test_a_field_encoded_beforehand_is_used_as_given():
    # proof that the given text is what goes out (not a second encoding of the value)
    message = Event(kind="x", data={"a": 1})
    assert encode(message, {"data": '{"b":2}'}) == b'{"type":"event","kind":"x","data":{"b":2}}\n'


def test_json_text_is_what_the_standard_encoder_writes():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from protocol.codec import to_json

    # floats below 1e-4 are the one place where orjson writes other text (the same number):
    # the next test
    floats = st.floats(allow_nan=False, allow_infinity=False).filter(
        lambda f: f == 0 or abs(f) >= 1e-4)
    values = st.recursive(
        st.none() | st.booleans() | st.integers() | floats | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=30)

    # CI draws the same examples every run (tests/conftest.py): 100 of them there; a
    # developer's runs draw 300 new ones each time
    examples = 100 if os.environ.get("CI", "").lower() == "true" else 300

    @settings(max_examples=examples, deadline=None)
    @given(values)
    def same(value):
        assert to_json(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    same()


def test_floats_are_the_same_numbers_and_never_invalid_json():
    from protocol.codec import to_json
    text = to_json([0.5, 2.0, 1e-05, 123.25, 1.5e-7, 1e300])
    assert text.startswith("[0.5,2.0,") and text.endswith(",123.25,1.5e-7,1e+300]")
    assert json.loads(text) == [0.5, 2.0, 1e-05, 123.25, 1.5e-7, 1e300]
    # NaN and infinities are not JSON: null (the standard encoder would write NaN, Infinity,
    # which strict readers, arena's own among them, refuse)
    assert to_json([math.nan, math.inf, -math.inf]) == "[null,null,null]"


def test_what_orjson_refuses_is_written_the_standard_way():
    from protocol.codec import to_json
    big = 2**70
    assert to_json({"n": big, "m": [-big]}) == f'{{"n":{big},"m":[-{big}]}}'
    assert to_json({1: "a", None: 2}) == '{"1":"a","null":2}'  # keys that are not strings
    assert to_json({"s": frozenset({3, 1})}) == '{"s":[1,3]}'
    lone = "a\ud800"  # a lone surrogate (a bot's "\\ud800" decodes to one): as before
    assert to_json([lone]) == json.dumps([lone], ensure_ascii=False, separators=(",", ":"))


def test_the_short_cut_for_scalars_writes_the_same_text():
    from protocol.codec import to_json, to_json_value

    for value in ("plain", "Żółw \"quoted\" \\ \n\t\x00", 0, -7, 2**60, None, True, False,
                  1.5, [1, "a"], {"k": [None]}):
        assert to_json_value(value) == to_json(value)


def test_plain_answers_read_the_short_way_decode_as_the_general_way_does():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from protocol.codec import _decode
    from protocol.messages import CLIENT_MESSAGES

    tokens = st.text(st.characters(min_codepoint=1, max_codepoint=0x24F), max_size=12)
    ids = st.integers(-(2**54), 2**54)

    @settings(max_examples=400, deadline=None)
    @given(ids, tokens, st.sampled_from(["", " ", "\r", "\t", "\x0c"]))
    def same(request_id, token, tail):
        line = (json.dumps({"type": "action", "id": request_id, "action": token},
                           separators=(",", ":"), ensure_ascii=False) + tail).encode()
        assert decode_client(line) == _decode(line, CLIENT_MESSAGES)

    same()
    for line in (b'{"type":"action","id":01,"action":"x"}',
                 b'{"type":"action","id":1,"action":"x"}x',
                 b'{"type":"action","id":1,"action":"x"}\x0c',
                 b'{"type":"action","id":9007199254740992,"action":"x"}'):
        assert decode_client(line) == _decode(line, CLIENT_MESSAGES)
