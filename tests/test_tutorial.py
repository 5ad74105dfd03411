"""TUTORIAL.md is a newcomer's first hour: the bots it has them save behave as it says they do
(the first draft fails exactly the retry check, the grown-up bot passes every game, also over
stdio, and so does the one with a strategy), and every ``arena`` command it shows is one the
command line accepts."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from arena.cli import main
from arena.games import GAMES
from arena.kit.check_findings import Check
from tests.kit.test_check_bot import FAST, check

TUTORIAL = (Path(__file__).parent.parent / "TUTORIAL.md").read_text()
ROOT_DIR = Path(__file__).parent.parent
#: README and the documents of docs/ (the commands they show must exist and parse).
README = "\n".join(path.read_text() for path in [
    ROOT_DIR / "README.md", *sorted((ROOT_DIR / "docs").rglob("*.md"))])


def saved_files() -> dict[str, str]:
    """The files the tutorial says to save, by name: "Save this as `tiny.py`:" and its block."""
    found = re.findall(r"Save (?:this|it) as\s+`([\w.]+)`:\n\n```python\n(.*?)```", TUTORIAL,
                       re.S)
    return dict(found)


def with_strategy(bot: str) -> str:
    """``my_bot.py`` after section 6: its ``choose`` replaced by the one the tutorial shows."""
    match = re.search(r"Replace `choose` in\s+`my_bot.py` with:\n\n```python\n(.*?)```",
                      TUTORIAL, re.S)
    assert match, "section 6 no longer shows a choose to put in my_bot.py"
    start = bot.index("def choose(")
    end = bot.index("\n\n\n", start)
    return bot[:start] + match.group(1).rstrip("\n") + bot[end:]


def save(tmp_path: Path, name: str, text: str) -> list[str]:
    path = tmp_path / name
    path.write_text(text)
    return [sys.executable, str(path)]


def test_the_tutorial_has_its_two_bots() -> None:
    assert set(saved_files()) == {"tiny.py", "my_bot.py"}


def test_the_first_bot_fails_exactly_the_retry_check_as_shown(tmp_path: Path) -> None:
    tiny = save(tmp_path, "tiny.py", saved_files()["tiny.py"])
    result, outcomes = check("--game", "chochlik", "--games", "2", *FAST, "--", *tiny)
    assert result.exit_code == 1, result.output
    failed = [name for name, (outcome, _) in outcomes.items() if outcome == "FAIL"]
    assert failed == [f"chochlik: {Check.ERROR_RETRY.value}"]
    assert "FAIL  error reply and retry" in TUTORIAL


def test_the_grown_up_bot_passes_every_game_and_comes_back(tmp_path: Path) -> None:
    bot = save(tmp_path, "my_bot.py", saved_files()["my_bot.py"])
    result, outcomes = check("--game", "all", "--games", "2", *FAST, "--", *bot)
    assert result.exit_code == 0, result.output
    assert not [name for name, (outcome, _) in outcomes.items() if outcome == "FAIL"]
    for game in GAMES:
        for passed in (Check.ERROR_RETRY, Check.RECONNECT, Check.BYE):
            assert outcomes[f"{game}: {passed.value}"][0] == "PASS", (game, passed)


def test_the_grown_up_bot_passes_over_stdio(tmp_path: Path) -> None:
    bot = save(tmp_path, "my_bot.py", saved_files()["my_bot.py"])
    result, outcomes = check("--game", "chochlik", "--games", "2", "--stdio", *FAST, "--", *bot)
    assert result.exit_code == 0, result.output
    assert outcomes[f"chochlik: {Check.BYE.value}"][0] == "PASS"


def test_the_bot_with_a_strategy_passes_and_plays_it(tmp_path: Path) -> None:
    original = saved_files()["my_bot.py"]
    thinking = with_strategy(original)
    assert thinking != original and "observation[\"price\"]" in thinking
    bot = save(tmp_path, "my_bot.py", thinking)
    result, outcomes = check("--game", "chochlik", "--games", "2", *FAST, "--", *bot)
    assert result.exit_code == 0, result.output
    assert outcomes[f"chochlik: {Check.LEGAL_ACTIONS.value}"][0] == "PASS"


def shown_commands() -> list[list[str]]:
    """Every ``$ arena ...`` line of the tutorial's console blocks (continued lines joined),
    as words, without what a shell does around the command (pipes, redirections, ``&``)."""
    commands = []
    for block in re.findall(r"```console\n(.*?)```", TUTORIAL, re.S):
        for command in re.findall(r"^\$ ((?:.*\\\n)*.*)", block, re.M):
            line = command.replace("\\\n", " ")
            line = re.split(r"\s[|&]|\s2?>", line)[0]
            words = shlex.split(line)
            if words[0] == "arena":
                commands.append(words[1:])
    return commands


def readme_commands() -> list[list[str]]:
    """Every ``arena ...`` command of README's ``sh`` blocks (continued lines joined; one
    after ``&&`` too), as words."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words and words[0] == "arena":
                    commands.append(words[1:])
    return commands


