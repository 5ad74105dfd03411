"""A token the runner has given out (its file written) but not yet bound to its process: a
hello with it waits for the binding, so a sibling that read the file in that moment is judged
by the process check, not let through as a token "never bound" (found by CI under load: the
thief of test_bot_isolation took random-2's seat, and random-2 got token_not_yours' twin,
token_in_use)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import trio.testing

from arena.edge.peer_process import ProcessBinding
from arena.seating.policies import RosterEntry
from tests.helpers import connect_tcp, make_server

TOKENS = ("t0-" + "a" * 20, "t1-" + "b" * 20, "t2-" + "c" * 20)
ROSTER = tuple(RosterEntry(f"bot{i}", token) for i, token in enumerate(TOKENS))


def _server(tmp_path: Path):
    binding = ProcessBinding()
    if not binding.available:
        pytest.skip("no /proc/net/tcp here: tokens alone decide")
    server = make_server(tmp_path, roster=ROSTER)
    server.binding = binding
    return server, binding


@pytest.fixture
def other_process() -> Iterator[int]:
    """The pid of a process that is not this one (the token's real owner)."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    yield other.pid
    other.kill()
    other.wait()


async def test_a_sibling_with_a_token_not_yet_bound_is_refused_once_it_is(
        tmp_path: Path, other_process: int):
    server, binding = _server(tmp_path)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve)
            binding.expect(TOKENS[0])  # given out, its process not started yet
            thief = await connect_tcp(port)  # this process is not the token's
            await thief.hello("bot0", token=TOKENS[0])
            await trio.testing.wait_all_tasks_blocked()
            binding.bind(TOKENS[0], other_process)  # the runner binds the real process
            refused = await thief.until("error")
            assert refused["code"] == "token_not_yours" and refused["fatal"]
            nursery.cancel_scope.cancel()


async def test_the_bots_own_early_hello_waits_and_is_admitted(tmp_path: Path):
    server, binding = _server(tmp_path)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve)
            binding.expect(TOKENS[0])
            own = await connect_tcp(port)  # this process: the token's own, bound late
            await own.hello("bot0", token=TOKENS[0])
            await trio.testing.wait_all_tasks_blocked()
            binding.bind(TOKENS[0], os.getpid())
            for i in (1, 2):  # tokens never given out by a runner: the token alone decides
                bot = await connect_tcp(port)
                await bot.hello(f"bot{i}", token=TOKENS[i])
            start = await own.until("game_start")
            assert "bot0" in start["names"]
            assert not server.refusals
            nursery.cancel_scope.cancel()
