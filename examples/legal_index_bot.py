"""The smallest bot: it always plays the token at one index of the legal list, in every game.

``python examples/legal_index_bot.py --host H --port P [--name N] [--token-file F] [--index 0]``

``--index 0`` plays ``legal[0]`` (in chochlik the lowest legal card: hands are sorted),
``--index -1`` plays ``legal[-1]``.  README's "How strong the heuristic bots are" rates the
chochlik heuristic against it with ``arena tournament``.
"""

from __future__ import annotations

import sys
from typing import Any

from reference_bots.client import argument_parser, play


class LegalIndex:
    wanted_events: frozenset[str] = frozenset()  # the legal list is all it needs

    def __init__(self, index: int) -> None:
        self.index = index

    def choose(self, request: dict[str, Any]) -> str:
        legal: list[str] = request["legal"]
        return legal[self.index]

    def on_message(self, message: dict[str, Any]) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser("a bot that always plays legal[INDEX]", "legal-index")
    parser.add_argument("--index", type=int, default=0,
                        help="the legal list's index to play (0: the first, -1: the last)")
    args = parser.parse_args(argv)
    return play(LegalIndex(args.index), args)


if __name__ == "__main__":
    sys.exit(main())