def parses(command: click.Command, words: list[str], parent: click.Context) -> str | None:
    """None when the command line parses, else what click said (a missing file is a
    BadParameter, any other usage error a UsageError)."""
    try:
        command.make_context(words[0], list(words[1:]), parent=parent)
    except click.UsageError as problem:
        return f"{type(problem).__name__}: {problem}"
    return None


def test_every_arena_command_shown_is_one_the_command_line_accepts(tmp_path: Path) -> None:
    commands = shown_commands()
    assert {words[0] for words in commands} >= {"games", "match", "check-bot", "tournament",
                                                "ratings", "serve"}
    for words in commands:
        with click.Context(main) as parent:
            command = main.get_command(parent, words[0])
            assert command is not None, words
            problem = parses(command, words, parent)
            # a file the tutorial made earlier may be missing here; any other problem is not
            missing_file = problem is not None and problem.startswith("BadParameter") and (
                "does not exist" in problem)
            assert problem is None or missing_file, f"arena {' '.join(words)}: {problem}"


def test_every_arena_command_and_benchmark_in_the_readme_is_one_that_exists() -> None:
    commands = readme_commands()
    assert {words[0] for words in commands} >= {"match", "tournament", "ratings"}
    for words in commands:
        with click.Context(main) as parent:
            command = main.get_command(parent, words[0])
            assert command is not None, words
            problem = parses(command, words, parent)
            missing_file = problem is not None and problem.startswith("BadParameter") and (
                "does not exist" in problem)  # the event's database, made by the command before
            assert problem is None or missing_file, f"arena {' '.join(words)}: {problem}"
    scripts = re.findall(r"^python (benchmarks/\S+\.py)", README, re.M)
    assert len(scripts) >= 10
    root = Path(__file__).parent.parent
    assert [script for script in scripts if not (root / script).is_file()] == []


def test_the_grown_up_bot_answers_again_after_an_error_without_a_legal_list(
        tmp_path: Path) -> None:
    """Only ``illegal_action`` repeats the legal list; after the other wrong answers the bot
    answers the open request again from the request's own list (over stdio, scripted)."""
    bot = save(tmp_path, "my_bot.py", saved_files()["my_bot.py"])
    request: dict[str, Any] = {
        "type": "request", "id": 4, "legal": ["play 7", "play 9"], "time_left_ms": 5000,
        "observation": {"phase": "play", "price": 19}}
    error = {"type": "error", "code": "wrong_request_id", "message": "no request 5 is open",
             "fatal": False, "id": 4, "tries_left": 2, "time_left_ms": 4900}
    lines = [{"type": "welcome", "protocol": 1, "game": "chochlik", "players": 3, "limits": {}},
             request, error, {"type": "bye", "reason": "series_over"}]
    done = subprocess.run(bot, input="".join(json.dumps(line) + "\n" for line in lines),
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, "ARENA_TRANSPORT": "stdio"})
    assert done.returncode == 0, done.stderr
    sent = [json.loads(line) for line in done.stdout.splitlines()]
    assert [message["type"] for message in sent] == ["hello", "action", "action"]
    assert [message["id"] for message in sent[1:]] == [4, 4]
    assert sent[2]["action"] in request["legal"]
    assert "wrong_request_id" in done.stderr
