"""Building a hosted bot's version in the sandbox (issue 33 §1), with the host's own toolchain.

The build runs in the allow-list sandbox (:mod:`arena.launch.sandbox`: no network, nothing of
the host but the system's folders, the toolchain and the version's own source, read-only at
``/src``), in a copy of the source in its private temp folder, whose size is the build's disk
(:attr:`BuildLimits.disk_bytes`).  What it gives back is that folder, as a tar on its standard
output (the build's own output goes to its log), read up to :attr:`BuildLimits.output_bytes`
and unpacked by the rules of :mod:`arena.launch.unpack` (a build is no more trusted than its
source).  Its log (standard error) is kept up to :attr:`BuildLimits.log_bytes` (the rest is
cut, said in the log).  A build that outlives :attr:`BuildLimits.seconds` is killed, whole
(the sandbox's guard); its memory is capped per process (and in all, under root, by a memory
cgroup), its processes are capped, its CPU seconds too.

Each way it can fail is a :class:`Built` with ``ok`` False and a reason in one line: the
toolchain missing, no entry file, the build failing (its last line of log), killed at its
time limit, an output too large or unsafe.  Nothing is raised for what a submission does."""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import attrs

from arena.launch.languages import Toolchain, build_script, run_words
from arena.launch.sandbox import Sandbox
from arena.launch.sandbox_run import SandboxRun
from arena.launch.unpack import UnpackError, UnpackLimits, digest, pack, unpack_tar, walk

#: Where the build's source is shown, read-only, and where its copy is built.
SOURCE_INSIDE = "/src"
BUILD_INSIDE = "/tmp/build"
#: The PATH a build gets (its toolchain's programs are named by their full paths anyway).
BUILD_PATH = "/usr/local/bin:/usr/bin:/bin"
#: The largest file (an archive) a submission may be, before it is read (``arena bots submit``
#: and the author's page's upload alike).
MAX_SUBMISSION_BYTES = 16 * 1024 * 1024


@attrs.frozen
class BuildLimits:
    #: Wall-clock seconds (also its CPU seconds): a build that never ends is killed then.
    seconds: float = 120.0
    #: The build's disk: its private temp folder, which holds the copy it builds in.
    disk_bytes: int = 512 * 1024 * 1024
    #: What it may give back (its folder after the build, as a tar) and the files in it.
    output_bytes: int = 64 * 1024 * 1024
    output_files: int = 10_000
    #: The log kept (the rest is cut).
    log_bytes: int = 64 * 1024
    #: Processes and threads at once.
    max_processes: int = 64


@attrs.frozen
class Built:
    ok: bool
    #: Why it failed, in one line ("" when it did not).
    reason: str
    log: str
    #: The build's folder, packed (:func:`arena.launch.unpack.pack`), and its digest.
    files: bytes = b""
    digest: str = ""
    run: tuple[str, ...] = ()


class _Capped:
    """Reads a stream in a thread, keeping at most ``limit`` bytes in ``sink``; past it calls
    ``over`` (once) and keeps reading (and dropping) so the writer never blocks."""

    def __init__(self, stream: IO[bytes], sink: IO[bytes], limit: int,
                 over: Callable[[], None]) -> None:
        self.stream, self.sink, self.limit, self.over = stream, sink, limit, over
        self.count = 0
        self.cut = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while chunk := self.stream.read(64 * 1024):
            room = self.limit - self.count
            if room > 0:
                self.sink.write(chunk[:room])
            self.count += len(chunk)
            if self.count > self.limit and not self.cut:
                self.cut = True
                self.over()


