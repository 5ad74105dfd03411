"""A random bot that thinks :data:`THINK` seconds before each decision, as a person at the
keyboard would: its games last long enough for a page to be asked about a duplicate set while
the set is played.  ``python -m tests.web.paced_random --port P --name N --token T``."""

from __future__ import annotations

import sys
import time
from typing import Any

from reference_bots.client import argument_parser, play
from reference_bots.random import RandomPolicy

#: Seconds of thought per decision (the bot's pace, not a wait of the test's).
THINK = 0.01


class PacedRandom(RandomPolicy):
    def choose(self, request: dict[str, Any]) -> str:
        time.sleep(THINK)
        return super().choose(request)


if __name__ == "__main__":
    arguments = argument_parser("a paced random bot", "paced").parse_args()
    sys.exit(play(PacedRandom(arguments.seed), arguments))
