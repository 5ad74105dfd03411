"""Bots the runner launches cannot take each other's seats: tokens stay off command lines and
out of the environment, a token works only from the process it was given to, and the optional
sandbox cuts a bot off from the network, the files and the other processes."""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from arena.edge.peer_process import ProcessBinding, socket_addresses, start_time
from arena.games import get_game
from arena.launch.pids_cgroup import CGROUPS
from arena.launch.runner import BotLaunch, plan_bots, run_match
from arena.launch.sandbox import Sandbox, SandboxUnavailable

SPEC = get_game("chochlik")
OPTIONS = SPEC.parse_options({"players": 3, "hands": 1})

#: A bot that reports whether its token is visible anywhere but its token file, then plays.
INSPECTOR = '''
import os, sys
token = open(os.environ["ARENA_TOKEN_FILE"]).read().strip()
where = [name for name, value in os.environ.items() if token in value]
if token in " ".join(sys.argv):
    where.append("argv")
print("TOKEN SEEN IN:", where or "nowhere", file=sys.stderr, flush=True)
folder = os.path.dirname(os.environ["ARENA_TOKEN_FILE"])
print("MY FOLDER HOLDS:", os.listdir(folder), file=sys.stderr, flush=True)
print("ITS PARENT'S MODE:", oct(os.stat(os.path.dirname(folder)).st_mode & 0o777),
      file=sys.stderr, flush=True)
from reference_bots.random import main
sys.exit(main([]))
'''

#: A bot that first tries every other bot's token (it can read their token files: same user,
#: who may make the folders readable again), then plays with its own.
THIEF = '''
import glob, json, os, socket, sys, time
mine = os.environ["ARENA_TOKEN_FILE"]
tokens = os.path.dirname(os.path.dirname(mine))
os.chmod(tokens, 0o700)
deadline = time.monotonic() + 10  # the siblings are launched after it: wait for their files
while len(glob.glob(os.path.join(tokens, "*", "token"))) < 3 and time.monotonic() < deadline:
    time.sleep(0.01)
for path in glob.glob(os.path.join(tokens, "*", "token")):
    if path == mine:
        continue
    s = socket.create_connection((os.environ["ARENA_HOST"], int(os.environ["ARENA_PORT"])))
    f = s.makefile("rb")
    f.readline()
    stolen = open(path).read().strip()
    s.sendall(json.dumps({"type": "hello", "name": "thief", "token": stolen}).encode() + b"\\n")
    print("STOLEN TOKEN GOT:", json.loads(f.readline()).get("code"), file=sys.stderr, flush=True)
    s.close()
from reference_bots.random import main
sys.exit(main([]))
'''

#: A bot that reports what the sandbox lets it do, then plays over stdin/stdout.
PROBE = '''
import os, socket, sys
report = []
try:
    open(os.path.join(os.getcwd(), "sandbox-escape.txt"), "w").write("x")
    report.append("wrote the project folder")
except OSError:
    pass
try:
    socket.create_connection(("127.0.0.1", int(os.environ["ARENA_PORT"])), timeout=2)
    report.append("reached the server's port")
except OSError:
    pass
import subprocess
if subprocess.run(["mount", "-o", "remount,bind,rw", "/"], capture_output=True).returncode == 0:
    report.append("remounted / writable")
if subprocess.run(["umount", "-l", "/proc"], capture_output=True).returncode == 0:
    report.append("unmounted its /proc")
import stat
for folder, _, files in os.walk("/run"):
    for name in files:
        if stat.S_ISSOCK(os.lstat(os.path.join(folder, name)).st_mode):
            report.append("saw a socket in /run")
pids = [p for p in os.listdir("/proc") if p.isdigit()]
if len(pids) > 8:
    report.append(f"saw {len(pids)} processes")
with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "scratch"), "w") as f:
    f.write("ok")
print("SANDBOX:", report or "held", file=sys.stderr, flush=True)
from reference_bots.random import main
sys.exit(main([]))
'''


def _inline(name: str, code: str) -> str:
    """A bot command running ``code`` itself (a sandboxed bot sees no temp folder, where
    ``tmp_path`` is)."""
    return f"{name}={{python}} -c {shlex.quote(code)}"


