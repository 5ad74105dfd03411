"""An optional sandbox for bots the runner launches (``arena match --sandbox``).

A sandboxed bot runs under ``unshare`` (util-linux, unprivileged user namespaces) in its own
user, PID, mount and network namespaces, and speaks the protocol over its standard input and
output, which the runner bridges to the server (it has no network at all, so the server is the
only peer it can reach).  Inside:

- every mount is remounted read-only; its scratch folder (``TMPDIR``) is a fresh private tmpfs
  on ``/dev/shm``; ``/run`` and ``/var/run`` (the machine's UNIX sockets), the temp folders
  (``/tmp``, ``/var/tmp``, ``TMPDIR``: other programs' sockets and files), the log folder
  (the other bots' output, the game logs), the transcripts and the runner's private folders
  are each an empty tmpfs;
- the bot itself runs in a second user namespace as nobody, without any capability over the
  mounts, so it cannot remount them writable or unmount ``/proc``;
- ``/proc`` shows only the sandbox's own processes: no other bot's memory, command line or
  files descriptors, and not the server's (where hands and seeds live);
- resource limits cap its address space (memory), CPU seconds, file size and open files (per
  process), and the number of its processes and threads together (``RLIMIT_NPROC``, which
  Linux 5.14 and later count in the bot's own user namespace; under root, which that limit
  does not bind, a ``pids`` cgroup of its own: :mod:`arena.launch.pids_cgroup`);
- it does not outlive the runner: a pipe only the runner holds ends when the runner does,
  however it ends, and the sandbox then kills the bot (:mod:`arena.launch.sandbox_run`).

What it does not protect against: reading other files the user can read (the filesystem is
visible, read-only), UNIX sockets in other folders (connecting to a socket needs no write
access to the filesystem), a kernel exploit, or using up the machine's CPU within its
CPU-seconds budget (use fewer concurrent tables, or cgroups, for strict shares); under root
where no ``pids`` cgroup can be made, its processes are not capped.  For bots you do not trust
at all, also run the arena as a user of its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

#: What the sandbox runs before the bot, as process 1 of its PID namespace (its arguments: the
#: process cap, 3 if file descriptor 3 is the lifeline or else -1, the count of folders to hide,
#: the count of paths to keep, those folders, those paths, then the bot's command line).  The
#: paths to keep (the bot's own program where it lies in a temp folder: :func:`kept_paths`)
#: are bound aside before the folders are hidden and bound back, read-only, after.
#: Every mount read-only; fresh empty tmpfs over /run
#: and /var/run (the machine's UNIX sockets: D-Bus, docker, systemd), /dev/shm (the bot's
#: scratch folder, TMPDIR) and every folder to hide (the temp folders, the log folder, the
#: runner's private folders); back to the working folder through the new mounts (or /).  Then
#: the bot, with at most ``cap`` processes, in a second user namespace of its own, where it is
#: nobody and holds no capability over these mounts: it cannot undo them.  A watcher reads the
#: lifeline: at its end (the runner is gone, even killed with SIGKILL) it kills the bot, and
#: when the bot's process ends, process 1 does, which ends every process in the namespace.
SETUP = r"""
[ "$$" -eq 1 ] || { echo "sandbox: not in a PID namespace of its own" >&2; exit 125; }
cap=$1 life=$2 n=$3 k=$4; shift 4
while read -r _ _ _ _ point _; do mount -o remount,bind,ro "$point" 2>/dev/null; done \
    < /proc/self/mountinfo
for d in /run /var/run /dev/shm; do mount -t tmpfs -o size=64m tmpfs "$d" 2>/dev/null; done
i=0
while [ "$i" -lt "$k" ]; do  # the bot's own program, where it lies in a folder to hide
    eval "kept=\${$((n + i + 1))}"
    if [ -d "$kept" ]; then mkdir -p "/dev/shm/.kept/$i"; else touch "/dev/shm/.kept/$i"; fi
    mount --bind "$kept" "/dev/shm/.kept/$i" && mount -o remount,bind,ro "/dev/shm/.kept/$i" \
        || { echo "sandbox: cannot keep $kept" >&2; exit 125; }
    i=$((i + 1))
done
while [ "$n" -gt 0 ]; do
    if [ -d "$1" ]; then
        mount -t tmpfs -o size=16m,mode=1777 tmpfs "$1" \
            || { echo "sandbox: cannot hide $1" >&2; exit 125; }
    fi
    shift; n=$((n - 1))
