"""The command line every boss bot takes: the client's options and the search budget."""

from __future__ import annotations

import argparse

from reference_bots.boss.search import TIME_LEFT_SHARE, WALL_FACTOR, WALL_LIMIT_S
from reference_bots.client import argument_parser


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def boss_parser(description: str, default_name: str) -> argparse.ArgumentParser:
    parser = argument_parser(description, default_name)
    parser.add_argument("--think-ms", type=_positive_float, default=100.0,
                        help="the boss's own CPU time per decision, in milliseconds (default "
                             f"100); a decision ends anyway after {WALL_FACTOR:g} times that "
                             f"in wall time (at most {WALL_LIMIT_S:g} s unless the think time "
                             f"is longer, and at most {TIME_LEFT_SHARE:g} of the time the "
                             "server gives the answer), so a busy host neither weakens the boss "
                             "nor makes it late")
    parser.add_argument("--iterations", type=_positive_int, default=None,
                        help="a fixed number of sampled worlds per decision instead of a time "
                             "budget (reproducible whatever the machine's load)")
    return parser
