"""``arena ratings`` on an SQLite file imports no PostgreSQL driver (a tenth of a second of its
start-up, issue 30 §2); a URL still goes to PostgreSQL."""

from __future__ import annotations

import subprocess
import sys

from tests.events.test_ratings_output import seeded_event

PROGRAM = """
import sys
from arena.cli import main
try:
    main(["ratings", "--db", sys.argv[1], "--resamples", "5"])
except SystemExit as end:
    print("psycopg" in sys.modules, end.code)
"""


def test_an_sqlite_event_is_rated_without_importing_psycopg(tmp_path):
    seeded_event(tmp_path / "event.db")
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(tmp_path / "event.db")],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "False 0", done.stdout + done.stderr
    assert "b3" in done.stdout


def test_a_url_is_opened_with_postgresql():
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, "postgresql://nobody@127.0.0.1:1/none"],
        capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "True 2", done.stdout + done.stderr
    assert "cannot reach" in done.stderr