done
i=0
while [ "$i" -lt "$k" ]; do
    if [ -d "/dev/shm/.kept/$i" ]; then mkdir -p "$1"; else mkdir -p "${1%/*}"; touch "$1"; fi
    mount --bind "/dev/shm/.kept/$i" "$1" && mount -o remount,bind,ro "$1" \
        || { echo "sandbox: cannot keep $1" >&2; exit 125; }
    shift; i=$((i + 1))
done
cd "$PWD" 2>/dev/null || cd /
export TMPDIR=/dev/shm
exec 4<&0
prlimit --nproc="$cap:$cap" -- unshare --user -- "$@" <&4 4<&- 3<&- &
bot=$!
exec 4<&-
if [ "$life" -eq 3 ]; then { cat >/dev/null; kill -s KILL "$bot"; } <&3 & fi
exec 3<&-
wait "$bot"
"""

def kept_paths(argv: Sequence[str], temp: Sequence[str], private: Sequence[str]) -> list[str]:
    """What of a temp folder the bot needs to run, kept (read-only) where the sandbox hides
    the temp folders: the virtual environment its interpreter belongs to (a ``pyvenv.cfg``
    above it: a venv made under /tmp, as CI makes one) and the folder of each script or file
    its command line names (only that file when it lies in a temp folder itself).  Nothing
    inside the log folder or the runner's private folders (``private``) is ever kept."""
    def under(path: Path, folders: Sequence[str]) -> bool:
        return any(path == Path(f) or Path(f) in path.parents for f in folders)

    found: list[Path] = []
    program = shutil.which(argv[0]) if argv else None
    if program is not None:
        for folder in Path(os.path.abspath(program)).parents:
            if (folder / "pyvenv.cfg").is_file():
                found.append(folder)
                break
    for argument in argv:
        path = Path(argument)
        if not path.is_absolute() or not path.exists():
            continue
        if path.is_file() and not any(path.parent == Path(f) for f in temp):
            path = path.parent
        found.append(path)
    kept = [p for p in dict.fromkeys(found) if under(p, temp) and not under(p, private)
            and not any(p == Path(f) for f in temp)]
    return [str(p) for p in kept if not any(q in p.parents for q in kept)]


class SandboxUnavailable(RuntimeError):
    """This machine cannot run the sandbox (no ``unshare``, or user namespaces are off)."""


@attrs.frozen
class Sandbox:
    memory_mb: int = 2048  # address space; Node.js and the JVM reserve a lot: raise it for them
    cpu_seconds: int | None = None  # CPU time over the bot's whole life
    max_file_mb: int = 64  # the largest file it may write (in its private /tmp)
    max_open_files: int = 256
    #: Processes (threads count too: the JVM starts dozens) it may have at once.
    max_processes: int = 256

    def wrap(self, argv: list[str], hide: Sequence[Path | str] = (),
             lifeline: bool = False) -> list[str]:
        """The command line that runs ``argv`` in the sandbox, with an empty tmpfs over each
        folder of ``hide`` (and over the temp folders: /tmp, /var/tmp, ``TMPDIR``); with
        ``lifeline``, the bot is stopped when the process's file descriptor 3 (a pipe's read
        end) reaches its end."""
        unshare = shutil.which("unshare")
        if unshare is None or shutil.which("prlimit") is None:
            raise SandboxUnavailable("the sandbox needs `unshare` and `prlimit` (util-linux)")
        temp = list(dict.fromkeys([tempfile.gettempdir(), "/tmp", "/var/tmp"]))
        hidden = list(dict.fromkeys([*temp, *map(str, hide)]))
        kept = kept_paths(argv, temp, [str(folder) for folder in hide])
        return [unshare, "--user", "--map-root-user", "--mount", "--net", "--pid", "--fork",
                "--mount-proc", "--kill-child", "sh", "-c", SETUP, "sandboxed-bot",
                str(self.max_processes), "3" if lifeline else "-1",
                str(len(hidden)), str(len(kept)), *hidden, *kept, *argv]

    def limits(self) -> Callable[[], None]:
        """A ``preexec_fn`` setting the resource limits in the child before it starts."""
        memory, cpu = self.memory_mb * 1024 * 1024, self.cpu_seconds
        file_size, open_files = self.max_file_mb * 1024 * 1024, self.max_open_files

        def apply() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))
            if cpu is not None:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

        return apply

    def check(self) -> None:
        """Raise :class:`SandboxUnavailable` (saying why) unless the sandbox works here."""
        try:
            done = subprocess.run(self.wrap(["true"]), capture_output=True, timeout=10,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"the sandbox cannot start: {exc}") from None
        if done.returncode != 0:
            detail = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
            raise SandboxUnavailable(f"the sandbox cannot start (are unprivileged user "
                                     f"namespaces allowed?): {detail}")
