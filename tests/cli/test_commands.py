"""The ``arena`` command line, with click's CliRunner, and ``arena serve`` stopped by Ctrl-C."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.helpers import log_files, log_lines, read_records
from tests.serve_harness import Lines


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_games_lists_every_game_with_its_options():
    code, out = run("games")
    assert code == 0
    assert re.search(r"chochlik .*\(3-4 players\)", out)
    assert re.search(r"vollewolle .*\(2-6 players\)", out)
    assert "--target" in out and "--hands" in out and "[default: 200]" in out


def test_a_game_does_not_inherit_another_games_options():
    code, out = run("serve", "--game", "vollewolle", "--target", "100")
    assert code == 2 and "--target is not a vollewolle option; its options: players" in out
    code, out = run("serve", "--game", "vollewolle", "-o", "hands=3")
    assert code == 2 and "vollewolle has no option 'hands'" in out
    code, out = run("serve", "--game", "vollewolle", "-o", "players=9")
    assert code == 2 and "2 to 6 players" in out


def test_match_help_names_every_built_in_bot():
    code, out = run("match", "--help")
    out = re.sub(r"-\s+", "-", out)  # help text wraps after hyphens
    assert code == 0 and all(name in out for name in
                             ("random", "chochlik-heuristic", "vollewolle-heuristic",
                              "wypas-heuristic"))


def test_vollewolle_over_tcp_for_two_and_four_players_with_the_reference_bots(tmp_path: Path):
    """The heuristic and random bots play real games over TCP; replay verifies every log."""
    for bots, games in ((["vollewolle-heuristic", "random"], 2),
                        (["vollewolle-heuristic"] + ["random"] * 3, 1)):
        log_dir = tmp_path / str(len(bots))
        args = [arg for bot in bots for arg in ("--bot", bot)]
        code, out = run("match", "--game", "vollewolle", *args, "--games", str(games),
                        "--seed", "vw", "--log-dir", str(log_dir))
        assert code == 0, out
        assert f"{games} game(s), {games * 60 // (len(bots) + 1)} round(s)" in out
        assert re.search(rf"vollewolle-heuristic\s+{games}\s.*\s0\s+0\s+ok", out), out
        logs = log_files(log_dir, "vollewolle-*")
        assert len(logs) == games
        for log in logs:
            code, replayed = run("replay", str(log))
            assert code == 0 and "reproduces" in replayed


@pytest.mark.parametrize("players,options", [(3, ()), (6, ()),
                                             (3, ("-o", "bluff=true")),
                                             (6, ("-o", "bluff=true", "-o", "strict_bleating=1"))])
def test_wypas_over_tcp_with_the_reference_bots(tmp_path: Path, players, options):
    """3 and 6 players, with and without bluff: real games over TCP between the heuristic and
    random bots (special cards, windows and all); replay verifies every log."""
    bots = ["wypas-heuristic"] + ["random"] * (players - 1)
    args = [arg for bot in bots for arg in ("--bot", bot)]
    code, out = run("match", "--game", "wypas", *args, "--games", "2", "--turn-cap", "12",
                    *options, "--seed", f"wy{players}", "--log-dir", str(tmp_path))
    assert code == 0, out
    assert re.search(r"wypas-heuristic\s+2\s.*\s0\s+0\s+ok", out), out
    logs = log_files(tmp_path, "wypas-*")
    assert len(logs) == 2
    for log in logs:
        code, replayed = run("replay", str(log))
        assert code == 0 and "reproduces" in replayed, replayed
        kinds = {json.loads(line).get("kind") for line in log_lines(log)}
        assert "auction_won" in kinds and "placed" in kinds


def test_match_prints_a_result_table_and_replay_checks_the_logs(tmp_path: Path):
    code, out = run("match", "--game", "chochlik", "--bot", "random", "--bot", "random",
                    "--bot", "chochlik-heuristic", "--games", "2", "--hands", "1",
                    "--seed", "cli", "--log-dir", str(tmp_path))
    assert code == 0, out
    assert re.search(r"chochlik-heuristic\s+2\s", out) and "2 game(s), 2 hand(s)" in out
    logs = log_files(tmp_path)
    assert len(logs) == 2
    code, out = run("replay", str(logs[0]))
    assert code == 0 and "reproduces" in out
    code, out = run("replay", "--show", "--seat", "1", str(logs[0]))
    assert code == 0 and "dealt" in out
    lines = log_lines(logs[0])
    result = json.loads(lines[-1])
    result["scores"][0] += 1
    logs[0].write_text("\n".join(lines[:-1] + [json.dumps(result)]) + "\n")
    code, out = run("replay", str(logs[0]))
    assert code == 1 and "does NOT reproduce" in out


def test_usage_errors_exit_2():
    assert run("serve", "--game", "chochlik", "--players", "5")[0] == 2
    assert run("serve", "--game", "nope")[0] == 2
    assert run("match", "--game", "chochlik", "--bot", "random", "--bot", "random")[0] == 2
    assert run("serve", "--game", "chochlik", "-o", "colour")[0] == 2


@contextlib.contextmanager
def serving_three_random_bots(tmp_path: Path):
    """``arena serve`` in a subprocess with three random bots playing a long game (from the
    status line saying their table is seated); every process is killed on the way out."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    server = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--game", "chochlik", "--port", "0",
         "--target", "0", "--hands", "500", "--log-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    bots: list[subprocess.Popen] = []
    try:
        banner = server.stdout.readline()
        port = int(re.search(r":(\d+);", banner).group(1))
        bots = [subprocess.Popen([sys.executable, "-m", "reference_bots.random", "--port",
                                  str(port), "--name", f"r{i}"]) for i in range(3)]
        lines = Lines(server.stdout)
        lines.expect(r"seated: table 1 ")  # the operator's status line: the game is under way
        yield server, bots, lines
    finally:
        for process in [server, *bots]:
            if process.poll() is None:
                process.kill()


