"""Hosted versions as an event's entrants (issue 33 §2): ``--bot NAME@VERSION`` in ``arena
tournament`` and ``arena sprt``, and the entrants ``arena worker`` plays on any host.

- ``NAME@N`` is version N of the registered bot NAME, ``NAME@active`` its active version (the
  number it has now is what the event records: a later version does not change the event).
  A version plays when it is ``active`` or ``valid``; one refused, retired, still building or
  unknown is a one-line :class:`HostedBotError`, before the event is stored.
- The event stores its entrant as ``NAME@N`` with the command ``@hosted NAME N DIGEST``
  (:func:`marker`): the version, and its build's digest.  Whoever plays the event (this host on
  ``--resume``, or ``arena worker`` on another) fetches that build from the database by its
  digest, checks the digest and unpacks it once in ``builds/<digest>``
  (:func:`~arena.launch.hosted_run.unpacked_build`), with its own toolchain: a build whose
  stored bytes changed, a version whose build is no longer the one recorded, or a toolchain
  this host lacks is a one-line :class:`HostedBotError` before the first game.
- The bot always runs in its own sandbox (:func:`~arena.launch.hosted_run.run_sandbox`:
  its language's memory, its toolchain's folders, the database never shown), over its
  standard input and output, whatever the runner does with the other bots
  (:attr:`~arena.launch.bots.BotSpec.sandbox`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from arena.events.hosted_store import HostedStore
from arena.events.hosted_versions import BotVersion, VersionError, VersionState
from arena.launch.bots import HOSTED, BotSpec
from arena.launch.hosted_run import RunLimits, run_sandbox, unpacked_build
from arena.launch.languages import LANGUAGES, probe, run_argv
from arena.launch.sandbox import SandboxUnavailable

#: ``NAME@active``: the bot's active version, recorded by its number.
ACTIVE = "active"
#: The states a version may be entered in an event from.
PLAYABLE = frozenset({VersionState.ACTIVE, VersionState.VALID})
#: Those a planned event may still play it in (retiring a version takes it out of the ladder
#: and of new events; an event planned with it plays it to its end, as it was planned).
STILL_PLAYED = PLAYABLE | {VersionState.RETIRED}

class HostedBotError(ValueError):
    """A ``NAME@VERSION`` that cannot play here: said in one line."""


@attrs.frozen
class Wanted:
    """A ``--bot NAME@VERSION``: the bot's name and its version's number (None: active)."""

    bot: str
    number: int | None


@attrs.frozen
class Stored:
    """A hosted entrant as its event stores it (:func:`marker`)."""

    bot: str
    number: int
    digest: str


def wanted(text: str) -> Wanted | None:
    """The version ``text`` names (``NAME@N`` or ``NAME@active``), or None for a command."""
    name, at, version = text.strip().rpartition("@")
    if not at or not name or any(c.isspace() or c == "=" for c in name):
        return None
    if version == ACTIVE:
        return Wanted(name, None)
    if version.isdigit() and int(version) > 0:
        return Wanted(name, int(version))
    return None


def marker(version: BotVersion) -> str:
    """The stored command of an entrant that is ``version``."""
    return f"{HOSTED} {version.bot} {version.number} {version.build_digest}"


def stored(command: str) -> Stored | None:
    """The hosted version a stored command names, or None for a bot's command."""
    words = command.split()
    if len(words) != 4 or words[0] != HOSTED or not words[2].isdigit():
        return None
    return Stored(words[1], int(words[2]), words[3])


def any_hosted(commands: Sequence[str]) -> bool:
    return any(wanted(command) or stored(command) for command in commands)


def chosen(store: HostedStore, want: Wanted) -> BotVersion:
    """The version ``want`` names, if it may play; else a HostedBotError saying why."""
    label = f"{want.bot}@{ACTIVE if want.number is None else want.number}"
    try:
        if want.number is not None:
            version = store.version(store.registered(want.bot), want.number)
        else:
            active = [v for v in store.versions(want.bot) if v.state is VersionState.ACTIVE]
            if not active:
                raise VersionError(f"{want.bot} has no active version (arena bots versions "
                                   f"{want.bot})")
            version = active[0]
    except VersionError as exc:
        raise HostedBotError(f"--bot {label}: {exc}") from None
    if version.state not in PLAYABLE or version.build_digest is None:
        why = f": {version.reason}" if version.reason else ""
        raise HostedBotError(f"--bot {label}: {version.bot} version {version.number} is "
                             f"{version.state.value}{why}; only an active or valid version "
                             "plays")
    return version


