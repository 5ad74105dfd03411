"""What one runner gives the sandboxed bots it launches (see :mod:`arena.launch.sandbox`).

- The folders nothing of which they may see, even where a bot's command names a file there:
  the log folder (other bots' output, game logs), the transcripts, the runner's private
  folders (the sandbox shows only what it allows in any case).
- A lifeline: a pipe whose write end only the runner holds (it is close-on-exec, and no bot is
  given it).  However the runner ends, ``kill -9`` included, the kernel closes it, every
  sandbox sees the pipe's end and stops its bot: no bot outlives the runner.
- Under root, a ``pids`` cgroup per bot (:mod:`arena.launch.pids_cgroup`) and a memory cgroup
  holding all its processes' memory (:mod:`arena.launch.memory_cgroup`), removed at the end.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from arena.launch import memory_cgroup, pids_cgroup
from arena.launch.sandbox import Sandbox
from arena.launch.sandbox_paths import folders_of


class SandboxRun:
    def __init__(self, sandbox: Sandbox, hide: Iterable[Path],
                 commands: Iterable[list[str]] = ()) -> None:
        """``commands``: every bot's command line of the run; what one of them names is
        hidden from the others (another bot's folder)."""
        self.sandbox = sandbox
        self.hide = list(dict.fromkeys(str(path.absolute()) for path in hide))
        cwd = Path.cwd()
        self.folders = [folders_of(command, cwd) for command in commands]
        self.read_end, self.write_end = os.pipe()
        self.cgroups: list[pids_cgroup.PidsCgroup] = []

    def command(self, argv: list[str], env: Mapping[str, str]) -> tuple[list[str], dict[str, Any]]:
        """The command line running ``argv`` sandboxed, and what to give its ``Popen`` (its
        environment: what of ``env`` a sandboxed bot is given)."""
        limits = self.sandbox.limits()
        joins: list[Callable[[], None]] = []
        for cgroup in (pids_cgroup.create(self.sandbox.max_processes),
                       memory_cgroup.create(self.sandbox.memory_mb * 1024 * 1024)):
            if cgroup is not None:
                self.cgroups.append(cgroup)
                joins.append(cgroup.join())

        lifeline = self.read_end

        def before_exec() -> None:
            for join in joins:
                join()
            # the lifeline as descriptor 3, and no other descriptor but 0, 1 and 2 (the
            # others are close-on-exec); dup2 onto itself would leave it close-on-exec
            if lifeline == 3:
                os.set_inheritable(3, True)
            else:
                os.dup2(lifeline, 3)
            for name in os.listdir("/proc/self/fd"):
                if int(name) > 3:
                    try:
                        if os.get_inheritable(int(name)):
                            os.close(int(name))
                    except OSError:
                        pass
            # last: a runner holding more descriptors than a bot may open (a ladder's many
            # hosted bots) could not list them under the bot's limit
            limits()

        mine = set(folders_of(argv, Path.cwd()))
        others = {folder for folders in self.folders for folder in folders} - mine
        wrapped = self.sandbox.wrap(argv, self.hide, lifeline=True, others=sorted(others))
        return wrapped, {"preexec_fn": before_exec, "close_fds": False,
                         "env": self.sandbox.environment(env)}

    def close(self) -> None:
        """End the lifeline (every sandbox stops its bot) and remove the cgroups."""
        for end in (self.write_end, self.read_end):
            with contextlib.suppress(OSError):
                os.close(end)
        for cgroup in self.cgroups:
            cgroup.remove()
