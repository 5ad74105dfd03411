"""The sandbox shows a bot an allow-list: the system's folders, its own program, a private temp
folder, and nothing else of the host (the event's database, the current and home folders, the
logs, another bot's folder, /etc/shadow, /root, /run, UNIX sockets); it still runs Python,
Node.js and a compiled program."""

from __future__ import annotations

import json
import os
import secrets
import select
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

import reference_bots
from arena.cli import main
from arena.edge.peer_process import start_time
from arena.games import get_game
from arena.launch import memory_cgroup
from arena.launch.runner import BotLaunch, plan_bots, run_match
from arena.launch.sandbox import Sandbox, SandboxUnavailable
from arena.launch.sandbox_paths import visible_paths
from arena.launch.sandbox_run import SandboxRun
from tests.launch.test_bot_isolation import _wait_ended

#: A bot that looks for what it must not see (SECRETS: paths it tries to list and read, SOCKET:
#: a UNIX socket it tries to reach, HELLO: a compiled program beside it), runs Python, Node.js
#: and that program, reports, then plays.
PROBE = r'''
import json, os, socket, subprocess, sys
seen = []
for path in SECRETS:
    try:
        if os.path.isdir(path):
            names = [n for n in os.listdir(path) if n not in ALLOWED.get(path, [])]
            if names:
                seen.append(f"listed {path}: {sorted(names)[:5]}")
        else:
            with open(path, "rb") as file:
                file.read(64)
            seen.append(f"read {path}")
    except OSError:
        pass
try:
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(SOCKET)
    seen.append("connected to a UNIX socket in the home folder")
except OSError:
    pass
for path in WRITABLE:  # under root the bot is root outside: the kernel's settings obey it
    try:
        with open(path, "r+") as file:
            file.write(file.read())
        seen.append(f"wrote {path}")
    except OSError:
        pass
ran = ["python"]
node = subprocess.run(["node", "-e", "console.log(6 * 7)"], capture_output=True, text=True)
if node.stdout.strip() == "42":
    ran.append("node")
else:
    print("NODE FAILED:", node.returncode, node.stderr[-500:], file=sys.stderr)
hello = subprocess.run([HELLO], capture_output=True, text=True)
if hello.stdout.strip() == "hello from C":
    ran.append("compiled")
else:
    print("COMPILED FAILED:", hello.returncode, hello.stderr[-500:], file=sys.stderr)
print("PROBE:", json.dumps({"seen": seen, "ran": ran}), file=sys.stderr, flush=True)
from reference_bots.random import main
sys.exit(main([]))
'''

HELLO_C = '#include <stdio.h>\nint main(void) { puts("hello from C"); return 0; }\n'


def _sandbox() -> None:
    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        if os.environ.get("CI") == "true":
            raise  # .ci/run installs bubblewrap: under CI the sandbox must run
        pytest.skip(f"no sandbox on this machine: {exc}")


@pytest.fixture
def home_secrets() -> Iterator[tuple[Path, Path]]:
    """A file and a listening UNIX socket in the real home folder, removed afterwards."""
    home = Path.home()
    tag = secrets.token_hex(4)
    secret, path = home / f".arena-probe-secret-{tag}", home / f".arena-probe-{tag}.sock"
    secret.write_text("the organiser's file")
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(path))
        listener.listen()
        path.chmod(0o777)
        yield secret, path
    finally:
        listener.close()
        for leftover in (secret, path):
            leftover.unlink(missing_ok=True)


