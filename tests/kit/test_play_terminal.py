"""``arena play`` the way a person plays it: in a pseudo-terminal, answering every prompt with
"1" until the series ends, within a deadline.  What the person sees is asserted: the legend,
card colours in the choices, tables at the ends of hands and games, and no prompt for a request
that is no decision."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: A prompt for a decision, as the person sees it.
PROMPT = re.compile(rb"choose 1-(\d+) \(or type it; \? shows the request\): ")
#: Seconds a whole series may take (a few at most on an idle machine).
DEADLINE = 180.0
#: An ANSI colour code (colours are painted in a terminal).
COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def play_in_terminal(tmp_path: Path, *args: str) -> tuple[int, str, int]:
    """Run ``arena play ARGS`` in a pseudo-terminal, answer each prompt with "1" and return
    the exit status, everything shown (the answers echoed by the terminal included; colour
    codes left out, see :func:`painted`) and the number of prompts."""
    controller, terminal = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", *args, "--log-dir", str(tmp_path / "logs"),
         "--transcripts", str(tmp_path / "lines")],
        stdin=terminal, stdout=terminal, stderr=terminal, cwd=ROOT, close_fds=True,
        env={**{k: v for k, v in os.environ.items() if k != "NO_COLOR"}, "TERM": "xterm",
             "PYTHONPATH": str(ROOT)})
    os.close(terminal)
    shown, prompts = b"", 0
    deadline = time.monotonic() + DEADLINE
    try:
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "the series did not end in time:\n" + shown[-3000:].decode()
            ready, _, _ = select.select([controller], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(controller, 65536)
            except OSError:  # the terminal closed: the process has ended
                break
            if not data:
                break
            shown += data
            waiting = len(PROMPT.findall(shown))
            if waiting > prompts:  # a prompt appears only once the last one was answered
                prompts = waiting
                os.write(controller, b"1\n")
        status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        process.kill()
        os.close(controller)
    text = shown.decode(errors="replace").replace("\r\n", "\n")
    (tmp_path / "shown.txt").write_text(text)
    return status, COLOUR.sub("", text), prompts


def painted(tmp_path: Path) -> list[str]:
    """The colour-coded pieces of what the last :func:`play_in_terminal` showed."""
    text = (tmp_path / "shown.txt").read_text()
    return re.findall(r"\x1b\[(3\d)m([^\x1b]*)\x1b\[0m", text)


def requests_to_the_person(tmp_path: Path) -> list[dict]:
    """The requests the person's connection received (from its transcript)."""
    [transcript] = (tmp_path / "lines").glob("*-you.txt")
    lines = [line.split(" ", 2)[2] for line in transcript.read_text().splitlines()
             if line.startswith("+") and " > " in line]
    return [message for message in map(json.loads, lines) if message["type"] == "request"]


def assert_finished(status: int, shown: str) -> None:
    assert status == 0, shown[-3000:]
    assert "Traceback" not in shown
    assert re.search(r"result:\n  player +score +rank\n", shown), shown[-3000:]
    assert re.search(r"^bot +games +wins", shown, re.M)  # the series' table
    assert re.search(r"^you +1 ", shown, re.M)


def test_a_person_plays_chochlik_in_a_terminal(tmp_path):
    status, shown, prompts = play_in_terminal(
        tmp_path, "--game", "chochlik", "--hands", "1", "--seed", "terminal")
    assert_finished(status, shown)
    assert "legend: a card is its number, its colour and its coins" in shown
    assert "colours: ♥ red · ♦ yellow · ♠ blue" in shown
    assert re.search(r"\d\) imp \d+[♥♦♠]\(\d\)", shown)  # colours in the choices
    assert re.search(r"\d\) play \d+[♥♦♠]\(\d\)", shown)
    # the end of the hand as a table: a row per seat with the cards and coins won
    assert re.search(r"hand 1 is over: .*\n  player +cards won +coins won +this hand +total\n"
                     r"  you +\d+ +\d+ +[-+]\d+ +-?\d+", shown)
    requests = requests_to_the_person(tmp_path)
    lone = [r for r in requests if len(r["legal"]) == 1]
    assert lone and prompts == len(requests) - len(lone)  # the last card is played for you
    assert "(answered for you: your only choice)" in shown
    pieces = painted(tmp_path)  # a terminal: the colours are painted
    assert ("31", "♥") in pieces and ("34", "blue") in pieces
    assert any(code == "33" and re.fullmatch(r"\d+♦\(\d\)", text) for code, text in pieces)