def _script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return f"{name}={{python}} {path}"


async def test_no_token_on_a_bot_command_line_or_in_its_environment(tmp_path: Path):
    bots = plan_bots([_script(tmp_path, "inspector", INSPECTOR), "random", "random"])
    report = await run_match(SPEC, OPTIONS, bots, games=1, seed="i", move_timeout=5,
                             log_dir=tmp_path / "logs")
    assert report.ok, report.table()
    output = report.bots[0].output.read_text()
    assert "TOKEN SEEN IN: nowhere" in output
    # a folder of its own, in a folder no one may list (a process of the same user could
    # change that, and root ignores it: the binding to its process is what holds)
    assert "MY FOLDER HOLDS: ['token']" in output, output
    assert "ITS PARENT'S MODE: 0o300" in output, output


async def test_a_token_thief_is_refused_and_fails_the_run(tmp_path: Path):
    bots = plan_bots([_script(tmp_path, "thief", THIEF), "random", "random"])
    report = await run_match(SPEC, OPTIONS, bots, games=2, seed="t", move_timeout=5,
                             log_dir=tmp_path / "logs")
    output = report.bots[0].output.read_text()
    assert output.count("STOLEN TOKEN GOT: token_not_yours") == 2, output
    assert report.refusals == {"token_not_yours": 2}
    assert not report.ok and "token_not_yours" in report.table()
    # the victims kept their seats and played every game themselves
    assert [bot.status for bot in report.bots] == ["ok", "ok", "ok"]
    assert all(not r.aborted and sum(r.defaults) == 0 for r in report.records)
    assert [list(r.names) for r in report.records][0] == ["thief", "random-1", "random-2"]


@contextlib.contextmanager
def one_connection_two_processes(connect: str) -> Iterator[tuple[Any, int, int]]:
    """A process that connects to a local server (``connect``: Python code, ``{port}`` in it)
    and one that does not: (the connection's addresses as the server sees them, the
    connecting pid, the other pid).  Skipped where ``/proc`` cannot tell."""
    if not ProcessBinding().available:
        pytest.skip("no /proc/net/tcp here: tokens alone decide")
    with socket.create_server(("127.0.0.1", 0)) as server:
        hold = connect.format(port=server.getsockname()[1]) + "; import time; time.sleep(30)"
        connecting = subprocess.Popen([sys.executable, "-c", hold], start_new_session=True)
        idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                                start_new_session=True)
        try:
            conn, _ = server.accept()
            with conn:
                addresses = socket_addresses(conn)
                assert addresses is not None
                yield addresses, connecting.pid, idle.pid
        finally:
            for process in (connecting, idle):
                process.kill()
                process.wait()


def test_the_binding_tells_a_bots_own_connection_from_a_siblings():
    connect = "import socket; s = socket.create_connection(('127.0.0.1', {port}))"
    with one_connection_two_processes(connect) as (addresses, sibling, owner):
        binding = ProcessBinding()
        binding.bind("owner's", owner)
        binding.bind("sibling's", sibling)
        assert binding.allows("sibling's", *addresses)
        assert not binding.allows("owner's", *addresses)
        assert binding.allows("unbound", *addresses)  # tokens it never gave out


def test_the_binding_refuses_a_process_that_only_has_the_bound_pid():
    """PIDs are reused: a process that has the PID a token was bound to, but started at
    another time, is another process (a sibling that killed the bot and forked until it got
    its PID)."""
    connect = "import socket; s = socket.create_connection(('127.0.0.1', {port}))"
    with one_connection_two_processes(connect) as (addresses, pid, _):
        started = start_time(pid)
        assert started is not None
        binding = ProcessBinding()
        binding.bind("the earlier process's", pid, started=started - 1)
        binding.bind("this process's", pid)
        assert not binding.allows("the earlier process's", *addresses)
        assert binding.allows("this process's", *addresses)


