"""The starter bots in reference_bots/starters (JavaScript and Rust): each plays every game
through ``arena match`` with no default and no error, over TCP and over stdio; answers a
scripted conversation (errors to retry, a cancel, escapes and unicode, a line of 64 KiB) line
by line and exits 0 on ``bye``; and comes back after a lost connection.  A starter whose
toolchain is not installed is skipped, with the missing tool named."""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from arena.cli import main
from arena.games import GAMES as REGISTRY
from protocol.limits import MAX_LINE_BYTES
from tests.built_once import built_once
from tests.edge.test_reconnection import ROSTER, TOKENS, cutting_proxy, log_records
from tests.helpers import connect_in_memory, make_server

ROOT = Path(__file__).resolve().parents[2]
STARTERS = ROOT / "reference_bots" / "starters"
#: Short games: each registered game's options for a series that takes a second or so.
GAMES = {name: [word for option, value in spec.short_game.items()
                for word in (f"--{option.replace('_', '-')}", str(value))]
         for name, spec in REGISTRY.items()}
#: The columns of ``arena match``'s result table (arena.launch.runner.MatchReport.table).
COLUMNS = ("bot", "games", "wins", "win%", "avg score", "avg rank", "defaults", "errors",
           "status")
SUBPROCESS_TIMEOUT = 120  # seconds: a build or a short series, on a busy machine


