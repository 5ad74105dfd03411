"""A ladder keeps its players through its own restart: ``arena serve --db`` stopped with Ctrl-C
tells its bots ``bye`` ``server_restart``, and the reference bots come back by themselves to the
new server, with no bot process restarted; ``--final`` tells them the ladder is over."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_bots_command import add
from tests.serve_harness import Client, Served

NAMES = ("ann", "bea", "cid", "dot", "eve", "fay")

#: Seconds after the new server's banner by which every bot must be seated again (issue 30).
BACK_WITHIN = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def seated_all(served: Served, names: set[str]) -> float:
    """Wait until a table has seated each of ``names`` (the server's ``-v`` lines); the
    seconds it took."""
    start, missing = time.monotonic(), set(names)
    while missing:
        line = served.err.expect(r"arena\.server: table \d+: (.*)$").group(1)
        missing -= {name.strip() for name in line.split(",")}
    return time.monotonic() - start


@pytest.fixture
def bots() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    try:
        yield started
    finally:
        for bot in started:
            if bot.poll() is None:
                bot.kill()
            bot.wait(timeout=30)


def test_a_ladders_bots_come_back_after_its_restart(tmp_path: Path,
                                                   bots: list[subprocess.Popen[bytes]]):
    db = tmp_path / "ladder.db"
    tokens = {name: add(db, name) for name in NAMES}
    port = free_port()
    game = ("--game", "chochlik", "--hands", "1", "--db", str(db), "--port", str(port))
    with Served(tmp_path, *game, "--quiet", verbose=True) as served:
        for name, token in tokens.items():
            bots.append(subprocess.Popen(
                [sys.executable, "-m", "reference_bots.random", "--port", str(port),
                 "--name", name, "--token", token],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        seated_all(served, set(NAMES))
        assert served.interrupt() == 0
        said = "\n".join(served.out.rest())
    assert [bot.poll() for bot in bots] == [None] * len(NAMES)  # waiting, not gone
    assert "the bots are told to come back" in said
    with Served(tmp_path, *game, "--quiet", verbose=True) as again:
        took = seated_all(again, set(NAMES))
        assert took < BACK_WITHIN, f"every bot seated again after {took:.1f} s"
        assert [bot.poll() for bot in bots] == [None] * len(NAMES)  # the same processes
        assert again.interrupt() == 0


def test_a_final_stop_tells_the_bots_the_ladder_is_over(tmp_path: Path):
    db = tmp_path / "ladder.db"
    token = add(db, "ann")
    with Served(tmp_path, "--game", "chochlik", "--db", str(db), "--final") as served:
        client = served.client("ann", token=token)
        served.process.send_signal(2)  # Ctrl-C
        bye = client.expect("bye")
        assert bye["reason"] == "server_shutdown" and "retry_ms" not in bye
        assert served.process.wait(timeout=30) == 0


def test_a_restarting_ladder_says_when_to_come_back(tmp_path: Path):
    db = tmp_path / "ladder.db"
    token = add(db, "ann")
    with Served(tmp_path, "--game", "chochlik", "--db", str(db)) as served:
        client: Client = served.client("ann", token=token)
        served.process.send_signal(2)  # Ctrl-C
        bye = client.expect("bye")
        assert bye["reason"] == "server_restart" and bye["retry_ms"] > 0, bye
        assert served.process.wait(timeout=30) == 0