def test_a_token_is_refused_once_its_process_has_ended():
    connect = "import socket; s = socket.create_connection(('127.0.0.1', {port}))"
    with one_connection_two_processes(connect) as (addresses, pid, _):
        binding = ProcessBinding()
        binding.bind("token", pid)
        binding.release("token")
        assert not binding.allows("token", *addresses)


#: A bot whose launched process ends at once, leaving a child in its session that then says
#: hello with its token; the child lets the second bot (WAITER) go on once it has an answer.
LEAVER = '''
import json, os, socket, sys, time
token = open(os.environ["ARENA_TOKEN_FILE"]).read().strip()
launched = os.getpid()
if os.fork():
    os._exit(0)
def ended():
    try:
        with open(f"/proc/{launched}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True
deadline = time.monotonic() + 30
while not ended() and time.monotonic() < deadline:
    time.sleep(0.01)
s = socket.create_connection((os.environ["ARENA_HOST"], int(os.environ["ARENA_PORT"])))
f = s.makefile("rb")
f.readline()
s.sendall(json.dumps({"type": "hello", "name": "heir", "token": token}).encode() + b"\\n")
answer = json.loads(f.readline())
print("AFTER ITS PROCESS ENDED GOT:", answer.get("code", answer["type"]), flush=True)
open(DONE, "w").close()
'''

#: A bot that plays only once a file exists.
WAITER = '''
import os, sys, time
deadline = time.monotonic() + 30
while not os.path.exists(DONE) and time.monotonic() < deadline:
    time.sleep(0.01)
from reference_bots.random import main
sys.exit(main([]))
'''


async def test_a_token_is_refused_once_the_launched_process_has_ended(tmp_path: Path):
    if not ProcessBinding().available:
        pytest.skip("no /proc/net/tcp here: tokens alone decide")
    done = str(tmp_path / "tried")
    bots = plan_bots([_script(tmp_path, "leaver", f"DONE = {done!r}" + LEAVER),
                      _script(tmp_path, "waiter", f"DONE = {done!r}" + WAITER), "random"])
    with trio.fail_after(60):
        report = await run_match(SPEC, OPTIONS, bots, games=1, seed="l", move_timeout=5,
                                 log_dir=tmp_path / "logs")
    output = report.bots[0].output.read_text()
    assert "AFTER ITS PROCESS ENDED GOT: token_not_yours" in output, output
    assert report.refusals == {"token_not_yours": 1}
    assert [bot.status for bot in report.bots] == ["never connected", "ok", "ok"]


