"""Unpacking a submission (issue 33 §4): each hostile archive is refused saying why, nothing is
written outside the folder, and sizes are counted as bytes are written, not read from headers."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.launch.unpack import UnpackError, UnpackLimits, digest, pack, unpack, walk

LIMITS = UnpackLimits(max_files=20, max_bytes=10_000)


def tar_with(path: Path, *members: tuple[tarfile.TarInfo, bytes | None]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def member(name: str, data: bytes = b"x", **fields: object) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data


@pytest.mark.parametrize(("members", "said"), [
    ([member("../evil.py")], "a path with '..'"),
    ([member("ok/../../evil.py")], "a path with '..'"),
    ([member("/tmp/evil.py")], "an absolute path"),
    ([member("out", b"", type=tarfile.SYMTYPE, linkname="/etc/passwd")], "pointing outside"),
    ([member("out", b"", type=tarfile.SYMTYPE, linkname="../../db")], "pointing outside"),
    ([member("dir", b"", type=tarfile.SYMTYPE, linkname="."), member("dir/x.py")],
     "written through a link"),
    ([member("hard", b"", type=tarfile.LNKTYPE, linkname="main.py")], "a hard link"),
    ([member("null", b"", type=tarfile.CHRTYPE, devmajor=1, devminor=3)], "special file"),
    ([member("fifo", b"", type=tarfile.FIFOTYPE)], "special file"),
    ([member(f"f{i}") for i in range(21)], "more than 20 files"),
    ([member("big", b"a" * 10_001)], "more than 10000 bytes"),
    ([member("main.py"), member("main.py")], "given twice"),
    ([member("a/b/c/x")], "more than 10000 bytes"),
    ([member("/".join(["d"] * 32) + "/f")], "more than 32 folders deep"),
    ([member("a" * 256)], "longer than 255 bytes"),
    ([member("a\nb.c")], "a control character"),
    ([member("a\x1b[2Jb.c")], "a control character"),
    ([member("/".join(["a" * 200] * 6))], "longer than 1024 bytes"),
    ([member("-rf.c")], "begins with '-'"),
    ([member("lib/--help")], "begins with '-'"),
    ([member("my bot.py")], "printable ASCII"),
    ([member("main\u200b.py")], "printable ASCII"),  # a zero-width space
    ([member("m\u0430in.py")], "printable ASCII"),  # a Cyrillic a
    ([member("e\u0301.py")], "printable ASCII"),  # not NFC
    ([member("gpl\u202etxt.py")], "printable ASCII"),  # a right-to-left override
    ([member("Main.java"), member("main.java")], "but for case"),
    ([member("Lib/a.py"), member("lib/b.py")], "but for case"),
])
def test_a_hostile_tar_is_refused_and_writes_nothing_outside(tmp_path: Path, members, said):
    dest = tmp_path / "dest"
    dest.mkdir()
    archive = tar_with(tmp_path / "bot.tar.gz", *members)
    with pytest.raises(UnpackError, match=said):
        unpack(archive, dest, LIMITS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.tar.gz", "dest"]


def test_a_compressed_bomb_stops_at_the_limit_whatever_its_header_says(tmp_path: Path):
    big = tmp_path / "bomb.tar.gz"
    with tarfile.open(big, "w:gz") as archive:
        info = tarfile.TarInfo("zeros")
        info.size = 50_000_000  # 50 MB of zeros, some 50 kB compressed
        archive.addfile(info, io.BytesIO(bytes(info.size)))
    assert big.stat().st_size < 200_000
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(UnpackError, match="more than 10000 bytes"):
        unpack(big, dest, LIMITS)
    assert (dest / "zeros").stat().st_size <= 10_000 + 64 * 1024

    lying = tmp_path / "lying.zip"  # a zip whose header says 10 bytes for 1 MB
    with zipfile.ZipFile(lying, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros", bytes(1_000_000))
    raw = bytearray(lying.read_bytes())
    for offset in (raw.find(b"PK\x03\x04") + 22, raw.find(b"PK\x01\x02") + 24):
        raw[offset:offset + 4] = (10).to_bytes(4, "little")  # the uncompressed size
    lying.write_bytes(bytes(raw))
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(UnpackError):
        unpack(lying, other, LIMITS)


def test_a_zip_with_a_link_or_dotdot_is_refused(tmp_path: Path):
    for name, mode, said in (("../x", 0o100644, "'..'"), ("l", 0o120777, "a link")):
        archive = tmp_path / f"{mode}.zip"
        with zipfile.ZipFile(archive, "w") as zipped:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            zipped.writestr(info, "/etc/passwd")
        dest = tmp_path / f"dest{mode}"
        dest.mkdir()
        with pytest.raises(UnpackError, match=said):
            unpack(archive, dest, LIMITS)


def test_a_folder_file_or_archive_unpacks_and_packs_to_the_same_digest(tmp_path: Path):
    folder = tmp_path / "src"
    (folder / "lib").mkdir(parents=True)
    (folder / "main.py").write_text("print(1)\n")
    (folder / "lib" / "run").write_text("#!/bin/sh\n")
    os.chmod(folder / "lib" / "run", 0o755)
    os.symlink("lib/run", folder / "start")
    copies = []
    for i, given in enumerate((folder, tar_of(folder, tmp_path / "src.tgz"))):
        dest = tmp_path / f"copy{i}"
        dest.mkdir()
        unpack(given, dest, LIMITS)
        assert (dest / "main.py").read_text() == "print(1)\n"
        assert os.access(dest / "lib" / "run", os.X_OK)
        assert os.readlink(dest / "start") == "lib/run"
        copies.append(digest(pack(dest)))
    assert copies[0] == copies[1]
    single = tmp_path / "single"
    single.mkdir()
    unpack(folder / "main.py", single, LIMITS)
    assert [p.name for p in single.iterdir()] == ["main.py"]
    link_out = tmp_path / "linked"
    link_out.mkdir()
    os.symlink("/etc/passwd", link_out / "passwd")
    with pytest.raises(UnpackError, match="pointing outside"):
        unpack(link_out, tmp_path / "single", LIMITS)


def tar_of(folder: Path, path: Path) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        archive.add(folder, arcname=".")
    return path


def test_a_folder_bomb_of_deep_paths_stops_at_the_file_limit(tmp_path: Path):
    """40 members 900 folders deep (a KB compressed) made 36,040 folders: every folder made,
    named or implied, now counts as a file, and a name is at most 32 parts deep."""
    dest = tmp_path / "dest"
    dest.mkdir()
    deep = "/".join(["d"] * 30)
    archive = tar_with(tmp_path / "bomb.tar.gz",
                       *(member(f"{i}/{deep}/f") for i in range(40)))
    with pytest.raises(UnpackError, match="more than 20 files"):
        unpack(archive, dest, UnpackLimits(max_files=20, max_bytes=10**9))
    assert sum(1 for _ in walk(dest)) <= 20


def test_a_too_deep_folder_is_refused_in_one_line_without_recursing(tmp_path: Path):
    """A submitted folder 1,100 levels deep: os.walk (recursive in Python 3.11) raised a
    RecursionError; it is refused, as too deep, and :func:`walk` goes through it all."""
    top = tmp_path / "bot"
    top.mkdir()
    (top / "main.py").write_text("print('hi')\n")
    chain = [top]
    for _ in range(1100):
        chain.append(chain[-1] / "d")
        chain[-1].mkdir()
    try:
        dest = tmp_path / "dest"
        dest.mkdir()
        with pytest.raises(UnpackError, match="more than 32 folders deep"):
            unpack(top, dest, UnpackLimits(max_files=5000, max_bytes=10**9))
        assert sum(1 for _ in walk(top)) == 1101
    finally:
        for folder in reversed(chain[1:]):
            folder.rmdir()


def test_a_file_swapped_for_a_link_while_the_folder_is_read_copies_no_host_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The symlink race of a folder the participant can write: ``main.py`` is looked at, then
    (in the window before it is opened) replaced by a link to a host file.  Nothing is
    followed: the submission is refused in one line, and the host file's bytes are nowhere."""
    secret = tmp_path / "host-secret"
    secret.write_text("THE-HOST-SECRET\n")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text("print(1)\n")
    real_stat = os.stat
    swapped = []

    def stat_then_swap(path, *args, **kwargs):
        found = real_stat(path, *args, **kwargs)
        if os.fspath(path).endswith("main.py") and not swapped:
            swapped.append(path)
            (folder / "main.py").unlink()
            os.symlink(secret, folder / "main.py")
        return found

    monkeypatch.setattr(os, "stat", stat_then_swap)
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(UnpackError) as refused:
        unpack(folder, dest, LIMITS)
    monkeypatch.undo()
    assert swapped
    assert "main.py" in str(refused.value) and "\n" not in str(refused.value)
    for path in walk(dest):
        if path.is_file() and not path.is_symlink():
            assert b"THE-HOST-SECRET" not in path.read_bytes()


