"""Running a hosted version: its build fetched by its digest and unpacked within limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.events.hosted_store import SqliteHosted
from arena.events.hosted_versions import VersionError
from arena.events.registry import Registry
from arena.launch.hosted_run import output_file, unpacked_build
from arena.launch.unpack import UnpackLimits, digest, pack


def test_an_unpacked_build_has_real_limits(tmp_path: Path):
    db = tmp_path / "ladder.db"
    with Registry(db) as registry:
        registry.add("alice")
    folder = tmp_path / "b"
    folder.mkdir()
    for i in range(5):
        (folder / f"f{i}").write_bytes(b"x")
    files = pack(folder)
    with SqliteHosted(db) as store:
        version = store.submit("alice", "python", b"src", "s")
        store.built("alice", version.number, files, digest(files), "", ("x",))
        with pytest.raises(VersionError, match="more than 3 files"):
            unpacked_build(store, digest(files), tmp_path / "builds",
                           UnpackLimits(max_files=3, max_bytes=10**6))
    assert [p.name for p in (tmp_path / "builds").iterdir()] == []


def test_output_files_are_apart_per_version_and_never_named_by_the_bot(tmp_path: Path):
    """A version's output file is its own: two versions, two bots' versions of one number, and
    a name's next holder's version 1 have each their own; a renamed bot's version keeps its."""
    db = tmp_path / "ladder.db"
    with Registry(db) as registry:
        for name in ("alice", "bob"):
            registry.add(name)
    builds = tmp_path / "ladder.db.builds"
    with SqliteHosted(db) as store:
        made = [store.submit(name, "python", b"same", "same")
                for name in ("alice", "alice", "bob")]
        with Registry(db) as registry:
            registry.rename("alice", "Alice-2")
            registry.remove("bob")
            registry.add("bob")
        renamed = store.version("Alice-2", 1)
        anew = store.submit("bob", "python", b"same", "same")
    paths = [output_file(builds, version) for version in [*made, anew]]
    assert len(set(paths)) == 4
    assert output_file(builds, renamed) == paths[0]
    assert {path.parent for path in paths} == {tmp_path / "ladder.db.builds.output"}
