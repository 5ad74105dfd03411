"""Hostile lines against a real server over TCP: every line answered, honest games untouched.

    python benchmarks/hostile_lines.py [--lines 100000] [--hostile 8] [--honest-tables 4]
                                       [--seed S]

This process runs one ArenaServer (chochlik, 3 players, logs in a temporary folder) on a free
loopback port; a second process (this script with ``--clients-for PORT``) runs the clients, so
the server has a core of its own and its CPU time is measured alone.

``--hostile`` workers open connection after connection and throw lines at the server: random
bytes, broken JSON, NaN and Infinity, duplicate keys, ids of the wrong type or out of range,
wrong and stale ids, illegal and double answers, a second hello, bad hellos, lines over
``max_line_bytes`` (and exactly at it), bursts past the rate limit (``too_fast``), runs of
unusable lines (``too_many_errors``), early disconnects.  Each hostile connection reads the
server's replies as they come and, when it ends, matches them to its lines in order: every
line must draw one ``error`` with the expected code, except a legal answer to the open request,
which is taken silently (checked against the game logs afterwards) or refused as
``stale_request``.  Lines after the one that drew a fatal error, and lines still on the way
when a client hangs up, are not counted.  Meanwhile ``--honest-tables`` trios of random bots
play full games at tables of their own; none of them may see an error, a cancel or a default.

Prints a table of figures; exits with status 1 if anything went wrong.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.server import ArenaServer, ServerConfig
from arena.gameplay.gamelog import read_log
from arena.games import get_game
from arena.seating.policies import (
    Admission,
    ArrivalSeating,
    RosterEntry,
    RosterSeating,
    SeatedTable,
    SeatingStatistics,
)
from protocol.limits import MAX_CONSECUTIVE_ERRORS
from protocol.linebuffer import LineBuffer

#: The game every table plays: a full chochlik game of three hands (every seat deals once).
GAME_OPTIONS = {"players": 3, "hands": 3}
#: Games each honest connection plays before it says bye (then its table's next trio comes).
HONEST_GAMES_PER_CONNECTION = 2
#: Honest bots' tokens begin so; the rest names the trio and the seat.
HONEST_TOKEN = "honest/"
#: Lines a polite hostile connection sends in all, hello included: under the burst allowance.
POLITE_LINES = 380
#: Seconds a hostile connection waits for a reply before it gives up on it.
REPLY_PATIENCE = 30.0
#: Seconds the clients get in all before the run is called a failure (a hang).
RUN_LIMIT = 600.0
#: Codes of lines that are not usable messages (they count towards too_many_errors).
UNUSABLE = frozenset({"malformed", "line_too_long", "unknown_message", "unexpected_message",
                      "bad_hello"})
#: Error codes the server may send without a line to answer (none is expected here).
UNSOLICITED = frozenset({"hello_timeout", "idle_timeout", "too_many_connections"})


# -- seating: honest trios at tables of their own -------------------------------------------------


class SplitSeating:
    """Each honest trio (known by its tokens, ``honest/<trio>/<seat>``) plays a short series
    of its own (:class:`RosterSeating`); every other connection is seated in arrival order."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.arrivals = ArrivalSeating(players)
        self.trios: dict[str, RosterSeating] = {}
        self.policy_of_session: dict[Hashable, Any] = {}
        self.policy_of_table: dict[SeatedTable, Any] = {}

    def _trio(self, token: str) -> RosterSeating:
        trio_key = token.rsplit("/", 1)[0]
        if trio_key not in self.trios:
            label = trio_key.removeprefix(HONEST_TOKEN).replace("/", "-")
            self.trios[trio_key] = RosterSeating(
                [RosterEntry(f"honest{label}-{seat}", f"{trio_key}/{seat}")
                 for seat in range(self.players)], HONEST_GAMES_PER_CONNECTION)
        return self.trios[trio_key]

    def _placed(self, policy: Any, tables: list[SeatedTable]) -> list[SeatedTable]:
        for table in tables:
            self.policy_of_table[table] = policy
        return tables

    def start(self, now: float) -> list[SeatedTable]:
        return []

    def admit(self, session: Hashable, name: str, token: str | None) -> Admission:
        policy: Any = self.arrivals
        if token is not None and token.startswith(HONEST_TOKEN):
            policy = self._trio(token)
        admission: Admission = policy.admit(session, name, token)
        if admission.refusal is None:
            self.policy_of_session[session] = policy
        return admission

    def ready(self, session: Hashable, now: float) -> list[SeatedTable]:
        policy = self.policy_of_session[session]
        return self._placed(policy, policy.ready(session, now))

    def gone(self, session: Hashable, now: float) -> list[SeatedTable]:
        policy = self.policy_of_session.pop(session, None)
        return [] if policy is None else self._placed(policy, policy.gone(session, now))

    def game_over(self, table: SeatedTable, now: float) -> list[SeatedTable]:
        policy = self.policy_of_table.pop(table)
        return self._placed(policy, policy.game_over(table, now))

    def unstarted(self, table: SeatedTable, survivors: Any, now: float) -> list[SeatedTable]:
        policy = self.policy_of_table.pop(table)
        return self._placed(policy, policy.unstarted(table, survivors, now))

    def withdraw(self, token: str, now: float) -> list[SeatedTable]:
        return []

    def expire(self, now: float) -> list[SeatedTable]:
        return self._placed(self.arrivals, self.arrivals.expire(now))

    def next_deadline(self) -> float | None:
        return self.arrivals.next_deadline()

    def statistics(self) -> SeatingStatistics:
        policies: list[Any] = [self.arrivals, *self.trios.values()]
        figures = [policy.statistics() for policy in policies]
        return SeatingStatistics(tables_started=sum(f.tables_started for f in figures),
                                 tables_running=sum(f.tables_running for f in figures))