def build(source: Path, toolchain: Toolchain, entry: str, work: Path,
          limits: BuildLimits) -> Built:
    """Build the source folder ``source`` (unpacked, checked) in the sandbox; ``work`` is a
    private folder of the caller's (emptied by it), where the output is read and unpacked."""
    if not toolchain.available:
        return Built(False, toolchain.refusal(), "")
    language = toolchain.language
    script = (f"set -e\nmkdir {BUILD_INSIDE}\ncp -R {SOURCE_INSIDE}/. {BUILD_INSIDE}\n"
              f"cd {BUILD_INSIDE}\nexec 3>&1 1>&2\n{build_script(toolchain, entry)}\n"
              f"tar -C {BUILD_INSIDE} -cf - . >&3\n")
    sandbox = Sandbox(memory_mb=language.memory_mb, cpu_seconds=max(1, int(limits.seconds)),
                      max_file_mb=max(1, limits.disk_bytes // (1024 * 1024)),
                      max_processes=limits.max_processes, temp_bytes=limits.disk_bytes,
                      binds=((str(source), SOURCE_INSIDE),
                             *((folder, folder) for folder in toolchain.folders)))
    confined = SandboxRun(sandbox, [work])
    tar_path = work / "output.tar"
    log_path = work / "build.log"
    try:
        argv, extra = confined.command(["/bin/sh", "-c", script],
                                       {"PATH": BUILD_PATH, "LANG": "C.UTF-8"})
        with tar_path.open("wb") as tar_out, log_path.open("wb") as log_out:
            code, why = _run(argv, extra, tar_out, log_out, limits)
    finally:
        confined.close()
    log = _log_text(log_path, limits.log_bytes)
    if why:
        return Built(False, why, log)
    if code != 0:
        return Built(False, f"the build failed ({_status(code)}): {_last_line(log)}", log)
    out = work / "out"
    out.mkdir()
    try:
        with tar_path.open("rb") as stream:
            unpack_tar(stream, out, UnpackLimits(limits.output_files, limits.output_bytes))
    except UnpackError as exc:
        return Built(False, f"the build's output: {exc}", log)
    finally:
        with contextlib.suppress(OSError):
            tar_path.unlink()
    files = pack(out)
    return Built(True, "", log, files, digest(files), run_words(language, entry))


def _run(argv: list[str], extra: dict[str, Any], tar_out: IO[bytes], log_out: IO[bytes],
         limits: BuildLimits) -> tuple[int, str]:
    """Run the sandboxed build: (its exit status, why it was stopped or "")."""
    stopped: list[str] = []
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True, **extra)

    def too_much() -> None:
        stopped.append(f"the build gave back more than {limits.output_bytes} bytes")
        process.kill()

    assert process.stdout is not None and process.stderr is not None
    readers = [_Capped(process.stdout, tar_out, limits.output_bytes + 1024 * 1024, too_much),
               _Capped(process.stderr, log_out, limits.log_bytes, lambda: None)]
    try:
        code = process.wait(timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        stopped.append(f"the build took longer than {limits.seconds:g} s: stopped")
        process.kill()
        code = process.wait()
    for reader in readers:
        reader.thread.join()
    if readers[1].cut:
        log_out.write(f"\n[log cut at {limits.log_bytes} bytes]\n".encode())
    return code, (stopped[0] if stopped else "")


def _status(code: int) -> str:
    if code > 128 or code < 0:
        number = code - 128 if code > 128 else -code
        return f"killed by signal {number}: a limit reached (memory, CPU or processes)"
    return f"exit status {code}"


def _log_text(path: Path, limit: int) -> str:
    return path.read_bytes()[:limit + 200].decode("utf-8", errors="replace")


def _last_line(log: str) -> str:
    """The log's last line saying "error" (a compiler's last words are often a summary), else
    its last line."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or ["no output"])[-1][:300]


def source_files(folder: Path) -> list[str]:
    """The files of an unpacked source (relative POSIX paths), to guess its language."""
    return sorted(path.relative_to(folder).as_posix() for path in walk(folder)
                  if path.is_file() and not path.is_symlink())


def describe(toolchain: Toolchain) -> str:
    """A toolchain's build recipe as a participant reads it (``arena languages``)."""
    return shlex.join(["sh", "-c", build_script(toolchain, "{entry}")])