def test_serve_stops_cleanly_on_ctrl_c_and_logs_the_running_game(tmp_path: Path):
    with serving_three_random_bots(tmp_path) as (server, bots, _):
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=20) == 0
        assert all(bot.wait(timeout=20) == 0 for bot in bots)  # told bye, they exit
    (log,) = log_files(tmp_path)
    last = json.loads(log_lines(log)[-1])
    assert last == {"type": "aborted", "reason": "server_shutdown"}


def test_a_second_ctrl_c_stops_at_once_and_still_logs_the_game_and_says_bye(tmp_path: Path):
    with serving_three_random_bots(tmp_path) as (server, bots, lines):
        server.send_signal(signal.SIGINT)
        lines.expect(r"^arena: stopping \(")  # the second once the first is seen: two,
        server.send_signal(signal.SIGINT)    # whatever the load (close ones: tests/edge)
        server.wait(timeout=20)
        output = "\n".join(lines.seen + lines.rest(20))
        assert server.returncode == 0, output
        assert "Traceback" not in output and "stopping now" in output
        assert all(bot.wait(timeout=20) == 0 for bot in bots)  # told bye, they exit
    ends = [json.loads(log_lines(log)[-1]) for log in log_files(tmp_path)]
    assert {"type": "aborted", "reason": "server_shutdown"} in ends  # the running game


def test_a_ctrl_c_as_soon_as_serve_says_it_listens_stops_it_cleanly(tmp_path: Path):
    # the signals are taken from before the banner (they used to be from after it: a Ctrl-C
    # in between was a KeyboardInterrupt, exit 1); the in-process cases are in tests/edge
    server = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--game", "chochlik", "--port", "0",
         "--log-dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        lines = Lines(server.stdout)
        lines.expect(r"^arena: hosting chochlik")
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=20) == 0
        output = "\n".join(lines.seen + lines.rest(20))
        assert "Traceback" not in output and "arena: stopping (" in output, output
    finally:
        if server.poll() is None:
            server.kill()


