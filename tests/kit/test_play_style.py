"""Colours in ``arena play``: painted only for a terminal, never inside other words."""

from __future__ import annotations

import io

from arena.kit.play_style import paint, wants_colour


def test_card_colours_are_painted_and_nothing_else():
    assert paint("play 17♠(3)") == "play \x1b[34m17♠(3)\x1b[0m"
    assert paint("♥ red 14(1)") == "\x1b[31m♥\x1b[0m \x1b[31mred\x1b[0m 14(1)"
    assert paint("add sheep-violet-3#1") == "add sheep-\x1b[35mviolet\x1b[0m-3#1"
    assert paint("fred reduced the bluebird") == "fred reduced the bluebird"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colours_only_in_a_terminal_unless_plain_or_no_color():
    assert wants_colour(Terminal(), False, {"TERM": "xterm"})
    assert not wants_colour(io.StringIO(), False, {"TERM": "xterm"})  # a pipe or a file
    assert not wants_colour(Terminal(), True, {"TERM": "xterm"})  # --plain
    assert not wants_colour(Terminal(), False, {"NO_COLOR": "1"})
    assert not wants_colour(Terminal(), False, {"TERM": "dumb"})
