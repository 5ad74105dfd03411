"""Fixtures shared by the test packages: a real PostgreSQL server (tests/pg_fixture.py), one
per pytest-xdist worker, started by the first test that needs it and stopped at the end.

The toy game (tests/games/toy/, a game defined as a game's own package would be) is in the
registry for the whole session, in this process and in every ``arena`` command a test starts
(``ARENA_EXTRA_GAMES``): every battery that takes its games from the registry plays it too."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.pg_fixture import PgServer, PgUnavailable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOY = "tests.games.toy:SPEC"
os.environ["ARENA_EXTRA_GAMES"] = ",".join(
    filter(None, [os.environ.get("ARENA_EXTRA_GAMES"), TOY]))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
# The pages' process of ``arena serve --web`` ranks below the games (niceness 10, for its whole
# session group): on a machine busy with the tests' own workers it answered a page in seconds,
# and the pages' tests took three times as long.  The tests wait for the pages, so they rank
# them with the games; tests/web/test_pages_process.py checks the default.
os.environ["ARENA_PAGES_NICENESS"] = "0"
from arena.games import register  # noqa: E402
from tests.games.toy import SPEC as TOY_SPEC  # noqa: E402

register(TOY_SPEC)

# In CI (``CI=true``) property tests draw the same examples every run: a run that fails is one a
# developer can repeat, and a random draw never blocks a change that did not cause it.  Their
# own runs (no CI) draw new examples each time, and a failure found so is pinned with
# ``@example`` (as tests/seating/test_ladder_population.py's).
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")

# A shell starts a background job (`bash .ci/run &`) with SIGINT ignored, and every process it
# starts inherits that: the tests that press Ctrl-C on a command would see it ignored.  They
# stand for a person at a terminal, so they start from Python's own handler, as there.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The session's PostgreSQL server; in CI (``CI=true``) one that cannot start fails the
    test, elsewhere it is skipped with the reason."""
    try:
        server = PgServer()
    except PgUnavailable as exc:
        missing(str(exc))
    try:
        server.start()
    except PgUnavailable as exc:
        server.cleanup()
        missing(str(exc))
    yield server
    server.cleanup()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A fresh database of the session's server (a libpq URL over its Unix socket)."""
    return pg_server.new_database()


def missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"PostgreSQL is needed in CI: {reason}")
    pytest.skip(f"no PostgreSQL here: {reason}")
