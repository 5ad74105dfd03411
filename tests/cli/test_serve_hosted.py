"""``arena serve --db DB --hosted N`` (issue 33 §2): the ladder runs the active hosted versions
itself, in the sandbox, at most N at once, beside the bots that connect; crashes are restarted
(bounded); fair time: with ``--cores 1`` no two hosted bots think at once."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from arena.events.hosted_store import SqliteHosted
from arena.launch.hosted_run import output_file
from arena.launch.sandbox import Sandbox, SandboxUnavailable
from tests.built_once import built_once
from tests.cli.test_bots_command import add, run
from tests.games.toy import SPEC as TOY
from tests.serve_harness import Served

HONEST = Path(__file__).resolve().parent.parent / "check_bots" / "honest.py"

#: A hosted bot that thinks 30 ms a request and says on its standard error when it did.
TIMED = """import sys, time
from honest import HonestBot

class Timed(HonestBot):
    def on_request(self, message):
        began = time.time()
        time.sleep(0.03)
        print(f"thought {began:.6f} {time.time():.6f}", file=sys.stderr, flush=True)
        super().on_request(message)

Timed().run()
"""

#: A hosted bot that plays its validation, then crashes at its third request on the ladder.
CRASHY = """import os, sys
from honest import HonestBot
LADDER = "arena-test-ladder"

