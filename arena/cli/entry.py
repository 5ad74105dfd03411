"""The ``arena`` group, as the console command starts it: its options, and its commands found
by name, importing only what the command run needs.

The commands whose modules start no game server (:data:`LIGHT`: ``arena ratings``, ``arena
export``) are imported alone: without trio and the server's modules, a tenth of a second of
their start-up (``benchmarks/ratings_speed.py``).  Any other command, and the list of commands
(``arena --help``), import :mod:`arena.cli.commands`, which adds every command to this group.
"""

from __future__ import annotations

import importlib
import logging

import click

from arena import __version__
from arena.cli.errors import SuggestingGroup

#: Commands found without importing :mod:`arena.cli.commands`: name -> (module, attribute).
#: Each module must import no server (``tests/cli/test_ratings_startup.py`` checks them).
LIGHT = {"ratings": ("arena.cli.events", "ratings"), "export": ("arena.cli.export", "export")}


class LazyGroup(SuggestingGroup):
    """Finds a :data:`LIGHT` command by importing its module only, any other after importing
    :mod:`arena.cli.commands` (which adds them all)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LIGHT and cmd_name not in self.commands:
            module, attribute = LIGHT[cmd_name]
            command: click.Command = getattr(importlib.import_module(module), attribute)
            return command
        importlib.import_module("arena.cli.commands")
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        importlib.import_module("arena.cli.commands")
        return super().list_commands(ctx)


@click.group(cls=LazyGroup)
@click.version_option(__version__, prog_name="arena", message="%(prog)s %(version)s")
@click.option("--verbose", "-v", is_flag=True, help="Log connections and tables to stderr.")
def main(verbose: bool) -> None:
    """arena: a game host for bot-programming competitions."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(name)s: %(message)s")
