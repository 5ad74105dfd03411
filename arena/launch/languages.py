"""The languages a host builds hosted bots in (issue 33), as CodinGame's and Botzone's language
pages give them: for each, the host's own toolchain (found here, its version asked), how a
submission is built (a shell script run in the build sandbox, in a copy of the source) and how
the build is run.

A recipe names programs by name (``{gcc}``, ``{python3}``): :func:`probe` finds the host's own
(a ``pyenv`` shim is asked for the interpreter it starts, ``rustc`` for its toolchain's own
program), and says which of them this host lacks; a build needs every program its recipe
names.  A version's run command (:attr:`Language.run`) keeps its first word a program's name
(or ``{dir}/NAME``, a program of the build) and ``{dir}`` for the folder the build is unpacked
in, so another host runs the same version with its own toolchain (:func:`run_argv`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

import attrs

#: Seconds a toolchain gets to say its version (a JVM starting on a busy machine: a few).
VERSION_SECONDS = 30


@attrs.frozen
class Language:
    name: str
    #: The file suffixes that make a submission this language's (its guess).
    suffixes: tuple[str, ...]
    #: The toolchain's programs the build (and the run) need, by name.
    programs: tuple[str, ...]
    #: The source file the run starts from, in order of preference ("" when none is needed);
    #: failing those, the only file with one of :attr:`suffixes`.
    entries: tuple[str, ...]
    #: The build, a shell script run in the copy of the source (``{prog}`` a program's path,
    #: ``{entry}`` the entry file).
    build: str
    #: The run command's words (``{entry}``, ``{dir}``: see the module's docstring).
    run: tuple[str, ...]
    #: Address space a process of it gets, to build and to play (the JVM reserves much).
    memory_mb: int = 1024

    def entry(self, files: Sequence[str]) -> str:
        """The entry file among ``files`` (relative POSIX paths); a ValueError saying what was
        looked for."""
        if not self.entries:
            return ""
        for wanted in self.entries:
            if wanted in files:
                return wanted
        found = [name for name in files if name.endswith(self.suffixes) or not self.suffixes]
        if len(found) == 1:
            return found[0]
        raise ValueError(f"{self.name}: no {' or '.join(self.entries)}, and not exactly one "
                         f"{'/'.join(self.suffixes) or 'single'} file ({len(found)} found)")


_PY = ("import pathlib; [compile(p.read_bytes(), str(p), 'exec') "
       "for p in sorted(pathlib.Path('.').rglob('*.py'))]")

#: The source files ``find`` gives (``./``-prefixed, so none starts with a dash) as the shell's
#: arguments, one a line (a name holds no newline: :func:`arena.launch.unpack.member_path`),
#: never split at a space or expanded as a pattern: ``"$@"`` is then every file, each one word.
_FILES = ("set -f; nl=$(printf '\\nx'); IFS=${{nl%x}}; set -- $(find . {}); unset IFS; "
          "set +f\n")

#: Every language a host may build, by name.
LANGUAGES: dict[str, Language] = {language.name: language for language in (
    Language("python", (".py",), ("python3",), ("main.py", "bot.py"),
             f'{{python3}} -I -c "{_PY}"', ("python3", "-u", "{dir}/{entry}")),
    Language("node", (".js", ".mjs"), ("node",), ("main.js", "bot.js"),
             "{node} --check {entry}", ("node", "{dir}/{entry}"), memory_mb=4096),
    Language("rust", (".rs",), ("rustc",), ("main.rs",),
             "{rustc} -O --edition 2021 -o bot {entry}", ("{dir}/bot",), memory_mb=2048),
    Language("go", (".go",), ("go",), ("main.go",),
             "export GOCACHE=/tmp/go-cache GOPATH=/tmp/go GOPROXY=off GOFLAGS=-mod=mod\n"
             "{go} build -o bot .", ("{dir}/bot",), memory_mb=2048),
    Language("c", (".c",), ("gcc",), ("main.c",),
             _FILES.format("-name '*.c'") + '{gcc} -O2 -std=gnu17 -o bot "$@" -lm',
             ("{dir}/bot",)),
    Language("cpp", (".cpp", ".cc", ".cxx"), ("g++",), ("main.cpp",),
             _FILES.format("-name '*.cpp' -o -name '*.cc' -o -name '*.cxx'")
             + '{g++} -O2 -std=gnu++17 -o bot "$@"', ("{dir}/bot",)),
    Language("java", (".java",), ("javac", "java"), ("Main.java",),
             _FILES.format("-name '*.java'")
             + '{javac} -J-Xmx512m -J-XX:+UseSerialGC -d . "$@"',
             ("java", "-Xmx512m", "-XX:+UseSerialGC", "-cp", "{dir}", "Main"),
             memory_mb=4096),
    Language("binary", (), (), ("bot",), "chmod +x {entry}", ("{dir}/{entry}",)),
)}


def guess(files: Sequence[str]) -> str:
    """The language of a submission's files (relative paths): the one whose suffix most of its
    files have; a ValueError when none (give ``--lang``)."""
    counts = {name: sum(f.endswith(lang.suffixes) for f in files)
              for name, lang in LANGUAGES.items() if lang.suffixes}
    best = max(counts.values(), default=0)
    winners = [name for name, count in counts.items() if count == best]
    if best == 0 or len(winners) > 1:
        raise ValueError("cannot tell the language of the files given: give --lang (one of "
                         f"{', '.join(LANGUAGES)})")
    return winners[0]


@attrs.frozen
class Toolchain:
    """What a host has of a language's toolchain."""

    language: Language
    #: Each program's path (the real program, not a shim or proxy).
    programs: Mapping[str, str]
    #: The programs it lacks (the language cannot be built here when any).
    missing: tuple[str, ...]
    #: The folders to show the build and the bot read-only (installations outside /usr).
    folders: tuple[str, ...]
    version: str

    @property
    def available(self) -> bool:
        return not self.missing

    def refusal(self) -> str:
        return (f"{self.language.name}: this host has no {', '.join(self.missing)} (the "
                f"{self.language.name} toolchain), so it cannot build it")


