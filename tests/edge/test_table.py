"""One table's task: every line a bot sends gets a reply, also as the game ends."""

from __future__ import annotations

import json

import trio

from arena.edge.session import Session
from arena.edge.table import Answer, BadLine, Table
from arena.gameplay.driver import MatchDriver
from arena.games import get_game
from arena.seating.policies import SeatedTable
from protocol.connection import ServerConnection
from protocol.errors import ErrorCode, PeerError
from protocol.messages import Action, Welcome


def queued_lines(session: Session) -> list[bytes]:
    return b"".join(session.link.take_queued()).splitlines()


async def test_lines_queued_as_the_game_ends_all_get_a_reply():
    spec = get_game("chochlik")
    session = Session(1, ServerConnection(game="chochlik"))
    session.send(Welcome(protocol=1, server="arena", game="chochlik", players=3, limits={}))
    session.requests.next_id()  # request 1 was sent to this bot earlier
    driver = MatchDriver(spec, spec.parse_options({"players": 3, "hands": 1}), "s",
                         ["a", "b", "c"], game_id="g", table=1, move_timeout=5.0)
    table = Table(SeatedTable(1, (session, None, None), ("a", "b", "c"), (None,) * 3), driver,
                  [session, None, None])
    driver.abort("server_shutdown", 0.0)  # the game ends with these lines still queued
    assert table.put_nowait(BadLine(session, PeerError(ErrorCode.MALFORMED, "not JSON")))
    assert table.put_nowait(Answer(session, Action(id=1, action="imp 5")))
    await table.run()
    replies = [json.loads(line) for line in queued_lines(session)]
    codes = [r.get("code") for r in replies if r["type"] == "error"]
    assert codes == ["malformed", "stale_request"]
    # and a line that comes after the table closed gets one too
    await table.put(BadLine(session, PeerError(ErrorCode.MALFORMED, "late")))
    (late,) = [json.loads(line) for line in queued_lines(session)]
    assert late["code"] == "malformed"


class StubDriver:
    """A driver whose answer opens a request with a nearer deadline than the one the table
    waits for: seat 0 gets 10 s, then seat 1 gets 1 s."""

    table = 7
    watched = False

    def __init__(self) -> None:
        self.finished = False
        self.deadlines: dict[int, float] = {}
        self.expired_at: list[float] = []

    def start(self, now):
        self.deadlines[0] = now + 10.0
        self.deadlines[1] = now + 10.0
        return []

    def answer(self, seat, request_id, action, now):
        del self.deadlines[seat]
        self.deadlines[2] = now + 1.0
        return []

    def next_deadline(self):
        return min(self.deadlines.values(), default=None)

    def expire(self, now):
        self.expired_at.append(now)
        self.finished = True
        return []

    def full_view(self):
        return []


async def test_an_answer_played_at_once_moves_the_tables_wait_to_a_nearer_deadline(
        autojump_clock):
    sessions = [Session(n, ServerConnection(game="chochlik")) for n in range(3)]
    driver = StubDriver()
    table = Table(SeatedTable(1, tuple(sessions), ("a", "b", "c"), (None,) * 3),
                  driver, sessions)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        await trio.sleep(0.5)  # the table now waits for seat 0 or 1 (10 s)
        await table.put(Answer(sessions[0], Action(id=1, action="x")))
    assert driver.expired_at == [1.5]  # seat 2's second, not seat 1's ten


class SlidingDriver(StubDriver):
    """Every answer closes the seat's request and opens the next one, due 1 s later."""

    def start(self, now):
        self.deadlines[0] = now + 1.0
        return []

    def answer(self, seat, request_id, action, now):
        self.deadlines[0] = now + 1.0
        return []

    def expire(self, now):
        self.expired_at.append(now)
        self.finished = min(self.deadlines.values()) <= now
        return []


async def test_a_table_whose_bots_answer_in_time_is_never_woken_by_a_passed_deadline(
        autojump_clock):
    """The table's wait follows the open requests' deadline, later ones too: a table whose
    bots answer every half second never wakes for a deadline that was already met (with 1,000
    bots at a few decisions a second per table, such wake-ups cost a third of a wake per
    decision)."""
    sessions = [Session(n, ServerConnection(game="chochlik")) for n in range(3)]
    driver = SlidingDriver()
    table = Table(SeatedTable(1, tuple(sessions), ("a", "b", "c"), (None,) * 3),
                  driver, sessions)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        for number in range(10):
            await trio.sleep(0.5)
            await table.put(Answer(sessions[0], Action(id=number + 1, action="x")))
    assert driver.expired_at == [6.0]  # only the last request's deadline, 1 s after 5.0


async def test_a_wait_kept_for_fast_answers_still_ends_at_the_deadline(autojump_clock):
    """Answers that come fast (a twentieth of the limit) do not move the table's wait every
    time; when they stop, the timeout is still played at its deadline (after at most one
    wake-up for nothing), never later."""
    import pytest

    sessions = [Session(n, ServerConnection(game="chochlik")) for n in range(3)]
    driver = SlidingDriver()
    table = Table(SeatedTable(1, tuple(sessions), ("a", "b", "c"), (None,) * 3),
                  driver, sessions)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        for number in range(20):
            await trio.sleep(0.05)
            await table.put(Answer(sessions[0], Action(id=number + 1, action="x")))
        last = trio.current_time()
    assert driver.expired_at[-1] == pytest.approx(last + 1.0)
    assert len(driver.expired_at) <= 2 and all(t > 1.8 for t in driver.expired_at)
