"""Adversarial bots at a table with two honest ones (tests/adversarial.py).  Whatever the
adversary does, the honest bots' game ends normally with the same scores for both, with no
error and no default against them, and it is logged; the adversary gets the reason codes
SPEC.md §4 documents; the server logs no error and aborts no game with ``internal_error``."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import pytest
import trio

from arena.edge.server import ArenaServer
from arena.gameplay.gamelog import log_lines
from arena.gameplay.records import GameRecord
from protocol.limits import MAX_LINE_BYTES
from tests import adversarial
from tests.adversarial import Adversary
from tests.helpers import LineClient, connect_in_memory, connect_tcp, make_server

MOVE_TIMEOUT = 5.0  # make_server's


@attrs.define
class Outcome:
    """What one table gave: the behaviour's result, the honest bots' game_end lines, the record
    of their game and the adversary's seat in it."""

    result: Any
    honest_ends: list[dict[str, Any]]
    record: GameRecord
    adversary_seat: int


async def play_table(server: ArenaServer, adversary: Adversary, honest: list[LineClient],
                     behaviour: Callable[[Adversary], Awaitable[Any]], *,
                     time_limit: float = 600.0) -> Outcome:
    """The adversary's behaviour and the honest bots' random play, side by side, to the end of
    the honest bots' game (within ``time_limit`` seconds: a reply that never comes fails the
    test instead of hanging it; under a MockClock at once); then the checks every table must
    pass."""
    ends: dict[int, dict[str, Any]] = {}
    result: list[Any] = []

    async def honest_bot(index: int, client: LineClient) -> None:
        ends[index] = await client.play_randomly(random.Random(index))

    async def adversary_bot() -> None:
        result.append(await behaviour(adversary))

    with trio.fail_after(time_limit):
        async with trio.open_nursery() as table:
            for index, client in enumerate(honest):
                table.start_soon(honest_bot, index, client)
            table.start_soon(adversary_bot)
    honest_ends = [ends[i] for i in sorted(ends)]
    record = check_honest_game(server, honest_ends)
    (adversary_seat,) = [s for s, name in enumerate(record.names) if name == "adversary"]
    return Outcome(result[0], honest_ends, record, adversary_seat)


def check_honest_game(server: ArenaServer, ends: list[dict[str, Any]]) -> GameRecord:
    """The honest bots' game ended normally, both saw the same result, nothing was held against
    them, it is logged; and no game of the server failed."""
    assert len(ends) == 2 and not any(end.get("aborted") for end in ends)
    assert ends[0]["game_id"] == ends[1]["game_id"] and ends[0]["scores"] == ends[1]["scores"]
    (record,) = [r for r in server.records if r.game_id == ends[0]["game_id"]]
    assert record.aborted is None and list(record.scores) == ends[0]["scores"]
    honest_seats = [seat for seat, name in enumerate(record.names) if name.startswith("honest")]
    assert len(honest_seats) == 2
    assert all(record.errors[seat] == 0 and record.defaults[seat] == 0 for seat in honest_seats)
    assert record.log_path is not None and record.log_path.exists()
    assert not any(r.aborted == "internal_error" for r in server.records)
    return record


def log_records(record: GameRecord) -> list[dict[str, Any]]:
    assert record.log_path is not None
    return [json.loads(line) for line in log_lines(record.log_path)]


@pytest.fixture(autouse=True)
def no_server_errors(caplog):
    """Fails the test if the server logged an error (an exception it caught)."""
    yield
    assert not [r for r in caplog.get_records("call")
                if r.name.startswith("arena") and r.levelno >= logging.ERROR]


async def seated_in_memory(nursery, tmp_path) -> tuple[ArenaServer, Adversary, list[LineClient]]:
    """A server and one table: the adversary (arriving first, so at seat 0) and two honest
    bots, over in-memory streams."""
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    adversary = Adversary(await connect_in_memory(nursery, server))
    honest = [await connect_in_memory(nursery, server) for _ in range(2)]
    await adversary.client.hello("adversary")
    for index, client in enumerate(honest):
        await client.hello(f"honest{index}")
    return server, adversary, honest


async def test_garbage_lines_each_get_their_code_and_the_garbage_bot_plays_on(
        nursery, tmp_path, autojump_clock):
    server, adversary, honest = await seated_in_memory(nursery, tmp_path)
    outcome = await play_table(server, adversary, honest, adversarial.send_garbage)
    assert outcome.result == [code for _, code in adversarial.GARBAGE]
    assert not adversary.closed and adversary.end == outcome.honest_ends[0]
    # three bad lines cost the open request's three tries: the server played for the bot
    assert outcome.record.errors[outcome.adversary_seat] == len(adversarial.GARBAGE)
    assert {c["reason"] for c in adversary.cancels} == {"too_many_tries"}
    assert outcome.record.defaults[outcome.adversary_seat] == len(adversary.cancels) >= 1


async def test_a_silent_bot_times_out_on_every_request(nursery, tmp_path, autojump_clock):
    server, adversary, honest = await seated_in_memory(nursery, tmp_path)
    outcome = await play_table(server, adversary, honest, adversarial.stay_silent)
    waited = outcome.result
    assert len(waited) == len(adversary.requests) >= 1
    assert all(seconds == pytest.approx(MOVE_TIMEOUT) for seconds in waited)
    assert {c["reason"] for c in adversary.cancels} == {"timeout"}
    legal = {r["id"]: r["legal"] for r in adversary.requests}
    assert all(c["played"] in legal[c["id"]] for c in adversary.cancels)
    assert outcome.record.defaults[outcome.adversary_seat] == len(adversary.requests)
    assert not adversary.errors


