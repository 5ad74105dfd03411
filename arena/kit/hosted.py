"""Hosted bots (issue 33 §1): a participant's code submitted, built, checked, and made the
bot's active version, each step stored with its version (:mod:`arena.events.hosted_store`).

1. The submission (a file, a folder or an archive) is unpacked by the rules of
   :mod:`arena.launch.unpack` within :data:`SOURCE_LIMITS`, its language guessed from its
   files unless given, its entry file found; any failure here stores nothing (a
   :class:`SubmitError` saying why).
2. The source is stored, packed, as a new version (``building``), and built in the sandbox
   (:mod:`arena.launch.hosted_build`); a failed build is ``refused`` with its reason and log.
3. The build is stored once by its digest, fetched back by it (its digest checked), and
   unpacked in ``builds/<digest>`` (where any host runs it from); the version plays
   check-bot's series (:mod:`arena.kit.check_bot`) on the real engine, sandboxed as a ladder's
   hosted bot would be (:func:`run_sandbox`); a failed check refuses it, with the series' log
   (the checks and the bot's last output); else it becomes the bot's ``active`` version.
"""

from __future__ import annotations

import contextlib
import functools
import shlex
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import trio

from arena.events.hosted_store import HostedStore
from arena.events.hosted_versions import BotVersion
from arena.games import GAMES
from arena.kit.check_bot import BOT_OUTPUT, check_game, check_options
from arena.kit.check_findings import Outcome, summary
from arena.kit.check_setup import SeriesSettings
from arena.launch.hosted_build import MAX_SUBMISSION_BYTES, BuildLimits, build, source_files
from arena.launch.hosted_run import (
    RunLimits,
    build_limits,
    drop_build,
    run_sandbox,
    unpacked_build,
)
from arena.launch.languages import LANGUAGES, Toolchain, guess, probe, run_argv
from arena.launch.unpack import UnpackError, UnpackLimits, digest, pack, unpack

#: What a submission may hold, unpacked: files and bytes.
SOURCE_LIMITS = UnpackLimits(max_files=1000, max_bytes=8 * 1024 * 1024)
#: Bytes of the bot's own output kept in a validation's log (its end).
OUTPUT_KEPT = 16 * 1024


class SubmitError(ValueError):
    """A submission that cannot become a version (nothing was stored)."""


@attrs.frozen
class HostedSettings:
    #: The game the validation series plays.
    game: str
    #: Where builds are unpacked (``<digest>`` folders), to be run.
    builds: Path
    build: BuildLimits = BuildLimits()
    run: RunLimits = RunLimits()
    #: Games in the validation series.
    games: int = 3
    #: The database's files: never shown to a build or a bot.
    protect: tuple[str, ...] = ()


def read_submission(path: Path, language: str | None, into: Path) -> tuple[str, str]:
    """Unpack ``path`` into the empty folder ``into``: (its language, its entry file)."""
    if not path.exists():
        raise SubmitError(f"{path}: no such file or folder")
    if path.is_file() and path.stat().st_size > MAX_SUBMISSION_BYTES:
        raise SubmitError(f"{path}: more than {MAX_SUBMISSION_BYTES} bytes")
    try:
        unpack(path, into, SOURCE_LIMITS)
    except UnpackError as exc:
        raise SubmitError(f"{path}: {exc}") from None
    files = source_files(into)
    try:
        chosen = language if language is not None else guess(files)
        return chosen, LANGUAGES[chosen].entry(files)
    except ValueError as exc:
        raise SubmitError(str(exc)) from None


def submit(store: HostedStore, name: str, path: Path, language: str | None,
           settings: HostedSettings, say: Callable[[str], None]) -> BotVersion:
    """Store, build and validate a new version of ``name``; its final record.  ``say`` is
    told each step (the version's number first)."""
    store.registered(name)
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as private:
        source = Path(private) / "src"
        source.mkdir()
        chosen, entry = read_submission(path, language, source)
        packed = pack(source)
        version = store.submit(name, chosen, packed, digest(packed))
        say(f"{version.bot} version {version.number} ({chosen}): building")
        toolchain = probe(LANGUAGES[chosen])
        work = Path(private) / "work"
        work.mkdir()
        with _refused_if_stopped(store, version, "building"):
            built = build(source, toolchain, entry, work, settings.build)
    if not built.ok:
        say(f"refused: {built.reason}")
        return store.refuse(name, version.number, built.reason, build_log=built.log)
    version = store.built(name, version.number, built.files, built.digest, built.log,
                          built.run)
    say(f"built ({len(built.files)} bytes, {built.digest[:12]}): validating")
    try:
        with _refused_if_stopped(store, version, "validating"):
            return validate(store, version, toolchain, settings, say)
    except BaseException:
        with contextlib.suppress(Exception):
            drop_build(store, built.digest, settings.builds)
        raise


