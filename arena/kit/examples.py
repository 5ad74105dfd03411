"""Examples at the top of a command's ``--help``: ``@examples(...)`` above the command's
decorator puts them right after its first sentence, kept as written (click does not rewrap a
paragraph that starts with ``\\b``).  ``tests/cli/test_reference.py`` parses every example."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import TypeVar

import click

CommandT = TypeVar("CommandT", bound=click.Command)


def examples(*lines: str) -> Callable[[CommandT], CommandT]:
    """Add ``lines`` (each a whole command line) as the command's examples."""

    def add(command: CommandT) -> CommandT:
        text = inspect.cleandoc(command.help or "")
        first = re.search(r"(?<=[.:])\s+(?=[A-Z`])", text)
        head, rest = (text[:first.start()], text[first.end():]) if first else (text, "")
        block = "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)
        command.help = "\n\n".join(part for part in (head, block, rest) if part)
        return command

    return add
