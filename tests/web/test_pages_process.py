"""``arena serve --web``: the pages run in a process of their own (issue 29, section 5), so the
game server's process serves no HTTP, holds no browser's connection, and goes on playing when
the pages' process dies; that process never outlives the game server.  Linux (``/proc``)."""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve_harness import DEADLINE, Served

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")


def pages_address(served: Served) -> str:
    [address] = [m.group(1) for line in served.out.seen
                 if (m := re.search(r"the pages at (http://127\.0\.0\.1:\d+)/", line))]
    return address


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=DEADLINE) as response:
        return response.status, response.read().decode()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def socket_inodes(pid: int) -> set[str]:
    """The inodes of the sockets process ``pid`` holds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


def accepted_connections(port: int) -> set[str]:
    """The inodes of the established connections accepted on 127.0.0.1:``port``."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01" and fields[9] != "0":
            inodes.add(fields[9])
    return inodes


def wait_gone(pid: int) -> bool:
    """Whether process ``pid`` is gone within the deadline (waited on, never polled)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([handle], [], [], DEADLINE)[0])
    finally:
        os.close(handle)


@contextlib.contextmanager
def following(url: str, count: int) -> Iterator[list[bytes]]:
    """``count`` browsers following ``url`` (a live table's stream); each first line."""
    responses = [urllib.request.urlopen(url, timeout=DEADLINE) for _ in range(count)]
    try:
        yield [response.readline() for response in responses]
    finally:
        for response in responses:
            response.close()


def test_the_pages_answer_while_the_game_server_is_stopped_and_ctrl_c_stops_both(tmp_path):
    with Served(tmp_path, "--game", "chochlik", "--web", "0") as served:
        address = pages_address(served)
        assert fetch(address + "/live.json")[0] == 200
        served.process.send_signal(signal.SIGSTOP)  # the game server's loop does nothing
        try:
            status, page = fetch(address + "/")
        finally:
            served.process.send_signal(signal.SIGCONT)
        assert status == 200 and "no games stored here" in page
        [pages] = children(served.process.pid)
        assert served.interrupt() == 0
        assert wait_gone(pages)


def test_browsers_following_a_table_hold_no_connection_to_the_game_server(tmp_path):
    with Served(tmp_path, "--game", "chochlik", "--web", "0", "--move-timeout", "60") as served:
        address = pages_address(served)
        players = [served.client(f"bot{i}") for i in range(3)]
        for player in players:
            player.expect("game_start")  # then nobody answers: the table keeps running
        [table] = re.findall(r'"table": ?(\d+)', fetch(address + "/live.json")[1])
        port = int(address.rsplit(":", 1)[1])
        with following(f"{address}/live/{table}/stream", 5) as first:
            assert all(line.startswith(b"data: ") for line in first)
            browsers = accepted_connections(port)
            assert len(browsers) == 5
            assert not browsers & socket_inodes(served.process.pid)
            [pages] = children(served.process.pid)
            assert browsers <= socket_inodes(pages)
        assert served.interrupt() == 0


def test_the_pages_process_reads_the_servers_database(tmp_path):
    """With ``--db`` the pages' process reads the games the game server stores there, as
    ``arena web --db`` does."""
    import json

    from tests.cli.test_bots_command import add

    db = tmp_path / "ladder.db"
    alice, bob = add(db, "alice"), add(db, "bob")
    with Served(tmp_path, "--game", "vollewolle", "--players", "2", "--db", str(db), "--web",
                "0") as served:
        address = pages_address(served)
        served.bot("--name", "alice", "--token", alice)
        served.bot("--name", "bob", "--token", bob)
        rows: list[dict] = []
        for _ in range(20):  # after each game the server played (stored soon after)
            served.out.expect(r"^table \S+: ")
            status, text = fetch(address + "/leaderboard.json")
            assert status == 200
            if rows := json.loads(text)["rows"]:
                break
        assert sorted(row["name"] for row in rows) == ["alice", "bob"]
        assert served.interrupt() == 0


def test_a_crash_of_the_pages_process_is_one_line_and_the_games_go_on(tmp_path):
    with Served(tmp_path, "--game", "chochlik", "--web", "0", "--hands", "1") as served:
        address = pages_address(served)
        assert fetch(address + "/live.json")[0] == 200  # the pages' process is up
        [pages] = children(served.process.pid)
        os.kill(pages, signal.SIGKILL)
        served.err.expect(r"the pages' process ended \(killed by SIGKILL\); the games go on")
        for _ in range(3):
            served.bot()
        served.out.expect(r"^table \S+: ")  # a game played to its end meanwhile
        assert fetch(address + "/live.json")[0] == 200  # and the pages came back
        [again] = children(served.process.pid)
        assert again != pages
        assert served.interrupt() == 0
        assert wait_gone(again)


def test_the_pages_process_never_outlives_the_game_server(tmp_path):
    with Served(tmp_path, "--game", "chochlik", "--web", "0") as served:
        assert fetch(pages_address(served) + "/live")[0] == 200  # the pages' process is up
        [pages] = children(served.process.pid)
        served.process.kill()  # no time to stop anything
        assert wait_gone(pages)


async def test_a_pages_process_dying_again_and_again_is_restarted_five_times_a_minute(
        autojump_clock, monkeypatch):
    """Each death is one line and another process starts a second later; the sixth death
    within a minute leaves the pages down, said in one line (the games are not stopped)."""
    import socket

    from arena.web.pagesproc import MAX_RESTARTS, PagesProcess

    lines: list[str] = []
    pages = PagesProcess(server=None, listener=socket.socket(), db=None, err=lines.append,
                         empty="")
    deaths = 0

    async def dies_at_once() -> str:
        nonlocal deaths
        deaths += 1
        return "exit status 1: Traceback"

    monkeypatch.setattr(pages, "run_once", dies_at_once)
    with pages.listener:
        await pages.run()  # returns: the pages stay down
    assert deaths == MAX_RESTARTS + 1
    assert lines[:-1] == [
        "arena: the pages' process ended (exit status 1: Traceback); the games go on, the "
        "pages start again in 1 s"] * MAX_RESTARTS
    assert lines[-1] == ("arena: the pages' process ended (exit status 1: Traceback) after 5 "
                         "restarts in 60 s: the pages stay down (the games go on)")


def _nice_of(pid: int) -> str:
    """The niceness the pages' process ranks at: its session group's where the kernel groups
    processes by session (``sched_autogroup``), else its own."""
    group = Path(f"/proc/{pid}/autogroup")
    if group.exists() and Path("/proc/sys/kernel/sched_autogroup_enabled").read_text() == "1\n":
        return group.read_text().split()[-1]
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16]


