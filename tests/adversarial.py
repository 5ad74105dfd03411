"""Adversarial bots for tests: each plays one misbehaviour at a table (or at the door) and keeps
what the server said to it, so a test can check the reason codes SPEC.md §4 documents.

An :class:`Adversary` reads every message it is sent (it is never dropped as a slow reader) and
tracks its open request; the behaviours below are plain functions of an adversary.  All of them
work over in-memory streams under a MockClock (timeouts then take no real time) and over TCP.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import trio

from tests.helpers import LineClient, connect_tcp

Message = dict[str, Any]

#: Lines that are not usable messages, with the code each one draws (SPEC.md §4).  Fewer than
#: 20, so they never add up to ``too_many_errors``.
GARBAGE: list[tuple[bytes, str]] = [
    (b"\xff\xfe\xfd", "malformed"),  # not UTF-8
    (b"this is not json", "malformed"),
    (b'{"type":"action","id":1,', "malformed"),  # broken JSON
    (b"[1, 2, 3]", "malformed"),  # not an object
    (b'{"id":1,"action":"imp 5"}', "malformed"),  # no type
    (b'{"type":"action","id":NaN,"action":"imp 5"}', "malformed"),
    (b'{"type":"action","id":1,"action":"imp 5","action":"imp 7"}', "malformed"),  # key twice
    (b'{"type":"action","id":"1","action":"imp 5"}', "malformed"),  # an id that is a string
    (b'{"type":"action","id":9007199254740992,"action":"imp 5"}', "malformed"),  # 2**53
    (b'{"type":"action","id":1}', "malformed"),  # a missing field
    (b'{"type":"dance"}', "unknown_message"),
    (b'{"type":"hello","name":"again"}', "unexpected_message"),  # a second hello
]

#: Request ids that were never sent (``wrong_request_id``), given the open request's id.
WRONG_IDS: list[Callable[[int], int]] = [
    lambda open_id: 0,
    lambda open_id: -1,
    lambda open_id: open_id + 1000,
    lambda open_id: 2**53 - 1,  # the largest id in range
    lambda open_id: -(2**53 - 1),
]


class Adversary:
    """A bot's end of a connection that misbehaves on purpose."""

    def __init__(self, client: LineClient, seed: int = 0) -> None:
        self.client = client
        self.rng = random.Random(seed)
        self.open_request: Message | None = None
        self.requests: list[Message] = []  # the game's (up to its game_end)
        self.cancels: list[Message] = []  # the game's
        self.errors: list[Message] = []  # all of them, also after the game_end
        self.end: Message | None = None  # the game_end (the bot stays seated for the next)
        self.closed = False  # the server ended the connection

    async def next(self) -> Message | None:
        """The next message (None once the server has closed the connection), noted."""
        message = await self.client.receive()
        if message is None:
            self.closed = True
            return None
        kind = message["type"]
        if self.end is not None:  # the next game: only errors still count
            if kind == "error":
                self.errors.append(message)
            return message
        if kind == "request":
            self.open_request = message
            self.requests.append(message)
        elif kind == "cancel":
            self.cancels.append(message)
            if self.open_request is not None and self.open_request["id"] == message["id"]:
                self.open_request = None
        elif kind == "error":
            self.errors.append(message)
        elif kind == "game_end":
            self.end = message
            self.open_request = None
        return message

    async def until(self, kind: str) -> Message:
        while True:
            message = await self.next()
            if message is None:
                raise AssertionError(f"the connection ended while waiting for {kind!r}")
            if message["type"] == kind:
                return message

    async def errors_up_to(self, count: int) -> list[Message]:
        """Read until ``count`` errors have come in all; returns them."""
        while len(self.errors) < count:
            if await self.next() is None:
                break
        return self.errors[:count]

    async def answer(self, request: Message, token: str | None = None) -> None:
        self.open_request = None
        await self.client.send({"type": "action", "id": request["id"],
                                "action": token or self.rng.choice(request["legal"])})

    async def play_out(self) -> Message:
        """Answer the open request and every later one with a legal token, to the game's end."""
        while self.end is None:
            if self.open_request is not None:
                await self.answer(self.open_request)
                continue
            if await self.next() is None:
                raise AssertionError("the connection ended before the game did")
        return self.end


async def send_garbage(adversary: Adversary) -> list[str]:
    """Once a request is open, every line of :data:`GARBAGE` at once; then play on.  The codes
    of the errors it drew, in order."""
    await adversary.until("request")
    before = len(adversary.errors)
    await adversary.client.send(b"".join(line + b"\n" for line, _ in GARBAGE))
    replies = await adversary.errors_up_to(before + len(GARBAGE))
    await adversary.play_out()
    return [error["code"] for error in replies[before:]]