class Crashy(HonestBot):
    def on_request(self, message):
        if LADDER in os.environ.get("PATH", "") and self.requests_seen >= 3:
            print("crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        super().on_request(message)

Crashy().run()
"""

#: A hosted bot that looks for what it must not see, says what it found, then plays.
SNOOP = """import os, socket, sys
from honest import HonestBot
LADDER = "arena-test-ladder"

def tried(what, action):
    try:
        action()
        print(f"SEEN {what}", file=sys.stderr, flush=True)
    except Exception as exc:
        print(f"hidden {what}: {type(exc).__name__}", file=sys.stderr, flush=True)

if LADDER in os.environ.get("PATH", ""):
    tried("database", lambda: open(DB, "rb").read(1))
    tried("other build", lambda: os.listdir(OTHER))
    tried("own build", lambda: os.listdir(os.path.dirname(os.path.abspath(__file__))))
    tried("logs", lambda: os.listdir(LOGS))
    tried("network", lambda: socket.create_connection(("127.0.0.1", 1), timeout=1))
    print("environment " + " ".join(sorted(os.environ)), file=sys.stderr, flush=True)
    print("token " + str([v for k, v in os.environ.items() if "TOKEN" in k or "SECRET" in k]),
          file=sys.stderr, flush=True)
HonestBot().run()
"""


@pytest.fixture(scope="module", autouse=True)
def sandbox_works() -> None:
    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        pytest.skip(f"hosted bots need the sandbox: {exc}")


def submit(db: Path, name: str, main: str, tmp: Path) -> None:
    folder = tmp / f"src-{name}"
    folder.mkdir()
    shutil.copy(HONEST, folder / "honest.py")
    (folder / "main.py").write_text(main)
    code, out = run("bots", "submit", name, str(folder), "--db", str(db), "--game", TOY.name,
                    "--move-timeout", "2")
    assert code == 0 and out.rstrip().endswith(": active"), out


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with timed hosted bots h1, h2, h3, a crashing one and a connected one
    (built once for the whole run: the tests copy it)."""
    def build(tmp: Path) -> None:
        tokens = {name: add(tmp / "ladder.db", name) for name in ("h1", "h2", "h3", "crashy")}
        for name in tokens:
            submit(tmp / "ladder.db", name, CRASHY if name == "crashy" else TIMED, tmp)
        (tmp / "hosted-tokens.json").write_text(json.dumps(tokens))

    return built_once(tmp_path_factory, "hosted", build) / "ladder.db"


def on_the_ladder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tell the test's bots that they now play on the ladder, not in their validation: they
    cannot tell the two apart (the same environment, welcome, names), so the test marks the
    ``PATH`` it gives the server (and the server, the bots) with a folder that is not there."""
    monkeypatch.setenv("PATH", f"/nonexistent/arena-test-ladder{os.pathsep}{os.environ['PATH']}")


def ladder(base: Path, tmp_path: Path, *keep: str) -> tuple[Path, dict[str, str]]:
    """A copy of ``base`` (its builds too) where only the hosted bots ``keep`` are active,
    and two connected bots registered: their tokens."""
    db = tmp_path / "ladder.db"
    shutil.copy(base, db)
    shutil.copytree(base.with_name("ladder.db.builds"), tmp_path / "ladder.db.builds")
    with SqliteHosted(db) as store:
        for version in store.active():
            if version.bot not in keep:
                store.retire(version.bot)
    return db, {name: add(db, name) for name in ("ref", "ref2")}


def stderr_of(db: Path, name: str) -> str:
    """What version 1 of ``name`` wrote on its standard error on the ladder (its end)."""
    with SqliteHosted(db) as store:
        version = store.version(name, 1)
    return output_file(db.with_name("ladder.db.builds"), version).read_text()


def thoughts(db: Path, *names: str) -> list[tuple[float, float, str]]:
    """Each ``thought`` line the hosted bots ``names`` wrote: (from, to, bot)."""
    found = []
    for name in names:
        text = stderr_of(db, name)
        found += [(float(a), float(b), name)
                  for a, b in re.findall(r"thought (\S+) (\S+)", text)]
    return sorted(found)


def overlaps(spans: list[tuple[float, float, str]]) -> int:
    """Pairs of consecutive spans of two bots where the second began before the first ended."""
    return sum(1 for (_, end, bot), (begin, _, other) in zip(spans, spans[1:])
               if other != bot and begin < end)


def stopped(served: Served) -> None:
    """The server stops by itself, with status 0."""
    code = served.process.wait(timeout=30)
    served.err.rest()  # every line it wrote, in served.err.seen
    assert code == 0, "\n".join(served.err.seen[-30:])


def exported(db: Path) -> list[dict]:
    code, out = run("export", "--db", str(db))
    assert code == 0, out
    return [json.loads(line) for line in out.splitlines()][1:]


def test_hosted_and_connected_bots_meet_on_one_ladder_at_most_n_hosted_at_once(
        base: Path, tmp_path: Path):
    db, tokens = ladder(base, tmp_path, "h1", "h2", "h3")
    with Served(tmp_path, "--game", TOY.name, "--db", str(db), "--hosted", "2", "--games",
                "30", verbose=True) as served:
        served.bot("--name", "ref", "--token", tokens["ref"])
        served.out.expect(r"30 games played: stopping")
        stopped(served)
    games = exported(db)
    assert len(games) == 30
    names = {name for game in games for name in game["names"]}
    assert names == {"h1", "h2", "h3", "ref"}  # every hosted bot played: they took turns
    assert any("ref" in game["names"] and set(game["names"]) & {"h1", "h2", "h3"}
               for game in games)
    code, out = run("ratings", "--db", str(db), "--format", "json", "--resamples", "0")
    board = {row["name"]: row["games"] for row in json.loads(out)}
    assert {name for name, played in board.items() if played} == names, board  # all rated
    running = [int(n) for n in re.findall(r"hosted \S+ v1 (?:started|ended): (\d+) running",
                                          "\n".join(served.err.seen))]
    assert running and max(running) == 2, served.err.seen[-30:]  # N at most, and N reached
    assert "ended (" not in "\n".join(served.err.seen)  # none crashed: stopped in turn
    assert len(thoughts(db, "h1", "h2", "h3")) > 10  # their output kept for their authors


@pytest.mark.parametrize("cores", [1, 2])
def test_with_one_core_no_two_hosted_bots_think_at_once(base: Path, tmp_path: Path,
                                                         cores: int):
    """Two tables run at once, each with a hosted bot that thinks 30 ms a move: with one core
    their thinking never overlaps (each request waits for the core; its clock starts when it
    is sent, so nobody times out); with two it does (the check can fail)."""
    db, tokens = ladder(base, tmp_path, "h1", "h2")
    with Served(tmp_path, "--game", TOY.name, "--db", str(db), "--hosted", "2", "--cores",
                str(cores), "--games", "24", "--move-timeout", "2") as served:
        served.bot("--name", "ref", "--token", tokens["ref"])
        served.bot("--name", "ref2", "--token", tokens["ref2"])
        served.out.expect(r"24 games played: stopping")
        stopped(served)
    spans = thoughts(db, "h1", "h2")
    assert len(spans) > 12
    if cores == 1:
        assert overlaps(spans) == 0
    else:
        assert overlaps(spans) > 0
    games = exported(db)
    assert not any(any(game.get("timeouts") or ()) for game in games)


def test_a_crashing_hosted_bot_is_restarted_a_few_times_then_left_out(
        base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    db, tokens = ladder(base, tmp_path, "crashy", "h1")
    on_the_ladder(monkeypatch)
    with Served(tmp_path, "--game", TOY.name, "--db", str(db), "--hosted", "2") as served:
        served.bot("--name", "ref", "--token", tokens["ref"])
        first = served.err.expect(r"arena: hosted crashy v1 ended \(.*")
        assert first.group(0) == ("arena: hosted crashy v1 ended (exit status 3): started "
                                  "again in 0.5 s (restart 1 of 3)")
        served.err.expect(r"arena: hosted crashy v1 ended \(exit status 3\): not started "
                          r"again for 10 minutes \(3 restarts used\)$")
        served.out.expect(r"table \S+: (h1|ref)=\S+ (h1|ref)=")  # the others play on
        assert served.interrupt() == 0
    said = [line for line in served.err.seen if "hosted crashy" in line]
    assert len(said) == 4  # one line a crash
    assert "crashing on purpose" in stderr_of(db, "crashy")


def test_a_hosted_bot_sees_no_token_no_database_no_other_build(base: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    db, tokens = ladder(base, tmp_path, "h1")
    with SqliteHosted(db) as store:
        other = db.with_name("ladder.db.builds") / str(store.version("h1", 1).build_digest)
    assert other.is_dir()
    add(db, "snoop")
    source = (f"DB = {str(db)!r}\nOTHER = {str(other)!r}\n"
              f"LOGS = {str(tmp_path / 'logs')!r}\n" + SNOOP)
    submit(db, "snoop", source, tmp_path)
    monkeypatch.setenv("ARENA_SECRET_OF_THE_HOST", "s3cret")
    on_the_ladder(monkeypatch)
    with Served(tmp_path, "--game", TOY.name, "--db", str(db), "--hosted", "2", "--games",
                "4") as served:
        served.bot("--name", "ref", "--token", tokens["ref"])
        served.out.expect(r"4 games played: stopping")
        stopped(served)
    text = stderr_of(db, "snoop")
    assert "SEEN own build" in text  # the check can tell
    for hidden in ("database", "other build", "logs", "network"):
        assert f"hidden {hidden}: " in text, text
    environment = re.search(r"environment (.*)", text)
    assert environment and set(environment.group(1).split()) <= {
        "PATH", "ARENA_TRANSPORT", "ARENA_NAME", "TMPDIR", "HOME", "PWD", "LC_CTYPE"}, text
    assert "token []" in text


def test_hosted_needs_a_database_and_the_sandbox_said_in_one_line(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch):
    db = tmp_path / "ladder.db"
    add(db, "alice")
    code, out = run("serve", "--game", TOY.name, "--hosted", "2", "--port", "0")
    assert code == 2 and "--hosted needs --db" in out, out
    code, out = run("serve", "--game", TOY.name, "--db", str(db), "--cores", "2")
    assert code == 2 and "--cores is for --hosted" in out, out
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap there
    code, out = run("serve", "--game", TOY.name, "--db", str(db), "--hosted", "2", "--port",
                    "0", "--log-dir", str(tmp_path / "logs"))
    assert (code, out) == (1, "Error: --hosted runs bots in the sandbox: the sandbox needs "
                              "bubblewrap (`bwrap`: apt-get install bubblewrap) and `prlimit` "
                              "(util-linux)\n")


def test_a_version_made_active_or_retired_while_the_ladder_runs_is_picked_up(base: Path,
                                                                             tmp_path: Path):
    db, tokens = ladder(base, tmp_path, "h1")
    with Served(tmp_path, "--game", TOY.name, "--db", str(db), "--hosted", "2",
                verbose=True) as served:
        served.bot("--name", "ref", "--token", tokens["ref"])
        served.out.expect(r"table \S+: (h1|ref)=\S+ (h1|ref)=")
        assert run("bots", "activate", "h2", "1", "--db", str(db))[0] == 0
        served.err.expect(r"hosted h2 v1 started: 2 running")
        served.out.expect(r"table \S+: (h2|ref)=\S+ (h2|ref)=")
        assert run("bots", "retire", "h1", "--db", str(db))[0] == 0
        served.err.expect(r"hosted h1 v1 ended: 1 running")  # after its game, if it had one
        # (one table at a time: the lines read now may still be of games that ended before)
        later = [served.out.expect(r"table \S+: (.*)").group(1) for _ in range(3)]
        assert "h1=" not in later[-1] and "h2=" in later[-1], later
        assert served.interrupt() == 0
    assert not [line for line in served.err.seen if "ended (" in line]  # stopped, no crash
    assert all(not game["aborted"] for game in exported(db)[:-1]), exported(db)


#: A hosted bot that passes its validation, then on the ladder closes its standard output at
#: once (its connection ends) and stays alive, ignoring the end of its standard input: a
#: process that would hold a place of ``--hosted`` for ever, playing no game.
SQUATTER = """import os, signal, sys
from honest import HonestBot
LADDER = "arena-test-ladder"

if LADDER in os.environ.get("PATH", ""):
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    os.close(1)
    while True:
        signal.pause()
HonestBot().run()
"""


def test_a_hosted_bot_whose_connection_ended_gives_its_place_up(
        base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Its connection over (it closed its output; the same for a hello never sent), the
    process is killed after a short grace, as a crash: the only place of ``--hosted 1`` goes
    to the other version (``early`` comes first by name), which plays."""
    db, tokens = ladder(base, tmp_path, "h1")
    add(db, "early")
    submit(db, "early", SQUATTER, tmp_path)
    on_the_ladder(monkeypatch)
    with Served(tmp_path, "--game", TOY.name, "--db", str(db), "--hosted", "1",
                verbose=True) as served:
        served.bot("--name", "ref", "--token", tokens["ref"])
        served.err.expect(r"hosted early v1 started: 1 running")
        served.err.expect(r"arena: hosted early v1 ended \(killed by signal 9\): started "
                          r"again in 0\.5 s \(restart 1 of 3\)")
        served.out.expect(r"table \S+: (h1|ref)=\S+ (h1|ref)=")
        assert served.interrupt() == 0


def test_its_author_connecting_a_hosted_bot_is_told_it_is_hosted(base: Path, tmp_path: Path):
    """The same bot from outside while its version is hosted: refused (one player, one
    connection), saying why and what to do, not that a connection of its own holds it."""
    db, _ = ladder(base, tmp_path, "h1")
    token = json.loads(base.with_name("hosted-tokens.json").read_text())["h1"]
    with Served(tmp_path, "--game", TOY.name, "--db", str(db), "--hosted", "1",
                verbose=True) as served:
        served.err.expect(r"hosted h1 v1 started: 1 running")
        served.err.expect(r"h1 connected")
        refused = served.client("h1", token=token).expect("error")
        assert refused["code"] == "token_in_use", refused
        assert "hosted" in refused["message"] and "retire" in refused["message"], refused
        assert served.interrupt() == 0