def test_every_command_that_starts_games_has_a_reaction_timeout():
    for command in ("serve", "match", "tournament", "sprt"):
        code, out = run(command, "--help")
        assert code == 0 and "--move-timeout" in out and "--reaction-timeout" in out, command
        assert "reaction-window decision" in re.sub(r"\s+", " ", out)


class Captured(Exception):
    """Raised by a stand-in to hand back what it was given."""


def test_serve_and_match_pass_the_reaction_timeout_on(monkeypatch, tmp_path: Path):
    import arena.edge.server
    import arena.launch.runner

    def fake_server(config, **kwargs):
        raise Captured(config)

    monkeypatch.setattr(arena.edge.server, "ArenaServer", fake_server)
    result = CliRunner().invoke(main, ["serve", "--game", "chochlik", "--port", "0",
                                       "--reaction-timeout", "0.5", "--log-dir", str(tmp_path)])
    assert isinstance(result.exception, Captured), result.output
    config = result.exception.args[0]
    assert config.reaction_timeout == 0.5 and config.move_timeout == 5.0

    async def fake_match(*args, **kwargs):
        raise Captured(kwargs)

    monkeypatch.setattr(arena.launch.runner, "run_match", fake_match)
    result = CliRunner().invoke(main, ["match", "--game", "chochlik", "--bot", "random",
                                       "--bot", "random", "--bot", "random",
                                       "--log-dir", str(tmp_path)])
    assert isinstance(result.exception, Captured), result.output
    assert result.exception.args[0]["reaction_timeout"] == 1.0  # the default


def _finished_logs(log_dir: Path) -> list[Path]:
    return [log for log in log_files(log_dir)
            if any(record.get("type") == "result" for record in read_records(log))]


def test_ctrl_c_in_a_long_match_prints_the_table_of_the_games_played(tmp_path: Path):
    """Ctrl-C: the running game is logged as aborted, nothing for the games never started,
    the table of the games played, exit 130, no traceback."""
    match = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", "--game", "chochlik", "--bot", "random",
         "--bot", "random", "--bot", "random", "--games", "2000", "--log-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        lines = Lines(match.stdout)
        lines.expect(r"^game 3/2000: ", deadline=60)  # three games played
        match.send_signal(signal.SIGINT)
        err = match.stderr.read()
        match.wait(timeout=60)
        out = "\n".join(lines.seen + lines.rest(60))
    finally:
        if match.poll() is None:
            match.kill()
    assert match.returncode == 130, out + err
    assert "Traceback" not in out + err
    logs = log_files(tmp_path)
    finished = _finished_logs(tmp_path)
    assert len(logs) - len(finished) <= 1  # at most the game under way, logged as aborted
    assert len(logs) < 100  # nothing for the ~2,000 games never started
    played = re.search(r"^random-1\s+(\d+)\s", out, re.MULTILINE)
    assert played and int(played.group(1)) == len(finished), out
    assert f"interrupted after {len(finished)} of 2000 games" in out + err


