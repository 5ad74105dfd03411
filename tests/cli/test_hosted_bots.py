"""Hosted bots through the commands (issue 33 §1, §4): ``arena bots submit`` builds a version in
the sandbox and validates it with check-bot's series; ``versions``, ``activate``, ``retire``
and ``log`` show and change where each stands; ``arena languages`` lists what this host builds.
Hostile submissions are contained and reported in their version's log."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.hosted_store import SqliteHosted
from arena.launch.sandbox import Sandbox, SandboxUnavailable
from tests.games.toy import SPEC as TOY

HERE = Path(__file__).resolve().parent.parent
HONEST = HERE / "check_bots" / "honest.py"
C_BOT = HERE / "launch" / "hosted_bots" / "first_legal.c"


@pytest.fixture(scope="module", autouse=True)
def sandbox_works() -> None:
    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(arg) for arg in args])
    return result.exit_code, result.output


def submit(db: Path | str, name: str, path: Path, *more: str) -> tuple[int, str]:
    return run("bots", "submit", name, path, "--db", db, "--game", TOY.name,
               "--move-timeout", "2", *more)


def registered(tmp_path: Path, *names: str) -> Path:
    db = tmp_path / "ladder.db"
    for name in names:
        assert run("bots", "add", name, "--db", db)[0] == 0
    return db


def bot_folder(tmp_path: Path, name: str, prelude: str) -> Path:
    """A folder submission: ``main.py`` runs ``prelude``, then plays as the honest bot."""
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(HONEST, folder / "honest.py")
    (folder / "main.py").write_text(f"import sys\n{prelude}\nfrom honest import HonestBot\n"
                                    "HonestBot().run()\n")
    return folder


def test_versions_are_built_validated_and_made_active_in_turn(tmp_path: Path):
    db = registered(tmp_path, "alice")
    code, out = submit(db, "ALICE", HONEST)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "alice version 1 (python): building"
    assert lines[1].startswith("built (") and lines[1].endswith("): validating")
    assert lines[2] == ("validated: 12 checks: 9 passed, 0 failed, 0 skipped, 3 not "
                        "applicable: active")  # no scripted error reply: a tell
    code, out = submit(db, "alice", C_BOT)
    assert code == 0 and out.splitlines()[0] == "alice version 2 (c): building", out
    assert submit(db, "alice", HONEST)[0] == 0  # the same build again: stored once
    assert run("bots", "versions", "alice", "--db", db) == (
        0, "1  python  valid\n2  c       valid\n3  python  active\n")
    with SqliteHosted(db) as store:
        assert store.builds() == 2
        first, third = store.version("alice", 1), store.version("alice", 3)
        assert first.build_digest == third.build_digest
    assert (tmp_path / "ladder.db.builds" / str(first.build_digest) / "honest.py").is_file()

    assert run("bots", "activate", "alice", "2", "--db", db) == (
        0, "alice version 2 is active\n")
    assert run("bots", "retire", "alice", "1", "--db", db) == (
        0, "alice: retired version(s) 1\n")
    assert run("bots", "retire", "alice", "--db", db) == (
        0, "alice: retired version(s) 2, 3\n")
    code, out = run("bots", "versions", "alice", "--db", db)
    assert out.splitlines()[0] == "1  python  retired: by the organiser"
    code, out = run("bots", "log", "alice", "2", "--db", db)
    assert code == 0 and "run: {dir}/bot" in out and "PASS  handshake" in out, out


def test_refused_versions_say_why_and_never_play(tmp_path: Path):
    db = registered(tmp_path, "bob")
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    code, out = submit(db, "bob", broken)
    assert code == 1 and "refused: the build failed (exit status 1): SyntaxError" in out, out
    silent = tmp_path / "silent.py"
    silent.write_text("import sys\nprint('I only print this', file=sys.stderr)\n")
    code, out = submit(db, "bob", silent)
    assert code == 1 and "refused: validation failed: FAIL  handshake" in out, out
    go = tmp_path / "main.go"
    go.write_text("package main\nfunc main() {}\n")
    code, out = submit(db, "bob", go)
    if shutil.which("go") is None:
        assert code == 1 and "refused: go: this host has no go (the go toolchain)" in out
    code, out = run("bots", "versions", "bob", "--db", db)
    lines = out.splitlines()
    assert lines[0] == ("1  python  refused: the build failed (exit status 1): SyntaxError: "
                        "invalid syntax")
    # (the series sees the process end or its pipe close first, as it happens)
    assert lines[1].startswith("2  python  refused: validation failed: FAIL  handshake: ")
    code, out = run("bots", "log", "bob", "2", "--db", db)
    assert "I only print this" in out
    assert run("bots", "activate", "bob", "1", "--db", db) == (
        1, "Error: bob version 1 is refused: it cannot be made active\n")


def test_a_submission_that_cannot_be_unpacked_stores_nothing(tmp_path: Path):
    db = registered(tmp_path, "carol")
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as archive:
        info = tarfile.TarInfo("../../escape.py")
        archive.addfile(info)
    code, out = submit(db, "carol", evil)
    assert (code, out) == (1, f"Error: {evil}: '../../escape.py': a path with '..'\n")
    assert not (tmp_path.parent / "escape.py").exists()
    code, out = submit(db, "nobody", HONEST)
    assert (code, out) == (1, "Error: 'nobody' is not registered (arena bots add nobody)\n")
    assert run("bots", "versions", "carol", "--db", db) == (0, "")


def test_a_hostile_c_build_is_contained_and_reported_in_its_build_log(tmp_path: Path):
    db = registered(tmp_path, "eve")
    source = tmp_path / "main.c"
    source.write_text(f'#include "{db}"\nint main(void) {{ return 0; }}\n')
    code, out = submit(db, "eve", source)
    assert code == 1 and f"fatal error: {db}: No such file or directory" in out, out
    source.write_text('#include "/dev/zero"\nint main(void) { return 0; }\n')  # endless
    code, out = submit(db, "eve", source)
    assert code == 1 and "refused: the build failed (exit status 1): cc1: out of memory" in out
    logged = run("bots", "log", "eve", "1", "--db", db)[1]
    assert "SQLite" not in logged
    assert "no build (refused: none kept); run: none" in logged.splitlines()[1], logged
    huge = tmp_path / "huge.tar.gz"
    with huge.open("wb") as file:
        file.truncate(17 * 1024 * 1024)
    assert submit(db, "eve", huge) == (1, f"Error: {huge}: more than 16777216 bytes\n")


def test_hostile_bots_are_contained_and_reported_in_their_validation_log(tmp_path: Path):
    db = registered(tmp_path, "honest", "snoop", "bomber", "hog", "spinner")
    assert submit(db, "honest", HONEST)[0] == 0
    with SqliteHosted(db) as store:
        other = tmp_path / "ladder.db.builds" / str(store.version("honest", 1).build_digest)
    secret_output = tmp_path / "bots" / "honest-output.txt"
    secret_output.parent.mkdir()
    secret_output.write_text("SECRET-OUTPUT")
    snoop = bot_folder(tmp_path, "snoop", f"""
