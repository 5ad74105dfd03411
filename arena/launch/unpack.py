"""Unpacking what a participant submits (a file, a folder or an archive), and what a sandboxed
build gives back, into a folder of ours, by rules no archive can talk its way around:

- a member's name is relative, with no ``..`` part and no empty name; an absolute name is
  refused, not made relative; a name with a backslash or a control character (a newline) is
  refused (a build's recipe lists its files one a line);
- a name is printable ASCII without spaces (no look-alike letters, invisible or right-to-left
  characters, nothing a normal form would change), no part of it begins with ``-`` (a tool
  given the files would read it as an option), and no two names, or folders, are equal but
  for case (a case-insensitive file system would make them one);
- only regular files, folders and symbolic links whose target is relative and goes only down
  (no ``..`` part, not absolute) are accepted: a link out of the folder, a hard link, a
  device, a FIFO or a socket is refused, and no member is written through a link (a member
  whose folder is a link is refused);
- at most ``max_files`` members and ``max_bytes`` bytes in all, counted while the bytes are
  written, whatever the archive's headers say (a compressed bomb stops at the limit); every
  folder made, named by a member or implied by a member's path, counts as a file and as
  :data:`FOLDER_BYTES` bytes (a bomb of deep paths stops at the limit too);
- a name at most :data:`MAX_DEPTH` parts deep, each part at most :data:`MAX_PART` bytes, the
  whole at most :data:`MAX_NAME` bytes;
- files are written new (``O_EXCL``, ``O_NOFOLLOW``), with mode 0644, or 0755 when the member
  was executable; owners and times are not kept;
- a submitted folder is read by descriptors: each file and folder opened once, relative to its
  folder's descriptor, never through a link (``O_NOFOLLOW``), and checked on the descriptor to
  be what was listed; a file or folder swapped for a link while it is read is refused, never
  followed (a submitted file or archive is opened the same way).

Any refusal is an :class:`UnpackError` saying which member and why; the caller removes the
folder.  :func:`pack` makes the one archive form arena stores (a tar, gzip-compressed, members
sorted, owners and times zeroed), so the same files always give the same bytes and digest."""

from __future__ import annotations

import bz2
import errno
import gzip
import hashlib
import io
import lzma
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

import attrs

#: Bytes copied at a time (and the granularity of the byte count).
CHUNK = 64 * 1024
#: Suffixes read as archives; any other file is submitted as itself.
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
ZIP_SUFFIXES = (".zip",)
#: The deepest a member's name may be (its parts), the longest a part and a whole name may be
#: (bytes, UTF-8).
MAX_DEPTH = 32
MAX_PART = 255
MAX_NAME = 1024
#: The bytes a folder made counts for (its disk use, nominally).
FOLDER_BYTES = 4096
#: Bytes of a tar's own a member may take (its header, padding, a pax header or long name),
#: and an archive besides (its end, its last record): a tar read beyond its limits' bytes and
#: these is refused.
MEMBER_OVERHEAD = 16 * 1024
ARCHIVE_OVERHEAD = 64 * 1024


class UnpackError(ValueError):
    """A member that breaks a rule, or a limit reached."""


@attrs.frozen
class UnpackLimits:
    max_files: int
    max_bytes: int


