"""SPEC.md is what bot authors read: its example bot works, its message examples parse, and
every error code and game event it must document is there."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import attrs
import pytest

from arena.games import GAMES, get_game
from arena.games.base import section_text
from arena.launch.runner import BUILTIN_BOTS, BotSpec, run_match
from protocol.codec import decode_client, decode_server
from protocol.errors import ErrorCode, PeerError
from protocol.messages import CLIENT_MESSAGES

SPEC_TEXT = (Path(__file__).parent.parent / "SPEC.md").read_text()


def code_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SPEC_TEXT, re.S)


def test_every_reason_code_is_documented():
    for code in ErrorCode:
        assert f"| `{code.value}` |" in SPEC_TEXT, code


def game_section(name: str, text: str = SPEC_TEXT) -> str:
    """The text of SPEC.md's section on one game (from its heading to the next one, or the
    end: the games' sections come last)."""
    match = re.search(rf"^## \d+\. Game: {name}\b.*?(?=^## |\Z)", text, re.S | re.M)
    assert match, f"SPEC.md has no section '## N. Game: {name}'"
    return match.group(0)


# The checks of one game's section, for every registered game: in SPEC.md, or for a game from
# elsewhere (the toy game of tests/games/toy/) in its own package's section.


def text_of(name: str) -> str:
    return section_text(GAMES[name]) or SPEC_TEXT


def check_observation_fields(name: str, text: str | None = None) -> None:
    text = text if text is not None else text_of(name)
    section = game_section(name, text)
    for field in attrs.fields(GAMES[name].observation_type):
        assert f"`{field.name}`" in section, field.name


def check_events(name: str, text: str | None = None) -> None:
    text = text if text is not None else text_of(name)
    section = game_section(name, text)
    for kind, event in GAMES[name].events.items():
        row = re.search(rf"^\| `{kind}` \|.*$", section, re.M)
        assert row, f"{name}: event {kind!r} is not in SPEC.md"
        for field in event.fields:
            assert f"`{field}`" in row.group(0), f"{name}: {kind}.{field}"


def check_options(name: str, text: str | None = None) -> None:
    text = text if text is not None else text_of(name)
    section = game_section(name, text)
    for field in GAMES[name].option_fields():
        assert f"| `{field.name}` |" in section, field.name


def check_defaults(name: str, text: str | None = None) -> None:
    text = text if text is not None else text_of(name)
    defaults = re.search(r"\*\*How defaults are chosen\.\*\*.*?(?=\n- |\n## |\Z)", text,
                         re.S)
    assert defaults and f"| {name} |" in defaults.group(0)


SECTION_CHECKS = (check_observation_fields, check_events, check_options, check_defaults)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_observation_field_is_documented(name):
    check_observation_fields(name)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_event_and_its_fields_are_documented(name):
    check_events(name)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_option_is_documented(name):
    check_options(name)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_says_how_its_defaults_are_chosen(name):
    check_defaults(name)


def test_the_message_examples_parse():
    examples = [json.loads(block) for block in code_blocks("json") if "..." not in block]
    assert len(examples) >= 8
    for example in examples:
        decode = decode_client if example["type"] in CLIENT_MESSAGES else decode_server
        decoded = decode(json.dumps(example).encode())
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


def test_the_example_bot_passes_check_bot(tmp_path):
    """It answers an error reply again, so the checker's scripted refusal does not fail it."""
    from click.testing import CliRunner

    from arena.kit.check_bot import check_bot

    (bot,) = [block for block in code_blocks("python") if "socket" in block]
    script = tmp_path / "tiny.py"
    script.write_text(bot)
    result = CliRunner().invoke(check_bot, ["--game", "chochlik", "--games", "2", "--move-timeout",
                                            "1", "--", sys.executable, str(script)])
    assert result.exit_code == 0, result.output
    assert "PASS  error reply and retry" in result.output


def test_the_games_come_last_and_the_contents_link_every_section():
    """A new game's section goes at the end and renumbers nothing; the contents line links
    each numbered section by its anchor."""
    headings = re.findall(r"^## (\d+)\. (.+)$", SPEC_TEXT, re.M)
    assert [int(number) for number, _ in headings] == list(range(len(headings)))
    games = [title.startswith("Game: ") for _, title in headings]
    assert games == sorted(games)
    assert sum(games) == len([spec for spec in GAMES.values() if spec.spec_section is None])
    contents = SPEC_TEXT.split("---", 1)[0]
    for number, title in headings:
        anchor = re.sub(r"[^a-z0-9 -]", "", f"{number} {title}".lower()).replace(" ", "-")
        assert f"(#{anchor})" in contents, anchor
