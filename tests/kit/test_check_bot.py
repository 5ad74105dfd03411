"""``arena check-bot``: the reference bots pass every check, and each deliberately broken bot
in tests/check_bots/ fails the check it breaks, with a reason that says what went wrong."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.games import GAMES
from arena.kit.check_bot import check_bot, check_options, command_template
from arena.kit.check_findings import Check, Findings, Outcome
from arena.kit.check_setup import first_reaction, pick_seed

BOTS = Path(__file__).resolve().parents[1] / "check_bots"
#: Short limits, so that the bots that run out of time cost a second or two.
FAST = ["--move-timeout", "0.5", "--reconnect-grace", "3", "--exit-grace", "1"]


def check(*args: str) -> tuple[Result, dict[str, tuple[str, str]]]:
    """Run the command; each check's outcome and reason, by ``game: check`` name."""
    result = CliRunner().invoke(check_bot, list(args), catch_exceptions=False)
    outcomes: dict[str, tuple[str, str]] = {}
    game = ""
    for line in result.output.splitlines():
        head, _, rest = line.partition("  ")
        if head in {o.value for o in Outcome}:
            name, _, reason = rest.partition(": ")
            outcomes[f"{game}: {name}"] = (head, reason)
        elif ": " in line and line.split(":")[0] in GAMES:
            game = line.split(":")[0]
    return result, outcomes


def bot(script: str) -> list[str]:
    return ["--", sys.executable, str(BOTS / script)]


def test_the_random_bot_passes_every_check_of_every_game() -> None:
    result, outcomes = check("--game", "all", "--", "random")
    assert result.exit_code == 0, result.output
    assert not [name for name, (outcome, _) in outcomes.items() if outcome == "FAIL"]
    assert len(outcomes) == len(GAMES) * len(Check)
    for game in GAMES:  # the situations of every game come up, the optional one too
        for passed in (Check.HANDSHAKE, Check.ERROR_RETRY, Check.SIMULTANEOUS,
                       Check.GAME_END, Check.SEVERAL_GAMES, Check.RECONNECT, Check.BYE):
            assert outcomes[f"{game}: {passed.value}"][0] == "PASS", (game, passed)
    assert outcomes[f"wypas: {Check.REACTION_WINDOWS.value}"][0] == "PASS"
    for game in ("chochlik", "vollewolle"):  # a check these games cannot have
        assert outcomes[f"{game}: {Check.REACTION_WINDOWS.value}"] == (
            "N/A", f"{game} has no reaction windows")
    assert "check-bot: no check failed" in result.output


@pytest.mark.parametrize("game", sorted(name for name, spec in GAMES.items()
                                         if spec.reference_bot))
def test_each_heuristic_bot_passes_on_its_game(game: str) -> None:
    """Two games are enough to meet every situation (the vollewolle heuristic thinks)."""
    bot = GAMES[game].reference_bot
    assert bot is not None
    result, outcomes = check("--game", game, "--games", "2", "--", bot)
    assert result.exit_code == 0, result.output
    for passed in (Check.ERROR_RETRY, Check.GAME_END, Check.RECONNECT, Check.BYE):
        assert outcomes[f"{game}: {passed.value}"][0] == "PASS", passed


def test_the_random_bot_passes_over_stdio_where_reconnecting_does_not_apply() -> None:
    result, outcomes = check("--game", "vollewolle", "--stdio", "--", "random")
    assert result.exit_code == 0, result.output
    assert outcomes[f"vollewolle: {Check.BYE.value}"][0] == "PASS"
    assert outcomes[f"vollewolle: {Check.RECONNECT.value}"] == (
        "N/A", "over stdin/stdout a pipe cannot be reopened")


def test_the_honest_test_bot_passes() -> None:
    """The base of the broken bots breaks nothing: what they fail, they broke."""
    result, outcomes = check("--game", "chochlik", *FAST, *bot("honest.py"))
    assert result.exit_code == 0, result.output
    assert outcomes[f"chochlik: {Check.RECONNECT.value}"][0] == "PASS"


BROKEN = [
    # script, game, extra options, the check it fails, words of the reason
    ("no_token.py", "chochlik", [], Check.HANDSHAKE, "hello carried no token"),
    ("detached.py", "chochlik", [], Check.HANDSHAKE,
     "token_not_yours: the connection that said hello with the bot's token is not held by"),
    ("prints_to_stdout.py", "chochlik", ["--stdio"], Check.VALID_LINES,
     "malformed: the line is not JSON"),
    ("wrong_request_id.py", "chochlik", [], Check.REQUEST_IDS, "with id 2, but request 1 is open"),
    ("illegal_action.py", "chochlik", [], Check.LEGAL_ACTIONS,
     "answered 'pass the salt' to request 1, not in its legal list [\"imp"),
    ("too_slow.py", "chochlik", [], Check.IN_TIME, "no answer to request 4 within 500 ms"),
    ("ignores_errors.py", "chochlik", [], Check.ERROR_RETRY,
     "no new answer to request 1 within its 500 ms after the error reply"),
    ("waits_for_news.py", "chochlik", ["--games", "1"], Check.SIMULTANEOUS,
     "while other seats were deciding too"),
    ("slow_in_windows.py", "wypas", ["--move-timeout", "2", "--reaction-timeout", "0.3"],
     Check.REACTION_WINDOWS, "(window) within its reaction time limit of 300 ms"),
    ("crash_on_game_end.py", "chochlik", [], Check.GAME_END,
     "closed its connection without bye right after game_end of game 1 (its process exited "
     "with status 1; its last output:"),
    ("one_game.py", "chochlik", [], Check.SEVERAL_GAMES, "the bot said bye after game 1 of 3"),
    ("no_resync.py", "chochlik", [], Check.RECONNECT, "came back but did not answer request"),
    ("stays_after_bye.py", "chochlik", ["--stdio"], Check.BYE,
     "still running 1 s after bye"),
]


