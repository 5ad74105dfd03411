"""docs/game-authors.md, run: a game made by ``arena new-game`` is built as a distribution of
own, installed (offline, into a folder put on the path), and every command the guide shows
runs on it, in order, in processes that know nothing of the test session's toy game: ``arena
games``, ``check-game``, the package's own tests, ``match``, ``check-bot``, ``arena.envs``,
``tournament``, ``ratings``, ``bots add`` (then ``replay`` of one of its logs); the commands
that run until stopped (``serve``, ``web``) are parsed, and one page of the event is served
and read.  No file of arena is written.  A broken game package beside it is named in one
line, and the other games still work."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "game-authors.md").read_text()
#: Commands that run until stopped: parsed, not run.
LONG_RUNNING = {"serve", "web", "play"}


def shown_commands() -> list[list[str]]:
    """Every ``$ ...`` line of the guide's console blocks, as words, in order."""
    return [shlex.split(line) for block in re.findall(r"```console\n(.*?)```", GUIDE, re.S)
            for line in re.findall(r"^\$ (.*)$", block, re.M)]


def environment(place: Path, *more: Path) -> dict[str, str]:
    """The game's package installed in ``place / "site"`` (and ``more``), arena from this
    checkout, no extra game registered."""
    env = {key: value for key, value in os.environ.items() if key != "ARENA_EXTRA_GAMES"}
    env["PYTHONPATH"] = os.pathsep.join(map(str, [place / "site", *more, ROOT]))
    return env


def run(words: list[str], place: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    if words[:3] == ["pip", "install", "-e"]:  # offline, into a folder on the path
        words = [sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                 "--no-build-isolation", "--no-index", "--target", str(place / "site"),
                 words[3]]
    elif words[0] == "arena":
        words = [sys.executable, "-m", "arena", *words[1:]]
    elif words[0] == "python":
        words = [sys.executable, *words[1:]]
    return subprocess.run(words, cwd=place, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_guide_shows_the_whole_way():
    firsts = [words[1] for words in shown_commands() if words[0] == "arena"]
    assert firsts[0] == "new-game" and {"games", "check-game", "match", "tournament", "web",
                                        "bots", "serve"} <= set(firsts)


def test_every_command_of_the_guide_runs_on_the_installed_game(tmp_path):
    """Then one page of the guide's event: a game drawn by the plain board (the game has no
    board of its own)."""
    place = tmp_path
    env = environment(place)
    outputs = {}
    for words in shown_commands():
        if words[0] == "arena" and words[1] in LONG_RUNNING:
            done = subprocess.run([sys.executable, "-m", "tests.kit.outside", "parse",
                                   *words[1:]], cwd=place, env=env, capture_output=True,
                                  text=True, timeout=120)
        else:
            done = run(words, place, env)
        assert done.returncode == 0, f"{shlex.join(words)}:\n{done.stdout}{done.stderr}"
        outputs[" ".join(words[:2])] = done.stdout
    assert re.search(r"^dice\s", outputs["arena games"], re.M)
    assert "check-game: no check failed" in outputs["arena check-game"]
    assert "FAIL" not in outputs["arena check-game"]
    assert "passed" in outputs["python -m"] and "failed" not in outputs["python -m"]
    assert "dice-cautious" in outputs["arena match"]
    assert "check-bot: no check failed" in outputs["arena check-bot"]
    assert "Passed API test" in outputs["python -c"]
    assert not (ROOT / "arena-dice").exists()
    logs = sorted((place / "dice-logs").glob("dice-*.jsonl.gz"))
    assert len(logs) == 6
    done = run(["arena", "replay", str(logs[0])], place, env)
    assert done.returncode == 0 and "reproduces" in done.stdout, done.stdout + done.stderr
    done = subprocess.run([sys.executable, "-m", "tests.kit.outside", "page",
                           str(place / "dice-event.db"), "/game/0"], cwd=place,
                          env=environment(place), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    status, _, page = done.stdout.partition("\n")
    assert status == "200" and "revealed" in page, page[:2000]


def test_a_broken_game_package_is_named_in_one_line(tmp_path):
    place = tmp_path
    broken = place / "broken"
    info = broken / "arena_broken-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena.games]\nbroken = no_such_package_here:SPEC\n")
    done = run(["arena", "games"], place, environment(place, broken))
    assert done.returncode == 0, done.stderr
    without = run(["arena", "games"], place, environment(place))
    assert without.stderr == "" and done.stdout == without.stdout
    assert done.stderr.splitlines() == [
        "arena: game 'broken' of arena-broken (no_such_package_here:SPEC) skipped: does not "
        "load (ModuleNotFoundError: No module named 'no_such_package_here')"]
    assert re.search(r"^\w+ ", done.stdout, re.M)  # the other games still work