# -- what a hostile line should draw ------------------------------------------------------------


@attrs.frozen
class Expect:
    """What one line should draw: an ``error`` with one of ``codes`` (None: no reply, for a
    valid hello); ``accept_ok``: a legal answer to ``request_id``, taken silently or refused as
    ``stale_request``; ``fatal``: the line is meant to close the connection."""

    kind: str
    codes: frozenset[str] | None
    request_id: int | None = None
    accept_ok: bool = False
    fatal: bool = False

    @property
    def hostile(self) -> bool:
        return self.codes is not None


def error_expect(kind: str, *codes: str) -> Expect:
    return Expect(kind, frozenset(codes))


#: Lines that draw ``malformed`` in any state (none of them is blank).
MALFORMED_LINES: list[tuple[str, bytes]] = [
    ("broken_json", b'{"type":"action","id":3,'),
    ("broken_json", b"{"),
    ("broken_json", b'{"type":}'),
    ("broken_json", b'{"type":"action" "id":1}'),
    ("not_object", b"[]"),
    ("not_object", b"42"),
    ("not_object", b'"action"'),
    ("not_object", b"null"),
    ("no_type", b'{"id":1,"action":"imp 5"}'),
    ("no_type", b'{"type":5}'),
    ("wrong_field_type", b'{"type":"action","id":"1","action":"imp 5"}'),
    ("wrong_field_type", b'{"type":"action","id":1.0,"action":"imp 5"}'),
    ("wrong_field_type", b'{"type":"action","id":true,"action":"imp 5"}'),
    ("wrong_field_type", b'{"type":"action","id":1,"action":5}'),
    ("wrong_field_type", b'{"type":"hello","name":7}'),
    ("missing_field", b'{"type":"action","id":1}'),
    ("missing_field", b'{"type":"action","action":"imp 5"}'),
    ("huge_id", b'{"type":"action","id":9007199254740992,"action":"imp 5"}'),
    ("huge_id", b'{"type":"action","id":-9007199254740992,"action":"imp 5"}'),
    ("huge_id", b'{"type":"action","id":1180591620717411303424,"action":"x"}'),
    ("huge_id", b'{"type":"action","id":1e400,"action":"x"}'),
    ("huge_id", b'{"type":"action","id":' + b"9" * 5000 + b',"action":"x"}'),
    ("nan", b'{"type":"action","id":NaN,"action":"x"}'),
    ("nan", b'{"type":"action","id":1,"action":"x","extra":Infinity}'),
    ("nan", b'{"type":"action","id":-Infinity,"action":"x"}'),
    ("duplicate_keys", b'{"type":"action","id":1,"action":"x","action":"y"}'),
    ("duplicate_keys", b'{"type":"action","type":"action","id":1,"action":"x"}'),
    ("not_utf8", b'{"type":"action","id":1,"action":"\xff\xfe"}'),
    ("deep_nesting", b"[" * 5000 + b"]" * 5000),
]

#: Lines that draw ``unknown_message``.
UNKNOWN_LINES: list[bytes] = [b'{"type":"dance"}', b'{"type":"ACTION","id":1,"action":"x"}',
                              b'{"type":""}', b'{"type":"request","id":1}',
                              b'{"type":"\\u0000\\ud800"}']

#: Hellos refused with ``bad_hello`` (before a valid hello).
BAD_HELLOS: list[dict[str, Any]] = [
    {"type": "hello", "name": ""}, {"type": "hello", "name": "   "},
    {"type": "hello", "name": "x" * 41}, {"type": "hello", "name": "tab\there"},
    {"type": "hello", "name": "\ud800"}, {"type": "hello", "name": "ok", "token": ""},
    {"type": "hello", "name": "ok", "token": "t" * 201},
]


