"""The ladder's hosted pool (:mod:`arena.launch.hosted_pool`) against a hostile bot's output
(the pool as a whole is tried through ``arena serve``: tests/cli/test_serve_hosted.py)."""

from __future__ import annotations

import types
from pathlib import Path

import trio
import trio.testing

from arena.launch.hosted_pool import OUTPUT_BYTES_PER_SECOND, HostedPool
from arena.launch.hosted_run import OUTPUT_KEPT_BYTES

CHUNK = 64 * 1024


class Flood(trio.abc.ReceiveStream):
    """A bot's standard error written as fast as it goes: ``chunks`` chunks, then its end."""

    def __init__(self, chunks: int) -> None:
        self.left = chunks

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        if self.left == 0:
            return b""
        self.left -= 1
        return b"x" * CHUNK

    async def aclose(self) -> None:
        pass


def test_a_bot_flooding_its_standard_error_is_read_no_faster_than_the_rate(tmp_path: Path):
    """A bot writing its standard error without end would hold the server's one thread
    copying it (a core, measured: 570 MB/s read); the pool reads it at
    OUTPUT_BYTES_PER_SECOND at most (the bot waits on its full pipe), and keeps its end."""
    chunks = 200
    proc = types.SimpleNamespace(output=tmp_path / "out" / "v.log",
                                 process=types.SimpleNamespace(stderr=Flood(chunks)))
    took: list[float] = []

    async def main() -> None:
        began = trio.current_time()
        await HostedPool._keep_output(types.SimpleNamespace(), proc)  # type: ignore[arg-type]
        took.append(trio.current_time() - began)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert took[0] >= (chunks - 1) * CHUNK / OUTPUT_BYTES_PER_SECOND
    assert proc.output.read_bytes() == b"x" * OUTPUT_KEPT_BYTES


def test_a_process_to_stop_while_the_server_stops_is_killed_not_scheduled():
    """The ladder's last game over (``--games``), the server stops: its tasks' nursery takes no
    new task, and a hosted process the pool then stops between its games is killed at once
    (it was told bye with the others) instead of given a grace task the server can no longer
    run (that crashed ``arena serve`` with a traceback and status 1, once in a CI run)."""
    killed: list[bool] = []

    def closed(*_: object) -> None:
        raise RuntimeError("Nursery is closed to new arrivals")

    stage = types.SimpleNamespace(shutting_down=True, start_soon=closed)
    server = types.SimpleNamespace(stage=stage, dismiss=lambda session: True)
    process = types.SimpleNamespace(returncode=None, kill=lambda: killed.append(True))
    proc = types.SimpleNamespace(token="t", process=process)
    pool = types.SimpleNamespace(server=server, tokens=types.SimpleNamespace(names={"t": "h1"}),
                                 _sessions=dict, _end=None)
    HostedPool._stop_if_free(pool, proc)  # type: ignore[arg-type]
    assert killed == [True] and pool.tokens.names == {}
