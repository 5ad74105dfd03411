"""Colour for ``arena play`` in a terminal: card colours painted in their colour (ANSI escape
codes), only where a person looks at a terminal.  Output to a pipe or a file, ``--plain``,
``NO_COLOR`` set or ``TERM=dumb`` stays plain text, byte for byte what is drawn."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TextIO

#: The ANSI colour of each card colour, and of chochlik's colour symbols.
CODES = {"red": "31", "yellow": "33", "green": "32", "violet": "35", "blue": "34",
         "♥": "31", "♦": "33", "♠": "34"}
#: A chochlik card (17♠ or 17♠(3)), a lone colour symbol, or a colour word (red, red-3#1: not
#: inside another word, so a name such as "fred" stays as it is).
PAINTED = re.compile(r"\d+([♥♦♠])(?:\(\d+\))?|([♥♦♠])"
                     r"|(?<![A-Za-z])(red|yellow|green|violet|blue)(?![A-Za-z])")
RESET = "\x1b[0m"


def paint(text: str) -> str:
    """``text`` with every card colour in its colour."""
    def coloured(match: re.Match[str]) -> str:
        key = match.group(1) or match.group(2) or match.group(3)
        return f"\x1b[{CODES[key]}m{match.group(0)}{RESET}"
    return PAINTED.sub(coloured, text)


def wants_colour(stream: TextIO, plain: bool, environ: Mapping[str, str]) -> bool:
    """Whether to paint: a terminal, and neither ``--plain``, ``NO_COLOR`` nor ``TERM=dumb``."""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        terminal = False
    return (terminal and not plain and "NO_COLOR" not in environ
            and environ.get("TERM") != "dumb")
