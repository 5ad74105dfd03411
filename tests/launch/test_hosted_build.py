"""Hostile builds (issue 33 §4), each contained by the build sandbox and reported in the
build's log or reason: reading the database, another version's source, the logs, the network;
a fork bomb, a memory bomb, filling the disk, a build that never ends, an output too large.

A real compiler runs no code of the submission's, so these builds use a recipe that runs the
hostile commands itself (what a build script, cargo's ``build.rs`` or a Makefile could do);
the sandbox, the limits and the reports are the real ones."""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

import attrs
import pytest

from arena.launch.hosted_build import BuildLimits, Built, build
from arena.launch.languages import LANGUAGES, probe
from arena.launch.sandbox import Sandbox, SandboxUnavailable

FAST = BuildLimits(seconds=20, disk_bytes=16 * 1024 * 1024, output_bytes=1024 * 1024,
                   log_bytes=8 * 1024, max_processes=32)


@pytest.fixture(scope="module", autouse=True)
def sandbox_works() -> None:
    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))


def hostile(tmp_path: Path, script: str, limits: BuildLimits = FAST,
            language: str = "python") -> tuple[Built, float]:
    source = tmp_path / "src"
    source.mkdir(exist_ok=True)
    (source / "main.py").write_text("print('hello')\n")
    toolchain = probe(LANGUAGES[language])
    toolchain = attrs.evolve(toolchain, language=attrs.evolve(toolchain.language, build=script))
    work = tmp_path / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    started = time.monotonic()
    done = build(source, toolchain, "main.py", work, limits)
    return done, time.monotonic() - started


def leftovers(marker: str) -> list[str]:
    """Processes whose command line holds ``marker`` still running a few seconds after the
    build returned (the kernel ends a sandbox's processes when it ends, but not in the same
    instant: a bounded poll on what /proc shows)."""
    deadline = time.monotonic() + 5.0
    while True:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                line = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in line and int(pid) != os.getpid():
                found.append(pid)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def marked(script: str) -> tuple[str, str]:
    """``script`` with a marker of this run only (another test run on the machine has its
    own): (the script, its marker)."""
    marker = f"marker-{secrets.token_hex(6)}"
    return f"{script}  # {marker}", marker


def test_an_honest_build_gives_its_folder_and_a_digest(tmp_path: Path):
    done, _ = hostile(tmp_path, "{python3} -c 'open(\"made.txt\", \"w\").write(\"x\")'")
    assert done.ok, done.reason
    assert len(done.digest) == 64 and done.run == ("python3", "-u", "{dir}/main.py")


def test_secrets_of_the_host_are_not_there_for_a_build(tmp_path: Path):
    secrets_folder = tmp_path / "event"
    (secrets_folder / "builds" / "other").mkdir(parents=True)
    (secrets_folder / "ladder.db").write_text("SECRET-DB")
    (secrets_folder / "builds" / "other" / "main.py").write_text("SECRET-SOURCE")
    (secrets_folder / "logs").mkdir()
    (secrets_folder / "logs" / "bot.txt").write_text("SECRET-LOG")
    script = ("for f in {db} {other} {log} /etc/shadow /root/.bash_history; do "
              "cat $f || echo \"denied $f\"; done\n"
              "{{python3}} -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), 3)' "
              "|| echo 'no network'").format(
        db=secrets_folder / "ladder.db", other=secrets_folder / "builds" / "other" / "main.py",
        log=secrets_folder / "logs" / "bot.txt")
    done, _ = hostile(tmp_path, script)
    assert done.ok, done.reason
    assert "SECRET" not in done.log
    assert done.log.count("denied") == 5 and "no network" in done.log
    assert "Network is unreachable" in done.log


@pytest.mark.parametrize(("script", "said"), [
    ("sleep 600", "took longer than 1 s"),
    ("while :; do :; done", "took longer than 1 s"),
])
def test_a_build_that_never_ends_is_stopped_at_its_limit(tmp_path: Path, script, said):
    script, marker = marked(script)
    done, seconds = hostile(tmp_path, script, attrs.evolve(FAST, seconds=1))
    assert not done.ok and said in done.reason
    assert seconds < 15
    assert leftovers(marker) == []