@pytest.mark.parametrize("asked,expected", [(None, "10"), ("0", "0")])
def test_the_pages_process_ranks_below_the_games_unless_told(tmp_path, monkeypatch, asked,
                                                              expected):
    """By default the pages' process runs at niceness 10 (the tests' own session sets it to 0
    for speed: see tests/conftest.py); ``ARENA_PAGES_NICENESS`` chooses another from 0 to 19
    (anything else: the default)."""
    if asked is None:
        monkeypatch.delenv("ARENA_PAGES_NICENESS", raising=False)
    else:
        monkeypatch.setenv("ARENA_PAGES_NICENESS", asked)
    with Served(tmp_path, "--game", "chochlik", "--web", "0") as served:
        assert fetch(pages_address(served) + "/live.json")[0] == 200
        [pages] = children(served.process.pid)
        assert _nice_of(pages) == expected
        assert served.interrupt() == 0


@pytest.mark.parametrize("asked,expected", [(None, 10), ("0", 0), ("19", 19), (" 15 ", 15),
                                            ("20", 10), ("-5", 10), ("lots", 10), ("", 10)])
def test_only_a_niceness_from_0_to_19_is_taken(monkeypatch, asked, expected):
    from arena.web.pagesjob import niceness

    monkeypatch.delenv("ARENA_PAGES_NICENESS", raising=False)
    if asked is not None:
        monkeypatch.setenv("ARENA_PAGES_NICENESS", asked)
    assert niceness() == expected