@contextlib.contextmanager
def _refused_if_stopped(store: HostedStore, version: BotVersion, doing: str) -> Iterator[None]:
    """A failure of arena's own (a bug, a Ctrl-C) while ``doing`` the version refuses it,
    saying so (it is never left building or validating), and goes on."""
    try:
        yield
    except BaseException as exc:
        with contextlib.suppress(Exception):
            store.refuse(version.bot, version.number,
                         f"arena stopped while {doing} it ({type(exc).__name__})")
        raise


def validate(store: HostedStore, version: BotVersion, toolchain: Toolchain,
             settings: HostedSettings, say: Callable[[str], None]) -> BotVersion:
    """Play check-bot's series against the built version in the sandbox; it becomes active,
    or is refused with the series' log."""
    assert version.build_digest is not None
    if not toolchain.available:
        reason = toolchain.refusal()
        return store.refuse(version.bot, version.number, reason)
    folder = unpacked_build(store, version.build_digest, settings.builds,
                            build_limits(settings.build))
    argv = run_argv(version.run, folder, toolchain)
    spec = GAMES[settings.game]
    series = SeriesSettings(
        spec=spec, options=check_options(spec), games=settings.games, seed="validation",
        move_timeout=settings.run.move_timeout, reaction_timeout=settings.run.move_timeout,
        hello_timeout=10.0, connect_timeout=10.0, reconnect_grace=1.0, exit_grace=5.0,
        token=None)
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="arena-validate-") as kept:
        results = trio.run(functools.partial(
            check_game, shlex.join(argv), series, stdio=True, keep_in=Path(kept),
            progress=lines.append,
            sandbox=run_sandbox(toolchain, settings.run, settings.protect)))
        output = (Path(kept) / BOT_OUTPUT).read_bytes()[-OUTPUT_KEPT:]
    lines += [result.line() for result in results]
    lines.append(summary(results))
    lines += ["", "the bot's output (its end):", output.decode("utf-8", errors="replace")]
    log = "\n".join(lines)
    failed = [result for result in results if result.outcome is Outcome.FAIL]
    if failed:
        reason = f"validation failed: {failed[0].line()}"[:300]
        say(f"refused: {reason}")
        refused = store.refuse(version.bot, version.number, reason, check_log=log)
        drop_build(store, version.build_digest, settings.builds)
        return refused
    say(f"validated: {summary(results)}: active")
    return store.passed(version.bot, version.number, log)


def language_lines(settings: HostedSettings) -> list[str]:
    """``arena languages``: each language this host builds (or why not), its toolchain's
    version, its build and run commands, and the limits a bot gets."""
    lines = []
    build, run = settings.build, settings.run
    for language in LANGUAGES.values():
        toolchain = probe(language)
        if not toolchain.available:
            lines.append(f"{language.name}: not built on this host (no "
                         f"{', '.join(toolchain.missing)})")
            continue
        entries = " or ".join(language.entries)
        kind = "/".join(language.suffixes) + " " if language.suffixes else ""
        entries += f", or the only {kind}file"
        recipe = language.build.replace("{entry}", "<entry>")
        for name in language.programs:
            recipe = recipe.replace("{" + name + "}", name)
        command = " ".join(language.run).replace("{dir}/", "./").replace("{dir}", ".")
        lines += [
            f"{language.name}: {toolchain.version or 'no toolchain needed'}",
            f"  entry: {entries}",
            f"  build: {recipe.replace(chr(10), '; ')}",
            f"  run:   {command.replace('{entry}', '<entry>')}",
            f"  limits: {language.memory_mb} MB of memory a process, {run.move_timeout:g} s a "
            f"move, {run.cpu_seconds} CPU seconds a session, {run.cores} core, "
            f"{run.max_processes} processes",
            f"  build limits: {build.seconds:g} s, {build.disk_bytes // 2**20} MB of disk, "
            f"{build.output_bytes // 2**20} MB of output, no network",
        ]
    return lines