@attrs.define
class _Tally:
    limits: UnpackLimits
    files: int = 0
    bytes: int = 0
    #: Each name and folder seen, by its case-folded form.
    cased: dict[str, str] = attrs.field(factory=dict)

    def member(self, name: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise UnpackError(f"more than {self.limits.max_files} files (at {name!r})")

    def folder(self, name: str) -> None:
        """A folder is to be made (named or implied by ``name``)."""
        self.member(name)
        self.add(FOLDER_BYTES, name)

    def path(self, name: str) -> PurePosixPath:
        """:func:`member_path`, and no two names (or folders of names) equal but for case,
        which a case-insensitive file system or archive tool would make one."""
        relative = member_path(name)
        for depth in range(1, len(relative.parts) + 1):
            exact = "/".join(relative.parts[:depth])
            known = self.cased.setdefault(exact.casefold(), exact)
            if known != exact:
                raise UnpackError(f"{name!r}: the same name as {known!r} but for case")
        return relative

    def add(self, count: int, name: str) -> None:
        self.bytes += count
        if self.bytes > self.limits.max_bytes:
            raise UnpackError(f"more than {self.limits.max_bytes} bytes unpacked (at {name!r})")


def member_path(name: str) -> PurePosixPath:
    """The relative path a member's name stands for; an UnpackError for an absolute one, one
    with a ``..`` part, or an empty one."""
    if "\\" in name or any(ord(char) < 0x20 or ord(char) == 0x7f for char in name):
        raise UnpackError(f"{name!r}: a name with a control character (a newline, a NUL...) "
                          "or a backslash")
    path = PurePosixPath(name)
    if not name.isascii() or not name.isprintable() or " " in name:
        raise UnpackError(f"{name!r}: a name of printable ASCII characters without spaces is "
                          "needed")
    if any(part.startswith("-") for part in path.parts):
        raise UnpackError(f"{name!r}: a name whose part begins with '-' (a tool would read it "
                          "as an option)")
    if path.is_absolute():
        raise UnpackError(f"{name!r}: an absolute path")
    parts = [part for part in path.parts if part != "."]
    if ".." in parts:
        raise UnpackError(f"{name!r}: a path with '..'")
    if not parts:
        raise UnpackError(f"{name!r}: an empty name")
    if len(parts) > MAX_DEPTH:
        raise UnpackError(f"{name[:80]!r}...: more than {MAX_DEPTH} folders deep")
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_PART for part in parts):
        raise UnpackError(f"{name[:80]!r}...: a part of the name longer than {MAX_PART} bytes")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME:
        raise UnpackError(f"{name[:80]!r}...: a name longer than {MAX_NAME} bytes")
    return PurePosixPath(*parts)


def is_root(name: str) -> bool:
    """Whether a folder member names the archive's own folder (``.``, ``./``): skipped."""
    return not name.startswith("/") and all(part == "." for part in PurePosixPath(name).parts)


def link_target(name: str, target: str) -> str:
    """A link's target, when it stays inside: relative, with no ``..`` part."""
    path = PurePosixPath(target)
    if not target or path.is_absolute() or ".." in path.parts or "\0" in target:
        raise UnpackError(f"{name!r}: a link pointing outside its folder ({target!r})")
    return target


def _parent(dest: Path, relative: PurePosixPath, tally: _Tally) -> Path:
    """The member's folder, made as real folders (never through a link), each counted."""
    folder = dest
    for part in relative.parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise UnpackError(f"{str(relative)!r}: written through a link ({part!r})")
        if not folder.exists():
            tally.folder(str(relative))
            folder.mkdir()
        elif not folder.is_dir():
            raise UnpackError(f"{str(relative)!r}: {part!r} is not a folder")
    return folder


def _write(dest: Path, relative: PurePosixPath, source: IO[bytes], executable: bool,
           tally: _Tally) -> None:
    target = _parent(dest, relative, tally) / relative.name
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        descriptor = os.open(target, flags, 0o755 if executable else 0o644)
    except FileExistsError:
        raise UnpackError(f"{str(relative)!r}: given twice") from None
    with os.fdopen(descriptor, "wb") as out:
        while chunk := source.read(CHUNK):
            tally.add(len(chunk), str(relative))
            out.write(chunk)


def _folder(dest: Path, relative: PurePosixPath, tally: _Tally) -> None:
    target = _parent(dest, relative, tally) / relative.name
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise UnpackError(f"{str(relative)!r}: given twice")
    if not target.exists():
        tally.add(FOLDER_BYTES, str(relative))
        target.mkdir()


def _link(dest: Path, relative: PurePosixPath, target: str, tally: _Tally) -> None:
    where = _parent(dest, relative, tally) / relative.name
    if where.exists() or where.is_symlink():
        raise UnpackError(f"{str(relative)!r}: given twice")
    os.symlink(link_target(str(relative), target), where)


def _decompressed(source: IO[bytes]) -> Any:
    """``source`` (a file, seekable) decompressed (gzip, bzip2, xz, or none) as it is read."""
    head = source.read(6)
    source.seek(-len(head), os.SEEK_CUR)
    raw = source
    if head.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if head.startswith(b"BZh"):
        return bz2.BZ2File(raw)
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw)
    return raw