def test_a_folder_swapped_for_a_link_while_the_folder_is_read_is_not_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The same race on a folder: ``lib`` is looked at, then replaced by a link to a host
    folder; its files are not read."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "secret").write_text("THE-HOST-SECRET\n")
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "lib" / "x.py").write_text("x = 1\n")
    real_stat = os.stat
    swapped = []

    def stat_then_swap(path, *args, **kwargs):
        found = real_stat(path, *args, **kwargs)
        if os.fspath(path).endswith("lib") and not swapped:
            swapped.append(path)
            (folder / "lib" / "x.py").unlink()
            (folder / "lib").rmdir()
            os.symlink(host, folder / "lib")
        return found

    monkeypatch.setattr(os, "stat", stat_then_swap)
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(UnpackError, match="lib"):
        unpack(folder, dest, LIMITS)
    monkeypatch.undo()
    assert swapped
    assert not (dest / "lib" / "secret").exists()


def test_a_submitted_file_or_archive_that_is_a_link_is_refused_not_followed(tmp_path: Path):
    """A single file (or an archive) given by its path, which the participant turned into a
    link to a host file: refused in one line, the host file not read."""
    secret = tmp_path / "host-secret"
    secret.write_text("THE-HOST-SECRET\n")
    for name in ("main.py", "bot.tar.gz"):
        given = tmp_path / name
        os.symlink(secret, given)
        dest = tmp_path / f"dest-{name}"
        dest.mkdir()
        with pytest.raises(UnpackError, match="a link"):
            unpack(given, dest, LIMITS)
        assert list(dest.iterdir()) == []


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME])
def test_a_huge_header_of_a_compressed_tar_is_refused_without_being_read_whole(
        tmp_path: Path, kind: bytes):
    """A pax header (or GNU long name) claiming 64 MB, of a 64 kB gzip: Python's tarfile reads
    such a header whole into memory (16 MB given could be gigabytes, and a header of digits
    takes minutes to parse); the decompressed tar is counted as it is read, and refused past
    what the limits allow an archive (their bytes, and a few kB a member), long before."""
    import gzip
    import tracemalloc

    size = 64 * 1024 * 1024
    info = tarfile.TarInfo("././@LongLink")
    info.type = kind
    info.size = size
    bomb = tmp_path / "bomb.tar.gz"
    with gzip.open(bomb, "wb") as out:
        out.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        for _ in range(size // 2**20):
            out.write(b"a" * 2**20)
        out.write(bytes(1024))
    tracemalloc.start()
    try:
        with pytest.raises(UnpackError, match="bytes unpacked"):
            unpack(bomb, tmp_path / "out", UnpackLimits(max_files=10, max_bytes=1024 * 1024))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, peak


@pytest.mark.parametrize("suffix", [".tar", ".tar.gz", ".tar.bz2", ".tar.xz"])
def test_each_compression_of_a_tar_unpacks_and_a_broken_one_is_refused(tmp_path: Path,
                                                                       suffix: str):
    folder = tmp_path / "src"
    (folder / "sub").mkdir(parents=True)
    (folder / "main.py").write_text("print(1)\n")
    (folder / "sub" / "x.py").write_bytes(os.urandom(3000))
    archive = tmp_path / f"src{suffix}"
    mode = {".tar": "w", ".tar.gz": "w:gz", ".tar.bz2": "w:bz2", ".tar.xz": "w:xz"}[suffix]
    with tarfile.open(archive, mode) as tar:
        tar.add(folder, arcname=".")
    for out in ("out", "out2"):
        (tmp_path / out).mkdir()
    unpack(archive, tmp_path / "out", UnpackLimits(max_files=10, max_bytes=10**6))
    assert digest(pack(tmp_path / "out")) == digest(pack(folder))
    broken = tmp_path / f"broken{suffix}"
    broken.write_bytes(archive.read_bytes()[:-300] if suffix != ".tar" else b"x" * 700)
    with pytest.raises(UnpackError, match="not a readable archive"):
        unpack(broken, tmp_path / "out2", UnpackLimits(max_files=10, max_bytes=10**6))
