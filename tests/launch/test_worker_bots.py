"""``arena worker`` keeps its bots running across the batches it claims, as a user sees it: each
bot process starts once however many batches are played, a bot that crashes is started again
at once, and one that leaves its connection while its process runs is started again at the
next batch; every planned game is stored once either way.  Each bot writes a line to a file
when its process starts."""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from arena.events.pg_storage import PostgresStorage
from tests.launch.test_tournament import PICKER, pickers
from tests.launch.test_worker_processes import WORKERS_DONE, plan_event, start_worker

START = '''pick = int(sys.argv[1])
open(os.path.join(sys.argv[2], f"{pick}-{os.getpid()}"), "w").close()
first_run = sum(name.startswith(f"{pick}-") for name in os.listdir(sys.argv[2])) == 1
requests = 0
'''
REQUEST = '''    elif msg["type"] == "request":'''
#: On its first run, after 5 requests: "crash" exits, "leave" says bye (mid-game) and waits.
TROUBLE = REQUEST + '''
        requests += 1
        if first_run and requests == 5 and "crash" in sys.argv[3:]:
            sys.exit(3)
        if first_run and requests == 5 and "leave" in sys.argv[3:]:
            out.write(b'{"type": "bye"}\\n')
            out.flush()
            import time; time.sleep(120)'''
COUNTED = PICKER.replace("pick = int(sys.argv[1])\n", START).replace(REQUEST, TROUBLE)


def counted_bots(tmp_path: Path, trouble: dict[int, str] | None = None) -> tuple[list[str],
                                                                                  Path]:
    """``--bot`` options giving each picker the counted command (with its trouble), and the
    folder of the starts (a file ``PICK-PID`` each)."""
    script, starts = tmp_path / "counted.py", tmp_path / "starts"
    starts.mkdir()
    script.write_text(COUNTED)
    return [f"--bot=pick{k}={sys.executable} {script} {k} {starts} "
            f"{(trouble or {}).get(k, '')}".rstrip() for k in (0, 1, 2, 5)], starts


def ended(worker: subprocess.Popen, starts: Path) -> str:
    """Its output once it ended (it and its bots killed if it has not within the bound)."""
    try:
        return worker.communicate(timeout=WORKERS_DONE)[0]
    except subprocess.TimeoutExpired:
        worker.kill()
        for start in starts.iterdir():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(start.name.split("-")[1]), signal.SIGKILL)
        raise AssertionError("the worker did not end: " + worker.communicate()[0]) from None


def starts_of(starts: Path) -> collections.Counter:
    return collections.Counter(start.name.split("-")[0] for start in starts.iterdir())


def test_a_worker_starts_each_bot_once_for_all_its_batches(tmp_path, pg_url):
    plan_event(pg_url, pickers(tmp_path), sets=1)  # 6 games
    bots, starts = counted_bots(tmp_path)
    worker = start_worker(pg_url, tmp_path / "w", "--batch", "1", *bots)  # 6 batches
    output = ended(worker, starts)
    assert worker.returncode == 0, output
    assert "6 game(s) stored" in output
    assert starts_of(starts) == {"0": 1, "1": 1, "2": 1}, output  # pick5 plays in no game
    assert len(list((tmp_path / "w" / "logs" / "bots").iterdir())) == 3  # one output each
    assert len(PostgresStorage(pg_url).games()) == 6


def test_a_bot_that_crashes_or_leaves_is_started_again_and_every_game_is_stored(
        tmp_path, pg_url):
    plan_event(pg_url, pickers(tmp_path), sets=1)
    bots, starts = counted_bots(tmp_path, {0: "crash", 1: "leave"})
    worker = start_worker(pg_url, tmp_path / "w", "--batch", "1", *bots)
    output = ended(worker, starts)
    assert "6 game(s) stored" in output, output
    assert starts_of(starts) == {"0": 2, "1": 2, "2": 1}, output
    assert worker.returncode == 1 and "pick0: died 1 time(s) (exit 3), restarted 1" in output
    games = PostgresStorage(pg_url).games()
    assert sorted(game.planned for game in games) == list(range(6))
    pick1 = [game.defaults[game.entrants.index(1)] for game in games if 1 in game.entrants]
    assert 0 in pick1 and max(pick1) > 0  # it left one game, and played a later one itself
