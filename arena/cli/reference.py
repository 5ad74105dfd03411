"""The command reference of the documents (``docs/commands.md``), made from the commands' own
``--help``: what a reader finds there is what ``arena X --help`` prints, word for word.

    python -m arena.cli.reference > docs/commands.md

``tests/cli/test_reference.py`` fails when the file and the commands' help differ.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import click

from arena.cli.entry import main

HEADER = """# Command reference

Every `arena` command and what `arena COMMAND --help` prints for it. This page is made from the
commands themselves (`python -m arena.cli.reference > docs/commands.md`); a test keeps it so.

"""


def _help(command: click.Command, path: list[str], parent: click.Context | None) -> str:
    context = click.Context(command, info_name=path[-1], parent=parent, terminal_width=100,
                            max_content_width=100)
    return command.get_help(context)


def sections(command: click.Command = main, path: list[str] | None = None,
             parent: click.Context | None = None) -> Iterator[tuple[str, str]]:
    """(``arena X Y``, its help text) for the group and every command under it, by name."""
    path = path or ["arena"]
    context = click.Context(command, info_name=path[-1], parent=parent)
    yield " ".join(path), _help(command, path, parent)
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            if sub is not None and not sub.hidden:
                yield from sections(sub, [*path, name], context)


def reference() -> str:
    """The whole page."""
    parts = [HEADER]
    for title, text in sections():
        anchor_free = title.replace("`", "")
        parts.append(f"## {anchor_free}\n\n```text\n{text.rstrip()}\n```\n\n")
    return "".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference())