def entrants(commands: Sequence[str], store: Callable[[], HostedStore]) -> list[BotSpec]:
    """An event's entrants from its ``--bot`` (``plan_bots``'s names and commands; a
    ``NAME@VERSION`` named so, by its number, with its :func:`marker` as its command).
    ``store`` opens the versions' store, asked only when a version is named."""
    from arena.launch.runner import plan_bots

    wants = [wanted(command) for command in commands]
    versions: list[BotVersion | None] = [None] * len(commands)
    if any(wants):
        with store() as opened:
            versions = [None if want is None else chosen(opened, want) for want in wants]
    others = iter(plan_bots([c for c, v in zip(commands, versions) if v is None]))
    labels = [f"{v.bot}@{v.number}" for v in versions if v is not None]
    specs = []
    for version in versions:
        if version is None:
            specs.append(next(others))
            continue
        label = f"{version.bot}@{version.number}"
        if labels.count(label) > 1:  # the same version twice: label-1, label-2
            label += f"-{sum(spec.name.startswith(label + '-') for spec in specs) + 1}"
        specs.append(BotSpec(label, marker(version)))
    return specs


@attrs.frozen
class Hosting:
    """Where this host runs hosted entrants: its builds' folder, the database's files the
    sandbox never shows, and the CPU seconds a bot's process gets (None: no limit)."""

    builds: Path
    protect: tuple[str, ...] = ()
    cpu_seconds: int | None = None


def runnable(bots: Sequence[BotSpec], store: Callable[[], HostedStore],
             hosting: Hosting) -> list[BotSpec]:
    """``bots`` as this host runs them: each hosted entrant (:func:`stored`) with the command
    of its build, fetched and checked by its digest, and its sandbox; the others as they are.
    A HostedBotError for one that cannot play here."""
    if not any(stored(bot.command) for bot in bots):
        return list(bots)
    with store() as opened:
        ready = [_runnable(bot, opened, hosting) for bot in bots]
    for box in {bot.sandbox for bot in ready if bot.sandbox is not None}:
        try:
            box.check()
        except SandboxUnavailable as exc:
            raise HostedBotError(f"a hosted version plays only in the sandbox: {exc}") from None
    return ready


def _runnable(bot: BotSpec, store: HostedStore, hosting: Hosting) -> BotSpec:
    entry = stored(bot.command)
    if entry is None:
        return bot
    label = f"{entry.bot}@{entry.number}"
    try:
        version = store.version(entry.bot, entry.number)
        if version.build_digest != entry.digest:
            raise VersionError(f"its build is not the one the event was planned with "
                               f"({entry.digest[:12]})")
        if version.state not in STILL_PLAYED:
            raise VersionError(f"it is {version.state.value}")
        toolchain = probe(LANGUAGES[version.language])
        if not toolchain.available:
            raise VersionError(f"this host has no {', '.join(toolchain.missing)} (the "
                               f"{version.language} toolchain), so it cannot run it")
        folder = unpacked_build(store, entry.digest, hosting.builds)
    except VersionError as exc:
        raise HostedBotError(f"{label} cannot play: {exc}") from None
    sandbox = attrs.evolve(run_sandbox(toolchain, RunLimits(), hosting.protect),
                           cpu_seconds=hosting.cpu_seconds)
    return BotSpec(bot.name, shlex.join(run_argv(version.run, folder, toolchain)), sandbox)


def builds_folder(db: Path | str, builds: Path | None) -> Path:
    """Where builds are unpacked: ``builds`` if given, else ``DB.builds`` beside an SQLite
    file (where ``arena bots submit`` unpacked them), ``arena-builds`` for a URL."""
    if builds is not None:
        return builds.absolute()
    if isinstance(db, str):
        return Path("arena-builds").absolute()
    return db.absolute().with_name(db.name + ".builds")


#: Control characters a terminal may act on (C0 but newline and tab, DEL, C1).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: str) -> str:
    """A reason (bot-controlled: a compiler's line) with its control characters written as
    visible escapes, so that no escape sequence reaches a terminal."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def opener(db: Path | str) -> Callable[[], Any]:
    """What opens the versions' store of ``db`` (an SQLite file or a PostgreSQL URL)."""
    def open_store() -> Any:
        if isinstance(db, str):
            from arena.events.pg_hosted import PgHosted

            return PgHosted(db)
        from arena.events.hosted_store import SqliteHosted

        return SqliteHosted(db)

    return open_store