@pytest.mark.parametrize(("script", "game", "options", "broken", "reason"), BROKEN,
                         ids=[case[0] for case in BROKEN])
def test_a_broken_bot_fails_the_check_it_breaks(script: str, game: str, options: list[str],
                                                broken: Check, reason: str) -> None:
    result, outcomes = check("--game", game, *FAST, *options, *bot(script))
    assert result.exit_code == 1, result.output
    outcome, why = outcomes[f"{game}: {broken.value}"]
    assert outcome == "FAIL", result.output
    assert reason in why, why
    failed = {name for name, (outcome, _) in outcomes.items() if outcome == "FAIL"}
    # it breaks one thing: the only other failure allowed is what a crash at game end implies
    assert failed <= {f"{game}: {broken.value}", f"{game}: {Check.SEVERAL_GAMES.value}"}, (
        result.output)
    if broken is not Check.HANDSHAKE:
        assert outcomes[f"{game}: {Check.HANDSHAKE.value}"][0] == "PASS"


def test_a_bot_that_does_not_come_back_skips_the_optional_reconnect_check() -> None:
    result, outcomes = check("--game", "chochlik", *FAST, *bot("never_reconnects.py"))
    assert result.exit_code == 0, result.output
    outcome, why = outcomes[f"chochlik: {Check.RECONNECT.value}"]
    assert outcome == "SKIP"
    assert why.startswith("not supported (optional): the bot's process ended")


def test_a_bot_that_cannot_start_fails_the_handshake() -> None:
    result, outcomes = check("--game", "chochlik", "--", "/nonexistent/bot")
    assert result.exit_code == 1
    outcome, why = outcomes[f"chochlik: {Check.HANDSHAKE.value}"]
    assert outcome == "FAIL"
    assert "exited with status 127" in why and "command not found: /nonexistent/bot" in why


@pytest.mark.parametrize("args", [["--game", "chochlik"], ["--game", "go", "--", "random"],
                                  ["--game", "chochlik", "--games", "0", "--", "random"]])
def test_usage_errors_exit_with_status_2(args: list[str]) -> None:
    assert CliRunner().invoke(check_bot, args).exit_code == 2


def test_a_command_is_one_word_or_its_words() -> None:
    assert command_template(("python3 bot.py --port {port}",)) == "python3 bot.py --port {port}"
    assert command_template(("random",)).endswith("-m reference_bots.random")
    assert command_template(("node", "my bot.js")) == "node 'my bot.js'"


def test_a_builtin_bot_takes_its_options_as_words_or_in_one_word() -> None:
    heuristic = "{python} -m reference_bots.chochlik_heuristic --random-rate 0.25"
    assert command_template(("chochlik-heuristic", "--random-rate", "0.25")) == heuristic
    assert command_template(("chochlik-heuristic --random-rate 0.25",)) == heuristic


def test_a_builtin_bot_with_options_passes_its_checks() -> None:
    result, outcomes = check("--game", "chochlik", "--games", "1", "--",
                             "chochlik-heuristic", "--random-rate", "0.25")
    assert result.exit_code == 0, result.output
    assert "reference_bots.chochlik_heuristic --random-rate 0.25" in result.output
    assert outcomes and all(outcome != "FAIL" for outcome, _ in outcomes.values())


def test_findings_fail_over_pass_and_skip_only_what_never_came_up() -> None:
    findings = Findings()
    findings.skip(Check.RECONNECT, "not supported (optional): gone")
    findings.passed(Check.LEGAL_ACTIONS)
    findings.passed(Check.IN_TIME)
    findings.fail(Check.IN_TIME, "no answer to request 4 within 500 ms")
    findings.fail(Check.IN_TIME, "no answer to request 9 within 500 ms")
    assert findings.result(Check.LEGAL_ACTIONS).line() == "PASS  legal actions"
    assert findings.result(Check.IN_TIME).line() == (
        "FAIL  answers in time: no answer to request 4 within 500 ms (and 1 more)")
    assert findings.result(Check.RECONNECT).outcome is Outcome.SKIP
    assert findings.result(Check.BYE).reason == "not reached"


