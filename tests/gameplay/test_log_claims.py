"""``arena replay`` checks what a log can prove of its names, ``by`` and ``ms`` (SPEC §7): a
played log with every kind of default reproduces, and each checkable forgery of it makes
``arena replay`` exit 1 with a line naming the log line and what is wrong."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.gameplay.driver import MatchDriver
from arena.gameplay.gamelog import log_lines
from arena.games import get_game


def played_records(tmp_path: Path) -> list[dict]:
    """A real game of chochlik in which seat 0 answers, seat 1 sometimes times out and once
    runs out of tries, and seat 2's bot leaves half way: every kind of default."""
    spec = get_game("chochlik")
    driver = MatchDriver(spec, spec.parse_options({"hands": 2}), "claims", ["ann", "bob", "cy"],
                         game_id="claims", table=1, move_timeout=5, reaction_timeout=1)
    now = 0.0
    driver.start(now)
    rng = random.Random(3)
    turns = 0
    tried = False
    while not driver.finished:
        seat, request = next(iter(sorted(driver.open.items())))
        turns += 1
        if turns == 30:
            driver.disconnect(2, now)
        elif seat == 1 and turns % 7 == 0:
            now += 6  # past both limits: the server plays seat 1's default
            driver.expire(now)
        elif seat == 1 and turns > 10 and not tried:
            tried = True
            for _ in range(3):  # three illegal answers: too many tries
                if seat in driver.open:
                    driver.answer(seat, driver.open[seat].id, "no such move", now)
        else:
            now += 0.05
            driver.answer(seat, request.id, rng.choice(request.legal), now)
    path = driver.log.write(tmp_path)
    return [json.loads(line) for line in log_lines(path)]


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> list[dict]:
    return played_records(tmp_path_factory.mktemp("claims"))


def replay(tmp_path: Path, records: list[dict], name: str = "log") -> tuple[int, str]:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = CliRunner().invoke(main, ["replay", str(path)])
    return result.exit_code, result.output


def first(records: list[dict], **match) -> int:
    return next(i for i, r in enumerate(records)
                if all(r.get(k) == v for k, v in match.items()))


def changed(records: list[dict], index: int, **fields) -> list[dict]:
    forged = [dict(r) for r in records]
    forged[index].update(fields)
    return forged


def another_choice(records: list[dict], index: int) -> str | None:
    """A legal action other than the one logged at ``index`` (from its request), if any."""
    action = records[index]
    request = next((r for r in records[:index][::-1] if r["type"] == "request"
                    and r["seat"] == action["seat"] and r["id"] == action["id"]), None)
    if request is None:
        return None
    return next((a for a in request["legal"] if a != action["action"]), None)


def test_the_played_log_has_every_kind_of_default_and_reproduces(tmp_path, records):
    reasons = {r.get("reason") for r in records if r["type"] == "action"}
    assert {"timeout", "too_many_tries", "disconnected"} <= reasons
    code, out = replay(tmp_path, records)
    assert code == 0 and "reproduces" in out, out


def forgeries(records: list[dict]) -> dict[str, tuple[list[dict], int | None, str]]:
    """Each checkable forgery: the forged log, the line it shows on, and words of the reason."""
    header = records[0]
    timeout = first(records, type="action", reason="timeout")
    tries = first(records, type="action", reason="too_many_tries")
    gone = first(records, type="action", reason="disconnected")
    bot = first(records, type="action", by="bot", seat=0)
    bot_after_gone = next(i for i, r in enumerate(records) if i > gone
                          and r["type"] == "action" and r["seat"] == 2)
    seat_1_bot = first(records, type="action", by="bot", seat=1)
    other = another_choice(records, bot)
    forged = {
        "one name too few": ([dict(header, names=["ann", "bob"])] + records[1:], 1, "3 seats"),
        "a name that is no text": ([dict(header, names=["ann", 7, "cy"])] + records[1:], 1,
                                   "printable"),
        "by somebody else": (changed(records, bot, by="referee"), bot + 1, "by 'referee'"),
        "a negative time": (changed(records, bot, ms=-5), bot + 1, "milliseconds"),
        "a time that is no number": (changed(records, bot, ms="fast"), bot + 1, "milliseconds"),
        "a timeout within the limit": (changed(records, timeout, ms=4999), timeout + 1,
                                       "within the move_timeout"),
        "a timeout of the wrong limit": (changed(records, timeout, limit="reaction_timeout"),
                                         timeout + 1, "this decision's limit"),
        "a time bank the game lacks": (changed(records, timeout, limit="time_bank"),
                                       timeout + 1, "without one"),
        "too many tries without errors": (
            [r for r in records if r["type"] != "error"], None, "logged error"),
        "disconnected without a note": (
            [r for r in records if r.get("what") != "disconnected"], None, "disconnected"),
        "an unknown reason": (changed(records, tries, reason="tired"), tries + 1, "'tired'"),
        "a bot answering after it left": (
            changed(records, bot_after_gone, by="bot", reason=None), bot_after_gone + 1,
            "disconnected"),
        "a bot answer without a request": (changed(records, seat_1_bot, id=None),
                                           seat_1_bot + 1, "no request"),
    }
    if other is not None:  # a bot's own choice passed off as the server's default
        forged["a bot's choice relabelled as a timeout"] = (
            changed(records, bot, by="default", reason="timeout", limit="move_timeout",
                    ms=5000), bot + 1, "default is")
    return forged


def test_every_checkable_forgery_makes_replay_exit_1_with_a_clear_line(tmp_path, records):
    for name, (forged, line, words) in forgeries(records).items():
        code, out = replay(tmp_path, forged, name.replace(" ", "-").replace("'", ""))
        assert code == 1, (name, out)
        assert "does NOT reproduce" in out and words in out, (name, out)
        if line is not None:
            assert f"line {line}:" in out, (name, out)
        assert "Traceback" not in out and len(out.strip().splitlines()) == 1, (name, out)