def dumps(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


async def first_of(*events: trio.Event) -> None:
    """Wait until one of ``events`` is set."""
    async with trio.open_nursery() as race:
        async def wait(event: trio.Event) -> None:
            await event.wait()
            race.cancel_scope.cancel()
        for event in events:
            race.start_soon(wait, event)


# -- a hostile connection -------------------------------------------------------------------------


class HostileConnection:
    """One hostile connection: it writes lines, noting what each should draw, and reads every
    reply as it comes."""

    def __init__(self, name: str, behaviour: str, stream: trio.SocketStream,
                 rng: random.Random) -> None:
        self.name = name
        self.behaviour = behaviour
        self.stream = stream
        self.rng = rng
        self.expects: list[Expect] = []
        self.errors: list[dict[str, Any]] = []  # error lines, in order
        self.unsolicited: list[dict[str, Any]] = []
        self.fatal: dict[str, Any] | None = None
        self.cancels: Counter[str] = Counter()
        self.received = 0  # server lines of any type
        self.welcome: dict[str, Any] | None = None
        self.welcomed = trio.Event()
        self.ended = trio.Event()  # the server closed the connection
        self.reset = False  # ... with a reset, not an orderly end
        self.said_hello = False
        self.open_request: dict[str, Any] | None = None
        self.newest_request = 0
        self.answered: set[int] = set()  # requests we sent a legal answer to
        self.unusable_run = 0  # the server's count of unusable lines in a row, as predicted
        self.markers: dict[str, trio.Event] = {}
        self.write_failed = False
        self.ending = "server_closed"
        self.synced = 0  # lines answered for sure (up to the last marker answered)
        self.abandoned_from: int | None = None  # lines from here on were cut off by a hang-up

    @property
    def max_line(self) -> int:
        assert self.welcome is not None
        return int(self.welcome["limits"]["max_line_bytes"])

    @property
    def burst_allowance(self) -> int:
        """Lines the rate limit lets through at once on a fresh connection."""
        assert self.welcome is not None
        return int(2 * self.welcome["limits"]["max_messages_per_second"])

    async def read_all(self) -> None:
        """Read and sort every server line until the server ends the connection."""
        lines = LineBuffer(max_line=1 << 20)
        try:
            while data := await self.stream.receive_some(65536):
                lines.feed(bytes(data))
                while (line := lines.next_line()) is not None:
                    assert isinstance(line, bytes), "a server line over 1 MiB"
                    self._on_message(json.loads(line))
        except trio.BrokenResourceError:
            self.reset = True
        except trio.ClosedResourceError:
            pass  # we hung up
        finally:
            self.ended.set()

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        self.received += 1
        if kind == "welcome":
            self.welcome = message
            self.welcomed.set()
        elif kind == "error":
            if message["code"] in UNSOLICITED:
                self.unsolicited.append(message)
                return
            self.errors.append(message)
            if message.get("fatal"):
                self.fatal = message
            if message["code"] == "unknown_message":
                for marker, event in self.markers.items():
                    if marker in message.get("message", ""):
                        event.set()
        elif kind == "request":
            self.open_request = message
            self.newest_request = max(self.newest_request, message["id"])
        elif kind == "cancel":
            self.cancels[message["reason"]] += 1
            if self.open_request is not None and self.open_request["id"] == message["id"]:
                self.open_request = None
        elif kind == "game_end":
            self.open_request = None

    # -- writing --

    def expect(self, line: bytes, expect: Expect) -> bytes:
        """Note what ``line`` should draw, counting unusable lines in a row as the server does."""
        if expect.codes is None or not expect.codes & UNUSABLE:
            self.unusable_run = 0  # a well-formed message resets the count
        else:
            self.unusable_run += 1
            if self.unusable_run >= MAX_CONSECUTIVE_ERRORS:
                expect = Expect(expect.kind, frozenset({"too_many_errors"}), fatal=True)
        self.expects.append(expect)
        return line + b"\n"

    async def write(self, chunk: bytes) -> bool:
        """Send bytes; False once the server has closed the connection."""
        if self.write_failed:
            return False
        try:
            await self.stream.send_all(chunk)
            return True
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.write_failed = True
            return False

    def hello_line(self) -> bytes:
        self.said_hello = True
        return self.expect(dumps({"type": "hello", "name": self.name}), Expect("hello", None))

    async def sync(self) -> bool:
        """Send a marker line (an unknown type) and wait for its reply: replies come in order,
        so every earlier line has then been answered.  False if the connection ended first, or
        the reply took longer than :data:`REPLY_PATIENCE` (then the connection ends as
        ``gave_up_waiting``)."""
        marker = f"sync-{self.name}-{len(self.markers) + 1}"
        event = self.markers[marker] = trio.Event()
        if not await self.write(self.expect(dumps({"type": marker}),
                                            error_expect("marker", "unknown_message"))):
            return False
        with trio.move_on_after(REPLY_PATIENCE):
            await first_of(event, self.ended)
        if event.is_set():
            self.synced = len(self.expects)
        elif not self.ended.is_set():
            self.ending = "gave_up_waiting"
        return event.is_set()

    def unusable_line(self) -> bytes:
        """A line the server cannot use: malformed, unknown_message, unexpected_message."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:  # never blank, never UTF-8: it starts with a continuation byte
            noise = bytes([rng.randrange(0x80, 0xC0)]) + rng.randbytes(rng.randrange(120))
            return self.expect(noise.replace(b"\n", b"?"), error_expect("random_bytes",
                                                                        "malformed"))
        if roll < 0.7:
            kind, line = rng.choice(MALFORMED_LINES)
            return self.expect(line, error_expect(kind, "malformed"))
        if roll < 0.8:
            return self.expect(rng.choice(UNKNOWN_LINES),
                               error_expect("unknown_type", "unknown_message"))
        if not self.said_hello:
            return self.expect(dumps({"type": "action", "id": 1, "action": "imp 5"}),
                               error_expect("action_before_hello", "unexpected_message"))
        name = rng.choice(["again", self.name, "", "x" * 60])
        return self.expect(dumps({"type": "hello", "name": name}),
                           error_expect("hello_twice", "unexpected_message"))

    def legal_answer(self, *, twice: bool = False) -> bytes:
        """A legal answer to the open request (taken, or stale if the request has closed by
        now), maybe twice.  No later line names that request: then the replies tell whether
        the answer was taken (it is also in the game log)."""
        assert self.open_request is not None
        request_id, legal = self.open_request["id"], self.open_request["legal"]
        self.open_request = None  # closed once the server reads this line, either way
        self.answered.add(request_id)
        lines = b""
        for _ in range(2 if twice else 1):
            token = self.rng.choice(legal)
            lines += self.expect(dumps({"type": "action", "id": request_id, "action": token}),
                                 Expect("legal_answer", frozenset({"stale_request"}),
                                        request_id, accept_ok=True))
        return lines

    def well_formed_line(self, *, legal_answers: bool = True) -> bytes:
        """An action the server parses: a wrong or stale id, or an answer to the open request
        (illegal; or legal when ``legal_answers``)."""
        assert self.said_hello
        rng = self.rng
        request = self.open_request
        roll = rng.random()
        if request is not None and roll < 0.35:
            if legal_answers and rng.random() < 0.3:
                return self.legal_answer()
            token = rng.choice(["play 99", "imp 19", "", "\ud800", "left", " imp 5",
                                request["legal"][0] + " ", request["legal"][0].upper(),
                                "x" * rng.randrange(1, 3000)])
            return self.expect(dumps({"type": "action", "id": request["id"], "action": token}),
                               error_expect("illegal_action", "illegal_action",
                                            "stale_request"))
        # every id below the open one (or up to the newest, when none is open) is closed
        newest_closed = request["id"] - 1 if request is not None else self.newest_request
        stale = rng.randint(1, newest_closed) if newest_closed >= 1 else 0
        if roll < 0.6 and stale and stale not in self.answered:
            return self.expect(dumps({"type": "action", "id": stale, "action": "imp 5"}),
                               error_expect("stale_id", "stale_request"))
        wrong = rng.choice([0, -1, -rng.randrange(1, 2**53), 10**7 + rng.randrange(10**6),
                            2**53 - 1, -(2**53 - 1)])
        return self.expect(dumps({"type": "action", "id": wrong, "action": "play 1"}),
                           error_expect("wrong_id", "wrong_request_id"))

    def mixed_lines(self, count: int, *, legal_answers: bool = True) -> bytes:
        """``count`` hostile lines after hello, never too many unusable ones in a row."""
        limit = self.rng.randint(3, MAX_CONSECUTIVE_ERRORS - 2)
        out = []
        for _ in range(count):
            if self.unusable_run >= limit or self.rng.random() < 0.3:
                out.append(self.well_formed_line(legal_answers=legal_answers))
            else:
                out.append(self.unusable_line())
        return b"".join(out)

    def oversize_line(self) -> bytes:
        """A line over the line limit, or exactly at it (then it is read as usual)."""
        rng, limit = self.rng, self.max_line
        roll = rng.random()
        if roll < 0.5:
            size = limit + rng.choice([1, 2, 100, rng.randrange(1, 50_000)])
            body = b'{"type":"action","id":1,"action":"' + b"x" * size + b'"}'
            return self.expect(body, error_expect("oversize", "line_too_long"))
        if roll < 0.7:  # one byte over, then CRLF
            body = b'{"type":"x","pad":"' + b"y" * (limit + 1 - 21) + b'"}'
            return self.expect(body + b"\r", error_expect("oversize_crlf", "line_too_long"))
        body = b'{"type":"x","pad":"' + b"y" * (limit - 21) + b'"}'  # exactly the limit
        ending = b"\r" if rng.random() < 0.5 else b""
        return self.expect(body + ending, error_expect("at_limit", "unknown_message"))


# -- hostile behaviours: one per connection -----------------------------------------------------


async def steady(conn: HostileConnection, budget: int) -> None:
    """Hello, then a few batches of mixed lines (a legal answer or two first, when a request is
    open), each but the last followed by a marker."""
    await conn.write(conn.hello_line())
    left = budget - 1  # one line for the marker of the ending
    batches = conn.rng.randint(1, 3)
    for batch in range(batches):
        lines = b""
        if conn.open_request is not None and left >= 2 and conn.rng.random() < 0.7:
            lines += conn.legal_answer(twice=conn.rng.random() < 0.3)
            left -= lines.count(b"\n")
        count = min(left - (batches - batch - 1), conn.rng.randint(20, 150))
        left -= count
        if not await conn.write(lines + conn.mixed_lines(max(0, count))):
            return
        if batch < batches - 1:
            left -= 1
            if not await conn.sync():
                return
    await end(conn)


async def greeting(conn: HostileConnection, budget: int) -> None:
    """Lines before hello (bad hellos, actions, junk), then a fatal hello, or a good one and
    more lines (a second hello among them)."""
    rng = conn.rng
    early = []
    for _ in range(rng.randint(1, min(12, budget))):
        if rng.random() < 0.4:
            early.append(conn.expect(dumps(rng.choice(BAD_HELLOS)),
                                     error_expect("bad_hello", "bad_hello")))
        else:
            early.append(conn.unusable_line())
    await conn.write(b"".join(early))
    if rng.random() < 0.15:
        fatal_hellos: list[tuple[dict[str, Any], str]] = [
            ({"protocol": 2}, "version_mismatch"), ({"game": "wypas"}, "wrong_game")]
        fields, code = rng.choice(fatal_hellos)
        line = dumps({"type": "hello", "name": conn.name, **fields})
        await conn.write(conn.expect(line, Expect("fatal_hello", frozenset({code}),
                                                  fatal=True)))
        return
    await conn.write(conn.hello_line() + conn.mixed_lines(max(0, budget - len(early) - 1)))
    await end(conn)


async def flood_of_errors(conn: HostileConnection, budget: int) -> None:
    """Unusable lines until the server gives up (too_many_errors), before or after hello."""
    if conn.rng.random() < 0.6:
        await conn.write(conn.hello_line()
                         + conn.mixed_lines(conn.rng.randint(0, budget - MAX_CONSECUTIVE_ERRORS)))
    while not conn.write_failed:
        await conn.write(conn.unusable_line())
        if conn.expects[-1].fatal:
            break


async def burst(conn: HostileConnection, budget: int) -> None:
    """Everything at once, past the burst allowance: the server says too_fast and closes."""
    await conn.write(conn.hello_line())
    await conn.write(conn.mixed_lines(budget - 1, legal_answers=False))
    if not conn.write_failed and conn.fatal is None and await conn.sync():
        await end(conn)  # the server kept up with the rate after all


async def oversize(conn: HostileConnection, budget: int) -> None:
    """Lines over the limit (and exactly at it) between ordinary hostile lines."""
    await conn.write(conn.hello_line())
    for _ in range(min((budget - 1) // 3, conn.rng.randint(3, 12))):
        if not await conn.write(conn.oversize_line() + conn.mixed_lines(2)):
            return
    await end(conn)


async def end(conn: HostileConnection) -> None:
    """End a connection: wait for every reply (a marker) and then say bye, half-close or hang
    up; or do that at once, with lines still on the way (a bye or a half-close: they must all
    be answered still; a hang-up: those lines are not counted)."""
    ending = conn.rng.choices(["bye", "half_close", "hang_up", "bye_at_once",
                               "half_close_at_once", "hang_up_at_once"], [2, 2, 2, 2, 1, 1])[0]
    if not ending.endswith("_at_once") and not await conn.sync():
        return
    conn.ending = ending
    if ending.startswith("bye"):
        await conn.write(dumps({"type": "bye"}) + b"\n")
    elif ending.startswith("half_close"):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await conn.stream.send_eof()
    elif ending == "hang_up_at_once":
        conn.abandoned_from = conn.synced  # what came back by now is checked, the rest is not


Behaviour = Callable[[HostileConnection, int], Awaitable[None]]
#: name, behaviour, weight, the least and the most hostile lines it sends
BEHAVIOURS: list[tuple[str, Behaviour, int, int, int]] = [
    ("steady", steady, 10, 8, POLITE_LINES - 1),
    ("greeting", greeting, 2, 14, POLITE_LINES - 1),
    ("flood_of_errors", flood_of_errors, 2, 30, 80),
    ("burst", burst, 3, 600, 900),
    ("oversize", oversize, 1, 7, 37),
]


# -- accounting -----------------------------------------------------------------------------------


@attrs.define
class Settled:
    """One hostile connection's lines matched with its replies.  ``counted`` lines (those the
    server should have answered) are ``answered`` or ``unanswered``."""

    counted: int = 0
    answered: int = 0
    unanswered: Counter[str] = attrs.field(factory=Counter)  # by how the connection ended
    not_counted: int = 0  # lines after the one drawing a fatal error, or hung up on
    lost_to_reset: int = 0  # no reply: the server reset the connection (not counted)
    mismatched: list[str] = attrs.field(factory=list)
    extra_replies: int = 0
    accepted: int = 0  # legal answers taken silently (checked against the logs)
    unresolved: int = 0  # legal answers whose fate the replies do not tell (no reply came)
    replies: Counter[str] = attrs.field(factory=Counter)
    early_too_fast: bool = False


def settle(conn: HostileConnection) -> Settled:
    """Match replies to lines in order (the server answers a connection's lines in order)."""
    result = Settled(unresolved=sum(e.accept_ok for e in conn.expects))
    errors, expects = conn.errors, conn.expects
    position = 0  # the next reply to match

    def hostile(start: int, stop: int | None = None) -> int:
        return sum(e.hostile for e in expects[start:stop])

    for index, expect in enumerate(expects):
        if expect.codes is None:
            continue
        if position == len(errors):
            if conn.abandoned_from is not None and index >= conn.abandoned_from:
                result.not_counted += hostile(index)
            elif conn.reset:
                result.lost_to_reset += hostile(index)
            else:
                result.counted += hostile(index)
                ending = ("the server closed first" if conn.ending == "server_closed"
                          else conn.ending)
                result.unanswered[f"no reply ({ending})"] += hostile(index)
            return result
        error = errors[position]
        code = error["code"]
        if error.get("fatal"):
            result.replies[code] += 1
            fatal_line = index
            if code == "too_fast":  # the server's bucket holds the whole allowance at first
                result.early_too_fast = index + 1 <= conn.burst_allowance
            else:  # it answers the line meant to draw it; lines before it came first
                fatal_line = next((j for j in range(index, len(expects)) if expects[j].fatal),
                                  index)
                if not (expects[fatal_line].fatal and code in (expects[fatal_line].codes or ())):
                    result.mismatched.append(f"{expect.kind}: expected {sorted(expect.codes)}, "
                                             f"got the fatal {code}")
                if hostile(index, fatal_line):
                    result.unanswered["the fatal error came first"] += hostile(index,
                                                                               fatal_line)
            result.counted += hostile(index, fatal_line + 1)
            result.answered += 1
            result.not_counted += hostile(fatal_line + 1)
            return result
        result.counted += 1
        result.answered += 1
        result.unresolved -= expect.accept_ok
        if expect.accept_ok and not (code == "stale_request"
                                     and error.get("id") == expect.request_id):
            result.accepted += 1
            result.replies["(legal answer taken)"] += 1
            continue
        result.replies[code] += 1
        position += 1
        if code not in expect.codes:
            result.mismatched.append(f"{expect.kind}: expected {sorted(expect.codes)}, "
                                     f"got {code}")
    result.extra_replies = len(errors) - position
    return result


@attrs.define
class Figures:
    """What the client process saw, sent back to the server process as JSON."""

    target: int
    counted: int = 0
    reserved: int = 0
    answered: int = 0
    not_counted: int = 0
    unanswered: Counter[str] = attrs.field(factory=Counter)
    lost_to_reset: int = 0
    extra_replies: int = 0
    mismatched: list[str] = attrs.field(factory=list)
    early_too_fast: int = 0
    replies: Counter[str] = attrs.field(factory=Counter)
    cancels: Counter[str] = attrs.field(factory=Counter)
    behaviours: Counter[str] = attrs.field(factory=Counter)
    opened: Counter[str] = attrs.field(factory=Counter)
    closed: Counter[str] = attrs.field(factory=Counter)
    #: legal answers taken, and those whose fate is unknown, by connection name
    legal_answers: dict[str, tuple[int, int]] = attrs.field(factory=dict)
    unsolicited: Counter[str] = attrs.field(factory=Counter)
    not_closed: list[str] = attrs.field(factory=list)  # the server kept them open
    silent_closes: list[str] = attrs.field(factory=list)
    slow_replies: list[str] = attrs.field(factory=list)  # no reply within REPLY_PATIENCE
    server_lines: int = 0  # lines of any type the hostile clients received
    honest_games: dict[str, list[list[int]]] = attrs.field(factory=dict)
    honest_problems: list[str] = attrs.field(factory=list)
    cpu_seconds: float = 0.0

    def add(self, conn: HostileConnection, settled: Settled) -> None:
        self.counted += settled.counted
        self.answered += settled.answered
        self.not_counted += settled.not_counted
        self.unanswered.update(settled.unanswered)
        self.lost_to_reset += settled.lost_to_reset
        self.extra_replies += settled.extra_replies
        self.mismatched.extend(f"{conn.name}: {m}" for m in settled.mismatched)
        self.early_too_fast += settled.early_too_fast
        self.replies.update(settled.replies)
        self.cancels.update(conn.cancels)
        self.server_lines += conn.received
        if settled.accepted or settled.unresolved:
            self.legal_answers[conn.name] = (settled.accepted, settled.unresolved)
        self.unsolicited.update(e["code"] for e in conn.unsolicited)
        if conn.fatal is not None:
            self.closed[conn.fatal["code"]] += 1
        elif conn.unsolicited:
            self.closed[conn.unsolicited[-1]["code"]] += 1
        elif conn.reset:
            self.closed["reset by the server"] += 1
        elif conn.ending == "gave_up_waiting":
            self.closed["gave up waiting for a reply"] += 1
            self.slow_replies.append(f"{conn.name} ({conn.behaviour})")
        elif conn.ending == "server_closed":  # none of ours, and the server said nothing
            self.closed["closed by the server without a word"] += 1
            self.silent_closes.append(
                f"{conn.name} ({conn.behaviour}): {len(conn.errors)} replies to "
                f"{sum(e.hostile for e in conn.expects)} lines, then closed")
        else:
            self.closed[conn.ending] += 1


# -- the client process ---------------------------------------------------------------------------


async def hostile_worker(number: int, port: int, figures: Figures, seed: str) -> None:
    """Connection after connection, each with a behaviour drawn at random, until the lines
    counted reach the target."""
    rng = random.Random(f"{seed}-hostile-{number}")
    weights = [weight for _, _, weight, _, _ in BEHAVIOURS]
    connection = 0
    while figures.counted + figures.reserved < figures.target:
        left = figures.target - figures.counted - figures.reserved
        name, behaviour, _, least, most = rng.choices(BEHAVIOURS, weights)[0]
        if left < least:
            name, behaviour, _, least, most = BEHAVIOURS[0]
        budget = min(left, rng.randint(least, most) if name == "burst" else most)
        figures.reserved += budget
        connection += 1
        figures.opened["hostile"] += 1
        figures.behaviours[name] += 1
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        conn = HostileConnection(f"hostile{number}-{connection}", name, stream, rng)
        try:
            async with stream, trio.open_nursery() as nursery:
                nursery.start_soon(conn.read_all)
                await first_of(conn.welcomed, conn.ended)
                if not conn.welcomed.is_set():
                    continue  # refused at the door: an unsolicited error
                await behaviour(conn, budget)
                if conn.ending.startswith("hang_up") or conn.ending == "gave_up_waiting":
                    nursery.cancel_scope.cancel()  # close now, whatever is on the way
                    continue
                with trio.move_on_after(REPLY_PATIENCE):
                    await conn.ended.wait()
                if not conn.ended.is_set():
                    figures.not_closed.append(f"{conn.name} ({name}, {conn.ending})")
                    nursery.cancel_scope.cancel()
        finally:
            figures.reserved -= budget
            figures.add(conn, settle(conn))


async def honest_bot(port: int, name: str, token: str, rng: random.Random,
                     games: list[tuple[str, list[int]]], problems: list[str]) -> None:
    """Answer every request at once with a random legal token for a few games, then bye."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    lines = LineBuffer(max_line=1 << 20)
    ended = 0

    async def send(message: dict[str, Any]) -> None:
        await stream.send_all(dumps(message) + b"\n")

    async with stream:
        while data := await stream.receive_some(65536):
            lines.feed(bytes(data))
            while (line := lines.next_line()) is not None:
                assert isinstance(line, bytes)
                message = json.loads(line)
                kind = message["type"]
                if kind == "welcome":
                    await send({"type": "hello", "name": name, "token": token})
                elif kind == "request":
                    await send({"type": "action", "id": message["id"],
                                "action": rng.choice(message["legal"])})
                elif kind in ("error", "cancel", "bye"):
                    problems.append(f"{name}: {kind} {message}")
                elif kind == "game_end":
                    if message.get("aborted"):
                        problems.append(f"{name}: game {message['game_id']} aborted")
                    games.append((message["game_id"], message["scores"]))
                    ended += 1
                    if ended == HONEST_GAMES_PER_CONNECTION:
                        await send({"type": "bye"})
    if ended < HONEST_GAMES_PER_CONNECTION:
        problems.append(f"{name}: the connection ended after {ended} games")


async def honest_table(number: int, port: int, figures: Figures, hostile_done: trio.Event,
                       seed: str) -> None:
    """Trio after trio of honest bots at a table of their own, until the hostile lines end."""
    rng = random.Random(f"{seed}-honest-{number}")
    series = 0
    while series == 0 or not hostile_done.is_set():
        series += 1
        seen: list[list[tuple[str, list[int]]]] = [[] for _ in range(3)]
        async with trio.open_nursery() as nursery:
            for seat in range(3):
                figures.opened["honest"] += 1
                nursery.start_soon(honest_bot, port, f"honest{number}-{series}-{seat}",
                                   f"{HONEST_TOKEN}{number}/{series}/{seat}",
                                   random.Random(rng.getrandbits(64)), seen[seat],
                                   figures.honest_problems)
        figures.closed["honest bye"] += 3
        for game_id, scores in seen[0]:
            figures.honest_games[game_id] = [scores] + [
                s for other in seen[1:] for g, s in other if g == game_id]


async def clients(args: argparse.Namespace) -> Figures:
    figures = Figures(target=args.lines)
    started = time.process_time()
    hostile_done = trio.Event()
    async with trio.open_nursery() as everyone:
        for table in range(args.honest_tables):
            everyone.start_soon(honest_table, table, args.clients_for, figures, hostile_done,
                                args.seed)
        async with trio.open_nursery() as hostile:
            for worker in range(args.hostile):
                hostile.start_soon(hostile_worker, worker, args.clients_for, figures, args.seed)
        hostile_done.set()
    figures.cpu_seconds = time.process_time() - started
    return figures


# -- the server process ---------------------------------------------------------------------------


class ServerLog(logging.Handler):
    """Counts the server's ERROR records (the exceptions it caught; the first few are printed)
    and the connections it dropped, by reason (``dropping NAME: CODE``)."""

    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.errors = 0
        self.first: list[str] = []
        self.dropped: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR:
            self.errors += 1
            if len(self.first) < 5:
                self.first.append(record.getMessage())
                print(self.format(record), file=sys.stderr)
        elif record.msg == "dropping %s: %s" and isinstance(record.args, tuple):
            self.dropped[str(record.args[-1])] += 1


def logged_bot_actions(log_dir: Path) -> tuple[Counter[str], int]:
    """Answers the server took from each player (by name) in every game log; and how many
    logs there are."""
    actions: Counter[str] = Counter()
    paths = sorted([*log_dir.glob("*.jsonl"), *log_dir.glob("*.jsonl.gz")])
    for path in paths:
        records = read_log(path)
        names = records[0]["names"]
        for entry in records:
            if entry["type"] == "action" and entry["by"] == "bot":
                actions[names[entry["seat"]]] += 1
    return actions, len(paths)


def honest_problems(server: ArenaServer, seen: dict[str, Any]) -> list[str]:
    """Each honest game: the same scores seen by the three bots, no error, no default, no
    abort, a log written."""
    problems = list(seen["honest_problems"])
    records = {r.game_id: r for r in server.records}
    for game_id, scores in seen["honest_games"].items():
        if len(scores) != 3 or any(s != scores[0] for s in scores):
            problems.append(f"{game_id}: the honest bots saw different scores {scores}")
        game = records.get(game_id)
        if game is None:
            problems.append(f"{game_id}: no record")
            continue
        if game.aborted or any(game.errors) or any(game.defaults):
            problems.append(f"{game_id}: aborted={game.aborted} errors={game.errors} "
                            f"defaults={game.defaults}")
        if game.log_path is None or not Path(game.log_path).exists():
            problems.append(f"{game_id}: no log written")
    return problems


async def serve_and_measure(args: argparse.Namespace, log_dir: Path) -> int:
    spec = get_game("chochlik")
    config = ServerConfig(spec=spec, options=spec.parse_options(GAME_OPTIONS), port=0,
                          log_dir=log_dir, seed=f"hostile-{args.seed}")
    server = ArenaServer(config, seating=SplitSeating(config.options.players))
    server_log = ServerLog()
    logger = logging.getLogger("arena.server")
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(server_log)
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve)
            started, cpu_started = time.monotonic(), time.process_time()
            command = [sys.executable, __file__, "--clients-for", str(port), "--lines",
                       str(args.lines), "--hostile", str(args.hostile), "--honest-tables",
                       str(args.honest_tables), "--seed", args.seed]
            done = None
            with trio.move_on_after(RUN_LIMIT):  # on a hang the client process is killed
                done = await trio.run_process(command, capture_stdout=True, check=False)
            elapsed, cpu = time.monotonic() - started, time.process_time() - cpu_started
            await server.shutdown()
    finally:
        logger.removeHandler(server_log)
        logger.setLevel(level)
    if done is None or done.returncode != 0:
        why = "ran out of time" if done is None else f"ended with status {done.returncode}"
        print(f"FAILED: the client process {why}", file=sys.stderr)
        return 1
    seen = json.loads(done.stdout)
    return report(args, server, seen, server_log, log_dir, elapsed, cpu)


def report(args: argparse.Namespace, server: ArenaServer, seen: dict[str, Any],
           server_log: ServerLog, log_dir: Path, elapsed: float, cpu: float) -> int:
    actions, logs = logged_bot_actions(log_dir)
    logged = Counter({n: k for n, k in actions.items() if n.startswith("hostile")})
    legal = {name: tuple(pair) for name, pair in seen["legal_answers"].items()}
    accepted = sum(taken for taken, _ in legal.values())
    # taken by the replies' account <= taken by the logs <= that and the unknown ones
    acceptance_differs = sorted(
        name for name in set(logged) | set(legal)
        if not legal.get(name, (0, 0))[0] <= logged[name] <= sum(legal.get(name, (0, 0))))
    honest = honest_problems(server, seen)
    internal = sum(r.aborted == "internal_error" for r in server.records)
    replies: dict[str, int] = seen["replies"]
    rows: list[tuple[str, Any]] = [
        ("hostile lines sent (counted)", seen["counted"]),
        ("hostile lines answered", seen["answered"]),
        ("hostile lines unanswered", sum(seen["unanswered"].values())),
    ]
    rows += [(f"  {why}", n) for why, n in sorted(seen["unanswered"].items())]
    rows += [
        ("  answered with the wrong code", len(seen["mismatched"])),
        ("  replies to no line", seen["extra_replies"]),
        ("  too_fast before the burst allowance was spent", seen["early_too_fast"]),
        ("legal answers taken: by the replies / unknown (no reply) / in the logs",
         f"{accepted} / {sum(unknown for _, unknown in legal.values())} / "
         f"{sum(logged.values())}"),
        ("lines not counted: after a fatal error, or hung up on", seen["not_counted"]),
        ("lines not counted: no reply, the server reset the connection",
         seen["lost_to_reset"]),
    ]
    rows += [(f"  reply {code}", n) for code, n in sorted(replies.items())]
    rows += [(f"  cancel {reason} (hostile seats)", n)
             for reason, n in sorted(seen["cancels"].items())]
    rows += [("server lines received by hostile clients (any type)", seen["server_lines"]),
             ("unsolicited errors", sum(seen["unsolicited"].values()))]
    rows += [(f"connections opened: {kind}", n) for kind, n in sorted(seen["opened"].items())]
    rows += [(f"  hostile behaviour {kind}", n) for kind, n in sorted(seen["behaviours"].items())]
    rows += [(f"connections closed: {why}", n) for why, n in sorted(seen["closed"].items())]
    rows += [
        ("connections the server never closed", len(seen["not_closed"])),
        ("honest games finished", len(seen["honest_games"])),
        ("honest games with an error, cancel, default or abort", len(honest)),
        ("games logged (all tables)", logs),
        ("connections the server dropped", dict(server_log.dropped) or 0),
        ("server exceptions (arena.edge.server ERROR records)", server_log.errors),
        ("games aborted with internal_error", internal),
        ("elapsed wall time", f"{elapsed:.1f} s"),
        ("server process CPU time", f"{cpu:.1f} s"),
        ("client process CPU time", f"{seen['cpu_seconds']:.1f} s"),
        ("hostile lines per second", f"{seen['counted'] / elapsed:,.0f}"),
    ]
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    failures = []
    if server_log.errors:
        failures.append(f"server exceptions: {server_log.first}")
    if seen["unanswered"]:
        failures.append(f"lines without a reply: {seen['unanswered']}")
    if seen["extra_replies"] or seen["mismatched"]:
        failures.append(f"{len(seen['mismatched'])} lines answered with the wrong code "
                        f"{seen['mismatched'][:3]}, {seen['extra_replies']} replies to no line")
    if seen["lost_to_reset"]:
        failures.append("the server reset connections before its last replies were read")
    if seen["early_too_fast"]:
        failures.append("too_fast came before the burst allowance was spent (or replies to "
                        "lines before it were lost)")
    if acceptance_differs:
        failures.append(f"legal answers taken differ from the logs: {acceptance_differs[:5]}")
    if seen["not_closed"]:
        failures.append(f"connections the server kept open after their end: "
                        f"{seen['not_closed'][:5]}")
    if seen["unsolicited"] or internal:
        failures.append("unsolicited errors, or games aborted with internal_error")
    if seen["slow_replies"]:
        failures.append(f"no reply within {REPLY_PATIENCE:g} s: {seen['slow_replies'][:5]}")
    if seen["silent_closes"]:
        failures.append(f"connections closed by the server without a word: "
                        f"{seen['silent_closes'][:5]}")
    if honest or not seen["honest_games"]:
        failures.append(f"honest games: {honest[:5] or 'none finished'}")
    if seen["counted"] < args.lines:
        failures.append(f"only {seen['counted']} of {args.lines} lines counted")
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000, help="hostile lines to send")
    parser.add_argument("--hostile", type=int, default=8, help="hostile connections at once")
    parser.add_argument("--honest-tables", type=int, default=4,
                        help="tables of honest bots playing meanwhile")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--clients-for", type=int, metavar="PORT",
                        help=argparse.SUPPRESS)  # the client process: connect to this port
    args = parser.parse_args()
    if args.clients_for is not None:
        figures = trio.run(clients, args)
        print(json.dumps(attrs.asdict(figures)))
        return
    with tempfile.TemporaryDirectory() as folder:
        status = trio.run(serve_and_measure, args, Path(folder) / "logs")
    sys.exit(status)


if __name__ == "__main__":
    main()
