"""``arena ratings`` starts light (issue 30 §2): on an SQLite file it imports neither the game
server (trio) nor a PostgreSQL driver, a fifth of a second of its start-up; a URL still goes
to PostgreSQL; every command still runs through the group the console script starts."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.entry import LIGHT
from tests.events.test_ratings_output import seeded_event

PROGRAM = """
import sys
from arena.cli import main
try:
    main(sys.argv[1:])
except SystemExit as end:
    print(sorted(m for m in ("trio", "psycopg") if m in sys.modules), end.code)
"""


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROGRAM, *arguments], capture_output=True,
                          text=True, timeout=120)


def test_an_sqlite_event_is_rated_without_the_server_or_psycopg(tmp_path):
    seeded_event(tmp_path / "event.db")
    done = run("ratings", "--db", str(tmp_path / "event.db"), "--resamples", "5")
    assert done.stdout.splitlines()[-1] == "[] 0", done.stdout + done.stderr
    assert "b3" in done.stdout


def test_a_url_is_opened_with_postgresql():
    done = run("ratings", "--db", "postgresql://nobody@127.0.0.1:1/none")
    assert done.stdout.splitlines()[-1] == "['psycopg'] 2", done.stdout + done.stderr
    assert "cannot reach" in done.stderr


@pytest.mark.parametrize("name", sorted(LIGHT))
def test_a_light_command_imports_no_server(name):
    done = run(name, "--help")
    assert done.stdout.splitlines()[-1] == "[] 0", done.stdout + done.stderr


def test_other_commands_are_found_through_the_whole_module():
    done = run("games")
    assert done.stdout.splitlines()[-1] == "['trio'] 0", done.stdout + done.stderr
    listed = CliRunner().invoke(main, ["--help"]).output
    assert all(f"  {name} " in listed for name in ("serve", "match", "ratings", "export",
                                                   "worker", "bots"))
