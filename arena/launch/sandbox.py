"""An optional sandbox for bots the runner launches (``arena match --sandbox``), on bubblewrap.

A sandboxed bot runs under ``bwrap`` (Debian's ``bubblewrap``, the sandbox Flatpak uses) in its
own user, PID, mount, network, IPC and UTS namespaces, and speaks the protocol over its
standard input and output, which the runner bridges to the server (it has no network at all,
so the server is the only peer it can reach).  What it sees is an **allow-list**, not the host
less a deny-list: its root is an empty tmpfs holding only

- the system's read-only folders a program needs to start (``/usr`` and the ``/bin``, ``/lib``,
  ``/lib64``, ``/sbin`` beside it, and a few files of ``/etc``: the loader's cache, the
  certificates, the alternatives' links, the time zone, the JVM's configuration:
  :data:`SYSTEM_ETC`); no ``/etc/shadow``, ``/etc/passwd``, ``/root``, ``/home``, ``/run``,
  ``/var`` or ``/sys``;
- its own program, read-only (:mod:`arena.launch.sandbox_paths` says what, and why a bot's
  files cannot widen it): the installation its interpreter belongs to (a virtual environment
  and the Python it was made from), the folder of each file its command line names, and
  arena's own packages (public code, which the reference bots import);
- a private writable temp folder (``/tmp``, ``TMPDIR``, at most :data:`TEMP_BYTES`: the only
  place it can write), a fresh ``/proc`` showing only its own processes, and a minimal
  read-only ``/dev``.

So it never sees the current folder, the home folder, the event's database and its logs,
another bot's folder or output, the token files, or any UNIX socket of the host; ``/proc``
and ``/dev`` are read-only (under root the bot is root outside its namespace, and
``/proc/sys`` would obey it).  A folder its
command names is shown whole only when it holds none of those: a script lying in the current
folder (or the home folder, a temp folder, the database's folder) is shown alone, without its
siblings (give a bot that imports files of its own a folder of its own).  Nothing inside the
log folder or the runner's private folders is ever shown.

The bot runs as nobody, with no capability and no way to make a user namespace of its own; its
environment is cleared but for :data:`KEPT_VARIABLES` and the ``ARENA_*`` variables the runner
sets.  Resource limits cap its address space (memory), CPU seconds, file size and open files
(per process), and the number of its processes and threads together (``RLIMIT_NPROC``, set
inside its user namespace; under root, which that limit does not bind, a ``pids`` cgroup of its
own: :mod:`arena.launch.pids_cgroup`).  It does not outlive the runner: a guard outside the
sandbox (:data:`GUARD`) kills it when a pipe only the runner holds ends, however the runner
ends, or when the guard itself is killed (:mod:`arena.launch.sandbox_run`).

What it does not protect against: a kernel exploit; using up the machine's CPU within its
CPU-seconds budget (use fewer concurrent tables, or cgroups, for strict shares); where no
memory cgroup can be made (:mod:`arena.launch.memory_cgroup`: not root), memory beyond its
address space per process (a bot of many processes, or memory-backed files, holds more); under
root where no ``pids`` cgroup can be made, its processes are not capped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from arena.launch.sandbox_paths import SYSTEM_FOLDERS, under, visible_paths

#: What of /etc a program may need, shown read-only where it exists: the dynamic loader's
#: configuration, the certificates (not ``/etc/ssl/private``, the host's TLS keys: under root a
#: bot owns what it is shown), the alternatives' links (``/usr/bin/java`` and the like point
#: through them), the time zone, and the JVM's configuration on Debian.  Nothing here is a
#: secret; /etc/shadow, /etc/passwd and the rest are not shown.
SYSTEM_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
              "/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates", "/etc/localtime",
              "/etc/java-17-openjdk",
              "/etc/java-21-openjdk")

#: The bot's private temp folder: a tmpfs of at most this many bytes (its files also obey the
#: per-file cap, ``max_file_mb``).
TEMP_BYTES = 64 * 1024 * 1024

#: Seconds :meth:`Sandbox.check` gives a sandboxed Python to start and end (two interpreters
#: and bubblewrap: a second or less, far more on a machine under heavy load).
CHECK_SECONDS = 60

#: The user and group the bot runs as inside its user namespace (nobody).
NOBODY = 65534

#: The environment variables a sandboxed bot is given from the runner's (every ``ARENA_*`` the
#: runner sets is given too); the rest of the organiser's environment (keys, passwords, paths)
#: is not.  ``TMPDIR`` and ``HOME`` point at its private temp folder.
KEPT_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM")

#: The guard: a small Python program outside the sandbox, between the runner and ``bwrap``
#: (its arguments: the lifeline's descriptor or -1, then bwrap's command line).  It starts
#: bwrap (``--die-with-parent``: bwrap and the whole sandbox die with the guard, whose one
#: thread lives as long as it does) and waits for either end: bwrap's (its status is the
#: guard's) or the lifeline's (the runner is gone, even killed with SIGKILL: bwrap is killed).
#: The bot cannot reach it (it is not in the sandbox's PID namespace); the sandbox's process 1
#: is bubblewrap's, which no process inside may stop or kill.
GUARD = r"""
import os, select, signal, sys
life, argv = int(sys.argv[1]), sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        if life >= 0:
            os.close(life)
        os.execv(argv[0], argv)
    except OSError as exc:
        os.write(2, f"sandbox: cannot start {argv[0]}: {exc}\n".encode())
    os._exit(127)