async def stay_silent(adversary: Adversary) -> list[float]:
    """Never answer, read everything to the game's end.  The seconds each request stayed open
    before its cancel came."""
    opened: dict[int, float] = {}
    waited = []
    while adversary.end is None:
        message = await adversary.next()
        if message is None:
            raise AssertionError("the connection ended before the game did")
        if message["type"] == "request":
            opened[message["id"]] = trio.current_time()
        elif message["type"] == "cancel":
            waited.append(trio.current_time() - opened[message["id"]])
    return waited


async def answer_late(adversary: Adversary) -> list[Message]:
    """Answer every request only once it has been cancelled for its timeout (with the action
    the server played for it).  The errors those late answers drew."""
    late = 0
    before = len(adversary.errors)
    while adversary.end is None:
        message = await adversary.next()
        if message is None:
            raise AssertionError("the connection ended before the game did")
        if message["type"] == "cancel" and message["reason"] == "timeout":
            await adversary.client.send({"type": "action", "id": message["id"],
                                         "action": message["played"]})
            late += 1
    return (await adversary.errors_up_to(before + late))[before:]


async def answer_twice(adversary: Adversary) -> list[Message]:
    """Answer every request with a legal token, twice in one write.  The errors that drew."""
    before = len(adversary.errors)
    while adversary.end is None:
        message = await adversary.next()
        if message is None:
            raise AssertionError("the connection ended before the game did")
        if message["type"] == "request":
            line = {"type": "action", "id": message["id"],
                    "action": adversary.rng.choice(message["legal"])}
            await adversary.client.send(b"".join([_line(line)] * 2))
    return (await adversary.errors_up_to(before + len(adversary.requests)))[before:]


async def answer_with_wrong_ids(adversary: Adversary) -> list[Message]:
    """The first request: three answers with ids never sent (the server plays for the bot);
    every later one: one such answer, then the right one.  The errors that drew."""
    before = len(adversary.errors)
    sent = 0
    while adversary.end is None:
        message = await adversary.next()
        if message is None:
            raise AssertionError("the connection ended before the game did")
        if message["type"] != "request":
            continue
        wrong = WRONG_IDS if len(adversary.requests) == 1 else [
            WRONG_IDS[len(adversary.requests) % len(WRONG_IDS)]]
        for wrong_id in wrong[:3]:
            await adversary.client.send({"type": "action", "id": wrong_id(message["id"]),
                                         "action": message["legal"][0]})
            sent += 1
        if len(adversary.requests) > 1:
            await adversary.answer(message)
    return (await adversary.errors_up_to(before + sent))[before:]


async def send_huge_lines(adversary: Adversary, max_line: int) -> list[Message]:
    """At the first request: a line one byte over ``max_line`` and one four times over, then a
    legal answer; at the second: a line of exactly ``max_line`` bytes (read as usual: an unknown
    type), then a legal answer; then play on.  The errors those lines drew."""
    before = len(adversary.errors)
    request = await adversary.until("request")
    over = b'{"type":"action","id":1,"action":"' + b"x" * max_line + b'"}'
    await adversary.client.send(over[: max_line + 1] + b"\n" + over * 4 + b"\n")
    await adversary.errors_up_to(before + 2)
    await adversary.answer(request)
    request = await adversary.until("request")
    padding = max_line - len(b'{"type":"padded","pad":""}')
    await adversary.client.send(b'{"type":"padded","pad":"' + b"y" * padding + b'"}\n')
    await adversary.errors_up_to(before + 3)
    await adversary.answer(request)
    await adversary.play_out()
    return adversary.errors[before:before + 3]


async def disconnect_mid_game(adversary: Adversary) -> Message:
    """Hang up, without a bye, while a request is open.  That request."""
    request = await adversary.until("request")
    await adversary.client.stream.aclose()
    return request


async def crowd_the_door(port: int, count: int) -> tuple[list[LineClient], list[Message]]:
    """Open ``count`` more TCP connections and say nothing.  The connections that were welcomed,
    and the first message of each one that was not (whose connection is then closed)."""
    welcomed, refused = [], []
    for _ in range(count):
        client = await connect_tcp(port)
        first = await client.receive()
        assert first is not None, "closed without a word"
        if first["type"] == "welcome":
            welcomed.append(client)
            continue
        refused.append(first)
        assert await client.receive() is None, "a refused connection stays open"
        await client.stream.aclose()
    return welcomed, refused


def _line(message: Message) -> bytes:
    return json.dumps(message).encode() + b"\n"