def test_the_binding_finds_a_dual_stack_socket_connected_to_ipv4():
    """A JVM connects to 127.0.0.1 from an IPv6 socket: /proc lists it in tcp6 under the
    IPv4-mapped address, and it is still its own process's connection."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6 sockets here")
    connect = ("import socket; s = socket.socket(socket.AF_INET6); "
               "s.connect(('::ffff:127.0.0.1', {port}))")
    with one_connection_two_processes(connect) as (addresses, bot, other):
        binding = ProcessBinding()
        binding.bind("bot's", bot)
        binding.bind("other's", other)
        assert binding.allows("bot's", *addresses)
        assert not binding.allows("other's", *addresses)


async def test_bots_can_speak_over_stdin_and_stdout(tmp_path: Path):
    report = await run_match(SPEC, OPTIONS, plan_bots(["random", "chochlik-heuristic", "random"]),
                             games=2, seed="s", move_timeout=5, log_dir=tmp_path,
                             launch=BotLaunch(stdio=True))
    assert report.ok, report.table()
    assert len(report.records) == 2
    assert all(sum(r.defaults) == 0 and sum(r.errors) == 0 for r in report.records)


def _sandbox() -> Sandbox:
    sandbox = Sandbox()
    try:
        sandbox.check()
    except SandboxUnavailable as exc:
        if os.environ.get("CI") == "true":
            raise  # .ci/run installs bubblewrap: under CI the sandbox must run
        pytest.skip(f"no sandbox on this machine: {exc}")
    return sandbox


async def test_a_sandboxed_bot_has_no_network_no_writable_files_and_sees_no_processes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    sandbox = _sandbox()
    monkeypatch.chdir(tmp_path)
    bots = plan_bots([_inline("probe", PROBE), "random", "random"])
    report = await run_match(SPEC, OPTIONS, bots, games=1, seed="p", move_timeout=10,
                             log_dir=tmp_path / "logs", launch=BotLaunch(sandbox=sandbox))
    output = report.bots[0].output.read_text()
    assert "SANDBOX: held" in output, output
    assert report.ok, report.table()
    assert not (tmp_path / "sandbox-escape.txt").exists()


async def test_a_sandboxed_bot_over_its_memory_limit_fails_alone(tmp_path: Path):
    sandbox = attrs.evolve(_sandbox(), memory_mb=256)
    hog = _inline("hog", "x = bytearray(1024 ** 3)\n")
    bots = plan_bots([hog, "random", "random"])
    with trio.fail_after(60):
        report = await run_match(SPEC, OPTIONS, bots, games=1, seed="h", move_timeout=5,
                                 log_dir=tmp_path / "logs", launch=BotLaunch(sandbox=sandbox),
                                 connect_timeout=5)
    assert report.bots[0].status.startswith("never connected (exit 1)"), report.table()
    assert "MemoryError" in report.bots[0].output.read_text()
    assert not report.ok
    assert [b.status for b in report.bots[1:]] == ["ok", "ok"]


#: A bot that looks for what other bots left on disk and for UNIX sockets in the temp folder,
#: forks as often as it can, reports, then plays (BOTS, SOCKET and CAP are set before it).
NOSY = '''
import os, signal, socket, sys
report = []
try:
    names = os.listdir(BOTS)
except OSError:
    names = []
for name in names:
    try:
        open(os.path.join(BOTS, name)).read()
        report.append("read " + name)
    except OSError:
        pass
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(SOCKET)
    report.append("connected to a UNIX socket in the temp folder")
except OSError:
    pass
children = []
for _ in range(4 * CAP):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        signal.pause()
        os._exit(0)
    children.append(pid)
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print("FORKED:", len(children), file=sys.stderr, flush=True)
print("NOSY:", report or "found nothing", file=sys.stderr, flush=True)
from reference_bots.random import main
sys.exit(main([]))
'''


async def test_a_sandboxed_bot_sees_no_other_bots_output_no_temp_folder_and_has_a_process_cap(
        tmp_path: Path):
    sandbox = attrs.evolve(_sandbox(), max_processes=16)
    logs = tmp_path / "logs"
    path = Path(tempfile.gettempdir()) / f"arena-test-{secrets.token_hex(4)}.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        listener.listen()
        path.chmod(0o777)
        try:
            nosy = (f"BOTS = {str(logs / 'bots')!r}\nSOCKET = {str(path)!r}\n"
                    f"CAP = {sandbox.max_processes}\n" + NOSY)
            bots = plan_bots(["random", "random", _inline("nosy", nosy)])  # launched last
            with trio.fail_after(60):
                report = await run_match(SPEC, OPTIONS, bots, games=1, seed="n", move_timeout=10,
                                         log_dir=logs, launch=BotLaunch(sandbox=sandbox))
        finally:
            path.unlink()
    output = report.bots[2].output.read_text()
    assert "NOSY: found nothing" in output, output
    forked = int(output.split("FORKED:")[1].split()[0])
    assert 0 < forked < sandbox.max_processes, output
    assert report.ok, report.table()


#: A bot that ignores the end of its input and the polite signals, never plays, leaves a child
#: in a session of its own and stops its parent (which kept the first sandbox alive).
STUBBORN = '''
import os, signal, sys, time
for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
    signal.signal(number, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()
    while True:
        time.sleep(1)
try:
    os.kill(os.getppid(), signal.SIGSTOP)
except OSError:
    pass
print("READY", file=sys.stderr, flush=True)
while True:
    time.sleep(1)
'''


def _descendants(root: int) -> dict[int, int | None]:
    """Every process under ``root`` now: pid -> start time."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(text[text.rfind(")") + 2:].split()[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return {pid: start_time(pid) for pid in found}


def _running(processes: dict[int, int | None]) -> list[int]:
    return [pid for pid, started in processes.items()
            if started is not None and start_time(pid) == started]


