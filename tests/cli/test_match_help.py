"""``arena match --help`` tells how to give a built-in bot its options and a name."""

from __future__ import annotations

import re

from click.testing import CliRunner

from arena.cli import main


def test_match_help_says_built_in_bots_take_options_and_names():
    result = CliRunner().invoke(main, ["match", "--help"])
    text = re.sub(r"\s+", " ", result.output)
    assert result.exit_code == 0
    assert "with its options after its name (random --seed 3" in text
    assert "--random-rate 0.25" in text and "NAME=CMD names a bot" in text
