"""A server compresses and spools its running games' logs in a worker thread
(``arena.edge.logwriter.log_spooler``), off the event loop: the log files must come out byte for
byte as when the game's own thread writes them, batch for batch (the ``.part`` file too), and a
batch the disk refuses must still leave the log whole."""

from __future__ import annotations

import errno
import os

import pytest

import arena.gameplay.gamelog as gamelog
from arena.edge.logwriter import log_spooler
from arena.gameplay.driver import MatchDriver
from arena.gameplay.gamelog import read_log
from arena.games import GAMES

#: Lines per batch in these tests: a short game (282 lines) then spools several batches.
BATCH = 64


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch):
    monkeypatch.setattr(gamelog, "SPOOL_LINES", BATCH)


def play(folder, *, spooler, compress, refuse_at=None):
    """One seeded chochlik game, first legal actions at fixed times; returns the driver and
    the ``.part`` bytes seen after each spooled batch (read through ``records``' wait)."""
    spec = GAMES["chochlik"]
    options = spec.parse_options({"players": 3, "hands": 2})  # a short game: 5 batches
    driver = MatchDriver(spec, options, "spool-seed", ["a", "b", "c"], game_id="g1", table=1,
                         move_timeout=10.0, started_at="now")
    driver.log.spool_to(folder, compress=compress, spooler=spooler)
    driver.start(0.0)
    now, parts, decisions = 0.0, [], 0
    while not driver.finished:
        seat, request = min(driver.open.items())
        now += 0.001
        driver.answer(seat, request.id, request.legal[0], now)
        decisions += 1
        if decisions % 40 == 0:
            driver.log.records  # noqa: B018 (waits for the spooler, as a late spectator does)
            part = folder / (driver.log.name + ".part")
            parts.append(part.read_bytes() if part.exists() else b"")
        if refuse_at is not None and decisions == refuse_at[0]:
            refuse_at[1]()
    return driver, parts


@pytest.mark.parametrize("compress", [True, False])
def test_logs_spooled_in_the_worker_are_the_same_bytes(tmp_path, compress):
    inline, spooled = tmp_path / "inline", tmp_path / "spooled"
    first, first_parts = play(inline, spooler=None, compress=compress)
    second, second_parts = play(spooled, spooler=log_spooler(), compress=compress)
    assert len(first.log.records) > 3 * BATCH  # several batches went through the worker
    assert first_parts == second_parts and any(first_parts)
    a, b = first.log.write(), second.log.write()
    assert a.read_bytes() == b.read_bytes()
    assert read_log(b)[-1]["type"] == "result"


def test_a_batch_the_disk_refuses_in_the_worker_is_kept_and_written_later(tmp_path, monkeypatch):
    """The worker meets a full disk: the batch stays in memory, the ``.part`` file never
    holds half of it, and the finished log is whole and the same as one never refused."""
    full = [True]
    real_open = os.open

    def opening(path, *args, **kwargs):
        if full[0] and str(path).endswith(".part"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(gamelog.os, "open", opening)
        refused, _ = play(tmp_path / "refused", spooler=log_spooler(), compress=True,
                          refuse_at=(30, lambda: full.__setitem__(0, False)))
    clean, _ = play(tmp_path / "clean", spooler=None, compress=True)
    assert refused.log.write().read_bytes() == clean.log.write().read_bytes()


def test_a_batch_the_worker_fails_on_leaves_no_log_with_a_hole(tmp_path, monkeypatch):
    """A bug in the worker (not a full disk) loses a batch: the log is then never written
    (the server reports it as unwritten), rather than written without those lines."""
    spec = GAMES["chochlik"]
    options = spec.parse_options({"players": 3, "hands": 2})  # a short game: 5 batches
    driver = MatchDriver(spec, options, "spool-seed", ["a", "b", "c"], game_id="g1", table=1,
                         move_timeout=10.0, started_at="now")
    driver.log.spool_to(tmp_path, spooler=log_spooler())
    failing = [True]
    compress = driver.log._compress

    def broken(lines, **kwargs):
        if failing[0]:
            failing[0] = False
            raise RuntimeError("a bug")
        compress(lines, **kwargs)

    monkeypatch.setattr(driver.log, "_compress", broken)
    driver.start(0.0)
    while not driver.finished:
        seat, request = min(driver.open.items())
        driver.answer(seat, request.id, request.legal[0], 1.0)
    with pytest.raises(RuntimeError, match="a bug"):
        driver.log.write()
    assert not any(path.name.endswith(".jsonl.gz") for path in tmp_path.iterdir())
