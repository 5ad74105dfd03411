"""An optional sandbox for bots the runner launches (``arena match --sandbox``).

A sandboxed bot runs under ``unshare`` (util-linux, unprivileged user namespaces) in its own
user, PID, mount and network namespaces, and speaks the protocol over its standard input and
output, which the runner bridges to the server (it has no network at all, so the server is the
only peer it can reach).  Inside:

- every mount is remounted read-only; its scratch folder (``TMPDIR``) is a fresh private tmpfs
  on ``/dev/shm``, and ``/run`` and ``/var/run`` (the machine's UNIX sockets) are hidden;
- the bot itself runs in a second user namespace as nobody, without any capability over the
  mounts, so it cannot remount them writable or unmount ``/proc``;
- ``/proc`` shows only the sandbox's own processes: no other bot's memory, command line or
  files descriptors, and not the server's (where hands and seeds live);
- resource limits cap its address space (memory), CPU seconds, file size and open files.

What it does not protect against: reading files the user can read (the filesystem is visible,
read-only), UNIX sockets outside ``/run`` (an ssh agent's under ``/tmp``, say: connecting to a
socket needs no write access to the filesystem), a kernel exploit, or using up the machine's
CPU within its CPU-seconds budget (use fewer concurrent tables, or cgroups, for strict
shares); the limits are per process (a bot that forks gets them again for each child).  For
bots you do not trust at all, also run the arena as a user of its own.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

import attrs

#: What the sandbox runs before the bot: every mount read-only, fresh empty tmpfs over /run,
#: /var/run (where the machine's UNIX sockets live: D-Bus, docker, systemd) and /dev/shm (the
#: bot's scratch folder, TMPDIR), then the bot in a second user namespace of its own, where it
#: is nobody and holds no capability over these mounts: it cannot undo them.
SETUP = ("while read -r _ _ _ _ point _; do mount -o remount,bind,ro \"$point\" 2>/dev/null; "
         "done < /proc/self/mountinfo; "
         "for d in /run /var/run /dev/shm; do mount -t tmpfs -o size=64m tmpfs \"$d\" "
         "2>/dev/null; done; export TMPDIR=/dev/shm; exec unshare --user -- \"$@\"")


class SandboxUnavailable(RuntimeError):
    """This machine cannot run the sandbox (no ``unshare``, or user namespaces are off)."""


@attrs.frozen
class Sandbox:
    memory_mb: int = 2048  # address space; Node.js and the JVM reserve a lot: raise it for them
    cpu_seconds: int | None = None  # CPU time over the bot's whole life
    max_file_mb: int = 64  # the largest file it may write (in its private /tmp)
    max_open_files: int = 256

    def wrap(self, argv: list[str]) -> list[str]:
        """The command line that runs ``argv`` in the sandbox."""
        unshare = shutil.which("unshare")
        if unshare is None:
            raise SandboxUnavailable("the sandbox needs `unshare` (util-linux)")
        return [unshare, "--user", "--map-root-user", "--mount", "--net", "--pid", "--fork",
                "--mount-proc", "--kill-child", "sh", "-c", SETUP, "sandboxed-bot", *argv]

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
