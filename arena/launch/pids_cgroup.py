"""A process cap for a sandboxed bot run by root: a ``pids`` cgroup of its own.

The sandbox caps a bot's processes with ``RLIMIT_NPROC`` (see :mod:`arena.launch.sandbox`), but the
kernel does not apply that limit to processes of the real root user, and a bot started by an
arena that runs as root is, outside its namespaces, root.  So under root each sandboxed bot
also goes into a cgroup of its own whose ``pids.max`` is the cap (cgroup v1's ``pids``
hierarchy, or cgroup v2 when its root enables the ``pids`` controller).  Where neither can be
written, :func:`create` answers None and the cap is not enforced for root.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")


def _hierarchy() -> Path | None:
    v1 = CGROUPS / "pids"
    if (v1 / "cgroup.procs").exists():
        return v1
    try:
        enabled = (CGROUPS / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    return CGROUPS if "pids" in enabled else None


class PidsCgroup:
    """A cgroup holding one bot's processes, at most ``limit`` of them."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def join(self) -> Callable[[], None]:
        """A function that moves the calling process into the cgroup (run it in the child
        before it starts: its descendants follow)."""
        procs = str(self.path / "cgroup.procs")

        def move() -> None:
            with open(procs, "w") as file:
                file.write(str(os.getpid()))

        return move

    def remove(self, patience: float = 2.0) -> None:
        """Remove the cgroup once its processes are gone (they may take a moment to be
        reaped); a cgroup still busy after ``patience`` seconds is left behind."""
        deadline = time.monotonic() + patience
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.01)


def create(limit: int) -> PidsCgroup | None:
    """A fresh cgroup with ``pids.max`` = ``limit``, or None where none can be made here."""
    if os.geteuid() != 0:
        return None  # RLIMIT_NPROC holds for other users
    hierarchy = _hierarchy()
    if hierarchy is None:
        return None
    path = hierarchy / f"arena-bot-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        (path / "pids.max").write_text(str(limit))
    except OSError:
        path.rmdir()
        return None
    return PidsCgroup(path)