class _Counted:
    """A tar stream, decompressed, read :data:`CHUNK` bytes at most at a time and counted:
    past ``limit`` bytes an UnpackError (tarfile reads a pax header or a GNU long name whole,
    whatever size it claims: a compressed bomb of one header would fill the memory)."""

    def __init__(self, source: IO[bytes], limit: int) -> None:
        self.stream = _decompressed(source)
        self.limit = limit
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data: bytes = self.stream.read(CHUNK if size < 0 else min(size, CHUNK))
        self.count += len(data)
        if self.count > self.limit:
            raise UnpackError(f"more than {self.limit} bytes unpacked (the archive read as a "
                              "tar, with its headers)")
        return data


def unpack_tar(source: IO[bytes], dest: Path, limits: UnpackLimits) -> None:
    """Unpack a tar file (compressed or not, seekable) into the folder ``dest``."""
    tally = _Tally(limits)
    try:
        counted = _Counted(source, limits.max_bytes + limits.max_files * MEMBER_OVERHEAD
                           + ARCHIVE_OVERHEAD)
        with tarfile.open(fileobj=counted, mode="r|") as archive:  # type: ignore[call-overload]
            for member in archive:
                tally.member(member.name)
                if member.isdir() and is_root(member.name):
                    continue
                relative = tally.path(member.name)
                if member.isreg():
                    data = archive.extractfile(member)
                    assert data is not None
                    _write(dest, relative, data, bool(member.mode & 0o111), tally)
                elif member.isdir():
                    _folder(dest, relative, tally)
                elif member.issym():
                    _link(dest, relative, member.linkname, tally)
                elif member.islnk():
                    raise UnpackError(f"{member.name!r}: a hard link")
                else:
                    raise UnpackError(f"{member.name!r}: a device, FIFO or other special file")
    except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        raise UnpackError(f"not a readable archive: {exc}") from None


def unpack_zip(path: Path | IO[bytes], dest: Path, limits: UnpackLimits) -> None:
    tally = _Tally(limits)
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                tally.member(info.filename)
                if info.is_dir() and is_root(info.filename):
                    continue
                relative = tally.path(info.filename)
                mode = info.external_attr >> 16
                if info.is_dir():
                    _folder(dest, relative, tally)
                elif mode and not stat.S_ISREG(mode):
                    raise UnpackError(f"{info.filename!r}: a link or special file in a zip")
                else:
                    with archive.open(info) as data:
                        _write(dest, relative, data, bool(mode & 0o111), tally)
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
        raise UnpackError(f"not a readable archive: {exc}") from None


#: How a submitted folder's folders and files are opened: never through a link (``O_NOFOLLOW``),
#: relative to their folder's descriptor, so no path is looked up twice; ``O_NONBLOCK`` so a
#: file swapped for a FIFO meanwhile does not hang the open (its ``fstat`` refuses it).
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def _changed(name: str) -> UnpackError:
    return UnpackError(f"{name!r}: changed while it was read (a link or another file put in "
                       "its place); submit it again from a folder nobody changes meanwhile")


def _copy_folder(folder: Path, dest: Path, limits: UnpackLimits) -> None:
    """A folder's files, each opened once, relative to its folder's descriptor, never through a
    link, and checked on the descriptor (``fstat``) to be the regular file or folder that was
    listed: a participant who can write the folder while it is read (a link swapped in for a
    file) gets a refusal, never a host file's bytes in the source."""
    tally = _Tally(limits)
    try:
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise UnpackError(f"{folder}: {exc.strerror}") from None
    try:
        _copy_under(top, PurePosixPath(), dest, tally)
    finally:
        os.close(top)


