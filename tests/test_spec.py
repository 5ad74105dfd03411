"""SPEC.md is what bot authors read: its example bot works, its message examples parse, and
every error code and game event it must document is there."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from arena.games import get_game
from arena.games.chochlik import ChochlikObservation
from arena.runner import BUILTIN_BOTS, BotSpec, run_match
from protocol.codec import decode_client, decode_server
from protocol.errors import ErrorCode, PeerError

SPEC_TEXT = (Path(__file__).parent.parent / "SPEC.md").read_text()


def code_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SPEC_TEXT, re.S)


def test_every_reason_code_is_documented():
    for code in ErrorCode:
        assert f"| `{code.value}` |" in SPEC_TEXT, code


def test_every_observation_field_is_documented():
    import attrs

    for field in attrs.fields(ChochlikObservation):
        assert f"`{field.name}`" in SPEC_TEXT, field.name


@pytest.mark.parametrize("kind", ["hand_start", "dealt", "passed", "play_start", "card_played",
                                  "trick_won", "hand_end"])
def test_every_chochlik_event_is_documented(kind):
    assert f"| `{kind}` |" in SPEC_TEXT


def test_the_message_examples_parse():
    examples = [json.loads(block) for block in code_blocks("json") if "..." not in block]
    assert len(examples) >= 8
    for example in examples:
        decoded = (decode_client if example["type"] in ("hello", "action") else decode_server)(
            json.dumps(example).encode())
        assert not isinstance(decoded, PeerError), (example, decoded)


async def test_the_example_bot_plays_a_match(tmp_path):
    (bot,) = [block for block in code_blocks("python") if "socket" in block]
    script = tmp_path / "tiny.py"
    script.write_text(bot)
    spec = get_game("chochlik")
    bots = [BotSpec("tiny", f"{sys.executable} {script}"),
            BotSpec("random-1", BUILTIN_BOTS["random"]),
            BotSpec("random-2", BUILTIN_BOTS["random"])]
    report = await run_match(spec, spec.parse_options({"players": 3, "hands": 1}), bots,
                             games=2, seed="spec", move_timeout=5, log_dir=tmp_path / "logs")
    assert report.ok, report.table()
    assert report.rows()[0]["errors"] == 0 and report.rows()[0]["defaults"] == 0
