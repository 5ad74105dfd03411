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


def test_output_files_are_apart_per_version_and_safe_for_any_name(tmp_path: Path):
    builds = tmp_path / "ladder.db.builds"
    names = {output_file(builds, name, number)
             for name in ("alice", "Alice", "../x", "b/c") for number in (1, 2)}
    assert len(names) == 6  # a name and its case-folded twin share their files
    assert {path.parent for path in names} == {tmp_path / "ladder.db.builds.output"}