def _ask(argv: Sequence[str]) -> str:
    try:
        done = subprocess.run(list(argv), capture_output=True, timeout=VERSION_SECONDS,
                              stdin=subprocess.DEVNULL, text=True, errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[0].strip() if lines else ""


def _real(name: str) -> tuple[str, str | None] | None:
    """(a program's real path, a folder to show with it) or None when the host lacks it."""
    found = shutil.which(name)
    if found is None:
        return None
    if name == "python3":  # a pyenv shim is a script: ask the interpreter where it is
        found = _ask([found, "-c", "import sys; print(sys.executable)"]) or found
    elif name == "rustc":  # rustup's proxy: the toolchain's own rustc
        sysroot = _ask([found, "--print", "sysroot"])
        if sysroot and os.path.isfile(os.path.join(sysroot, "bin", "rustc")):
            return os.path.join(sysroot, "bin", "rustc"), sysroot
    real = Path(os.path.realpath(found))
    if real.parts[1:2] in (("usr",), ("bin",), ("lib",)):
        return str(real), None
    prefix = real.parent.parent
    if real.parent.name == "bin" and (prefix / "lib").is_dir() and prefix != Path.home():
        return str(real), str(prefix)
    return str(real), str(real.parent)


def probe(language: Language) -> Toolchain:
    """The host's toolchain of ``language`` (its programs run to ask their version)."""
    programs: dict[str, str] = {}
    folders: list[str] = []
    missing = []
    for name in language.programs:
        found = _real(name)
        if found is None:
            missing.append(name)
            continue
        programs[name] = found[0]
        if found[1] is not None:
            folders.append(found[1])
    version = ""
    if language.programs and not missing:
        first = programs[language.programs[0]]
        version = _ask([first, "-version" if language.name == "java" else "--version"])
    return Toolchain(language, programs, tuple(missing), tuple(dict.fromkeys(folders)),
                     version)


def build_script(toolchain: Toolchain, entry: str) -> str:
    script = toolchain.language.build
    for name, path in toolchain.programs.items():
        script = script.replace("{" + name + "}", _quoted(path))
    return script.replace("{entry}", _quoted(entry))


def run_words(language: Language, entry: str) -> tuple[str, ...]:
    """A version's run command as stored (``{dir}`` kept)."""
    return tuple(word.replace("{entry}", entry) for word in language.run)


def run_argv(words: Sequence[str], folder: Path, toolchain: Toolchain) -> list[str]:
    """The command running a stored version whose build is unpacked in ``folder``."""
    argv = [word.replace("{dir}", str(folder)) for word in words]
    if argv and argv[0] in toolchain.programs:
        argv[0] = toolchain.programs[argv[0]]
    return argv


def _quoted(word: str) -> str:
    import shlex

    return shlex.quote(str(PurePosixPath(word)))
