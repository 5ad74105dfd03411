"""The reference client: lines split from reads of any size, only the events a policy wants
parsed and passed on, requests answered, over a real TCP socket against a scripted server."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest

from reference_bots.client import (
    MAX_LINE_BYTES,
    LineSplitter,
    LineTooLong,
    run,
    unwanted_event,
)

WELCOME = {"type": "welcome", "protocol": 1, "server": "test", "game": "chochlik", "players": 3,
           "limits": {}}
GAME_START = {"type": "game_start", "game_id": "g1", "table": 1, "game": "chochlik", "seat": 0,
              "names": ["a", "b", "c"], "options": {}, "info": {"cards": []}}


def event(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": "event", "kind": kind, "data": data, "to": None}


def request(request_id: int, legal: list[str]) -> dict[str, Any]:
    return {"type": "request", "id": request_id, "legal": legal, "time_left_ms": 5000,
            "observation": {"seat": 0}}


def wire(*messages: dict[str, Any]) -> bytes:
    """Messages as the server writes them: compact, ``type`` first."""
    return b"".join(json.dumps(m, separators=(",", ":")).encode() + b"\n" for m in messages)


def test_lines_come_out_whole_however_the_bytes_are_cut():
    data = wire(WELCOME, event("dealt", cards=[1, 2]), request(1, ["play 1"]))
    expected = data.split(b"\n")[:-1]
    for size in (1, 2, 7, len(data)):
        splitter = LineSplitter()
        lines = [line for start in range(0, len(data), size)
                 for line in splitter.feed(data[start:start + size])]
        assert lines == expected, size
        assert splitter.partial == b""


def test_an_endless_line_is_refused_before_it_fills_the_memory():
    splitter = LineSplitter()
    splitter.feed(b"x" * MAX_LINE_BYTES)
    with pytest.raises(LineTooLong):
        splitter.feed(b"x")


def test_unwanted_events_are_known_by_their_first_bytes():
    line = wire(event("card_played", card=3)).rstrip(b"\n")
    assert unwanted_event(line, frozenset())
    assert unwanted_event(line, {"bids_revealed"})
    assert not unwanted_event(line, {"card_played"})
    assert not unwanted_event(line, None)  # a policy without wanted_events gets them all
    assert not unwanted_event(wire(request(1, ["a"])).rstrip(b"\n"), frozenset())
    # written otherwise: not recognised here, so it is parsed (and filtered after parsing)
    assert not unwanted_event(b'{"kind":"card_played","type":"event","data":{}}', frozenset())
    assert not unwanted_event(b'{"type":"event","kind":"a\\"b","data":{}}', frozenset())


class Recorder:
    """A policy that answers with the last legal token and remembers what it was passed."""

    def __init__(self, wanted_events: frozenset[str] | None = None) -> None:
        if wanted_events is not None:
            self.wanted_events = wanted_events
        self.messages: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []

    def choose(self, message: dict[str, Any]) -> str:
        self.requests.append(message)
        return str(message["legal"][-1])

    def on_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


class ScriptedServer:
    """A one-connection server in a thread: it sends ``script`` and keeps the lines the bot
    sends back until the bot closes the connection."""

    def __init__(self, script: bytes, *, byte_by_byte: bool) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.received: list[bytes] = []
        self.thread = threading.Thread(target=self.serve, args=(script, byte_by_byte),
                                       daemon=True)
        self.thread.start()

    def serve(self, script: bytes, byte_by_byte: bool) -> None:
        connection, _ = self.listener.accept()
        with connection, connection.makefile("rb") as replies:
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            chunks = [script[i:i + 1] for i in range(len(script))] if byte_by_byte else [script]
            for chunk in chunks:
                connection.sendall(chunk)
            self.received.extend(iter(replies.readline, b""))
        self.listener.close()

    def replies(self) -> list[dict[str, Any]]:
        self.thread.join(timeout=10)
        return [json.loads(line) for line in self.received]


@pytest.mark.parametrize("byte_by_byte", [False, True])
def test_a_session_answers_requests_and_passes_on_only_the_wanted_events(byte_by_byte):
    script = wire(WELCOME, GAME_START, event("card_played", card=3),
                  event("bids_revealed", bids=[1, 2]), request(7, ["play 1", "play \u00e9"]),
                  event("trick_won", seat=1), {"type": "bye"})
    server = ScriptedServer(script, byte_by_byte=byte_by_byte)
    policy = Recorder(wanted_events=frozenset({"bids_revealed"}))
    assert run(policy, "127.0.0.1", server.port, "me", "secret-token") == 0
    hello, action = server.replies()
    assert hello == {"type": "hello", "name": "me", "token": "secret-token", "protocol": 1,
                     "game": "chochlik", "events": "with_requests"}
    assert action == {"type": "action", "id": 7, "action": "play \u00e9"}
    assert [m["type"] for m in policy.messages] == ["welcome", "game_start", "event"]
    assert policy.messages[2]["kind"] == "bids_revealed"
    assert policy.requests[0]["observation"] == {"seat": 0}


def test_a_policy_without_wanted_events_gets_every_event_as_before():
    script = wire(WELCOME, event("card_played", card=3), request(1, ["pass"]),
                  event("trick_won", seat=1), {"type": "bye"})
    server = ScriptedServer(script, byte_by_byte=False)
    policy = Recorder()
    assert run(policy, "127.0.0.1", server.port, "me") == 0
    assert [m.get("kind") for m in policy.messages] == [None, "card_played", "trick_won"]
    assert server.replies()[1] == {"type": "action", "id": 1, "action": "pass"}


def test_a_refused_choice_falls_back_to_a_legal_token_and_a_fatal_error_ends_the_bot():
    script = wire(WELCOME, request(3, ["a"]),
                  {"type": "error", "code": "illegal_action", "message": "no", "id": 3,
                   "legal": ["b"], "tries_left": 1},
                  {"type": "error", "code": "too_fast", "message": "slow down", "fatal": True})
    server = ScriptedServer(script, byte_by_byte=False)
    assert run(Recorder(), "127.0.0.1", server.port, "me") == 1
    assert server.replies()[1:] == [
        {"type": "action", "id": 3, "action": "a"}, {"type": "action", "id": 3, "action": "b"}]