def _copy_under(parent: int, where: PurePosixPath, dest: Path, tally: _Tally) -> None:
    """The entries of the folder open as ``parent`` (``where`` in the submission)."""
    for entry in sorted(os.listdir(parent)):
        name = (where / entry).as_posix()
        tally.member(name)
        relative = tally.path(name)
        try:
            info = os.stat(entry, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            raise _changed(name) from None
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(entry, dir_fd=parent)
            except OSError:
                raise _changed(name) from None
            _link(dest, relative, target, tally)
        elif stat.S_ISDIR(info.st_mode):
            _folder(dest, relative, tally)
            inner = _open_same(parent, entry, _DIR_FLAGS, info, name)
            try:
                _copy_under(inner, relative, dest, tally)
            finally:
                os.close(inner)
        elif stat.S_ISREG(info.st_mode):
            handle = _open_same(parent, entry, _FILE_FLAGS, info, name)
            if os.fstat(handle).st_size > tally.limits.max_bytes - tally.bytes:
                os.close(handle)
                raise UnpackError(f"more than {tally.limits.max_bytes} bytes unpacked (at "
                                  f"{name!r})")
            with os.fdopen(handle, "rb") as data:
                _write(dest, relative, data, bool(info.st_mode & 0o111), tally)
        else:
            raise UnpackError(f"{name!r}: a device, FIFO or other special file")


def _open_same(parent: int, entry: str, flags: int, listed: os.stat_result, name: str) -> int:
    """``entry`` opened (``flags``: never through a link), when it is still the file or folder
    ``listed`` (the same kind, device and inode); otherwise an UnpackError."""
    try:
        handle = os.open(entry, flags, dir_fd=parent)
    except OSError:
        raise _changed(name) from None
    opened = os.fstat(handle)
    if (stat.S_IFMT(opened.st_mode) != stat.S_IFMT(listed.st_mode)
            or (opened.st_dev, opened.st_ino) != (listed.st_dev, listed.st_ino)):
        os.close(handle)
        raise _changed(name)
    return handle


def walk(folder: Path, max_depth: int | None = None,
         max_entries: int | None = None) -> Iterator[Path]:
    """Everything under ``folder``, links not followed, without recursion (however deep the
    folder is); an UnpackError past ``max_depth`` parts deep or ``max_entries`` entries."""
    pending = [(folder, 0)]
    seen = 0
    while pending:
        where, depth = pending.pop()
        with os.scandir(where) as entries:
            for entry in entries:
                path = Path(entry.path)
                seen += 1
                if max_entries is not None and seen > max_entries:
                    raise UnpackError(f"more than {max_entries} files (at "
                                      f"{path.relative_to(folder).as_posix()[:80]!r})")
                if max_depth is not None and depth + 1 > max_depth:
                    raise UnpackError(f"{path.relative_to(folder).as_posix()[:80]!r}...: more "
                                      f"than {max_depth} folders deep")
                yield path
                if entry.is_dir(follow_symlinks=False):
                    pending.append((path, depth + 1))


def _open_given(path: Path) -> IO[bytes]:
    """The submitted file or archive, opened once, not through a link, checked to be a regular
    file on its descriptor (a link or a FIFO put in its place meanwhile is refused)."""
    try:
        handle = os.open(path, _FILE_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnpackError(f"{path.name!r}: a link; submit the file it points to") from None
        raise UnpackError(f"{path.name!r}: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise UnpackError(f"{path.name!r}: not a regular file")
    return os.fdopen(handle, "rb")


def unpack(path: Path, dest: Path, limits: UnpackLimits) -> None:
    """What ``path`` holds into the (existing, empty) folder ``dest``: a folder's files, an
    archive's members (by its suffix), or a single file as itself."""
    if path.is_dir():
        _copy_folder(path, dest, limits)
        return
    with _open_given(path) as source:
        if path.name.lower().endswith(TAR_SUFFIXES):
            unpack_tar(source, dest, limits)
        elif path.name.lower().endswith(ZIP_SUFFIXES):
            unpack_zip(source, dest, limits)
        else:
            tally = _Tally(limits)
            tally.member(path.name)
            executable = bool(os.fstat(source.fileno()).st_mode & 0o111)
            _write(dest, tally.path(path.name), source, executable, tally)


def pack(folder: Path) -> bytes:
    """The folder as arena stores it: a gzip-compressed tar, members sorted, owners and times
    zeroed (the same files give the same bytes)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped, \
            tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path in sorted(walk(folder)):
            info = archive.gettarinfo(str(path), path.relative_to(folder).as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.isreg():
                info.mode = 0o755 if info.mode & 0o111 else 0o644
                with path.open("rb") as data:
                    archive.addfile(info, data)
            else:
                info.mode = 0o755 if info.isdir() else 0o777
                archive.addfile(info)
    return buffer.getvalue()


def digest(data: bytes) -> str:
    """The digest a stored source or build is known by."""
    return hashlib.sha256(data).hexdigest()
