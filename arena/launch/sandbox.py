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
- its own program, read-only (:func:`visible_paths`): the installation its interpreter belongs
  to (a virtual environment and the Python it was made from), the folder of each file its
  command line names, and arena's own packages (public code, which the reference bots import);
- a private writable temp folder (``/tmp``, ``TMPDIR``, at most :data:`TEMP_BYTES`: the only
  place it can write), a fresh ``/proc`` showing only its own processes, and a minimal
  read-only ``/dev``.

So it never sees the current folder, the home folder, the event's database and its logs,
another bot's folder or output, the token files, or any UNIX socket of the host.  A folder its
command names is shown whole only when it holds none of those: a script lying in the current
folder (or the home folder, a temp folder, the database's folder) is shown alone, without its
siblings (give a bot that imports files of its own a folder of its own).  Nothing inside the
log folder or the runner's private folders is ever shown.

The bot runs as nobody, with no capability and no way to make a user namespace of its own; its
environment is cleared but for :data:`KEPT_VARIABLES` and the ``ARENA_*`` variables the runner
sets.  Resource limits cap its address space (memory), CPU seconds, file size and open files
(per process), and the number of its processes and threads together (``RLIMIT_NPROC``, set
inside its user namespace; under root, which that limit does not bind, a ``pids`` cgroup of its
own: :mod:`arena.launch.pids_cgroup`).  It does not outlive the runner: a pipe only the runner
holds ends when the runner does, however it ends, and the sandbox then kills the bot
(:mod:`arena.launch.sandbox_run`).

What it does not protect against: a kernel exploit, or using up the machine's CPU within its
CPU-seconds budget (use fewer concurrent tables, or cgroups, for strict shares); under root
where no ``pids`` cgroup can be made, its processes are not capped.
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

#: The system's folders a program needs to start, shown read-only (each one that exists: on a
#: merged-/usr system /bin, /lib, /lib64 and /sbin are links into /usr, and stay links).
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

#: What of /etc a program may need, shown read-only where it exists: the dynamic loader's
#: configuration, the certificates, the alternatives' links (``/usr/bin/java`` and the like
#: point through them), the time zone, and the JVM's configuration on Debian.  Nothing here is
#: a secret; /etc/shadow, /etc/passwd and the rest are not shown.
SYSTEM_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
              "/etc/ssl", "/etc/ca-certificates", "/etc/localtime", "/etc/java-17-openjdk",
              "/etc/java-21-openjdk")

#: Folders no bot is ever shown anything of, whatever its command line names (the system's
#: configuration and state, the kernel's views of the host, other programs' sockets and data).
NEVER_SHOWN = ("/etc", "/proc", "/sys", "/dev", "/run", "/boot", "/var")

#: The bot's private temp folder: a tmpfs of at most this many bytes (its files also obey the
#: per-file cap, ``max_file_mb``).
TEMP_BYTES = 64 * 1024 * 1024

#: The user and group the bot runs as inside its user namespace (nobody).
NOBODY = 65534

#: The environment variables a sandboxed bot is given from the runner's (every ``ARENA_*`` the
#: runner sets is given too); the rest of the organiser's environment (keys, passwords, paths)
#: is not.  ``TMPDIR`` and ``HOME`` point at its private temp folder.
KEPT_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM")

#: What the sandbox runs before the bot (its arguments: the process cap, 3 if file descriptor
#: 3 is the lifeline or else -1, then the bot's command line).  The bot starts with at most
#: ``cap`` processes (``RLIMIT_NPROC``, counted in the sandbox's own user namespace); a watcher
#: reads the lifeline: at its end (the runner is gone, even killed with SIGKILL) it kills the
#: bot.  When the bot's process ends this shell does, and bubblewrap then ends every process
#: left in the sandbox's PID namespace.
SETUP = r"""
cap=$1 life=$2; shift 2
exec 4<&0
prlimit --nproc="$cap:$cap" -- "$@" <&4 4<&- 3<&- &
bot=$!
exec 4<&-
if [ "$life" -eq 3 ]; then { cat >/dev/null; kill -s KILL "$bot" 2>/dev/null; } <&3 & fi
exec 3<&-
wait "$bot"
"""


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _absolute(path: str | Path) -> Path:
    return Path(os.path.abspath(path))


