"""Hosted bots' versions (issue 33): what a participant submitted, what arena built of it, and
where it stands.  A version's life, as a table of the moves allowed (:data:`MOVES`):

- ``building``: stored, being built in the sandbox; then ``refused`` (the reason and the build
  log kept) or ``validating``;
- ``validating``: built, playing check-bot's series in the sandbox; then ``refused`` (the
  check's log kept) or ``active``;
- ``active``: the bot's one version that plays (at most one a bot): a new valid version takes
  its place, and it becomes ``valid``;
- ``valid``: passed, not playing now; the author may return to it (``active`` again);
- ``retired``: taken out by the organiser (it passed once: it may be made ``active`` again);
- ``refused``: never plays; it stays, with its reason, for its author to read.

A version keeps its source (a packed folder: :func:`arena.launch.unpack.pack`) and its
digest; a build is stored once, by its digest, however many versions share it; the version
names it and says how to run it (:attr:`BotVersion.run`: words, the first a toolchain's
program by name, ``{dir}`` standing for the folder its build is unpacked in), so a host that
fetches the build by its digest can run it with its own toolchain."""

from __future__ import annotations

import enum
import json

import attrs


class VersionState(enum.Enum):
    BUILDING = "building"
    """Stored; being built."""
    REFUSED = "refused"
    """Its build or its validation failed (the reason is kept): it never plays."""
    VALIDATING = "validating"
    """Built; playing the validation series."""
    ACTIVE = "active"
    """The bot's version that plays (one a bot at most)."""
    VALID = "valid"
    """Passed its validation; another version of the bot plays now."""
    RETIRED = "retired"
    """Taken out by the organiser."""


S = VersionState
#: The moves a version may make: (from, to).
MOVES = frozenset({
    (S.BUILDING, S.VALIDATING), (S.BUILDING, S.REFUSED),
    (S.VALIDATING, S.ACTIVE), (S.VALIDATING, S.REFUSED),
    (S.ACTIVE, S.VALID), (S.VALID, S.ACTIVE), (S.RETIRED, S.ACTIVE),
    (S.ACTIVE, S.RETIRED), (S.VALID, S.RETIRED),
})
#: The states a version may be made active from (by its author or the organiser).
ACTIVATABLE = frozenset(start for start, end in MOVES if end is S.ACTIVE) - {S.VALIDATING}


class VersionError(ValueError):
    """An unknown bot or version, or a move its state does not allow."""


def move(name: str, number: int, found: VersionState, wanted: VersionState) -> None:
    """Raise a :class:`VersionError` unless ``found`` may become ``wanted``."""
    if (found, wanted) not in MOVES:
        raise VersionError(f"{name} version {number} is {found.value}: it cannot be made "
                           f"{wanted.value}")


@attrs.frozen
class BotVersion:
    """One version's record, without its source and build bytes (read apart)."""

    bot: str
    number: int
    language: str
    state: VersionState
    #: Why it was refused or retired ("" otherwise).
    reason: str
    source_digest: str
    #: The build's digest (None until built).
    build_digest: str | None
    #: How to run it: words, the first a toolchain's program by name (``python3``, ``node``,
    #: ``java``) or ``{dir}/NAME`` (a program of the build); ``{dir}``: its build's folder.
    run: tuple[str, ...]
    submitted_at: float

    def run_json(self) -> str:
        return json.dumps(list(self.run))

    def summary(self) -> str:
        """One line for ``arena bots versions``."""
        state = self.state.value + (f": {self.reason}" if self.reason else "")
        return f"{self.number}  {self.language:<6}  {state}"


#: The SQL shared by both backends' migrations (SQLite's types; PostgreSQL's replace them).
SCHEMA = """
CREATE TABLE IF NOT EXISTS hosted_builds (
    digest TEXT PRIMARY KEY, files BLOB NOT NULL, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hosted_versions (
    bot TEXT NOT NULL, number INTEGER NOT NULL, name TEXT NOT NULL, language TEXT NOT NULL,
    state TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', source_digest TEXT NOT NULL,
    source BLOB NOT NULL, build_digest TEXT REFERENCES hosted_builds (digest),
    build_log TEXT NOT NULL DEFAULT '', check_log TEXT NOT NULL DEFAULT '',
    run TEXT NOT NULL DEFAULT '[]', submitted_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (bot, number));
CREATE UNIQUE INDEX IF NOT EXISTS hosted_one_active ON hosted_versions (bot) WHERE state = 'active';
"""

#: The columns :func:`version_of` reads, in order.
COLUMNS = ("name", "number", "language", "state", "reason", "source_digest", "build_digest",
           "run", "submitted_at")


def version_of(row: tuple[object, ...]) -> BotVersion:
    name, number, language, state, reason, source, build, run, at = row
    return BotVersion(str(name), int(str(number)), str(language), VersionState(state),
                      str(reason), str(source), None if build is None else str(build),
                      tuple(json.loads(str(run))), float(str(at)))
