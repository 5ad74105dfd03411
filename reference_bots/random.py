"""The random bot: plays a uniformly random token from every request's legal list.

Works for every game: it learns which game from the server's welcome, and needs nothing else.
``python -m reference_bots.random --host H --port P [--name N] [--token T] [--seed S]``
"""

from __future__ import annotations

import random
import sys
from typing import Any

from reference_bots.client import argument_parser, play


class RandomPolicy:
    wanted_events: frozenset[str] = frozenset()  # the legal list is all it needs

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, request: dict[str, Any]) -> str:
        return self.rng.choice(request["legal"])

    def on_message(self, message: dict[str, Any]) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    args = argument_parser("arena random bot", "random").parse_args(argv)
    return play(RandomPolicy(args.seed), args)


if __name__ == "__main__":
    sys.exit(main())
