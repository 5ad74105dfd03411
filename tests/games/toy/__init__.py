"""A toy game, defined inside the test suite as a game folder would be: high card with a
secret stake.  ``SPEC`` is what a registry lists (``ARENA_EXTRA_GAMES=tests.games.toy:SPEC``)."""

from tests.games.toy.rules import SPEC

__all__ = ["SPEC"]
