"""Running a hosted bot's version (issue 33): its build fetched from the database by its
digest (the digest checked) and unpacked once in ``builds/<digest>``, and the sandbox it plays
in, with the limits it gets.  Used by the validation series (:mod:`arena.kit.hosted`), the
ladder's hosted bots and the runners that play ``NAME@VERSION``."""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import shutil
from pathlib import Path

import attrs

from arena.events.hosted_store import HostedStore
from arena.events.hosted_versions import BotVersion, VersionError
from arena.launch.hosted_build import BuildLimits
from arena.launch.languages import Toolchain
from arena.launch.sandbox import Sandbox
from arena.launch.unpack import UnpackError, UnpackLimits, digest, unpack_tar


@attrs.frozen
class RunLimits:
    """What a hosted bot gets when it plays (its validation series, and later the ladder)."""

    #: Seconds a decision may take.
    move_timeout: float = 5.0
    #: CPU seconds over a process's life (the validation series, or a ladder's session).
    cpu_seconds: int = 120
    #: Processes and threads at once.
    max_processes: int = 64
    #: Cores: one while it thinks (on a ladder, ``arena serve --hosted --cores``: no more hosted
    #: bots think at once than cores, :mod:`arena.edge.cores`); no CPU quota is set.
    cores: int = 1


def hosted_environment(bot: str) -> dict[str, str]:
    """The environment a hosted version is run with, on the ladder and in its validation alike
    (so that it cannot tell them apart): the host's ``PATH``, ``ARENA_TRANSPORT=stdio`` and its
    registered name as ``ARENA_NAME``; nothing else (no address, no token)."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ARENA_TRANSPORT": "stdio",
            "ARENA_NAME": bot}


def build_limits(limits: BuildLimits) -> UnpackLimits:
    """What a stored build may hold, unpacked: what its build could give back."""
    return UnpackLimits(limits.output_files, limits.output_bytes)


#: What a stored build may hold, unpacked, by default (what a default build gives back).
BUILD_UNPACK_LIMITS = build_limits(BuildLimits())


def unpacked_build(store: HostedStore, build_digest: str, builds: Path,
                   limits: UnpackLimits = BUILD_UNPACK_LIMITS) -> Path:
    """The folder a build is unpacked in (fetched by its digest, which is checked, and
    unpacked once, within ``limits``: a folder there is complete, it was renamed into place);
    a VersionError when it cannot be."""
    folder = builds / build_digest
    if folder.is_dir():
        return folder
    files = store.build(build_digest)
    if digest(files) != build_digest:
        raise VersionError(f"build {build_digest}: its stored files do not match its digest")
    builds.mkdir(parents=True, exist_ok=True)
    partial = builds / f".partial-{secrets.token_hex(8)}"
    partial.mkdir()
    try:
        unpack_tar(io.BytesIO(files), partial, limits)
        os.rename(partial, folder)
    except UnpackError as exc:
        raise VersionError(f"build {build_digest}: cannot be unpacked: {exc}") from None
    except OSError:
        if not folder.is_dir():
            raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def drop_build(store: HostedStore, build_digest: str, builds: Path) -> None:
    """Remove a build's folder when no version left (not refused) has that build."""
    if not build_digest or store.build_in_use(build_digest):
        return
    shutil.rmtree(builds / build_digest, ignore_errors=True)


def run_sandbox(toolchain: Toolchain, limits: RunLimits, protect: tuple[str, ...]) -> Sandbox:
    """The sandbox a hosted bot plays in."""
    return Sandbox(memory_mb=toolchain.language.memory_mb, cpu_seconds=limits.cpu_seconds,
                   max_processes=limits.max_processes, protect=protect,
                   binds=tuple((folder, folder) for folder in toolchain.folders))




#: Bytes of a hosted version's standard error kept (its end) in its output file.
OUTPUT_KEPT_BYTES = 64 * 1024


def output_file(builds: Path, version: BotVersion) -> Path:
    """Where the ladder keeps the end of a hosted version's standard error (at most
    :data:`OUTPUT_KEPT_BYTES` of it), for its author's page: a folder beside ``builds``, one
    file per version, named by what makes the version itself (its number, source digest and
    time of submission), never by its bot's name: a renamed bot keeps its versions' output,
    and whoever registers a name next (whose version 1 is another) never reads the old one's."""
    folder = builds.with_name(builds.name + ".output")
    mark = f"{version.number}:{version.source_digest}:{version.submitted_at!r}"
    return folder / f"{hashlib.sha256(mark.encode()).hexdigest()}.log"