async def test_a_late_answer_is_stale_and_never_applied(nursery, tmp_path, autojump_clock):
    server, adversary, honest = await seated_in_memory(nursery, tmp_path)
    outcome = await play_table(server, adversary, honest, adversarial.answer_late)
    notices = outcome.result
    assert [n["code"] for n in notices] == ["stale_request"] * len(adversary.requests)
    assert [n["id"] for n in notices] == [r["id"] for r in adversary.requests]
    assert not any(n["fatal"] or "tries_left" in n for n in notices)  # it costs nothing
    seat = outcome.adversary_seat
    actions = [r for r in log_records(outcome.record) if r["type"] == "action"
               and r["seat"] == seat]
    assert actions and all(a["by"] == "default" and a["reason"] == "timeout" for a in actions)
    assert outcome.record.errors[seat] == 0


async def test_a_second_answer_to_the_same_request_is_stale(nursery, tmp_path, autojump_clock):
    server, adversary, honest = await seated_in_memory(nursery, tmp_path)
    outcome = await play_table(server, adversary, honest, adversarial.answer_twice)
    notices = outcome.result
    assert [n["code"] for n in notices] == ["stale_request"] * len(adversary.requests)
    assert [n["id"] for n in notices] == [r["id"] for r in adversary.requests]
    assert not adversary.cancels
    seat = outcome.adversary_seat
    assert outcome.record.defaults[seat] == 0 and outcome.record.errors[seat] == 0


async def test_answers_with_ids_never_sent_cost_tries(nursery, tmp_path, autojump_clock):
    server, adversary, honest = await seated_in_memory(nursery, tmp_path)
    outcome = await play_table(server, adversary, honest, adversarial.answer_with_wrong_ids)
    errors = outcome.result
    assert {e["code"] for e in errors} == {"wrong_request_id"}
    first = adversary.requests[0]["id"]
    assert [(e["id"], e["tries_left"]) for e in errors[:3]] == [(first, 2), (first, 1),
                                                                (first, 0)]
    assert adversary.cancels == [{"type": "cancel", "id": first, "reason": "too_many_tries",
                                  "played": adversary.cancels[0]["played"]}]
    assert adversary.cancels[0]["played"] in adversary.requests[0]["legal"]
    # every later request: one wrong id (it names the open request), then the right answer
    later = [r["id"] for r in adversary.requests[1:]]
    assert [(e["id"], e["tries_left"]) for e in errors[3:]] == [(i, 2) for i in later]
    seat = outcome.adversary_seat
    assert outcome.record.defaults[seat] == 1 and outcome.record.errors[seat] == len(errors)


async def test_huge_lines_are_dropped_and_the_connection_goes_on(nursery, tmp_path,
                                                                 autojump_clock):
    server, adversary, honest = await seated_in_memory(nursery, tmp_path)

    async def huge_lines(adversary: Adversary) -> list[dict[str, Any]]:
        return await adversarial.send_huge_lines(adversary, MAX_LINE_BYTES)

    outcome = await play_table(server, adversary, honest, huge_lines)
    first, second = adversary.requests[0]["id"], adversary.requests[1]["id"]
    assert [(e["code"], e["id"], e["tries_left"]) for e in outcome.result] == [
        ("line_too_long", first, 2), ("line_too_long", first, 1),
        ("unknown_message", second, 2)]  # a line of exactly the limit is read as usual
    assert not adversary.cancels and not adversary.closed
    assert outcome.record.defaults[outcome.adversary_seat] == 0


async def test_a_bot_that_hangs_up_mid_game_is_played_by_the_default_policy(
        nursery, tmp_path, autojump_clock):
    server, adversary, honest = await seated_in_memory(nursery, tmp_path)
    outcome = await play_table(server, adversary, honest, adversarial.disconnect_mid_game)
    seat = outcome.adversary_seat
    records = log_records(outcome.record)
    assert {"type": "note", "seat": seat, "what": "disconnected"} in records
    defaults = [r for r in records if r["type"] == "action" and r["seat"] == seat]
    assert defaults and all(r["by"] == "default" and r["reason"] == "disconnected"
                            for r in defaults)
    assert outcome.record.defaults[seat] == len(defaults)


async def seated_over_tcp(nursery, tmp_path, **config: Any) -> tuple[ArenaServer, Adversary,
                                                                     list[LineClient]]:
    """As :func:`seated_in_memory`, over TCP (``config``: server settings to change)."""
    server = make_server(tmp_path)
    if config:
        server = ArenaServer(attrs.evolve(server.config, **config), seating=server.seating)
    port = await nursery.start(server.serve)
    adversary = Adversary(await connect_tcp(port))
    honest = [await connect_tcp(port) for _ in range(2)]
    await adversary.client.hello("adversary")
    for index, client in enumerate(honest):
        await client.hello(f"honest{index}")
    return server, adversary, honest


async def test_connections_beyond_the_per_address_limit_are_refused(nursery, tmp_path):
    limit = 5
    server, adversary, honest = await seated_over_tcp(nursery, tmp_path,
                                                      max_connections_per_address=limit)
    port = server.port

    async def crowd_then_play(adversary: Adversary) -> Any:
        crowd = await adversarial.crowd_the_door(port, limit)  # 3 are in already
        await adversary.play_out()
        return crowd

    outcome = await play_table(server, adversary, honest, crowd_then_play, time_limit=30.0)
    welcomed, refused = outcome.result
    assert len(welcomed) == limit - 3 and len(refused) == 3
    assert all(r["type"] == "error" and r["code"] == "too_many_connections" and r["fatal"]
               for r in refused)
    assert server.per_address == {"127.0.0.1": limit}
    for client in welcomed:
        await client.stream.aclose()