def _require(tool: str, what: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (not on PATH): the {what} is not tested")
    return path


@pytest.fixture(scope="module", params=["javascript", "rust"])
def starter_command(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> str:
    """The command that runs the starter bot (built once per test run for Rust)."""
    if request.param == "javascript":
        node = _require("node", "JavaScript starter bot (Node.js)")
        return shlex.join([node, str(STARTERS / "starter_bot.js")])
    rustc = _require("rustc", "Rust starter bot")

    def build(folder: Path) -> None:
        done = subprocess.run([rustc, "-O", str(STARTERS / "starter_bot.rs"), "-o",
                               str(folder / "starter_bot")],
                              capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
        assert done.returncode == 0, done.stderr

    return shlex.join([str(built_once(tmp_path_factory, "rust-starter", build) / "starter_bot")])


def result_row(table: str, bot: str) -> dict[str, str]:
    """The result table's row of ``bot``, by column."""
    for line in table.splitlines():
        if line.split(maxsplit=1)[:1] == [bot]:
            return dict(zip(COLUMNS, line.split(maxsplit=len(COLUMNS) - 1)))
    raise AssertionError(f"no row for {bot!r} in:\n{table}")


def play_series(command: str, game: str, tmp_path: Path, *extra: str,
                process: bool = False) -> dict[str, str]:
    """Two games of ``game`` between the starter bot and two random bots; its result row.
    ``arena match`` runs in this process (the bots in theirs), or with ``process`` as a user
    runs it: in a process of its own."""
    args = ["match", "--game", game, *GAMES[game],
            "--bot", f"starter={command}", "--bot", "random", "--bot", "random",
            "--games", "2", "--log-dir", str(tmp_path / "logs"), *extra]
    if not process:
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 0, (done.output, repr(done.exception))
        return result_row(done.output, "starter")
    ran = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                         text=True, cwd=ROOT, timeout=SUBPROCESS_TIMEOUT)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return result_row(ran.stdout, "starter")


@pytest.mark.parametrize("game", GAMES)
def test_the_starter_plays_a_series_of_every_game_over_tcp(starter_command: str, game: str,
                                                           tmp_path: Path) -> None:
    row = play_series(starter_command, game, tmp_path)
    assert (row["games"], row["defaults"], row["errors"], row["status"]) == ("2", "0", "0", "ok")


def test_the_starter_plays_a_series_over_stdio(starter_command: str, tmp_path: Path) -> None:
    row = play_series(starter_command, "vollewolle", tmp_path, "--stdio", process=True)
    assert (row["games"], row["defaults"], row["errors"], row["status"]) == ("2", "0", "0", "ok")


# ---- a scripted conversation over stdio ---------------------------------------------------

#: An action token with every kind of character a JSON string can carry.
TRICKY = 'say "hi" \\ / \t\n é ü 漢 😀 \u0001 end'


def line(message: dict[str, Any], *, ascii_only: bool = False, end: str = "\n") -> bytes:
    """One protocol line; ``ascii_only`` writes every non-ASCII character as a \\u escape (an
    emoji as a surrogate pair), as a server written in another language might."""
    return (json.dumps(message, ensure_ascii=ascii_only, separators=(",", ":"))
            + end).encode("utf-8")


def long_event() -> dict[str, Any]:
    """An event whose line is exactly the longest the protocol allows."""
    event: dict[str, Any] = {"type": "event", "kind": "note", "data": {"text": ""}}
    event["data"]["text"] = "ü" * ((MAX_LINE_BYTES - len(line(event)) + 1) // 2)
    if len(line(event)) - 1 < MAX_LINE_BYTES:
        event["data"]["text"] += "x"
    assert len(line(event)) - 1 == MAX_LINE_BYTES
    return event


def scripted_server_lines() -> bytes:
    request = {"type": "request", "id": 7, "legal": [TRICKY, "pass"], "time_left_ms": 5000,
               "observation": {"seat": 0, "phase": "play", "note": TRICKY, "hand": [5, 17],
                               "odd": [-1.5e3, 0.25, True, False, None, {}, [[]]]}}
    return b"".join([
        line({"type": "welcome", "protocol": 1, "server": "arena", "game": "chochlik",
              "players": 3, "limits": {"max_line_bytes": MAX_LINE_BYTES, "max_tries": 3,
                                       "reconnect_grace_ms": 30000}}, end="\r\n"),
        b"\n",  # a blank line is skipped
        line({"type": "game_start", "game_id": "g-1", "table": 1, "game": "chochlik",
              "seat": 0, "names": ["élève", 'b\\"o', "😀"], "options": {"players": 3},
              "info": {"cards": [{"card": 1, "colour": "yellow", "coins": 1}]}},
             ascii_only=True),
        line(long_event()),
        line({**request, "legal": [TRICKY]}, ascii_only=True),  # answered: TRICKY
        line({"type": "error", "code": "illegal_action", "message": "not legal", "fatal": False,
              "id": 7, "legal": ["play é"], "tries_left": 2}),  # answered: play é
        line({"type": "error", "code": "wrong_request_id", "message": "no such request",
              "fatal": False, "id": 7, "tries_left": 1}),  # answered from the request: TRICKY
        line({"type": "error", "code": "stale_request", "message": "closed", "fatal": False,
              "id": 3}),  # nothing to answer
        line({"type": "cancel", "id": 7, "reason": "timeout", "played": TRICKY}),
        line({"type": "error", "code": "illegal_action", "message": "late", "fatal": False,
              "id": 7, "legal": ["never"], "tries_left": 1}),  # cancelled: nothing to answer
        line({"type": "event", "kind": "card_played", "data": {"seat": 1, "card": 13}}),
        line({**request, "id": 8, "legal": ["only"]}),  # answered: only
        line({"type": "game_end", "game_id": "g-1", "scores": [1, 2, 3], "ranks": [3, 2, 1],
              "winners": [2], "reveal": {}}),
        line({"type": "bye", "reason": "series_over", "message": "thank you"}),
    ])


def stdio_environment(**extra: str) -> dict[str, str]:
    """This process's environment without its ARENA_* variables, with ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return {**env, "ARENA_TRANSPORT": "stdio", **extra}


def test_the_starter_answers_a_scripted_conversation_and_exits_on_bye(
        starter_command: str) -> None:
    env = stdio_environment(ARENA_NAME="scripted é")
    done = subprocess.run(shlex.split(starter_command), input=scripted_server_lines(),
                          capture_output=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    sent = [json.loads(text) for text in done.stdout.decode("utf-8").splitlines()]
    hello, *actions = sent
    assert hello["type"] == "hello" and hello["name"] == "scripted é"
    assert hello.get("token") is None and hello.get("protocol") in (None, 1)
    assert [(a["type"], a["id"], a["action"]) for a in actions] == [
        ("action", 7, TRICKY), ("action", 7, "play é"), ("action", 7, TRICKY),
        ("action", 8, "only")]


def test_the_starter_exits_1_when_the_server_ends_without_bye(starter_command: str) -> None:
    env = stdio_environment()
    welcome = line({"type": "welcome", "protocol": 1, "server": "arena", "game": "chochlik",
                    "players": 3, "limits": {}})
    done = subprocess.run(shlex.split(starter_command), input=welcome, capture_output=True,
                          env=env, timeout=30)
    assert done.returncode == 1
    assert b"without bye" in done.stderr


# ---- reconnection over TCP ----------------------------------------------------------------

async def test_the_starter_comes_back_after_a_lost_connection(starter_command: str,
                                                               nursery: trio.Nursery,
                                                               tmp_path: Path) -> None:
    """A proxy cuts the bot's first connection after 3 requests; it comes back with its token
    and answers every request of the game itself."""
    server = make_server(tmp_path, roster=ROSTER)
    port = await nursery.start(server.serve)
    proxy = await cutting_proxy(nursery, port, cut_after_requests=3)
    token_file = tmp_path / "token"
    token_file.write_text(TOKENS[1])
    bot = await trio.lowlevel.open_process(
        [*shlex.split(starter_command), "--port", str(proxy), "--name", "bot1",
         "--token-file", str(token_file)], stderr=subprocess.PIPE)
    others = [await connect_in_memory(nursery, server) for _ in range(2)]
    for client, i in zip(others, (0, 2)):
        await client.hello(f"bot{i}", token=TOKENS[i])
    ends: list[dict[str, Any]] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as table:
            for i, client in enumerate(others):
                async def play(client: Any = client, i: int = i) -> None:
                    ends.append(await client.play_randomly(random.Random(i)))
                table.start_soon(play)
        await server.shutdown()
        assert await bot.wait() == 0  # the server said bye
    assert len(ends) == 2 and not ends[0].get("aborted")
    records = log_records(tmp_path)
    seat = records[0]["names"].index("bot1")
    assert [r["what"] for r in records if r["type"] == "note" and r["seat"] == seat] == [
        "connection lost", "reconnected"]
    mine = [r for r in records if r["type"] == "action" and r["seat"] == seat]
    assert mine and all(r["by"] == "bot" for r in mine)  # it answered everything itself
    assert bot.stderr is not None
    assert b"coming back" in await bot.stderr.receive_some(65536)


def test_a_starter_comes_back_when_its_ladder_restarts(starter_command: str, tmp_path: Path):
    """``bye`` ``server_restart``: the starter connects again, with growing pauses, and is
    seated again on the new server, its process never ended (issue 30)."""
    from tests.cli.test_bots_command import add
    from tests.cli.test_ladder_restart import BACK_WITHIN, free_port, seated_all
    from tests.serve_harness import Served

    db = tmp_path / "ladder.db"
    tokens = {name: add(db, name) for name in ("starter", "bea", "cid")}
    token_file = tmp_path / "starter.token"
    token_file.write_text(tokens["starter"])
    port = free_port()
    game = ("--game", "chochlik", "--hands", "1", "--db", str(db), "--port", str(port))
    bots: list[subprocess.Popen[bytes]] = []
    try:
        with Served(tmp_path, *game, "--quiet", verbose=True) as served:
            bots.append(subprocess.Popen(
                [*shlex.split(starter_command), "--port", str(port), "--name", "starter",
                 "--token-file", str(token_file)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            for name in ("bea", "cid"):
                bots.append(subprocess.Popen(
                    [sys.executable, "-m", "reference_bots.random", "--port", str(port),
                     "--name", name, "--token", tokens[name]],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            seated_all(served, {"starter"})
            assert served.interrupt() == 0
        assert bots[0].poll() is None, "the starter ended at the restart's bye"
        with Served(tmp_path, *game, "--quiet", verbose=True) as again:
            took = seated_all(again, {"starter"})
            assert took < BACK_WITHIN
            assert bots[0].poll() is None
            assert again.interrupt() == 0
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
            bot.wait(timeout=SUBPROCESS_TIMEOUT)
