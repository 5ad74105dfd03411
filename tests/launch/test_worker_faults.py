"""Faults of an event played by ``arena worker`` processes on PostgreSQL: a worker killed
(``kill -9``) mid-game, the database restarted mid-event, and a worker's network cut (workers
in network namespaces of their own, reaching the database over a virtual link, as separate
hosts would).  Every planned game is stored exactly once each time.

A worker is "mid-game" when its slow bot says so: on its first request it writes its pid to a
named pipe the test reads (then answers every request a little late)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.events.pg_queue import event_status
from arena.events.pg_storage import PostgresStorage, connect
from tests.conftest import missing
from tests.launch.test_tournament import PICKER, pickers
from tests.launch.test_worker_processes import WORKERS_DONE, finished, plan_event, start_worker
from tests.pg_fixture import PgServer, PgUnavailable
from tests.serve_harness import Lines

REQUEST = '''    elif msg["type"] == "request":'''
SLOW = PICKER.replace(REQUEST, REQUEST + '''
        if not told:
            told = True
            with open(sys.argv[2], "w") as fifo:
                fifo.write(f"{os.getpid()}\\n")
        import time; time.sleep(0.1)''').replace("pick = int(sys.argv[1])",
                                                  "pick = int(sys.argv[1]); told = False")


def slow_bot(tmp_path: Path) -> tuple[str, Path]:
    """A ``--bot`` giving pick0 the slow command, and its pipe."""
    script, fifo = tmp_path / "slow.py", tmp_path / "mid-game"
    script.write_text(SLOW)
    os.mkfifo(fifo)
    return f"--bot=pick0={sys.executable} {script} 0 {fifo}", fifo


def mid_game(fifo: Path, deadline: float = WORKERS_DONE) -> int:
    """Wait (bounded) until the slow bot is in a game; its pid."""
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.append(fifo.read_text()), daemon=True)
    reader.start()
    reader.join(deadline)
    assert said, "the slow bot never played"
    return int(said[0])


def stored_by(url: str) -> dict[int, str]:
    with connect(url) as db:
        return dict(db.execute("SELECT planned, worker FROM games").fetchall())


def test_a_worker_killed_mid_game_has_its_tables_played_again_once(tmp_path, pg_url):
    plan_event(pg_url, pickers(tmp_path), sets=1)
    bot, fifo = slow_bot(tmp_path)
    doomed = start_worker(pg_url, tmp_path / "doomed", "--lease", "2", bot)
    bot_pid = mid_game(fifo)
    (held,) = [w for w in event_status(pg_url).workers]
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait()
    with contextlib.suppress(ProcessLookupError):
        os.kill(bot_pid, signal.SIGKILL)
    assert held.holds
    survivor = start_worker(pg_url, tmp_path / "survivor", "--lease", "2")
    finished(survivor)
    games = stored_by(pg_url)
    assert sorted(games) == list(range(6))  # each planned game stored once
    states = {w.worker: w.state for w in event_status(pg_url).workers}
    assert states[held.worker] == "lost" and len(states) == 2
    assert {games[table] for table in held.holds} == set(states) - {held.worker}


def test_a_ctrl_c_drains_a_worker_its_running_game_stored_its_other_tables_given_back(
        tmp_path, pg_url):
    plan_event(pg_url, pickers(tmp_path), sets=1)
    bot, fifo = slow_bot(tmp_path)
    worker = start_worker(pg_url, tmp_path / "w", bot)
    mid_game(fifo)
    worker.send_signal(signal.SIGINT)
    output, _ = worker.communicate(timeout=WORKERS_DONE)
    assert worker.returncode == 130 and "finishing the running games" in output, output
    (drained,) = event_status(pg_url).workers
    assert drained.state == "drained" and drained.holds == ()
    assert 1 <= drained.stored < 6 and f"{drained.stored} game(s) stored" in output
    assert len(stored_by(pg_url)) == drained.stored  # the rest are open for other workers


def test_workers_wait_while_the_database_restarts_and_carry_on(tmp_path, pg_url, pg_server):
    plan_event(pg_url, pickers(tmp_path), sets=1)
    # the second starts once the first has stored a game (started together, the second could
    # play every table before the first began: it happened under load)
    workers = [start_worker(pg_url, tmp_path / "w0", "--lease", "10")]
    lines = [Lines(workers[0].stdout)]
    lines[0].expect(r"game \d+ stored", WORKERS_DONE)
    workers.append(start_worker(pg_url, tmp_path / "w1", "--lease", "10"))
    lines.append(Lines(workers[1].stdout))
    lines[1].expect(r"table\(s\) at a time", WORKERS_DONE)  # it has the event: it runs
    pg_server.restart()  # every connection is cut; the server is back after a moment
    for worker, output in zip(workers, lines):
        output.rest(WORKERS_DONE)
        assert worker.wait(WORKERS_DONE) == 0, output.seen
    assert sorted(stored_by(pg_url)) == list(range(6))
    status = event_status(pg_url)
    assert status.stored == 6 and {w.state for w in status.workers} == {"done"}
    said = [re.search(r"(\d+) game\(s\) stored", output.seen[-1]) for output in lines]
    assert sum(int(match[1]) for match in said if match) == 6  # as the database says


# -- workers in network namespaces of their own --


class Namespaces:
    """Network namespaces, each joined to this one by a veth pair (10.233.N.0/30 per link:
    .1 here, .2 there), removed at the end."""

    def __init__(self, count: int) -> None:
        self.tag = os.getpid() % 10000
        self.names = [f"arena{self.tag}n{i}" for i in range(count)]
        self.links = [f"va{self.tag}h{i}" for i in range(count)]
        self.subnet = 200 + self.tag % 50

    def here(self, i: int) -> str:
        return f"10.{self.subnet}.{i}.1"

    def create(self) -> None:
        for i, (name, link) in enumerate(zip(self.names, self.links)):
            there = f"va{self.tag}n{i}"
            for command in (f"ip netns add {name}",
                            f"ip link add {link} type veth peer name {there}",
                            f"ip link set {there} netns {name}",
                            f"ip addr add {self.here(i)}/30 dev {link}",
                            f"ip link set {link} up",
                            f"ip -n {name} addr add 10.{self.subnet}.{i}.2/30 dev {there}",
                            f"ip -n {name} link set {there} up",
                            f"ip -n {name} link set lo up"):
                subprocess.run(command.split(), check=True, capture_output=True, timeout=10)

    def cut(self, i: int, up: bool = False) -> None:
        subprocess.run(["ip", "link", "set", self.links[i], "up" if up else "down"],
                       check=True, timeout=10)

    def remove(self) -> None:
        for name, link in zip(self.names, self.links):
            subprocess.run(["ip", "link", "del", link], capture_output=True, timeout=10)
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)


@pytest.fixture
def namespaces():
    spaces = Namespaces(2)
    try:
        if os.geteuid() != 0:
            raise OSError("needs root (ip netns)")
        spaces.create()
    except (OSError, subprocess.CalledProcessError) as exc:
        spaces.remove()
        missing(f"no network namespaces here: {getattr(exc, 'stderr', b'') or exc}")
    yield spaces
    spaces.remove()


def test_a_worker_cut_off_the_network_loses_its_lease_and_its_late_result_is_refused(
        tmp_path, namespaces):
    try:
        server = PgServer(listen=",".join(namespaces.here(i) for i in range(2)),
                          port=20000 + namespaces.tag).start()
    except PgUnavailable as exc:
        missing(str(exc))
    try:
        url = server.new_database()
        database = url.split("?")[0].rsplit("/", 1)[1]
        plan_event(url, pickers(tmp_path), sets=1)
        bot, fifo = slow_bot(tmp_path)
        # unacknowledged data fails its connection after 1.5 s (libpq's tcp_user_timeout),
        # so the cut worker reconnects as soon as the link is back, not at TCP's next retry
        cut = start_worker(server.url(database, namespaces.here(0)) + "?tcp_user_timeout=1500",
                           tmp_path / "cut",
                           "--lease", "2", bot, netns=namespaces.names[0])
        mid_game(fifo)
        namespaces.cut(0)  # its connections hang: no heartbeat, no store
        other = start_worker(server.url(database, namespaces.here(1)), tmp_path / "other",
                             "--lease", "2", netns=namespaces.names[1])
        finished(other)
        namespaces.cut(0, up=True)
        late = finished(cut)
        games = stored_by(url)
        assert sorted(games) == list(range(6))  # each once
        refused = re.search(r"(\d+) game\(s\) stored, (\d+) late result\(s\) refused", late)
        assert refused, late
        by_worker = {w.pid: w.stored for w in event_status(url).workers}
        assert by_worker == {cut.pid: int(refused[1]), other.pid: 6 - int(refused[1])}
        assert len(PostgresStorage(url).games()) == 6
    finally:
        server.cleanup()
