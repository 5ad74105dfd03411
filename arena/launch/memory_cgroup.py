"""A memory cap for a sandboxed bot as a whole: a memory cgroup of its own, where one can be made.

The sandbox's ``RLIMIT_AS`` caps each process's address space, but a bot of many processes, or
one that writes memory-backed files (``memfd``, its ``/tmp``), holds more than that in all. A
memory cgroup counts every page its processes hold, those files' included, and the kernel stops
(OOM-kills) the bot's own processes past the cap, never another table's.  The cgroup is made
under the runner's own (cgroup v1's ``memory`` hierarchy, or cgroup v2 where the runner's
cgroup offers the ``memory`` controller), so the machine's accounting above it stays whole.
Making one needs the right to write there (root, as CI and most servers run the arena);
elsewhere :func:`create` answers None and the bot is capped per process only.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from arena.launch.pids_cgroup import CGROUPS, PidsCgroup


def _own(hierarchy: str) -> str | None:
    """The runner's cgroup path in ``hierarchy`` ("memory" for v1, "" for v2)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if (hierarchy and hierarchy in controllers.split(",")) or (not hierarchy
                                                                   and controllers == ""):
            return path
    return None


def _parent() -> tuple[Path, str] | None:
    """Where the bot's cgroup goes, and the name of its limit's file."""
    own = _own("memory")
    if own is not None and (CGROUPS / "memory" / "cgroup.procs").exists():
        return CGROUPS / "memory" / own.lstrip("/"), "memory.limit_in_bytes"
    own = _own("")
    for root in (CGROUPS, CGROUPS / "unified"):
        if own is None or not (root / "cgroup.controllers").exists():
            continue
        folder = root / own.lstrip("/")
        try:
            offered = (folder / "cgroup.subtree_control").read_text().split()
        except OSError:
            continue
        if "memory" in offered:
            return folder, "memory.max"
    return None


def create(limit_bytes: int) -> PidsCgroup | None:
    """A fresh cgroup holding at most ``limit_bytes`` of memory (swap included where the
    kernel counts it), or None where none can be made here."""
    place = _parent()
    if place is None:
        return None
    parent, limit_file = place
    path = parent / f"arena-bot-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        (path / limit_file).write_text(str(limit_bytes))
        swap = path / ("memory.memsw.limit_in_bytes" if limit_file == "memory.limit_in_bytes"
                       else "memory.swap.max")
        if swap.exists():
            (swap).write_text(str(limit_bytes) if swap.name.startswith("memory.memsw")
                              else "0")
    except OSError:
        path.rmdir()
        return None
    return PidsCgroup(path)