def _installation(program: Path) -> list[Path]:
    """The folders an interpreter (or any program outside the system's folders) needs: a
    virtual environment it belongs to, the installation of the Python that environment was
    made from, and the installation the real program (links followed) lies in (``PREFIX`` of
    ``PREFIX/bin/NAME``, else its own folder)."""
    found: list[Path] = []
    for folder in program.parents:
        config = folder / "pyvenv.cfg"
        if config.is_file():
            found.append(folder)
            for line in config.read_text(errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    home = Path(os.path.realpath(value.strip()))
                    found.append(home.parent if home.name == "bin" else home)
            break
    real = Path(os.path.realpath(program))
    found.append(real.parent.parent if real.parent.name == "bin" else real.parent)
    return found


def _own_packages() -> list[Path]:
    """arena's own packages, which the reference bots import (``{python} -m reference_bots.X``):
    public code, shown read-only wherever they are installed (a source checkout included)."""
    import arena
    import protocol
    import reference_bots

    return [Path(module.__file__).parent for module in (arena, protocol, reference_bots)
            if module.__file__ is not None]


def visible_paths(argv: Sequence[str], hidden: Iterable[Path | str],
                  protected: Iterable[Path | str], cwd: Path | None = None) -> list[Path]:
    """What of the host, beyond the system's folders, the bot ``argv`` is shown (read-only):
    its interpreter's installation, arena's packages, and for each file or folder its command
    line names, that folder (a file's folder).  A folder equal to or above one of ``hidden``
    (the log folder, the runner's private folders) or of ``protected`` (the current folder, the
    home folder, the temp folders, the database's folder) is not shown whole: of a file only
    the file is; nothing inside ``hidden`` is ever shown, and nothing in a system folder needs
    showing."""
    cwd = cwd if cwd is not None else Path.cwd()
    hidden_folders = [*(_absolute(folder) for folder in hidden), *map(Path, NEVER_SHOWN)]
    guarded = [*hidden_folders, *(_absolute(folder) for folder in protected), Path("/")]
    system = [Path(folder) for folder in SYSTEM_FOLDERS]

    wanted: list[tuple[Path, Path | None]] = []  # (the folder wanted, the file named in it)
    program = shutil.which(argv[0]) if argv else None
    if program is not None and not any(_under(_absolute(program), s) for s in system):
        wanted.extend((folder, None) for folder in _installation(_absolute(program)))
    wanted.extend((folder, None) for folder in _own_packages())
    for argument in argv:
        try:
            path = _absolute(cwd / argument)
            if not argument or not path.exists():
                continue
        except (OSError, ValueError):  # a NUL in a -c program, a name too long: not a path
            continue
        if path.is_dir():
            wanted.append((path, None))
        else:
            wanted.append((path.parent, path))

    shown: list[Path] = []
    for folder, file in wanted:
        if any(_under(folder, s) for s in system):
            continue
        if any(_under(folder, h) for h in hidden_folders):
            continue  # not even the file
        if any(_under(g, folder) for g in guarded):
            if file is None or any(_under(file, h) for h in hidden_folders):
                continue
            folder = file
        shown.append(folder)
    shown = list(dict.fromkeys(shown))
    return [p for p in shown if not any(q in p.parents for q in shown)]


class SandboxUnavailable(RuntimeError):
    """This machine cannot run the sandbox (no ``bwrap``, or user namespaces are off)."""


def _paths(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


@attrs.frozen
class Sandbox:
    memory_mb: int = 2048  # address space; Node.js and the JVM reserve a lot: raise it for them
    cpu_seconds: int | None = None  # CPU time over the bot's whole life
    max_file_mb: int = 64  # the largest file it may write (in its private /tmp)
    max_open_files: int = 256
    #: Processes (threads count too: the JVM starts dozens) it may have at once.
    max_processes: int = 256
    #: Folders never shown whole (besides the current, home and temp folders): the event
    #: database's (a file named here stands for its folder).
    protect: tuple[str, ...] = attrs.field(default=(), converter=_paths)

    def protected(self) -> list[Path]:
        """The folders a bot's own folder may not be, nor lie above (:func:`visible_paths`)."""
        found = [Path.cwd(), Path.home(), Path(tempfile.gettempdir()), Path("/tmp"),
                 Path("/var/tmp")]
        for name in self.protect:
            path = _absolute(name)
            if path.is_dir():
                found.append(path)
            elif path.parent.is_dir():  # a database file (it may not exist yet), its -wal
                found.append(path.parent)
        return list(dict.fromkeys(found))

    def wrap(self, argv: list[str], hide: Sequence[Path | str] = (),
             lifeline: bool = False) -> list[str]:
        """The command line that runs ``argv`` in the sandbox, nothing inside the folders of
        ``hide`` shown; with ``lifeline``, the bot is stopped when the process's file
        descriptor 3 (a pipe's read end) reaches its end."""
        bwrap = shutil.which("bwrap")
        if bwrap is None or shutil.which("prlimit") is None:
            raise SandboxUnavailable("the sandbox needs bubblewrap (`bwrap`: apt-get install "
                                     "bubblewrap) and `prlimit` (util-linux)")
        # the private temp folder first: what is shown of a temp folder is bound over it
        mounts = ["--size", str(TEMP_BYTES), "--tmpfs", "/tmp"]
        for folder in SYSTEM_FOLDERS:
            if os.path.islink(folder):
                mounts += ["--symlink", os.readlink(folder), folder]
            elif os.path.isdir(folder):
                mounts += ["--ro-bind", folder, folder]
        for entry in SYSTEM_ETC:
            mounts += ["--ro-bind-try", entry, entry]
        shown = visible_paths(argv, hide, self.protected())
        for path in shown:
            mounts += ["--ro-bind", str(path), str(path)]
        cwd = Path.cwd()
        if not any(_under(cwd, p) or _under(p, cwd) for p in shown) and not any(
                _under(cwd, Path(s)) for s in SYSTEM_FOLDERS):
            # an empty read-only folder: relative paths still resolve, nothing is written
            mounts += ["--size", "4096", "--tmpfs", str(cwd), "--remount-ro", str(cwd)]
        return [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--new-session",
                "--cap-drop", "ALL", "--uid", str(NOBODY), "--gid", str(NOBODY),
                *mounts, "--proc", "/proc", "--dev", "/dev",
                # nothing writable but its temp folder (of bounded size): not the root's tmpfs,
                # not /dev's (either would let a bot fill the machine's memory)
                "--remount-ro", "/dev", "--remount-ro", "/",
                "--chdir", str(cwd), "--setenv", "TMPDIR", "/tmp", "--setenv", "HOME", "/tmp",
                "--", "/bin/sh", "-c", SETUP, "sandboxed-bot",
                str(self.max_processes), "3" if lifeline else "-1", *argv]

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
                                  capture_output=True, timeout=10, stdin=subprocess.DEVNULL,
                                  env=self.environment(os.environ))
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"the sandbox cannot start: {exc}") from None
        if done.returncode != 0:
            detail = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
            raise SandboxUnavailable(f"the sandbox cannot start (are unprivileged user "
                                     f"namespaces allowed?): {detail}")
