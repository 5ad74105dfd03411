"""docs/commands.md is the commands' own ``--help``, word for word (arena.cli.reference)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.cli.reference import sections

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_reference_is_what_the_commands_print():
    """Made in a process of its own without the test session's toy game (a game adds its
    options to the commands' help)."""
    env = {key: value for key, value in os.environ.items() if key != "ARENA_EXTRA_GAMES"}
    made = subprocess.run([sys.executable, "-m", "arena.cli.reference"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert (ROOT / "docs" / "commands.md").read_text() == made.stdout, (
        "docs/commands.md differs from the commands' help: python -m arena.cli.reference "
        "> docs/commands.md")


def test_every_command_and_subcommand_has_its_section():
    titles = [title for title, _ in sections()]
    assert titles[0] == "arena" and "arena match" in titles and "arena bots add" in titles
    assert len(titles) == len(set(titles))