for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(number, lambda *_: os.kill(pid, signal.SIGKILL))
handle = os.pidfd_open(pid)
watched = [handle] + ([life] if life >= 0 else [])
while True:
    ready = select.select(watched, [], [])[0]
    if life in ready and not os.read(life, 4096):
        os.kill(pid, signal.SIGKILL)
        watched.remove(life)
    if handle in ready:
        status = os.waitpid(pid, 0)[1]
        code = os.waitstatus_to_exitcode(status)
        sys.exit(128 - code if code < 0 else code)
"""


class SandboxUnavailable(RuntimeError):
    """This machine cannot run the sandbox (no ``bwrap``, or user namespaces are off)."""


def _paths(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


def _pairs(values: Iterable[Sequence[str]]) -> tuple[tuple[str, str], ...]:
    """(host, inside) pairs as tuples (a JSON copy gives lists): a Sandbox stays hashable."""
    return tuple((str(host), str(inside)) for host, inside in values)


@attrs.frozen
class Sandbox:
    memory_mb: int = 2048  # address space; Node.js and the JVM reserve a lot: raise it for them
    cpu_seconds: int | None = None  # CPU time over the bot's whole life
    max_file_mb: int = 64  # the largest file it may write (in its private /tmp)
    max_open_files: int = 256
    #: Processes (threads count too: the JVM starts dozens) it may have at once.
    max_processes: int = 256
    #: The event's database files: never shown, nor their folder whole.
    protect: tuple[str, ...] = attrs.field(default=(), converter=_paths)
    #: Host folders shown read-only at a place of the sandbox's choosing, (host, inside): a
    #: hosted bot's source at ``/src`` for its build (:mod:`arena.launch.hosted_build`), a
    #: toolchain's installation at its own place.
    binds: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_pairs)
    #: The size of its private temp folder (a build's needs more than a bot's).
    temp_bytes: int = TEMP_BYTES

    def databases(self) -> list[Path]:
        return [Path(os.path.abspath(name)) for name in self.protect]

    def protected(self) -> list[Path]:
        """The folders a bot's own folder may not be, nor lie above (:func:`visible_paths`)."""
        found = [Path.cwd(), Path.home(), Path(tempfile.gettempdir()), Path("/tmp"),
                 Path("/var/tmp"), *(path.parent for path in self.databases())]
        return list(dict.fromkeys(found))

    def wrap(self, argv: list[str], hide: Sequence[Path | str] = (),
             lifeline: bool = False, others: Iterable[Path | str] = ()) -> list[str]:
        """The command line that runs ``argv`` in the sandbox, nothing inside the folders of
        ``hide`` or ``others`` (the other bots' folders) shown; with ``lifeline``, the bot is
        stopped when the process's file descriptor 3 (a pipe's read end) reaches its end."""
        bwrap = shutil.which("bwrap")
        if bwrap is None or shutil.which("prlimit") is None:
            raise SandboxUnavailable("the sandbox needs bubblewrap (`bwrap`: apt-get install "
                                     "bubblewrap) and `prlimit` (util-linux)")
        # the private temp folder first: what is shown of a temp folder is bound over it
        mounts = ["--size", str(self.temp_bytes), "--tmpfs", "/tmp"]
        for folder in SYSTEM_FOLDERS:
            if os.path.islink(folder):
                mounts += ["--symlink", os.readlink(folder), folder]
            elif os.path.isdir(folder):
                mounts += ["--ro-bind", folder, folder]
        for entry in SYSTEM_ETC:
            mounts += ["--ro-bind-try", entry, entry]
        shown = visible_paths(argv, hide, self.protected(), others=others,
                              databases=self.databases())
        for path in shown:
            mounts += ["--ro-bind", str(path), str(path)]
        for host, inside in self.binds:
            mounts += ["--ro-bind", host, inside]
        cwd = Path.cwd()
        if not any(under(cwd, p) or under(p, cwd) for p in shown) and not any(
                under(cwd, Path(s)) for s in SYSTEM_FOLDERS):
            # an empty read-only folder: relative paths still resolve, nothing is written
            mounts += ["--size", "4096", "--tmpfs", str(cwd), "--remount-ro", str(cwd)]
        return [sys.executable, "-I", "-S", "-c", GUARD, "3" if lifeline else "-1",
                bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--new-session",
                "--die-with-parent", "--cap-drop", "ALL", "--uid", str(NOBODY),
                "--gid", str(NOBODY), *mounts, "--proc", "/proc", "--dev", "/dev",
                # nothing writable but its temp folder (of bounded size): not the root's tmpfs,
                # not /dev's (either would let a bot fill the machine's memory), not /proc
                # (under root the bot is root outside its namespace, whom /proc/sys obeys)
                "--remount-ro", "/proc", "--remount-ro", "/dev", "--remount-ro", "/",
                "--chdir", str(cwd), "--setenv", "TMPDIR", "/tmp", "--setenv", "HOME", "/tmp",
                "--", "prlimit", f"--nproc={self.max_processes}:{self.max_processes}", "--",
                *argv]

    @staticmethod
    def environment(env: Mapping[str, str]) -> dict[str, str]:
        """What of ``env`` a sandboxed bot is given: :data:`KEPT_VARIABLES` and ``ARENA_*``."""
        return {key: value for key, value in env.items()
                if key in KEPT_VARIABLES or key.startswith("ARENA_")}

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
            done = subprocess.run(self.wrap([sys.executable, "-c", "pass"]),
                                  capture_output=True, timeout=CHECK_SECONDS,
                                  stdin=subprocess.DEVNULL,
                                  env=self.environment(os.environ))
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"the sandbox cannot start: {exc}") from None
        if done.returncode != 0:
            detail = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
            raise SandboxUnavailable(f"the sandbox cannot start (are unprivileged user "
                                     f"namespaces allowed?): {detail}")
