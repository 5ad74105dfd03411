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
   hosted bot would be (:func:`run_sandbox`), disguised as a ladder's games
   (:func:`validation_series`); a failed check refuses it, with the series' log (the checks
   and the bot's last output); else it becomes the bot's ``active`` version.

Each step names the version as it was submitted (``expected``): a build that ends after its
bot was removed and the name registered anew never moves the new holder's version.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import secrets
import shlex
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.config import ServerConfig
from arena.events.hosted_store import HostedStore
from arena.events.hosted_versions import BotVersion
from arena.games import GAMES
from arena.kit.check_bot import BOT_OUTPUT, check_game
from arena.kit.check_findings import Outcome, summary
from arena.kit.check_setup import Disguise, SeriesSettings
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
#: A validation's first table number is drawn below this (a ladder's grow as it plays).
FIRST_TABLE_MAX = 5000
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
    #: The ladder's game options, which the validation plays (None: the game's defaults, as
    #: ``arena serve`` plays them).
    options: Any = None


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
        return store.refuse(name, version.number, built.reason, build_log=built.log,
                            expected=version)
    version = store.built(name, version.number, built.files, built.digest, built.log,
                          built.run, expected=version)
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
                         f"arena stopped while {doing} it ({type(exc).__name__})",
                         expected=version)
        raise


def validate(store: HostedStore, version: BotVersion, toolchain: Toolchain,
             settings: HostedSettings, say: Callable[[str], None]) -> BotVersion:
    """Play check-bot's series against the built version in the sandbox; it becomes active,
    or is refused with the series' log."""
    assert version.build_digest is not None
    if not toolchain.available:
        reason = toolchain.refusal()
        return store.refuse(version.bot, version.number, reason, expected=version)
    folder = unpacked_build(store, version.build_digest, settings.builds,
                            build_limits(settings.build))
    argv = run_argv(version.run, folder, toolchain)
    series = validation_series(store, version, settings)
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
        refused = store.refuse(version.bot, version.number, reason, check_log=log,
                               expected=version)
        drop_build(store, version.build_digest, settings.builds)
        return refused
    say(f"validated: {summary(results)}: active")
    return store.passed(version.bot, version.number, log, expected=version)


def validation_series(store: HostedStore, version: BotVersion,
                      settings: HostedSettings) -> SeriesSettings:
    """check-bot's series for ``version``, disguised as a ladder's games: the welcome of
    ``arena serve`` (its defaults, the hosted bots' move time), the game's options as the
    ladder's, the bot's registered name, other registered bots' names at the other seats
    (made-up ones when too few are registered), game ids and tables as a server's, and a
    secret seed of its own (never sent, never kept)."""
    spec = GAMES[settings.game]
    options = settings.options if settings.options is not None else spec.parse_options({})
    config = ServerConfig(spec=spec, options=options, move_timeout=settings.run.move_timeout)
    others = [name for name in store.names() if name.casefold() != version.bot.casefold()]
    while len(others) < options.players - 1:
        others.append(f"bot-{secrets.token_hex(3)}")
    tables = tuple(itertools.accumulate(  # growing, by as many as other tables took meanwhile
        1 + secrets.randbelow(FIRST_TABLE_MAX if game == 0 else options.players)
        for game in range(settings.games)))
    disguise = Disguise(welcome=config.welcome(), name=version.bot, opponents=tuple(others),
                        run_id=time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2),
                        tables=tables)
    return SeriesSettings(
        spec=spec, options=options, games=settings.games, seed=secrets.token_hex(16),
        move_timeout=config.move_timeout, reaction_timeout=config.reaction_timeout,
        hello_timeout=config.hello_timeout, connect_timeout=config.hello_timeout,
        reconnect_grace=0.0, exit_grace=5.0, token=None, disguise=disguise)


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
