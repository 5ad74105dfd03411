"""Ctrl-C on real ``arena worker`` and ``arena web`` processes, taken as ``arena serve`` takes
it (``arena.edge.signals``): the first drains the worker (or stops the pages), and signals that
come while it stops are neither lost nor a traceback (trio's own receiver re-delivered those
after its block: a ``KeyboardInterrupt``, or a SIGTERM that killed the process)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from arena.events.storage import SqliteStorage
from tests.launch.test_tournament import pickers
from tests.launch.test_worker_faults import mid_game, slow_bot
from tests.launch.test_worker_processes import WORKERS_DONE, plan_event, start_worker
from tests.serve_harness import Lines


def test_ctrl_c_drains_a_worker_and_signals_while_it_stops_print_no_traceback(
        tmp_path, pg_url, monkeypatch):
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")  # its lines as they are said
    plan_event(pg_url, pickers(tmp_path), sets=1)
    bot, fifo = slow_bot(tmp_path)
    worker = start_worker(pg_url, tmp_path / "w", bot)
    try:
        lines = Lines(worker.stdout)
        mid_game(fifo)
        worker.send_signal(signal.SIGINT)
        lines.expect(r"finishing the running games, then stopping")
        worker.send_signal(signal.SIGINT)  # while it drains: stops at once
        lines.expect(r"stopping now")
        worker.send_signal(signal.SIGTERM)  # while it stops: dropped
        worker.send_signal(signal.SIGINT)
        assert worker.wait(timeout=WORKERS_DONE) == 130
    finally:
        worker.kill()
    output = "\n".join(lines.seen + lines.rest(WORKERS_DONE))
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output


def test_ctrl_c_stops_the_pages_and_one_more_while_they_stop_is_no_traceback(tmp_path):
    db = tmp_path / "event.db"
    SqliteStorage(db).write_event({"game": "chochlik", "seed": "x"}, [("a", "x"), ("b", "y")])
    web = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1",
             "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        lines = Lines(web.stdout)
        lines.expect(r"^arena: the pages of .* Ctrl-C stops")
        web.send_signal(signal.SIGINT)
        web.send_signal(signal.SIGTERM)  # while they stop: dropped
        assert web.wait(timeout=WORKERS_DONE) == 0
    finally:
        web.kill()
    output = "\n".join(lines.seen + lines.rest(WORKERS_DONE))
    assert "arena: stopped" in output and "Traceback" not in output, output