def test_the_wypas_deal_brings_the_bots_seat_a_reaction_window_early() -> None:
    spec = GAMES["wypas"]
    options = check_options(spec)
    for seat in range(options.players):
        seed = pick_seed(spec, options, f"test:{seat}", seat)
        step = first_reaction(spec, options, seed, seat)
        assert step is not None and step < 10
    chochlik = GAMES["chochlik"]  # no windows: the first candidate
    assert pick_seed(chochlik, check_options(chochlik), "test", 0) == "test:0"


def test_transcripts_keep_every_line_of_every_connection(tmp_path: Path) -> None:
    """``--transcripts``: the refused answer, the error reply and the retry are all there, and
    the connection after the scripted close has a file of its own."""
    folder = tmp_path / "lines"
    result, _ = check("--game", "chochlik", "--games", "2", *FAST, "--transcripts", str(folder),
                      "--", "random")
    assert result.exit_code == 0, result.output
    first, second = sorted((folder / "chochlik").glob("*-bot.txt"))
    assert (first.name, second.name) == ("1-bot.txt", "2-bot.txt")
    lines = first.read_text().splitlines()
    refusal = next(i for i, line in enumerate(lines) if "on purpose" in line)
    assert " > " in lines[refusal] and '"code":"illegal_action"' in lines[refusal]
    assert " < " in lines[refusal - 1] and '"type":"action"' in lines[refusal - 1]
    assert any(" < " in line and '"type":"action"' in line for line in lines[refusal + 1:])
    assert '"resumed":true' in second.read_text()
    assert f"the bot's output (bot-output.txt), are in {folder / 'chochlik'}" in result.output
    assert "coming back" in (folder / "chochlik" / "bot-output.txt").read_text()  # its stderr


def test_ctrl_c_stops_check_bot_with_one_line() -> None:
    import os
    import signal
    import subprocess

    checking = subprocess.Popen(
        [sys.executable, "-m", "arena", "check-bot", "--game", "chochlik", "--",
         sys.executable, "-c", "import time; time.sleep(60)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        assert checking.stdout is not None
        assert checking.stdout.readline().startswith("chochlik: ")  # the bot is starting
        checking.send_signal(signal.SIGINT)
        out, err = checking.communicate(timeout=30)
    finally:
        if checking.poll() is None:
            checking.kill()
    assert checking.returncode == 130, out + err
    assert "Traceback" not in out + err
    assert err.strip().splitlines() == ["check-bot: interrupted during chochlik's checks; "
                                        "those not reported above are undecided"]


def check_bot_process(*args: str, timeout: float) -> subprocess.CompletedProcess:
    """``python -m arena check-bot ARGS`` in a subprocess that must end within ``timeout``."""
    return subprocess.run([sys.executable, "-m", "arena", "check-bot", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_a_bot_answering_with_wrong_ids_is_reported_at_once_with_progress() -> None:
    done = check_bot_process("--game", "chochlik", *bot("wrong_request_id.py"), timeout=20)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "chochlik: game 1 of 3: the bot in seat 0" in done.stdout
    assert "FAIL  request ids: answered" in done.stdout


def test_a_hopeless_bot_is_stopped_within_seconds_and_the_rest_fails_with_why() -> None:
    """Every answer has a wrong id and the errors are ignored: without a stop, every request
    would wait its whole move timeout (1 s here, 5 s by default), for minutes."""
    done = check_bot_process("--game", "chochlik", "--move-timeout", "1",
                             *bot("always_wrong_id.py"), timeout=15)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "FAIL  request ids: answered" in out
    stopped = ("not checked: check-bot stopped the series after 3 requests in a row got no "
               "valid answer")
    assert f"FAIL  several games in a row: {stopped}" in out, out
    assert "chochlik: stopping: 3 requests in a row got no valid answer" in out
    assert "game 2 of 3" not in out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_game_says_whether_it_has_reaction_windows_truly(game: str) -> None:
    """What check-bot reads to say N/A: random playouts meet a window exactly in the games
    whose spec says they have them."""
    spec = GAMES[game]
    options = check_options(spec)
    met = any(first_reaction(spec, options, f"windows:{n}", seat) is not None
              for n in range(10) for seat in range(options.players))
    assert met is spec.reaction_windows


def test_an_answer_in_time_to_a_simultaneous_request_is_an_answer_in_time():
    """Issue 30: in a game whose decisions are all simultaneous (a game author's, issue 31)
    'answers in time' was SKIP every time: only plain requests counted for it."""
    from arena.kit.check_findings import Findings
    from arena.kit.check_judge import AnswerJudge, RequestNote

    judge = AnswerJudge.__new__(AnswerJudge)  # credit() reads only the findings
    judge.findings = Findings()
    judge.credit(RequestNote(id=3, legal=["a", "b"], time_left_ms=500, decision="bid",
                             simultaneous=True, reaction=False))
    assert judge.findings.result(Check.IN_TIME).line().startswith("PASS")
    assert judge.findings.result(Check.SIMULTANEOUS).line().startswith("PASS")
