"""``python -m arena.cli``: the arena command."""

from arena.cli.commands import main

main()
