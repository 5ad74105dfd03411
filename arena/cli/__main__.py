"""``python -m arena.cli``: the arena command, as the console script starts it."""

from arena.cli import main

main()
