"""Game logs are never lost quietly: an unwritable log folder stops a server from starting, a
write that fails leaves no half log and is retried, and the runners say so."""

from __future__ import annotations

import errno
import json
import random

import pytest
import trio
from click.testing import CliRunner

from arena.cli import main
from arena.gameplay.gamelog import (
    SPOOL_LINES,
    GameLog,
    LogDirectoryError,
    ensure_writable,
    log_lines,
)
from tests.helpers import half_writes, in_memory_clients, make_server

#: Lines a test writes before the disk fails, and again after: one whole batch goes first.
HALF = SPOOL_LINES + SPOOL_LINES // 2


def full_disk(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def a_log(*, compress: bool = True) -> GameLog:
    return GameLog.begin(game="chochlik", game_id="g1", table=1, seed="s", names=["a"],
                         options={}, move_timeout_ms=5000, started_at="", compress=compress)


def test_an_unwritable_log_folder_is_refused_up_front(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(LogDirectoryError, match="cannot write game logs"):
        ensure_writable(blocker)
    ensure_writable(tmp_path / "new" / "logs")  # created when missing
    assert not list((tmp_path / "new" / "logs").iterdir())  # the probe is gone


def test_a_failed_write_leaves_no_half_log_and_is_finished_later(tmp_path, monkeypatch):
    log = a_log()
    log.note(0, "x")
    monkeypatch.setattr("os.replace", full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        log.write(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["chochlik-g1.jsonl.gz.part"]  # no log yet
    monkeypatch.undo()
    path = log.write(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["chochlik-g1.jsonl.gz"]
    assert [json.loads(line)["type"] for line in log_lines(path)] == [
        "header", "note"]


def test_a_long_game_log_waits_on_disk_not_in_memory(tmp_path):
    log = a_log()
    log.spool_to(tmp_path)
    for number in range(1000):
        log.note(0, f"note {number}")
    part = tmp_path / "chochlik-g1.jsonl.gz.part"
    assert part.exists() and len(log._lines) < SPOOL_LINES  # what is in flight only
    assert len(log.records) == 1001  # and read back whole
    path = log.write(tmp_path)
    assert not part.exists()
    notes = [json.loads(line) for line in log_lines(path)][1:]
    assert [n["what"] for n in notes] == [f"note {number}" for number in range(1000)]


def test_lines_the_disk_refused_mid_game_are_kept_and_the_log_stays_whole(tmp_path,
                                                                          monkeypatch):
    log = a_log(compress=False)  # compressed: tests/gameplay/test_log_compression.py
    log.spool_to(tmp_path)
    for number in range(HALF):
        log.note(0, f"note {number}")
    half_writes(monkeypatch)
    for number in range(HALF, 2 * HALF):
        log.note(0, f"note {number}")  # spooling fails: the lines stay in memory
    monkeypatch.undo()
    path = log.write(tmp_path)
    notes = [json.loads(line) for line in path.read_text().splitlines()][1:]
    assert [n["what"] for n in notes] == [f"note {number}" for number in range(2 * HALF)]


async def test_a_server_will_not_start_without_a_writable_log_folder(tmp_path):
    (tmp_path / "logs").write_text("a file where the folder should be")
    server = make_server(tmp_path)
    with pytest.raises(LogDirectoryError):
        await server.serve(False)


async def test_a_log_the_disk_refused_is_kept_and_written_later(nursery, tmp_path,
                                                                 monkeypatch):
    server = make_server(tmp_path)
    await nursery.start(server.serve, False)
    monkeypatch.setattr(GameLog, "write", full_disk)
    clients = await in_memory_clients(nursery, server, 3)
    rng = random.Random(1)
    async with trio.open_nursery() as players:
        for client in clients:
            players.start_soon(client.play_randomly, rng)
    (record,) = server.records
    assert record.log_path is None and len(server.unwritten_logs) == 1
    monkeypatch.undo()  # space again
    written = server.write_logs()
    assert len(written) == 1 and not server.unwritten_logs
    assert [p.name for p in (tmp_path / "logs").iterdir()] == [
        f"chochlik-{record.game_id}.jsonl.gz"]


def test_arena_match_with_an_unwritable_log_folder_fails_with_a_message(tmp_path):
    blocker = tmp_path / "logs"
    blocker.write_text("x")  # the folder would have to be inside a file
    result = CliRunner().invoke(main, ["match", "--game", "chochlik", "--bot", "random",
                                       "--bot", "random", "--bot", "random", "--games", "1",
                                       "--log-dir", str(blocker / "games")])
    assert result.exit_code == 1 and "cannot write game logs" in result.output


def _played_log(tmp_path):
    from arena.gameplay.driver import MatchDriver
    from arena.games import get_game

    spec = get_game("chochlik")
    driver = MatchDriver(spec, spec.parse_options({"hands": 1}), "audit", ["a", "b", "c"],
                         game_id="audit", table=1, move_timeout=5)
    driver.start(0.0)
    rng = random.Random(1)
    while not driver.finished:
        seat, request = next(iter(driver.open.items()))
        driver.answer(seat, request.id, rng.choice(request.legal), 0.1)
    return driver.log.write(tmp_path)


def test_replay_checks_every_offered_list_and_observation_digest(tmp_path):
    import json

    from arena.gameplay.replay import ReplayError, replay_log

    path = _played_log(tmp_path)
    assert replay_log(path).startswith("scores")
    records = [json.loads(line) for line in log_lines(path)]
    requests = [i for i, r in enumerate(records) if r["type"] == "request"]
    assert requests
    for field, change in (("legal", lambda r: r["legal"][:-1] or ["imp 99"]),
                          ("observation", lambda r: "0" * 16)):
        tampered = [dict(r) for r in records]
        index = requests[len(requests) // 2]
        tampered[index][field] = change(tampered[index])
        bad = tmp_path / f"tampered-{field}.jsonl"
        bad.write_text("".join(json.dumps(r) + "\n" for r in tampered))
        with pytest.raises(ReplayError, match=f"line {index + 1}"):
            replay_log(bad)


def test_replay_requires_every_answered_request_in_the_audit_trail(tmp_path):
    import json

    from arena.gameplay.replay import ReplayError, replay_log

    path = _played_log(tmp_path)
    records = [json.loads(line) for line in log_lines(path)]
    forgeries = {
        "no requests": [r for r in records if r["type"] != "request"],
        "other ids": [dict(r, id=999999) if r["type"] == "action" else r for r in records],
        "no seat": [{k: v for k, v in r.items() if k != "seat"} if r["type"] == "action"
                    else r for r in records],
    }
    for name, forged in forgeries.items():
        bad = tmp_path / f"{name.replace(' ', '-')}.jsonl"
        bad.write_text("".join(json.dumps(r) + "\n" for r in forged))
        with pytest.raises(ReplayError):
            replay_log(bad)


def test_records_written_as_text_read_back_as_the_values_given():
    from arena.games.base import GameEvent

    log = a_log()
    odd = 'play "7" Żółw \\ \n'
    log.request(2, 9, ("a", odd), "0123456789abcdef")
    log.action(2, odd, 9, 12, by="bot", decision="pass", bank_ms=0)
    log.action(1, "x", None, 0, by="default", reason="timeout", limit="move_timeout")
    log.event(GameEvent("dealt", {"hand": [1, 2], "note": odd}, frozenset({2, 0})))
    assert log.records[1:] == [
        {"type": "request", "seat": 2, "id": 9, "legal": ["a", odd],
         "observation": "0123456789abcdef"},
        {"type": "action", "seat": 2, "action": odd, "id": 9, "ms": 12, "by": "bot",
         "decision": "pass", "bank_ms": 0},
        {"type": "action", "seat": 1, "action": "x", "id": None, "ms": 0, "by": "default",
         "reason": "timeout", "limit": "move_timeout"},
        {"type": "event", "kind": "dealt", "data": {"hand": [1, 2], "note": odd}, "to": [0, 2]},
    ]


def test_a_bots_answer_is_logged_as_the_general_action_line_would_be():
    """``bot_action`` (the driver's line at every decision) writes what ``action(by="bot")``
    writes, byte for byte, with or without a decision and a time bank."""
    odd = 'play "7" Żółw \\ \n'
    for decision in (None, "pass", odd, 3):
        for bank_ms in (None, 0, 1500):
            general, fast = a_log(), a_log()
            general.action(1, odd, 7, 42, by="bot", decision=decision, bank_ms=bank_ms)
            fast.bot_action(1, odd, 7, 42, decision, bank_ms)
            assert fast._lines[1:] == general._lines[1:], (decision, bank_ms)


async def test_every_finished_log_is_synced_to_disk_by_the_time_the_server_stops(tmp_path,
                                                                                 monkeypatch):
    import arena.edge.logwriter as server_module

    synced: list = []
    real = server_module.sync_logs
    monkeypatch.setattr(server_module, "sync_logs", lambda paths: (synced.extend(paths),
                                                                    real(paths)))
    server = make_server(tmp_path)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve, False)
        clients = await in_memory_clients(nursery, server, 3)
        rng = random.Random(1)
        async with trio.open_nursery() as players:
            for client in clients:
                players.start_soon(client.play_randomly, rng)
        (record,) = server.records
        assert record.log_path.exists()  # written (and renamed) at once
        await server.shutdown()
    assert record.log_path in synced
