"""``arena play``: a person at the table against bot subprocesses, scripted through stdin."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.kit.play import choice_of, default_opponents, numbered, play, seat_person
from tests.helpers import log_files

#: Plenty of answers for a short game: always the first legal action.
FIRSTS = "1\n" * 3000


def run_play(tmp_path, *args: str, answers: str = FIRSTS):
    return CliRunner().invoke(
        play, [*args, "--log-dir", str(tmp_path / "logs"), "--seed", "play-test"],
        input=answers)


def test_an_answer_is_a_number_or_the_token_itself():
    legal = ["play 5", "play 17", "play 33"]
    assert choice_of("2", legal) == "play 17"
    assert choice_of(" 3 ", legal) == "play 33"
    assert choice_of("play 5", legal) == "play 5"
    for wrong in ("0", "4", "-1", "", "play 6", "two", "1.0"):
        assert choice_of(wrong, legal) is None


def test_choices_are_listed_numbered_in_columns():
    assert numbered(["imp 4", "imp 9"]) == "  1) imp 4  2) imp 9"
    lines = numbered([f"left {n}" for n in range(1, 12)]).splitlines()
    assert len(lines) == 3 and lines[0].startswith("   1) left 1") and "11) left 11" in lines[2]


def test_default_opponents_are_the_heuristic_bot_and_random_bots():
    assert default_opponents("chochlik", 4) == ["chochlik-heuristic", "random", "random"]
    assert default_opponents("vollewolle", 2) == ["vollewolle-heuristic"]
    assert default_opponents("no-such-game", 3) == ["random", "random"]


def test_the_person_takes_the_seat_asked_for():
    bots = seat_person(["random", "random", "chochlik-heuristic"], 2, "me")
    assert [bot.name for bot in bots] == ["random-1", "random-2", "me", "chochlik-heuristic"]
    assert bots[2].remote and not any(bot.remote for i, bot in enumerate(bots) if i != 2)


@pytest.mark.parametrize("args", [
    ("--game", "chochlik", "--hands", "1"),
    ("--game", "vollewolle", "--players", "3"),
    ("--game", "wypas", "--players", "3", "--turn-cap", "10"),
], ids=["chochlik", "vollewolle", "wypas"])
def test_a_person_plays_a_game_against_random_bots(tmp_path, args):
    players = int(args[args.index("--players") + 1]) if "--players" in args else 3
    bots = [arg for _ in range(players - 1) for arg in ("--bot", "random")]
    result = run_play(tmp_path, *args, *bots, answers="nonsense\n0\n" + FIRSTS)
    assert result.exit_code == 0, result.output
    output = result.output
    assert "=== game 1: you are seat 0" in output
    assert "--- request 1 " in output and "your choices:\n" in output
    assert "'nonsense' is not one of the" in output and "'0' is not one of the" in output
    assert "result:" in output and "won by " in output
    assert "server: bye (the series is over" in output
    assert re.search(r"^you +1 .* 0 +0 +ok$", output, re.MULTILINE), output
    assert len(log_files(tmp_path / "logs")) == 1


def test_a_token_and_the_raw_request_are_accepted(tmp_path):
    result = run_play(tmp_path, "--game", "vollewolle", "--players", "2", "--bot", "random",
                      answers="?\nbid 20\n" + FIRSTS)
    assert result.exit_code == 0, result.output
    assert '{"type": "request", "id": 1, "legal": ["bid 14", "bid 15",' in result.output
    assert "bids revealed: bids you 20 · random " in result.output


def test_seats_rotate_from_the_seat_asked_for(tmp_path):
    result = run_play(tmp_path, "--game", "chochlik", "--hands", "1", "--games", "2",
                      "--seat", "1", "--bot", "random", "--bot", "random", "--name", "ada")
    assert result.exit_code == 0, result.output
    assert "=== game 1: you are seat 1 (seats: 0 random-1, 1 ada, 2 random-2) ===" in (
        result.output)
    assert "=== game 2: you are seat 2 (seats: 0 random-2, 1 random-1, 2 ada) ===" in (
        result.output)



def test_opponents_over_stdio_and_every_seats_transcript(tmp_path):
    """``--stdio`` as for ``arena match`` (the bots' pipes are their connections) and
    ``--transcripts``: one file per seat, the person's answers included."""
    result = run_play(tmp_path, "--game", "chochlik", "--hands", "1", "--bot", "random",
                      "--bot", "random", "--stdio", "--transcripts", str(tmp_path / "lines"))
    assert result.exit_code == 0, result.output
    files = {path.name.split("-", 1)[1]: path.read_text()
             for path in (tmp_path / "lines").glob("*.txt")}
    assert set(files) == {"you.txt", "random-1.txt", "random-2.txt"}
    for bot in ("random-1.txt", "random-2.txt"):  # a pipe, not a socket
        assert files[bot].startswith("# arena transcript of connection") and " from local," in (
            files[bot].splitlines()[0])
    assert re.search(r'^\+[0-9.]+ < \{"type": "action", "id": 1,', files["you.txt"], re.M)

def test_the_default_opponents_play(tmp_path):
    result = run_play(tmp_path, "--game", "chochlik", "--hands", "1")
    assert result.exit_code == 0, result.output
    assert "(seats: 0 you, 1 chochlik-heuristic, 2 random) ===" in result.output


def test_at_the_end_of_input_the_person_leaves_and_the_game_is_played_out(tmp_path):
    result = run_play(tmp_path, "--game", "chochlik", "--hands", "1", "--bot", "random",
                      "--bot", "random", answers="1\n")
    assert result.exit_code == 1
    assert "end of input: you leave the table" in result.output
    assert re.search(r"^you +1 .* left early$", result.output, re.MULTILINE), result.output
    assert "1 game(s), 1 hand(s)" in result.output


@pytest.mark.parametrize("args,complaint", [
    (("--game", "chochlik", "--seat", "3"), "--seat 3"),
    (("--game", "chochlik", "--players", "4", "--bot", "random"), "--players 4 but 1 --bot"),
    (("--game", "chochlik", "--name", "two words"), "--name"),
    (("--game", "vollewolle", "--hands", "1"), "not a vollewolle option"),
])
def test_usage_errors_exit_with_status_2(tmp_path, args, complaint):
    result = run_play(tmp_path, *args)
    assert result.exit_code == 2
    assert complaint in result.output


def test_the_person_has_ten_minutes_by_default(tmp_path):
    result = run_play(tmp_path, "--game", "chochlik", "--hands", "1", "--bot", "random",
                      "--bot", "random")
    assert "--- request 1 (600 s) ---" in result.output
    help_text = CliRunner().invoke(play, ["--help"]).output
    assert "the person's time to think" in help_text and "600" in help_text


def test_a_log_folder_that_cannot_be_written_is_an_error(tmp_path):
    (tmp_path / "file").write_text("")
    result = CliRunner().invoke(play, ["--game", "chochlik", "--hands", "1", "--log-dir",
                                       str(tmp_path / "file" / "logs")], input=FIRSTS)
    assert result.exit_code == 1
    assert "cannot write game logs" in result.output


def test_ctrl_c_at_the_prompt_stops_the_series(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-c", "from arena.kit.play import play; play()", "--game", "chochlik",
         "--hands", "1", "--log-dir", str(tmp_path / "logs")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        cwd=Path(__file__).resolve().parents[2],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        shown = b""
        deadline = time.monotonic() + 30
        while b"choose 1-" not in shown:  # the first prompt: the person is being asked
            ready, _, _ = select.select([process.stdout], [], [], deadline - time.monotonic())
            assert ready, f"no prompt in time: {shown.decode()}"
            shown += os.read(process.stdout.fileno(), 65536)
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 1
    assert b"arena: interrupted" in rest and b"Traceback" not in rest