def _wait_ended(processes: dict[int, int | None], seconds: float) -> bool:
    """Wait until every one of ``processes`` has ended, on each one's pidfd (readable once it
    has ended; any process, not only a child), at most ``seconds`` in all."""
    deadline = time.monotonic() + seconds
    for pid, started in processes.items():
        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:
            continue  # ended already
        try:
            if started is None or start_time(pid) != started:
                continue  # ended, and its number given to another process since
            ready, _, _ = select.select([handle], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return False
        finally:
            os.close(handle)
    return True


def _wait_for(condition: Any, seconds: float) -> bool:
    """For what no event tells (a line another process writes to a file): look again every
    50 ms, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_no_sandboxed_bot_outlives_its_runner_killed_with_sigkill(tmp_path: Path):
    _sandbox()
    logs = tmp_path / "logs"
    with (tmp_path / "arena.err").open("w") as err:  # the child keeps its own descriptor
        arena = subprocess.Popen(
            [sys.executable, "-m", "arena", "match", "--game", "chochlik", "--hands", "1",
             "--bot", "random", "--bot", "random", "--bot", _inline("stubborn", STUBBORN),
             "--sandbox", "--connect-timeout", "120", "--log-dir", str(logs)],
            stdout=subprocess.DEVNULL, stderr=err)
    bots: dict[int, int | None] = {}
    try:
        def ready() -> bool:
            return arena.poll() is not None or any(
                "READY" in path.read_text() for path in logs.glob("bots/*stubborn*"))
        assert _wait_for(ready, 120) and arena.poll() is None, (
            "the stubborn bot did not start: " + (tmp_path / "arena.err").read_text()
            + "".join(path.read_text() for path in logs.glob("bots/*stubborn*")))
        bots = _descendants(arena.pid)
        assert len(_running(bots)) >= 3
        arena.send_signal(signal.SIGKILL)
        arena.wait(timeout=10)
        assert _wait_ended(bots, 20), (
            f"still running after the runner was killed: {_running(bots)}")
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
        for pid in _running(bots):  # only the processes this test started
            os.kill(pid, signal.SIGKILL)
        _wait_ended(bots, 10)
        mine = f"arena-bot-{arena.pid}-*"  # the killed runner's cgroups (under root)
        for cgroup in [*CGROUPS.glob(mine), *CGROUPS.glob(f"*/{mine}")]:
            cgroup.rmdir()


#: A bot in a folder of its own under the temp folder, run by a virtual environment's Python
#: that lies there too (CI makes its venv under /tmp): it says what it sees, then plays.
KEPT_BOT = '''
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
secret = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "secret.txt")
print("KEPT: secret", "seen" if os.path.exists(secret) else "hidden", file=sys.stderr, flush=True)
from reference_bots.random import main
sys.exit(main([]))
'''


def a_bot_in_a_temp_folder(tmp_path: Path) -> str:
    """A venv and a bot script under ``tmp_path``, and a secret beside them; the command."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.py").write_text(KEPT_BOT)
    shutil.copytree(Path(__file__).resolve().parents[2] / "reference_bots",
                    folder / "reference_bots", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "secret.txt").write_text("another program's file")
    return f"{venv}/bin/python {folder}/bot.py"


async def test_a_sandboxed_bot_whose_program_lies_in_a_temp_folder_still_runs(tmp_path: Path):
    """The temp folders are hidden, but not the bot's own program: a venv under /tmp (as CI
    makes one) and the script's folder are kept, read-only; the rest of /tmp stays hidden."""
    sandbox = _sandbox()
    assert str(tmp_path).startswith(tempfile.gettempdir())  # what this test is about
    bots = plan_bots(["random", "random", f"kept={a_bot_in_a_temp_folder(tmp_path)}"])
    with trio.fail_after(60):
        report = await run_match(SPEC, OPTIONS, bots, games=1, seed="k", move_timeout=10,
                                 log_dir=tmp_path / "logs", launch=BotLaunch(sandbox=sandbox))
    output = report.bots[2].output.read_text()
    assert "KEPT: secret hidden" in output, output
    assert report.ok, report.table() + output
