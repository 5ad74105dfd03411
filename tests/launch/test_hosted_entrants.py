"""Hosted versions as an event's entrants (issue 33 §2): ``arena tournament`` and ``arena sprt``
take ``--bot NAME@VERSION`` from ``--db``; the event records the version and its build's
digest, the build is fetched by that digest and checked, and the bot always plays in its
sandbox; a version that cannot play is one line before the first game.  ``arena worker`` (on
PostgreSQL) is in tests/launch/test_hosted_worker.py."""

from __future__ import annotations

import gzip
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.hosted_store import HostedStore, SqliteHosted
from arena.events.hosted_versions import BotVersion
from arena.events.storage import SqliteStorage
from arena.launch.hosted_bots import Stored, Wanted, marker, stored, wanted
from arena.launch.languages import LANGUAGES, probe, run_words
from arena.launch.sandbox import Sandbox, SandboxUnavailable
from arena.launch.unpack import digest, pack

HERE = Path(__file__).resolve().parent.parent
HONEST = HERE / "check_bots" / "honest.py"
#: The hosted bot: it says who it runs as (nobody, in the sandbox) on its standard error,
#: whether it sees the event's database, and which builds it sees, then plays as the honest
#: bot.
MAIN = """import os, sys
print(f"uid {os.getuid()}; sees the database: {os.path.exists(sys.argv[1])}", file=sys.stderr,
      flush=True)
builds = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
print(f"builds seen: {sorted(os.listdir(builds))}", file=sys.stderr, flush=True)
# version {number}
from honest import HonestBot
HonestBot().run()
"""
SHORT = ["--game", "toy", "-o", "rounds=1", "--move-timeout", "5", "--resamples", "0"]


def sandbox_works() -> None:
    try:
        Sandbox().check()
    except SandboxUnavailable as exc:
        pytest.skip(f"hosted versions play only in the sandbox: {exc}")


def run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(arg) for arg in args])
    return result.exit_code, result.output


def add_version(store: HostedStore, name: str, folder: Path, number: int,
                database: Path | str) -> BotVersion:
    """A built and validated Python version of ``name`` (the build is its source: as a Python
    build would be), stored through the store's own steps; its ``main.py`` reports as
    :data:`MAIN` says, the database named by ``database``."""
    source = folder / f"{name}-{number}"
    source.mkdir()
    (source / "honest.py").write_bytes(HONEST.read_bytes())
    (source / "main.py").write_text(MAIN.replace("{number}", str(number)))
    packed = pack(source)
    version = store.submit(name, "python", packed, digest(packed))
    run_line = (*run_words(LANGUAGES["python"], "main.py"), str(database))
    store.built(name, version.number, packed, digest(packed), "built", run_line)
    return store.passed(name, version.number, "passed")


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    """A database where alice has versions 1 and 2 (2 active), and bob is registered."""
    sandbox_works()
    db = tmp_path / "ladder.db"
    for name in ("alice", "bob"):
        assert run("bots", "add", name, "--db", db)[0] == 0
    with SqliteHosted(db) as store:
        add_version(store, "alice", tmp_path, 1, db)
        add_version(store, "alice", tmp_path, 2, db)
    return db


def test_names_of_versions_and_stored_entrants_read_both_ways():
    assert wanted("alice@3") == Wanted("alice", 3)
    assert wanted("Alice@active") == Wanted("Alice", None)
    for command in ("alice", "alice@", "alice@0", "alice@x", "a=@remote", "python3 b@1",
                    "n=alice@1", "@1"):
        assert wanted(command) is None, command
    version = BotVersion("alice", 3, "python", None, "", "s", "d" * 64, (), 0.0)  # type: ignore[arg-type]
    assert stored(marker(version)) == Stored("alice", 3, "d" * 64)
    assert stored("python3 bot.py") is None and stored("@hosted alice x d") is None


def test_a_tournament_plays_hosted_versions_in_their_sandbox_beside_a_reference_bot(
        ladder: Path, tmp_path: Path):
    code, out = run("tournament", *SHORT, "--bot", "alice@1", "--bot", "ALICE@active",
                    "--bot", "random", "--db", ladder, "--log-dir", tmp_path / "logs")
    assert code == 0, out
    table = re.findall(r"^ *\d+  (\S+) +\d+ ", out, re.MULTILINE)
    assert sorted(table) == ["alice@1", "alice@2", "random"], out
    with SqliteHosted(ladder) as store:
        first, second = store.version("alice", 1), store.version("alice", 2)
    storage = SqliteStorage(ladder)
    assert storage.entrants() == [("alice@1", marker(first)), ("alice@2", marker(second)),
                                  ("random", "{python} -m reference_bots.random")]
    assert len(storage.games()) == 6 and {g.names for g in storage.games()} >= {
        ("alice@1", "alice@2"), ("alice@2", "random"), ("alice@1", "random")}
    storage.close()
    for number in (1, 2):  # each from its own build's folder, as nobody, not seeing the db
        assert (ladder.with_name("ladder.db.builds") / str(
            (first, second)[number - 1].build_digest) / "main.py").is_file()
        outputs = list((tmp_path / "logs" / "bots").glob(f"*-alice@{number}-*.txt"))
        own = (first, second)[number - 1].build_digest
        assert outputs and all(path.read_text().startswith(  # nor the other version's build
            f"uid 65534; sees the database: False\nbuilds seen: ['{own}']\n")
            for path in outputs), outputs
    shutil.rmtree(ladder.with_name("ladder.db.builds"))
    code, out = run("tournament", "--resume", "--db", ladder, "--log-dir", tmp_path / "logs")
    assert code == 0 and "6 of 6 games stored" in out, out  # its entrants read back
    assert len(list(ladder.with_name("ladder.db.builds").iterdir())) == 2