def test_a_person_plays_vollewolle_in_a_terminal_with_long_names(tmp_path):
    long_bot = "a-very-long-bot-name-indeed-number-1"
    status, shown, _ = play_in_terminal(
        tmp_path, "--game", "vollewolle", "--seed", "terminal",
        "--bot", f"{long_bot}={{python}} -m reference_bots.random --seed 1",
        "--bot", "vollewolle-heuristic")  # seeded and heuristic: the same game every run
    assert_finished(status, shown)
    assert "legend: a sheep card is its code and what it is" in shown
    assert re.search(r"\d\) take (s\d\d\((white|black|3-7-0|0-0-7)|dog\d|bone)", shown)
    # seat rows keep their columns: the long name is cut, its end kept
    rows = re.findall(r"^  (\S.{19}) +(\d+) +(\d+) +[-+]\d+ +\d+ +(\d+\+?|\?)  flock:",
                      shown, re.M)
    assert {row[0].rstrip() for row in rows} == {
        "you", "a-very-long-b…mber-1", "vollewolle-heuristic"}  # 20 characters: not cut
    header = next(line for line in shown.splitlines() if line.endswith("wool dogs mod  sheep# bid"))
    row = next(line for line in shown.splitlines() if line.startswith("  a-very-long-b…mber-1"))
    assert row.index(" flock:") > len(header) - 4 and len(row.split("flock:")[0]) == len(
        next(line for line in shown.splitlines() if line.startswith("  you ")).split("flock:")[0])
    assert re.search(r"final scoring:\n  player +white +black +3-7-0 +0-0-7 +dogs +most dogs"
                     r" +bone +wool +total +returned\n", shown)


@pytest.mark.parametrize("ask", ["choices", "worthwhile"])
def test_a_person_plays_wypas_in_a_terminal_asked_only_for_decisions(tmp_path, ask):
    # heuristic opponents: the same game every run (random bots draw from their own seeds)
    status, shown, prompts = play_in_terminal(
        tmp_path, "--game", "wypas", "--turn-cap", "10", "--seed", "terminal", "--ask", ask,
        "--bot", "wypas-heuristic", "--bot", "wypas-heuristic")
    assert_finished(status, shown)
    assert "legend: a sheep card is colour-value#copy" in shown
    assert re.search(r"\d\) add sheep-(yellow|red|green|violet)-\d#\d", shown)
    assert re.search(r"the game is over \(.*\):\n  player +score +fleeces\n", shown)
    requests = requests_to_the_person(tmp_path)
    lone = sum(1 for r in requests if len(r["legal"]) == 1)
    assert lone > 0 and prompts <= len(requests) - lone  # never asked for a lone choice
    assert f"you were asked {prompts} time(s); {len(requests) - prompts} request(s)" in shown
    if ask == "worthwhile":  # the reaction windows with nothing worth playing are passed
        assert prompts < 0.6 * len(requests), (prompts, len(requests))
        assert "(answered for you: no special card worth playing now)" in shown


def test_asked_always_every_request_is_a_prompt_and_plain_has_no_colour(tmp_path):
    status, shown, prompts = play_in_terminal(
        tmp_path, "--game", "chochlik", "--hands", "1", "--seed", "terminal", "--ask", "always",
        "--plain")
    assert_finished(status, shown)
    assert prompts == len(requests_to_the_person(tmp_path))
    assert "answered for you:" not in shown
    assert "\x1b" not in (tmp_path / "shown.txt").read_text()