def test_a_fork_bomb_is_contained(tmp_path: Path):
    script, marker = marked("bomb() { bomb | bomb & }; bomb; sleep 2; echo still here")
    done, seconds = hostile(tmp_path, script, attrs.evolve(FAST, seconds=6))
    assert seconds < 20
    assert leftovers(marker) == []
    assert "Cannot fork" in done.log  # its processes capped; all gone with the build


def test_a_memory_bomb_fills_its_own_limit_only(tmp_path: Path):
    script = "{python3} -c 'b = bytearray(8 * 1024 ** 3)'"
    done, _ = hostile(tmp_path, script)
    assert not done.ok and "MemoryError" in done.log, done.log
    assert "the build failed (exit status 1): MemoryError" in done.reason


def test_filling_the_disk_stops_at_the_builds_disk(tmp_path: Path):
    done, _ = hostile(tmp_path, "head -c 1000000000 /dev/zero > big")
    assert not done.ok
    assert "No space left" in done.log or "File too large" in done.log, done.log


def test_an_output_too_large_or_a_log_flood_is_cut(tmp_path: Path):
    done, _ = hostile(tmp_path, "head -c 3000000 /dev/urandom > blob")
    assert not done.ok and ("more than 1048576 bytes" in done.reason), done.reason
    done, _ = hostile(tmp_path, "yes flood | head -c 5000000 >&2")
    assert done.ok and "[log cut at 8192 bytes]" in done.log and len(done.log) < 9000


def test_a_missing_toolchain_is_a_clear_refusal(tmp_path: Path):
    toolchain = attrs.evolve(probe(LANGUAGES["go"]), programs={}, missing=("go",))
    done = build(tmp_path, toolchain, "main.go", tmp_path, FAST)
    assert not done.ok
    assert done.reason == "go: this host has no go (the go toolchain), so it cannot build it"


@pytest.mark.parametrize(("language", "entry", "files"), [
    ("c", "main.c", {"main.c": "int main(void) { return 0; }\n",
                     "z -wrapper sh,w.sh .c": "int z(void) { return 1; }\n",
                     "-lead ing.c": "int lead(void) { return 2; }\n"}),
    ("cpp", "main.cpp", {"main.cpp": "int main() { return 0; }\n",
                         "z -wrapper sh,w.sh .cpp": "int z() { return 1; }\n",
                         "-lead ing.cc": "int lead() { return 2; }\n"}),
    ("java", "Main.java", {"Main.java": "public class Main { public static void main("
                                        "String[] a) {} }\n",
                           "z -d x .java": "class Z {}\n", "-lead ing.java": "class L {}\n"}),
])
def test_a_file_name_is_never_a_compiler_option(tmp_path: Path, language: str, entry: str,
                                                files: dict[str, str]):
    """A file named ``z -wrapper sh,w.sh .c`` once gave gcc ``-wrapper sh,w.sh`` (running
    ``w.sh`` around the compiler): each name is one argument, and no name starts with a dash
    (and since, no such name is accepted in a submission or a build's output at all)."""
    toolchain = probe(LANGUAGES[language])
    if not toolchain.available:
        pytest.skip(toolchain.refusal())
    source = tmp_path / "src"
    source.mkdir()
    for name, text in files.items():
        (source / name).write_text(text)
    (source / "w.sh").write_text('echo WRAPPED >&2\ntouch "$(dirname "$0")/wrapped"\n'
                                 'exec "$@"\n')
    work = tmp_path / "work"
    work.mkdir()
    done = build(source, toolchain, entry, work, FAST)
    assert "WRAPPED" not in done.log  # the wrapper never ran: it would have said so
    # such names are refused in a submission (tests/launch/test_unpack.py), and in the
    # build's output too: the compiler ran, each name one argument, then its output refused
    assert not done.ok and done.reason.startswith("the build's output: "), done.reason
    assert "a name of printable ASCII characters without spaces" in done.reason