def _arena(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_serve_on_a_port_in_use_or_a_bad_host_says_so_in_one_line(tmp_path: Path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _arena("serve", "--game", "chochlik", "--port", str(port),
                      "--log-dir", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"Error: cannot listen on 127.0.0.1:{port}: the port is in use (another server?); "
        "stop it, or give another --port (--port 0: any free one)"]
    done = _arena("serve", "--game", "chochlik", "--host", "no-such-host.invalid",
                  "--log-dir", str(tmp_path))
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "'no-such-host.invalid' is not an address of this machine" in done.stderr
    assert "--host 127.0.0.1" in done.stderr


def test_a_tournament_on_a_port_in_use_says_so_in_one_line(tmp_path: Path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _arena("tournament", "--game", "vollewolle", "--bot", "a=random",
                      "--bot", "b=random", "--games", "2", "--port", str(port),
                      "--db", str(tmp_path / "t.db"), "--log-dir", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"Error: cannot listen on 127.0.0.1:{port}: the port is in use" in done.stderr


def test_a_reference_bot_with_a_wrong_token_says_why_it_was_refused(tmp_path: Path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("alice s3cret-token-alice\n")
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--game", "chochlik", "--port", "0",
         "--tokens", str(tokens), "--log-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        port = re.search(r":(\d+);", server.stdout.readline()).group(1)
        bot = subprocess.run(
            [sys.executable, "-m", "reference_bots.random", "--port", port, "--name", "alice",
             "--token", "wrong"], capture_output=True, text=True, timeout=30)
    finally:
        server.kill()
        server.wait()
    assert bot.returncode == 1
    (line,) = bot.stderr.strip().splitlines()
    assert line.startswith("alice: refused by the server: ") and "token" in line, line


def test_version_is_the_projects():
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    code, out = run("--version")
    assert code == 0 and out.strip() == f"arena {project['project']['version']}"


@pytest.mark.parametrize("given,meant", [("--gamess", "--games"), ("--timeout", "--move-timeout"),
                                         ("--num-players", "--players"), ("--gmes", "--games")])
def test_an_unknown_option_suggests_the_one_meant(given: str, meant: str):
    code, out = run("match", "--game", "chochlik", "--bot", "random", given, "3")
    assert code == 2
    assert f"No such option '{given}'. Did you mean '{meant}'?" in out, out


def _captured_match_options(monkeypatch, *args: str) -> Any:
    """The game options ``arena match ARGS`` would play with (run_match replaced)."""
    import arena.launch.runner

    async def fake_match(spec, options, *rest, **kwargs):
        raise Captured(options)

    monkeypatch.setattr(arena.launch.runner, "run_match", fake_match)
    result = CliRunner().invoke(main, ["match", *args])
    assert isinstance(result.exception, Captured), result.output
    return result.exception.args[0]


def test_game_options_are_typed_flags_with_their_defaults_in_the_help(monkeypatch):
    code, out = run("match", "--help")
    text = re.sub(r"\s+", " ", out)
    assert code == 0
    assert "--bluff / --no-bluff" in text and "--strict-bleating / --no-strict-bleating" in text
    assert "--turn-cap INTEGER" in text and "--target N|none" in text
    assert "(default: off)" in text and "(default: 60)" in text
    assert "(default: none)" in text and "(default False)" not in text
    wypas = ["--game", "wypas", "--bot", "random", "--bot", "random", "--bot", "random"]
    assert _captured_match_options(monkeypatch, *wypas, "--bluff").bluff is True
    assert _captured_match_options(monkeypatch, *wypas).bluff is False
    assert _captured_match_options(monkeypatch, *wypas, "-o", "bluff=true").bluff is True
    assert _captured_match_options(monkeypatch, *wypas, "--turn-cap", "7").turn_cap == 7
    chochlik = ["--game", "chochlik", "--bot", "random", "--bot", "random", "--bot", "random"]
    assert _captured_match_options(monkeypatch, *chochlik, "--target", "none",
                                   "--hands", "3").target is None
    code, out = run("match", *wypas, "--turn-cap", "many")
    assert code == 2 and "'many' is not a valid integer" in out
    code, out = run("match", *wypas, "--bluff", "true")  # a flag takes no value
    assert code == 2


def test_match_seats_one_player_per_bot_and_says_so():
    code, out = run("match", "--help")
    assert "one per --bot" in re.sub(r"\s+", " ", out)
    code, out = run("match", "--game", "chochlik", "--players", "4", "--bot", "random",
                    "--bot", "random", "--bot", "random")
    assert code == 2
    assert ("Error: --players 4 contradicts the 3 --bot given: a match has one seat per --bot "
            "(add --bot, or leave --players out)") in out


def _table_rows(out: str) -> dict[str, list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("bot "))
    rows = {}
    for line in lines[start + 1:]:
        words = line.split()
        if len(words) < 9 or not words[1].isdigit():
            break
        rows[words[0]] = words
    return rows


def test_wins_are_credited_to_the_seat_whoever_played_it_and_shared_wins_are_said(
        tmp_path: Path):
    """A bot that never connects is played by defaults: the games its seat won are its wins
    (as its score and rank are), so the wins add up to the games; a tie's 1/k is explained."""
    code, out = run("match", "--game", "chochlik",
                    "--bot", 'dead={python} -c "raise SystemExit(3)"',
                    "--bot", "a={python} -m reference_bots.random --seed 1",
                    "--bot", "b={python} -m reference_bots.random --seed 2",
                    "--games", "3", "--hands", "1", "--seed", "s1", "--log-dir", str(tmp_path))
    assert code == 1, out  # a bot never connected
    credited = {"dead": 0.0, "a": 0.0, "b": 0.0}
    shared = 0
    for log in log_files(tmp_path):
        records = read_records(log)
        names, winners = records[0]["names"], records[-1]["winners"]
        shared += len(winners) > 1
        for seat in winners:
            credited[names[seat]] += 1 / len(winners)
    assert credited["dead"] > 0 and shared > 0  # what this seed was chosen for
    rows = _table_rows(out)
    for name, wins in credited.items():
        assert float(rows[name][2]) == pytest.approx(wins, abs=0.05), out
    assert "never connected" in " ".join(rows["dead"])  # and the status says who played it
    assert ("wins: a game won by k bots together (a tie) counts 1/k for each; the seat of a bot "
            "played by defaults is credited to that bot") in out


#: A bot that says hello, then stops itself (SIGSTOP, as a sibling without a sandbox could do
#: to it): every decision of its seat times out.
STOPPED_BOT = (
    "{python} -c \"import json,os,signal,socket; s=socket.create_connection(('{host}',{port}));"
    "f=s.makefile('rb'); f.readline(); token=open('{token_file}').read().strip();"
    "s.sendall(json.dumps({'type':'hello','name':'x','token':token}).encode()+b'\\n');"
    "os.kill(os.getpid(), signal.SIGSTOP)\""
)


def test_a_bot_whose_decisions_all_timed_out_is_flagged_not_ok(tmp_path: Path):
    code, out = run("match", "--game", "chochlik", "--bot", f"victim={STOPPED_BOT}",
                    "--bot", "random", "--bot", "random", "--games", "1", "--hands", "1",
                    "--move-timeout", "0.2", "--log-dir", str(tmp_path))
    rows = _table_rows(out)
    status = " ".join(rows["victim"][8:])
    timed_out = re.fullmatch(r"timed out (\d+)/(\d+)", status)
    assert timed_out, out
    assert timed_out.group(1) == timed_out.group(2) == rows["victim"][6]  # all, = defaults
    assert rows["random-1"][8:] == ["ok"]
    assert code == 1  # as for a bot that crashed
    assert re.search(r"victim: timed out \d+ of its \d+ decisions", out)


@pytest.mark.parametrize("processes", [[], ["--workers", "2"]], ids=["one process", "workers"])
def test_a_tournament_notes_a_bot_whose_decisions_mostly_timed_out(tmp_path: Path,
                                                                   processes: list[str]):
    code, out = run("tournament", "--game", "chochlik", "--bot", "a=random", "--bot", "b=random",
                    "--bot", f"victim={STOPPED_BOT}", "--games", "2", "--hands", "1",
                    "--concurrency", "2",  # the two games at once: each waits out its timeouts
                    "--move-timeout", "0.2", "--db", str(tmp_path / "t.db"),
                    "--log-dir", str(tmp_path), "--resamples", "0", *processes)
    notes = [line for line in out.splitlines() if "decisions" in line]
    assert len(notes) == 1, out
    assert re.fullmatch(r"note: victim timed out (\d+) of its \1 decisions in this run \(stuck, "
                        r"stopped, or too slow for --move-timeout\)", notes[0]), notes
    assert code == 1


def test_the_kit_imports_no_command_line_module():
    """The layers point down: ``arena.kit`` (check-bot, play) is below ``arena.cli``."""
    import subprocess
    import sys

    code = ("import sys, arena.kit.play, arena.kit.check_bot; "
            "print(' '.join(m for m in sys.modules if m.startswith('arena.cli')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == []
