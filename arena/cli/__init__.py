"""The command line: parses options and calls the packages; nothing else.

``arena`` (the console command, ``arena.cli:main``) is :func:`arena.cli.entry.main`, looked
up when asked for, so that importing a module of the package imports no command; it imports
a command's module when the command is run (``arena.cli.entry``)."""

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "main":
        from arena.cli.entry import main

        return main
    raise AttributeError(f"module 'arena.cli' has no attribute {name!r}")
