"""The command line every boss bot takes: the client's options and the search budget."""

from __future__ import annotations

import argparse

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
                        help="wall time per decision, in milliseconds (default 100)")
    parser.add_argument("--iterations", type=_positive_int, default=None,
                        help="a fixed number of sampled worlds per decision instead of a time "
                             "budget (reproducible whatever the machine's load)")
    return parser
