"""A hosted version's validation series looks to the bot exactly as a ladder's game does: the
environment the ladder gives it, the welcome ``arena serve`` sends, field by field, the bot's
own registered name and opponents named as participants are, game ids as a server's, no
scripted refusal of a legal action, and a secret seed of its own each time; a bot that would
play badly against the checker, had it recognised it, cannot."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import attrs
import trio

from arena.cli.commands import serve
from arena.edge.server import ArenaServer, ServerConfig
from arena.events.hosted_store import SqliteHosted
from arena.events.registry import Registry
from arena.games import GAMES
from arena.kit import hosted
from arena.kit.check_bot import BOT_OUTPUT, check_game
from arena.kit.check_findings import Outcome
from arena.launch.hosted_run import RunLimits, hosted_environment
from protocol.codec import encode
from tests.games.toy import SPEC as TOY

#: A bot that prints (to stderr: its log) what it sees of the series, and stops answering
#: once it recognises check-bot.
SUSPICIOUS = r'''
import json, os, sys
print("ENV " + json.dumps(dict(os.environ)), file=sys.stderr, flush=True)
tell = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind in ("welcome", "game_start"):
        print("SEEN " + json.dumps(message), file=sys.stderr, flush=True)
    if kind == "welcome":
        tell = tell or "check" in message["server"]
        print(json.dumps({"type": "hello", "name": "alice", "protocol": 1}), flush=True)
    elif kind == "game_start":
        tell = tell or "check" in message["game_id"] or any(
            name.startswith("checker") or name == "bot" for name in message["names"])
    elif kind == "error":
        tell = tell or "check-bot" in (message.get("message") or "")
    elif kind == "request" and not tell:
        print(json.dumps({"type": "action", "id": message["id"],
                          "action": message["legal"][0]}), flush=True)
    elif kind == "bye":
        break
'''


def serve_welcome(move_timeout: float) -> dict[str, object]:
    """What ``arena serve --game toy --move-timeout T`` sends: a real server made with the
    serve command's own defaults."""
    defaults = {param.name: param.default for param in serve.params}
    spec = GAMES[TOY.name]
    fields = {field.name for field in attrs.fields(ServerConfig)}
    config = ServerConfig(spec=spec, options=spec.parse_options({}), **{
        name: value for name, value in defaults.items()
        if name in fields and name not in ("spec", "options", "log_dir", "transcript_dir",
                                           "seed", "move_timeout")},
        move_timeout=move_timeout)
    return json.loads(encode(ArenaServer(config).welcome()))


def test_a_validation_is_a_ladder_game_to_the_bot(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "bots.db"
    with Registry(db) as registry:
        for name in ("alice", "Zed", "mika", "Orso"):
            registry.add(name)
    bot = tmp_path / "bot.py"
    bot.write_text(SUSPICIOUS)
    settings = hosted.HostedSettings(game=TOY.name, builds=tmp_path / "builds",
                                     run=RunLimits(move_timeout=1.0))
    with SqliteHosted(db) as store:
        version = store.submit("alice", "python", b"src", "s1")
        series = [hosted.validation_series(store, version, settings) for _ in range(2)]
    assert series[0].seed != series[1].seed
    assert "validation" not in (series[0].seed, series[1].seed)

    kept = tmp_path / "kept"
    results = trio.run(lambda: check_game(shlex.join([sys.executable, str(bot)]), series[0],
                                          stdio=True, keep_in=kept))
    assert [r for r in results if r.outcome is Outcome.FAIL] == []
    output = (kept / BOT_OUTPUT).read_text()
    [environment] = [json.loads(line.removeprefix("ENV ")) for line in output.splitlines()
                     if line.startswith("ENV ")]
    environment.pop("LC_CTYPE", None)  # Python's own, in a process started with no locale
    assert environment == hosted_environment("alice")  # the ladder's (the pool's) own
    seen = [json.loads(line.removeprefix("SEEN "))
            for line in (kept / BOT_OUTPUT).read_text().splitlines()
            if line.startswith("SEEN ")]
    welcome, starts = seen[0], seen[1:]
    expected = serve_welcome(1.0)
    assert welcome.keys() == expected.keys()
    for key in expected:
        assert welcome[key] == expected[key], key
    assert len(starts) == series[0].games
    for start in starts:
        names = start["names"]
        assert names[start["seat"]] == "alice"
        assert set(names) - {"alice"} <= {"Zed", "mika", "Orso"}
        assert len(set(names)) == len(names)
        run, _, table = start["game_id"].rpartition("-t")
        assert table == str(start["table"]) and run.count("-") == 2
        assert start["options"] == TOY.options_to_dict(TOY.parse_options({}))
