"""Fuzz: a bot that sends anything at all (bytes, broken JSON, wrong ids, huge numbers, floods)
shares a table with two honest bots.  The server never fails, and the honest bots' game is
played to its end, logged, and replays."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.gameplay.replay import replay_log
from tests.helpers import connect_in_memory, make_server

LINES = st.one_of(
    st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" ")),
    st.text(max_size=100).map(lambda t: t.replace("\n", " ").encode()),
    st.builds(lambda i, a: json.dumps({"type": "action", "id": i, "action": a}).encode(),
              st.integers(-(2**70), 2**70), st.text(max_size=20)),
    st.sampled_from([b'{"type":"hello","name":"again"}', b'{"type":"bye"}', b"[]", b"{}",
                     b'{"type":"action","id":1e400,"action":"x"}', b'{"a":NaN}',
                     b'{"type":"action","id":1,"action":"x","action":"y"}', b"\r", b" "]),
)


async def one_table(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = make_server(Path(folder))
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve, False)
            hostile = await connect_in_memory(nursery, server)
            honest = [await connect_in_memory(nursery, server) for _ in range(2)]
            await hostile.hello("hostile")
            for i, client in enumerate(honest):
                await client.hello(f"honest{i}")
            ends = []

            async def play(i, client):
                ends.append(await client.play_randomly(random.Random(i)))

            async def attack():
                await hostile.until("game_start")  # seated: its lines reach the table
                for line in lines:
                    try:
                        await hostile.send(line + b"\n")
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        return

            async with trio.open_nursery() as players:
                for i, client in enumerate(honest):
                    players.start_soon(play, i, client)
                players.start_soon(attack)
            assert len(ends) == 2 and not ends[0].get("aborted")
            assert ends[0]["scores"] == ends[1]["scores"]
            await server.shutdown()
        assert not any(r.aborted == "internal_error" for r in server.records)
        record = min(server.records, key=lambda r: r.number)  # the game the honest bots played
        assert not record.aborted and record.log_path is not None
        assert replay_log(record.log_path).startswith("scores")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, max_size=60))
def test_hostile_lines_never_break_the_server_or_an_honest_game(lines):
    trio.run(one_table, lines, clock=trio.testing.MockClock(autojump_threshold=0))