@pytest.fixture
def event_folder() -> Iterator[Path]:
    """A folder for the event in the home folder, as an organiser's would be (not in a temp
    folder, which the sandbox always hid), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=".arena-probe-event-", dir=Path.home()))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_sandboxed_bot_of_a_tournament_sees_only_its_own_program(
        event_folder: Path, monkeypatch: pytest.MonkeyPatch, home_secrets: tuple[Path, Path]):
    """The attack of issue 29: a bot under ``arena tournament --sandbox`` read the event's
    database (its seed gives every deal) in the current folder; it now sees none of it."""
    _sandbox()
    if shutil.which("node") is None or shutil.which("cc") is None or not Path(
            "/usr/bin/python3").exists():
        pytest.skip("the probe needs node, cc and the system's /usr/bin/python3")
    secret, home_socket = home_secrets
    tmp_path = event_folder
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "arena-tournament.db"  # the default, in the current folder
    other = tmp_path / "bots" / "other"
    other.mkdir(parents=True)
    (other / "other.py").write_text("from reference_bots.random import main\nmain([])\n")
    (other / "weights.txt").write_text("another bot's secret")
    probe = tmp_path / "bots" / "probe"
    probe.mkdir()
    (probe / "hello.c").write_text(HELLO_C)
    # the probe's own files try to widen its view (issue 29's attack on the first sandbox): a
    # pyvenv.cfg whose home lines name the database and the other bot, a link to the event
    (probe / "pyvenv.cfg").write_text("".join(
        f"home = {path}\n" for path in (db, other, other / "bin", secret)))
    (probe / "model").symlink_to("../..")
    subprocess.run(["cc", "-O", "-o", str(probe / "hello"), str(probe / "hello.c")], check=True)
    home = Path.home()
    # the probe is a program of the participant's own (its interpreter the system's Python),
    # as a compiled bot is: what lies beside it cannot widen what it is shown
    program = probe / "run"
    command = [str(program), str(probe / "model")]
    interpreter_home = [p.name for p in home.iterdir()
                        if any(str(q).startswith(str(p)) for q in visible_paths(
                            command, [], []))] + [tmp_path.name]
    constants = {
        "SECRETS": [str(db), f"{db}-wal", f"{db}-shm", str(tmp_path), str(tmp_path / "bots"),
                    str(probe / "model"), str(probe / "model" / "arena-tournament.db"),
                    str(other), str(other / "weights.txt"), str(tmp_path / "arena-logs"),
                    str(home), str(secret), "/etc/shadow", "/etc/passwd", "/etc", "/root",
                    "/run", "/var", "/home", "/sys"],
        # what the probe's own program needs, shown where it lies: only the folders leading
        # to its interpreter in the home folder, and its own folder under the current one
        "ALLOWED": {str(home): interpreter_home, str(tmp_path): ["bots"],
                    str(tmp_path / "bots"): ["probe"], str(probe / "model"): ["bots"],
                    "/etc": ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
                             "ssl", "ca-certificates", "localtime", "java-17-openjdk",
                             "java-21-openjdk"]},
        "SOCKET": str(home_socket), "HELLO": str(probe / "hello"),
        "WRITABLE": ["/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches",
                     "/proc/self/oom_score_adj"],
    }
    packages = Path(reference_bots.__file__).resolve().parent.parent  # what it imports
    code = ("#!/usr/bin/python3\nimport sys\n"
            f"sys.path.insert(0, {str(packages)!r})\n"
            + "".join(f"{name} = {value!r}\n" for name, value in constants.items()) + PROBE)
    program.write_text(code)
    program.chmod(0o755)
    result = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", "--hands", "1", "--games", "3", "--sandbox",
        "--bot", f"probe={' '.join(command)}",
        "--bot", f"other={sys.executable} {other / 'other.py'}", "--bot", "random",
        "--seed", "probe"])
    assert result.exit_code == 0, result.output
    assert db.exists()
    output = "\n".join(path.read_text() for path in (tmp_path / "arena-logs").rglob("*probe*")
                       if path.is_file() and not path.name.endswith(".gz"))
    assert "PROBE:" in output, output
    report = json.loads(output.split("PROBE:")[1].splitlines()[0])
    assert report["seen"] == [], output
    assert report["ran"] == ["python", "node", "compiled"], output


def test_a_folder_holding_the_current_folder_or_the_database_is_shown_only_as_the_file(
        tmp_path: Path):
    """A script lying in the current folder (or the database's, or above the log folder) is
    shown alone, not with its siblings; nothing inside the log folder is shown at all."""
    script = tmp_path / "bot.py"
    script.write_text("")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "bot.py").write_text("")
    own = tmp_path / "bots" / "mine"
    own.mkdir(parents=True)
    (own / "bot.py").write_text("")
    def shown(*argv: str, protected: list[Path]) -> set[Path]:
        return set(visible_paths(["/usr/bin/true", *argv], [logs], protected, cwd=tmp_path))
    assert script in shown("bot.py", protected=[tmp_path])
    assert tmp_path not in shown("bot.py", protected=[tmp_path])
    assert own in shown(str(own / "bot.py"), protected=[tmp_path])
    assert own / "bot.py" in shown(str(own / "bot.py"), protected=[own])  # the database's
    assert own in Sandbox(protect=(str(own / "event.db"),)).protected()
    assert not any(logs == p or logs in p.parents for p in shown(str(logs / "bot.py"),
                                                                protected=[]))
    assert not {Path("/etc"), Path("/"), Path("/var")} & shown("/etc", "/", "/var/lib",
                                                               protected=[])


def test_a_bot_run_as_a_module_is_shown_its_package(tmp_path: Path, monkeypatch):
    """A game's bot from elsewhere runs as ``python -m package.bot`` (``GameSpec.bots``): the
    package's folder is shown (read-only), wherever it is installed (an editable install
    included), and nothing beside it."""
    site = tmp_path / "elsewhere"
    (site / "somegame").mkdir(parents=True)
    (site / "somegame" / "__init__.py").write_text("")
    (site / "somegame" / "bot.py").write_text("")
    (site / "secret.txt").write_text("")
    monkeypatch.syspath_prepend(str(site))
    shown = visible_paths([sys.executable, "-m", "somegame.bot"], [], [], cwd=tmp_path)
    assert site / "somegame" in shown and site not in shown
    assert not [p for p in visible_paths([sys.executable, "-m", "no_such_module_here"], [], [],
                                         cwd=tmp_path) if under_tmp(p, tmp_path)]


def under_tmp(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def test_the_bot_is_given_none_of_the_organisers_environment():
    env = {"PATH": "/usr/bin", "ARENA_PORT": "1", "PGPASSWORD": "hunter2", "AWS_SECRET": "x",
           "LANG": "C.UTF-8"}
    assert Sandbox.environment(env) == {"PATH": "/usr/bin", "ARENA_PORT": "1",
                                        "LANG": "C.UTF-8"}


def test_killing_the_sandbox_kills_every_process_in_it(tmp_path: Path):
    """The runner kills a bot's process (a restart, the end of an event): that is the guard
    outside the sandbox, and bubblewrap and every process inside die with it (before, the
    sandbox went on until the event's end)."""
    _sandbox()
    marker = f"600.{secrets.randbelow(10**9):09d}"  # a sleep of its own: found by its line
    run = SandboxRun(Sandbox(), [tmp_path])
    argv, extra = run.command(["sh", "-c", f"sleep {marker} & echo ready; wait"],
                              {"PATH": "/usr/bin:/bin"})
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               **extra)
    try:
        assert process.stdout is not None
        assert select.select([process.stdout], [], [], 30)[0], "the sandbox did not start"
        assert process.stdout.readline() == b"ready\n"
        inside = {pid: start_time(pid) for pid in _pids_with(marker)}
        assert inside, "no sleeper found"
        process.kill()
        process.wait(timeout=30)
        assert _wait_ended(inside, 30), "the sandbox outlived its guard"
    finally:
        run.close()
        if process.poll() is None:
            process.kill()


def _pids_with(marker: str) -> list[int]:
    """The processes whose command line holds ``marker`` now."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


#: A bot that holds memory no address-space limit counts: memory-backed files (each under the
#: file-size cap), 600 MiB in all.
MEMFD_HOG = r'''
import os, sys
files = []
chunk = b"\1" * (1 << 20)
for held in range(1, 601):
    if held % 50 == 1:
        files.append(os.memfd_create("hog"))
    os.write(files[-1], chunk)
    if held % 100 == 0:
        print("HELD", held, "MiB", file=sys.stderr, flush=True)
print("HELD ALL", file=sys.stderr, flush=True)
from reference_bots.random import main
sys.exit(main([]))
'''


async def test_a_sandboxed_bot_is_capped_in_all_its_memory_where_a_cgroup_can_be_made(
        tmp_path: Path):
    """--sandbox-memory capped each process's address space only: a memory-backed file (or
    many processes) held more (a review held 2.3 GB at 256 MB). With a memory cgroup the bot
    is stopped at the cap, alone."""
    _sandbox()
    probe = memory_cgroup.create(1 << 30)
    if probe is None:
        pytest.skip("no memory cgroup can be made here (not root, or no memory controller)")
    probe.remove()
    sandbox = attrs.evolve(Sandbox(), memory_mb=256)
    bots = plan_bots([f"hog={{python}} -c {shlex.quote(MEMFD_HOG)}", "random", "random"])
    report = await run_match(get_game("chochlik"),
                             get_game("chochlik").parse_options({"players": 3, "hands": 1}),
                             bots, games=1, seed="m", move_timeout=5, connect_timeout=10,
                             log_dir=tmp_path / "logs", launch=BotLaunch(sandbox=sandbox))
    output = report.bots[0].output.read_text()
    assert "HELD 100 MiB" in output, output  # it ran, and held what it may
    assert "HELD ALL" not in output, output
    assert [b.status for b in report.bots[1:]] == ["ok", "ok"], report.table()


def test_a_runner_holding_more_descriptors_than_a_bot_may_open_still_starts_it():
    """A ladder's server holds pipes to many hosted bots: more open descriptors than one bot
    may open; starting one more sandboxed bot still works (its limit is set last)."""
    sandbox = Sandbox(max_open_files=32)
    try:
        sandbox.check()
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))
    held = [os.pipe() for _ in range(32)]  # 64 descriptors, besides the test's own
    run = SandboxRun(sandbox, [])
    try:
        argv, extra = run.command([sys.executable, "-c", "print('started')"], os.environ)
        done = subprocess.run(argv, capture_output=True, timeout=60, **extra)
        assert done.stdout == b"started\n", done.stderr
    finally:
        run.close()
        for pair in held:
            for end in pair:
                os.close(end)


def test_the_hosts_tls_private_keys_are_never_shown(tmp_path: Path):
    """``/etc/ssl/private`` holds the host's TLS keys (root's, mode 0600 or 0640). Under root
    the sandboxed bot is root outside its namespace and owns what it is shown (a file of mode
    0600 reads): of ``/etc/ssl`` only the certificates and OpenSSL's configuration are shown."""
    _sandbox()
    if not os.path.isdir("/etc/ssl/private") or not os.path.isdir("/etc/ssl/certs"):
        pytest.skip("this host has no /etc/ssl/private and /etc/ssl/certs")
    probe = ("import os; print(os.path.exists('/etc/ssl/private'), "
             "os.path.isdir('/etc/ssl/certs'))")
    done = subprocess.run(Sandbox().wrap([sys.executable, "-I", "-c", probe]),
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.stdout.split() == ["False", "True"], done
