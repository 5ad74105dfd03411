"""docs/commands.md is the commands' own ``--help``, word for word (arena.cli.reference)."""

from __future__ import annotations

import os
import shlex
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


def examples_in(text: str) -> list[list[str]]:
    """The example command lines of a help text, as words (a shell redirection left out)."""
    lines = text.split("Examples:\n", 1)[1].split("\n\n", 1)[0] if "Examples:\n" in text else ""
    return [shlex.split(line.split(" > ")[0]) for line in lines.splitlines() if line.strip()]


def test_the_commands_help_starts_with_examples_that_parse():
    import click

    from arena.cli.entry import main
    with_examples = {title for title, text in sections() if examples_in(text)}
    assert with_examples >= {"arena match", "arena tournament", "arena ratings", "arena sprt",
                             "arena export", "arena web", "arena worker", "arena check-bot",
                             "arena play", "arena replay", "arena games", "arena schema"}
    for title, text in sections():
        for words in examples_in(text):
            assert words[:len(title.split())] == title.split(), (title, words)
            with click.Context(main) as parent:
                command = main.get_command(parent, words[1])
                assert command is not None, words
                problem = ""
                try:
                    command.make_context(words[1], words[2:], parent=parent)
                except click.BadParameter as bad:  # a file the example would have made
                    problem = str(bad)
                assert not problem or "does not exist" in problem, (words, problem)
