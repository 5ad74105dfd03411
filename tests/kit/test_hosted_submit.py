"""A submission whose build or validation fails inside arena itself (a bug, a Ctrl-C) is not
left ``building`` or ``validating`` for ever: it is refused saying so, and the error goes on."""

from __future__ import annotations

import io
import tarfile
import tempfile
from pathlib import Path

import pytest

from arena.events.hosted_store import SqliteHosted
from arena.events.hosted_versions import VersionState
from arena.events.registry import Registry
from arena.kit import hosted
from arena.kit.check_bot import BOT_OUTPUT
from arena.kit.check_findings import Check, CheckResult, Outcome
from tests.games.toy import SPEC as TOY


@pytest.mark.parametrize("where", ["build", "validate"])
def test_a_failure_of_arena_refuses_the_version_and_is_raised(tmp_path: Path, monkeypatch,
                                                              where: str):
    db = tmp_path / "bots.db"
    with Registry(db) as registry:
        registry.add("alice")
    source = tmp_path / "main.py"
    source.write_text("print('hi')\n")

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    if where == "validate":
        monkeypatch.setattr(hosted, "validate", broken)
    else:
        monkeypatch.setattr(hosted, "build", broken)
    settings = hosted.HostedSettings(game=TOY.name, builds=tmp_path / "builds")
    with SqliteHosted(db) as store, pytest.raises(KeyboardInterrupt):
        hosted.submit(store, "alice", source, None, settings, lambda line: None)
    with SqliteHosted(db) as store:
        version = store.version("alice", 1)
    assert version.state is VersionState.REFUSED
    assert version.reason == f"arena stopped while {where.rstrip('e')}ing it (KeyboardInterrupt)"


def registered(tmp_path: Path) -> Path:
    db = tmp_path / "bots.db"
    with Registry(db) as registry:
        registry.add("alice")
    return db


def tar_of(path: Path, names: list[str]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 1
            archive.addfile(info, io.BytesIO(b"x"))
    return path


@pytest.mark.parametrize(("names", "said"), [
    ([f"{i}/" + "/".join(["d"] * 30) + "/f.py" for i in range(40)], "more than 1000 files"),
    (["/".join(["d"] * 2000) + "/main.py"], "more than 32 folders deep"),
])
def test_a_folder_bomb_is_refused_in_one_line_and_leaves_nothing(tmp_path: Path, monkeypatch,
                                                                names: list[str], said: str):
    db = registered(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    archive = tar_of(tmp_path / "bomb.tar.gz", names)
    settings = hosted.HostedSettings(game=TOY.name, builds=tmp_path / "builds")
    with SqliteHosted(db) as store, pytest.raises(hosted.SubmitError, match=said):
        hosted.submit(store, "alice", archive, "python", settings, lambda line: None)
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize("how", ["fails", "breaks"])
def test_a_refused_version_leaves_no_build_folder(tmp_path: Path, monkeypatch, how: str):
    db = registered(tmp_path)
    source = tmp_path / "main.py"
    source.write_text("print('hi')\n")

    async def check_game(*args: object, keep_in: Path, **kwargs: object) -> list[CheckResult]:
        (keep_in / BOT_OUTPUT).write_bytes(b"")
        if how == "breaks":
            raise RuntimeError("a bug")
        return [CheckResult(Check.HANDSHAKE, Outcome.FAIL, "no hello")]

    monkeypatch.setattr(hosted, "check_game", check_game)
    builds = tmp_path / "builds"
    settings = hosted.HostedSettings(game=TOY.name, builds=builds)
    with SqliteHosted(db) as store:
        if how == "breaks":
            with pytest.raises(RuntimeError):
                hosted.submit(store, "alice", source, None, settings, lambda line: None)
        else:
            hosted.submit(store, "alice", source, None, settings, lambda line: None)
        assert store.version("alice", 1).state is VersionState.REFUSED
    assert list(builds.iterdir()) == []


HOSTILE = ("ok\x1b]52;c;cm0gLXJmIH4K\x07\x1b]0;title\x07\x1b[2J\x1b[8mhidden\x1b[0m"
           "\x9b31m\x85\x7f\r\x00end\tx")


def escapes_gone(output: str) -> None:
    assert not any(ch in output for ch in "\x1b\x07\x9b\x85\x7f\r\x00"), repr(output)
    assert "\\x1b]52;c;cm0gLXJmIH4K\\x07" in output
    assert "\\x9b31m\\x85\\x7f\\x0d\\x00end\tx" in output


def test_shown_escapes_every_control_character_but_newline_and_tab():
    from arena.cli.hosted import shown

    assert shown("a\nb\tc") == "a\nb\tc"
    assert shown("\x1b[2J\x07\x00\x7f\x80\x9f\xa0é") == "\\x1b[2J\\x07\\x00\\x7f\\x80\\x9f\xa0é"


def test_logs_versions_and_submit_show_bot_text_without_terminal_escapes(tmp_path: Path,
                                                                          monkeypatch):
    from click.testing import CliRunner

    from arena.cli import main
    from arena.launch.hosted_build import Built

    db = registered(tmp_path)
    with SqliteHosted(db) as store:
        version = store.submit("alice", "python", b"src", "s")
        store.refuse("alice", version.number, HOSTILE, build_log=HOSTILE)
        version = store.submit("alice", "python", b"src", "s2")
        store.built("alice", version.number, b"files", "d", HOSTILE, ("x",))
        store.refuse("alice", version.number, "validation failed", check_log=HOSTILE)
    runner = CliRunner()
    listed = runner.invoke(main, ["bots", "versions", "alice", "--db", str(db)])
    escapes_gone(listed.output)
    for number in ("1", "2"):
        logged = runner.invoke(main, ["bots", "log", "alice", number, "--db", str(db)])
        escapes_gone(logged.output)

    def build(*args: object, **kwargs: object) -> Built:
        return Built(False, f"the build failed (exit status 1): {HOSTILE}", HOSTILE)

    monkeypatch.setattr(hosted, "build", build)
    source = tmp_path / "main.py"
    source.write_text("print('hi')\n")
    submitted = runner.invoke(main, ["bots", "submit", "alice", str(source), "--db", str(db),
                                     "--game", TOY.name, "--builds", str(tmp_path / "b")])
    assert submitted.exit_code == 1, submitted.output
    escapes_gone(submitted.output)
