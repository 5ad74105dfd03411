"""What of the host a sandboxed bot is shown (:mod:`arena.launch.sandbox`): its own program.

The rules, each against a way a participant's files could widen the view (issue 29's attack):

- a path is judged by where it really is (links followed), and a path named on the command
  line whose last part is a link is not shown at all: a link in a bot's folder to the
  database, another bot's folder or ``..`` leads nowhere inside the sandbox;
- nothing is read from a bot's files to decide what to show (a ``pyvenv.cfg`` beside a bot
  shows nothing more);
- a folder equal to or above a guarded one (the current folder, the home folder, the temp
  folders, the database's folder, a hidden one) is never shown whole: of a file named there,
  only the file; nothing inside a hidden folder (the logs, the token files, ``/etc``,
  ``/proc``, ...) or inside another bot's folder is shown, nor the database's files;
- the interpreter's installation (``PREFIX`` of ``PREFIX/bin/NAME`` with a ``PREFIX/lib``, its
  links followed: the Python a virtual environment was made from) is shown only where it is
  an installation: not the home folder or a folder right in it (``~/.cargo`` holds
  credentials: a program there is shown alone), and not inside the event's folders.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

#: The system's folders a program needs to start, shown read-only (each one that exists: on a
#: merged-/usr system /bin, /lib, /lib64 and /sbin are links into /usr, and stay links).
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

#: Folders no bot is ever shown anything of, whatever its command line names (the system's
#: configuration and state, the kernel's views of the host, other programs' sockets and data).
NEVER_SHOWN = ("/etc", "/proc", "/sys", "/dev", "/run", "/boot", "/var")

#: What an SQLite database keeps beside its file (a bot is shown none of them).
DATABASE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def named_paths(argv: Sequence[str], cwd: Path) -> list[Path]:
    """The files and folders ``argv`` names that exist, where they really are; a name whose
    last part is a link is left out (its target is not the bot's to choose)."""
    found: list[Path] = []
    for argument in argv:
        if not argument:
            continue
        try:
            path = Path(os.path.abspath(cwd / argument))
            if not path.exists():
                continue
            resolved = real(path)
            if resolved != real(path.parent) / path.name:
                continue  # a link
        except (OSError, ValueError):  # a NUL in a -c program, a name too long: not a path
            continue
        found.append(resolved)
    return found


def folders_of(argv: Sequence[str], cwd: Path) -> list[Path]:
    """The folders ``argv`` names: each folder, and each file's folder (a bot's own)."""
    return [path if path.is_dir() else path.parent for path in named_paths(argv, cwd)]


def installation(argv: Sequence[str], cwd: Path) -> tuple[Path | None, Path | None]:
    """What the bot's program needs beyond its own folder: the virtual environment it lies in
    (``V/bin/NAME`` with a ``V/pyvenv.cfg``), and the installation of the program its links
    lead to (``PREFIX`` of ``PREFIX/bin/NAME`` with a ``PREFIX/lib``; else that program alone)."""
    if not argv:
        return None, None
    found = shutil.which(argv[0]) if "/" not in argv[0] else str(cwd / argv[0])
    if found is None or not os.path.exists(found):
        return None, None
    program = Path(os.path.abspath(found))
    venv = program.parent.parent
    target = real(program)
    home = real(Path.home())
    prefix = target.parent.parent
    if (target.parent.name == "bin" and (prefix / "lib").is_dir() and prefix != home
            and prefix.parent != home and prefix != Path("/")):
        target = prefix
    return (real(venv) if (venv / "pyvenv.cfg").is_file() else None), target


#: arena's own packages, which the reference bots import (``{python} -m reference_bots.X``).
OWN_PACKAGES = ("arena", "protocol", "reference_bots")


def own_packages() -> list[Path]:
    """arena's own packages: public code, shown read-only wherever they are installed (a source
    checkout included); found, not imported (the reference bots stand above this package)."""
    found = []
    for name in OWN_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found += [real(folder) for folder in spec.submodule_search_locations]
    return found


def module_packages(argv: Sequence[str]) -> list[Path]:
    """The folders of the package a ``python -m package.module`` command runs (a game's own
    bot from elsewhere: ``GameSpec.bots``), where it is installed: public code like arena's,
    found, not imported (only the top-level name is looked up, which runs none of its code)."""
    if "-m" not in argv[1:-1]:
        return []
    top = argv[argv.index("-m", 1) + 1].split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []  # a module of one file, or none: nothing beyond the interpreter's own
    return [real(folder) for folder in spec.submodule_search_locations]


def visible_paths(argv: Sequence[str], hidden: Iterable[Path | str],
                  protected: Iterable[Path | str], cwd: Path | None = None, *,
                  others: Iterable[Path | str] = (),
                  databases: Iterable[Path | str] = ()) -> list[Path]:
    """What of the host, beyond the system's folders, the bot ``argv`` is shown (read-only),
    by the rules of this module: ``hidden``, folders nothing of which is shown (the logs, the
    runner's private folders); ``protected``, folders never shown whole (the current, home,
    temp and database folders); ``others``, the other bots' folders; ``databases``, the
    event's database files."""
    cwd = real(cwd if cwd is not None else Path.cwd())
    secret = [*(real(path) for path in hidden), *map(Path, NEVER_SHOWN),
              *(real(path) for path in others),
              *(Path(f"{real(db)}{suffix}") for db in databases for suffix in DATABASE_SUFFIXES)]
    guarded = [*secret, *(real(path) for path in protected), Path("/")]
    events = [cwd, *(real(db).parent for db in databases)]
    system = [Path(folder) for folder in SYSTEM_FOLDERS]

    wanted: list[tuple[Path, Path | None]] = []  # (the folder wanted, the file named in it)
    venv, target = installation(argv, cwd)
    if venv is not None:
        wanted.append((venv, None))
    # where the program's links lead: never into the event's folders (a link there is no
    # installation, only a bot's own folder is shown)
    if target is not None and not any(under(target, event) for event in events):
        wanted.append((target, None) if target.is_dir() else (target.parent, target))
    wanted.extend((folder, None) for folder in [*own_packages(), *module_packages(argv)])
    for path in named_paths(argv, cwd):
        wanted.append((path, None) if path.is_dir() else (path.parent, path))

    shown: list[Path] = []
    for folder, file in wanted:
        if any(under(folder, s) for s in system):
            continue
        if any(under(folder, s) for s in secret):
            continue  # not even the file
        if any(under(g, folder) for g in guarded):
            if file is None or any(under(file, s) for s in secret):
                continue
            folder = file
        shown.append(folder)
    shown = list(dict.fromkeys(shown))
    return [p for p in shown if not any(q in p.parents for q in shown)]