def test_a_version_that_cannot_play_is_one_line_and_nothing_is_stored(ladder: Path,
                                                                       tmp_path: Path):
    with SqliteHosted(ladder) as store:
        store.retire("alice", 1)
    cases = {
        "alice@9": "Error: --bot alice@9: alice has no version 9 (--versions DB: the database "
                   "of the hosted bots, if not --db)",
        "alice@1": "Error: --bot alice@1: alice version 1 is retired: by the organiser; only "
                   "an active or valid version plays",
        "bob@active": "Error: --bot bob@active: bob has no active version (arena bots "
                      "versions bob)",
        "carol@1": "Error: --bot carol@1: 'carol' is not registered (arena bots add carol) "
                   "(--versions DB: the database of the hosted bots, if not --db)",
    }
    for bot, line in cases.items():
        code, out = run("tournament", *SHORT, "--bot", bot, "--bot", "random", "--db", ladder,
                        "--log-dir", tmp_path / "logs")
        assert (code, out) == (1, line + "\n"), bot
    assert SqliteStorage(ladder).meta() == {}
    assert not (tmp_path / "logs").exists()


def test_a_refused_version_is_refused(ladder: Path, tmp_path: Path):
    with SqliteHosted(ladder) as store:
        packed = pack(HONEST.parent)
        store.submit("bob", "python", packed, digest(packed))
        store.refuse("bob", 1, "validation failed: no hello")
    code, out = run("sprt", *SHORT[:-2], "--bot", "bob@1", "--bot", "alice@2",
                    "--field", "random", "--db", ladder)
    assert (code, out) == (1, "Error: --bot bob@1: bob version 1 is refused: validation "
                              "failed: no hello; only an active or valid version plays\n")


def test_a_tampered_build_is_refused_before_the_first_game(ladder: Path, tmp_path: Path):
    with SqliteHosted(ladder) as store:
        build = store.version("alice", 1).build_digest
    with sqlite3.connect(ladder) as db:
        files = gzip.decompress(db.execute("SELECT files FROM hosted_builds WHERE digest = ?",
                                           (build,)).fetchone()[0])
        tampered = gzip.compress(files.replace(b"HonestBot().run()", b"HonestBot().run() "))
        db.execute("UPDATE hosted_builds SET files = ? WHERE digest = ?", (tampered, build))
    code, out = run("tournament", *SHORT, "--bot", "alice@1", "--bot", "random",
                    "--db", ladder, "--log-dir", tmp_path / "logs")
    assert (code, out) == (1, f"Error: alice@1 cannot play: build {build}: its stored files "
                              "do not match its digest\n")
    assert not (tmp_path / "logs" / "bots").exists()


def test_sprt_tests_one_version_against_another_read_in_another_database(ladder: Path,
                                                                         tmp_path: Path):
    """The versions are read in the ladder's database (--versions), the test is stored in its
    own (--db), the builds unpacked in --builds."""
    sprt = tmp_path / "sprt.db"
    code, out = run("sprt", *SHORT[:-2], "--bot", "alice@2", "--bot", "alice@1",
                    "--field", "random", "--max-sets", "2", "--seed", "1", "--db", sprt,
                    "--versions", ladder, "--builds", tmp_path / "builds",
                    "--log-dir", tmp_path / "logs")
    assert code == 4, out
    assert "undecided after 2 set(s)" in out and "alice@2 against alice@1:" in out, out
    assert len(list((tmp_path / "builds").iterdir())) == 2
    assert [name for name, _ in SqliteStorage(sprt).entrants()] == [
        "alice@2", "alice@1", "random"]
    assert len(SqliteStorage(sprt).games()) == 4
    outputs = list((tmp_path / "logs" / "bots").glob("*-alice@*.txt"))
    assert outputs and all(path.read_text().startswith("uid 65534; sees the database: False")
                           for path in outputs), outputs
    code, out = run("sprt", *SHORT[:-2], "--bot", "alice@2", "--bot", "alice@1",
                    "--field", "random", "--max-sets", "2", "--db", tmp_path / "other.db")
    assert code == 1 and "'alice' is not registered (arena bots add alice) (--versions DB" in out


def test_a_toolchain_this_host_lacks_is_one_line(ladder: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch):
    import arena.launch.hosted_bots

    def without_python(language: Any) -> Any:
        return attrs.evolve(probe(language), missing=("python3",))

    monkeypatch.setattr(arena.launch.hosted_bots, "probe", without_python)
    code, out = run("tournament", *SHORT, "--bot", "alice@1", "--bot", "random",
                    "--db", ladder, "--log-dir", tmp_path / "logs")
    assert (code, out) == (1, "Error: alice@1 cannot play: this host has no python3 (the "
                              "python toolchain), so it cannot run it\n")


def test_hosted_versions_play_in_their_sandbox_over_several_server_processes(
        ladder: Path, tmp_path: Path):
    code, out = run("tournament", *SHORT, "--bot", "alice@1", "--bot", "alice@2",
                    "--games", "4", "--workers", "2", "--concurrency", "2",
                    "--db", ladder, "--log-dir", tmp_path / "logs")
    assert code == 0, out
    assert "4 of 4 games stored" in out, out
    outputs = list((tmp_path / "logs" / "bots").glob("*-alice@*.txt"))
    assert len(outputs) >= 4 and all(
        path.read_text().startswith("uid 65534; sees the database: False")
        for path in outputs), outputs
