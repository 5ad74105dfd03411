"""A submission whose build or validation fails inside arena itself (a bug, a Ctrl-C) is not
left ``building`` or ``validating`` for ever: it is refused saying so, and the error goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.events.hosted_store import SqliteHosted
from arena.events.hosted_versions import VersionState
from arena.events.registry import Registry
from arena.kit import hosted
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