import socket
for path in ({str(db)!r}, {str(other / 'main.py')!r}, {str(secret_output)!r}, '/etc/shadow'):
    try:
        print('read', path, open(path, 'rb').read()[:40], file=sys.stderr)
    except OSError as exc:
        print('denied', path, exc.strerror, file=sys.stderr)
try:
    socket.create_connection(('1.1.1.1', 53), 3)
    print('network open', file=sys.stderr)
except OSError as exc:
    print('no network:', exc.strerror, file=sys.stderr)
""")
    code, out = submit(db, "snoop", snoop)
    assert code == 0, out  # it played honestly after its tries
    log = run("bots", "log", "snoop", "1", "--db", db)[1]
    assert log.count("denied") == 4 and "no network: Network is unreachable" in log, log
    assert "SECRET" not in log and "SQLite" not in log

    bomber = bot_folder(tmp_path, "bomber", """
import os
children = 0
try:
    while True:
        if os.fork() == 0:
            import time
            time.sleep(600)
        children += 1
except OSError as exc:
    print('fork refused after', children, 'children:', exc.strerror, file=sys.stderr)
""")
    code, out = submit(db, "bomber", bomber)
    log = run("bots", "log", "bomber", "1", "--db", db)[1]
    assert "fork refused after" in log and "Resource temporarily unavailable" in log, log

    hog = bot_folder(tmp_path, "hog", "hoard = bytearray(16 * 1024 ** 3)")
    code, out = submit(db, "hog", hog)
    assert code == 1 and "refused: validation failed" in out
    assert "MemoryError" in run("bots", "log", "hog", "1", "--db", db)[1]

    spinner = bot_folder(tmp_path, "spinner", "while True:\n    pass")
    code, out = submit(db, "spinner", spinner, "--cpu-seconds", "2")
    assert code == 1 and "refused: validation failed: FAIL  handshake" in out, out
    assert run("bots", "versions", "honest", "--db", db) == (0, "1  python  active\n")


def test_versions_on_postgresql(pg_url: str, tmp_path: Path):
    assert run("bots", "add", "dora", "--db", pg_url)[0] == 0
    code, out = submit(pg_url, "dora", HONEST, "--builds", tmp_path / "builds")
    assert code == 0, out
    assert submit(pg_url, "dora", HONEST, "--builds", tmp_path / "builds")[0] == 0
    assert run("bots", "versions", "dora", "--db", pg_url) == (
        0, "1  python  valid\n2  python  active\n")
    assert len(list((tmp_path / "builds").iterdir())) == 1


def test_languages_lists_each_toolchain_with_its_commands_and_limits():
    code, out = run("languages")
    assert code == 0
    blocks = {line.split(":")[0]: line for line in out.splitlines() if not line.startswith(" ")}
    assert set(blocks) == {"python", "node", "rust", "go", "c", "cpp", "java", "binary"}
    assert blocks["python"].startswith("python: Python 3.")
    if shutil.which("go") is None:
        assert blocks["go"] == "go: not built on this host (no go)"
    assert "  run:   python3 -u ./<entry>" in out
    assert "MB of memory a process, 5 s a move" in out and "no network" in out


@pytest.mark.parametrize("command", [["submit", "alice", "bot.py", "--game", "chochlik"],
                                     ["versions", "alice"], ["log", "alice", "1"]])
def test_a_database_that_does_not_exist_is_one_line_and_is_not_made(tmp_path: Path, command):
    (tmp_path / "bot.py").write_text("print('hi')\n")
    missing = tmp_path / "typo.db"
    code, out = run("bots", *[str(tmp_path / part) if part == "bot.py" else part
                              for part in command], "--db", str(missing))
    assert code == 1 and "no database" in out and "arena bots add" in out, out
    assert "Traceback" not in out and not missing.exists()
